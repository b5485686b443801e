"""``neardup crawl``: kill -9 mid-crawl and run again; exit codes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from crawl._helpers import doc_ids
from fake_library import serve_library
from neardup.cli.main import app
from neardup.crawl import CrawlQueue, CrawlSettings
from neardup.errors import CollectionNotFound
from neardup.store import Store

NEARDUP = [sys.executable, "-c", "from neardup.cli.main import run; run()"]
WAIT_S = 120.0


def documents(db: str, name: str) -> int:
    with Store(db) as store:
        try:
            return int(store.stats(name)["documents"])
        except CollectionNotFound:
            return 0


@pytest.mark.slow
def test_kill_9_mid_crawl_resumes_without_refetching(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'crawl.db'}"
    with serve_library(n_articles=90) as site:
        args = [*NEARDUP, "crawl", site.base_url, "--clarification", "post"]
        args += ["--collection", "lib", "--db", db, "--allow-private", "--retries", "1"]
        proc = subprocess.Popen([*args, "--delay", "0.02", "--quiet"], env={**os.environ})
        deadline = time.monotonic() + WAIT_S
        try:
            while documents(db, "lib") < 25:
                assert proc.poll() is None, "the crawl ended before it could be killed"
                assert time.monotonic() < deadline, "no progress"
                time.sleep(0.05)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=60)
        assert proc.returncode == -signal.SIGKILL

        mark = len(site.requests())
        with Store(db) as store:
            queue = CrawlQueue(store, CrawlSettings(allow_private=True))
            (lib,) = queue.libraries()
            assert lib.stage == "in work"  # the killed run left it running
            finished = {p.url for p in queue.pages(lib.id, "collected") if p.document}
            stored_before = set(doc_ids(store, "lib"))
            queue.close()
        assert len(finished) >= 20
        assert finished <= stored_before  # a page is collected only after its document

        done = subprocess.run(
            [*args, "--delay", "0", "--json"], capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["stage"] == "done"
        assert report["pattern"] == site.pattern
        assert [p["url"] for p in report["failed_pages"]] == [site.broken_url]

        after = Counter(site.requests()[mark:])
        refetched = [u for u in finished if after[u.removeprefix(site.base_url)]]
        assert refetched == []  # nothing finished before the kill was fetched again
        with Store(db) as store:
            ids = doc_ids(store, "lib")
            queue = CrawlQueue(store, CrawlSettings(allow_private=True))
            assert queue.pages(lib.id, "reserved") == []
            queue.close()
        assert sorted(ids) == sorted(site.articles)  # each article stored exactly once


def test_exit_codes(tmp_path: Path) -> None:
    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'codes.db'}"
    refused = runner.invoke(app, ["crawl", "http://10.0.0.1/", "-c", "post", "--db", db])
    assert refused.exit_code == 1
    assert "10.0.0.1 is a private address" in refused.output
    local = runner.invoke(app, ["crawl", "file:///etc/passwd", "-c", "post", "--db", db])
    assert local.exit_code == 1
    assert "scheme file:// is not allowed" in local.output
    bad = runner.invoke(app, ["crawl", "http://example.org/", "-c", "post", "--delay", "-1"])
    assert bad.exit_code == 2
    assert "delay=-1.0 is not allowed" in bad.output
    missing = runner.invoke(app, ["crawl", "http://example.org/", "--db", db])
    assert missing.exit_code == 2


@pytest.mark.slow
def test_crawl_command_reports(tmp_path: Path) -> None:
    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'small.db'}"
    with serve_library(n_articles=20, numbered=False) as site:
        args = ["crawl", site.base_url, "-c", "post", "--db", db, "--allow-private"]
        result = runner.invoke(app, [*args, "--delay", "0", "--retries", "0"])
        assert result.exit_code == 0, result.output
        assert "documents added" in result.output
        assert f"failed page {site.broken_url}: HTTP 500" in result.output
        # without retries the page that answers 503 once is lost (and reported)
        assert f"failed page {site.flaky_url}: HTTP 503 (1 attempt)" in result.output
        with Store(db) as store:
            name = site.base_url.removeprefix("http://").replace(":", "-")
            expected = set(site.articles) - {site.flaky_url}
            assert sorted(doc_ids(store, name)) == sorted(expected)


@pytest.mark.slow
def test_crawl_indexes_with_tf_ridf_unless_told_otherwise(tmp_path: Path) -> None:
    """Romanov 2019's service indexes a library with TF-RIDF signatures: so does
    ``neardup crawl`` without ``-m``; ``-m`` takes any method that can back a collection."""
    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'm.db'}"
    with serve_library(n_articles=12, numbered=False) as site:
        args = ["crawl", site.base_url, "-c", "post", "--db", db, "--allow-private"]
        args += ["--delay", "0", "--retries", "0"]
        result = runner.invoke(app, [*args, "--collection", "plain", "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert report["method"] == "tf-ridf"
        assert report["method_label"] == "TF-RIDF signature, Romanov 2019"
        result = runner.invoke(app, [*args, "--collection", "mega", "-m", "megashingles"])
        assert result.exit_code == 0, result.output
        shown = " ".join(result.output.split())
        assert "megashingles (mega-shingles, Fetterly et al. 2003" in shown
        refused = runner.invoke(app, [*args, "--collection", "x", "-m", "simhash"])
        assert refused.exit_code == 2 and "tf-ridf" in refused.output
        with Store(db) as store:
            assert store.collection("plain").method == "tf-ridf"
            assert store.collection("mega").method == "megashingles"


def test_a_loopback_url_is_refused_naming_allow_private(tmp_path: Path) -> None:
    # issue 41, item 15: "host 127.0.0.1 is a loopback address" and no word of the option;
    # and item 19: -t with the default method (TF-RIDF: equal signatures) warns
    db = f"sqlite:///{tmp_path / 'crawl.db'}"
    runner = CliRunner()
    for url in ("http://127.0.0.1:9/", "http://localhost:9/", "http://[::1]:9/"):
        res = runner.invoke(app, ["crawl", url, "-c", "post", "--db", db, "-q"])
        assert res.exit_code == 1, res.output
        message = " ".join(res.stderr.split())
        assert "loopback" in message and "--allow-private crawls private" in message, url
    res = runner.invoke(app, ["crawl", "ftp://example.org/", "-c", "post", "--db", db, "-t", "0.7"])
    assert res.exit_code == 1 and "--allow-private" not in res.stderr  # not an address
    assert "-t/--threshold 0.7 is not used: tf-ridf" in " ".join(res.stderr.split())
