"""SIGKILL ``neardup add``, ``dedup --out``, ``crawl`` and ``serve`` at seeded random points
(bounded).

24 kills in all (105 s at load 3 on 2 cores; 145 s before the add kills were timed); the
long run, ``tests/kill_harness.py``, does >= 100. After every kill and every completed run the
harness checks (:mod:`crash.harness`): no document lost or stored twice, every stored
document identical to a clean rebuild's (signature bytes, index rows, term statistics,
collection stats once complete), no orphan rows, no partial ``dedup`` output claimed
complete, and for ``crawl`` no finished article page without its document or fetched again.
"""

from __future__ import annotations

import random
import uuid
from pathlib import Path

import pytest

from crash.harness import (
    AddHarness,
    Counts,
    CrawlHarness,
    DedupHarness,
    ServeHarness,
    write_corpus,
)
from shared_data import data_path

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2000 Linux-doc revisions, texts cut to 1500 characters (bounded CI time)."""
    data_path("linux-doc-revisions", "docs.jsonl")
    return write_corpus(tmp_path_factory.mktemp("kill") / "docs.jsonl", docs=2000, max_chars=1500)


def _assert_clean(counts: Counts, kills: int) -> None:
    assert counts.kills >= kills, counts
    assert counts.completed >= 1, counts
    assert counts.ok(), counts.problems


@pytest.mark.parametrize(
    ("db", "method", "kills"), [("sqlite", "tf-ridf", 5), ("postgresql", "minhash-lsh", 4)]
)
def test_add_survives_kills(
    corpus: Path, tmp_path: Path, request: pytest.FixtureRequest, db: str, method: str, kills: int
) -> None:
    url = (
        f"sqlite:///{tmp_path / 'kill.db'}"
        if db == "sqlite"
        else request.getfixturevalue("pg_database")
    )
    harness = AddHarness(url, corpus, method, f"kill-{uuid.uuid4().hex[:8]}")
    _assert_clean(harness.run(kills, random.Random(11)), kills)


def test_dedup_out_survives_kills(corpus: Path, tmp_path: Path) -> None:
    harness = DedupHarness(corpus, tmp_path)
    _assert_clean(harness.run(5, random.Random(12)), 5)


def test_serve_survives_kills(corpus: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'serve.db'}"
    harness = ServeHarness(url, corpus, "minhash-lsh", f"kill-{uuid.uuid4().hex[:8]}")
    counts = harness.run(4, random.Random(13))
    _assert_clean(counts, 4)


@pytest.mark.parametrize(("db", "kills"), [("sqlite", 3), ("postgresql", 3)])
def test_crawl_survives_kills(
    tmp_path: Path, request: pytest.FixtureRequest, db: str, kills: int
) -> None:
    """A killed and resumed ``neardup crawl`` stores every article of the fake library
    exactly once and fetches no article page it had finished."""
    url = (
        f"sqlite:///{tmp_path / 'crawl.db'}"
        if db == "sqlite"
        else request.getfixturevalue("pg_database")
    )
    with CrawlHarness(url, "minhash-lsh", f"kill-{uuid.uuid4().hex[:8]}", per_round=3) as h:
        counts = h.run(kills, random.Random(14))
    assert counts.kills >= kills and counts.completed >= 1, counts
    assert counts.lost == 0 and counts.doubled == 0, counts.problems
    assert counts.ok(), counts.problems


def test_crawl_checks_see_damage(tmp_path: Path) -> None:
    """The crawl checker is not blind: a refetched finished page, a finished page whose
    document is gone, and a page left reserved are each reported."""
    import httpx
    from sqlalchemy import create_engine, text

    url = f"sqlite:///{tmp_path / 'crawl.db'}"
    with CrawlHarness(url, "minhash-lsh", "dmg", n_articles=30, delay=0.0) as h:
        h.check_complete("dmg-ref", "clean", {})
        assert h.counts.ok(), h.counts.problems
        first, second = sorted(h.site.articles)[:2]
        finished = {first: len(h.site.log.items())}
        httpx.get(first, timeout=30)
        h.check_complete("dmg-ref", "refetch", finished)
        assert h.counts.inconsistent == 1 and "fetched again" in h.counts.problems[-1]

        engine = create_engine(url)
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM nd_documents WHERE doc_id = :u"), {"u": first})
            conn.execute(
                text("UPDATE nd_crawl_pages SET status = 'reserved' WHERE url = :u"),
                {"u": second},
            )
        engine.dispose()
        h.counts = Counts("damaged")
        h.check_partial("dmg-ref", "partial", {})
        assert h.counts.lost == 1, h.counts
        assert "finished with a document that is not stored" in " ".join(h.counts.problems)
        h.check_complete("dmg-ref", "complete", {})
        assert h.counts.lost == 2, h.counts
        assert "pages left {'reserved': 1}" in " ".join(h.counts.problems)


def test_a_crawl_killed_after_storing_a_document_finishes_its_page(tmp_path: Path) -> None:
    """Regression: killed between ``Store.add`` of a page's document and the transaction
    that marks the page ``collected`` (the harness hits this window); the resumed crawl
    must finish the page and count the document."""
    from sqlalchemy import create_engine, text

    url = f"sqlite:///{tmp_path / 'crawl.db'}"
    with CrawlHarness(url, "minhash-lsh", "cut", n_articles=30, delay=0.0) as h:
        victim = sorted(h.site.articles)[5]
        engine = create_engine(url)
        with engine.begin() as conn:  # what such a kill leaves: page storing, document stored
            conn.execute(
                text(
                    "UPDATE nd_crawl_pages SET status = 'storing', document = false WHERE url = :u"
                ),
                {"u": victim},
            )
            conn.execute(
                text(
                    "UPDATE nd_crawl_libraries SET stage = 'in work', "
                    "documents_added = documents_added - 1, pages_fetched = pages_fetched - 1"
                )
            )
        engine.dispose()
        assert h._start("cut-ref").wait(timeout=300) == 0, h._err()
        h.check_complete("cut-ref", "resumed", {})
        assert h.counts.ok(), h.counts.problems


def test_the_checks_see_damage(tmp_path: Path) -> None:
    """The checker is not blind: a missing row, a lost document, a changed statistic and a
    cut output file are each reported."""
    from sqlalchemy import create_engine, text

    from crash.harness import check_complete, reference, snapshot

    small = write_corpus(tmp_path / "small.jsonl", docs=60, max_chars=1500)
    url = f"sqlite:///{tmp_path / 'damage.db'}"
    ref = reference(url, "ref", small, "tf-ridf")
    reference(url, "copy", small, "tf-ridf")
    clean = Counts("clean")
    check_complete(snapshot(url, "copy"), ref, True, clean, "copy")
    assert clean.ok(), clean.problems
    engine = create_engine(url)
    with engine.begin() as conn:
        c = {"c": conn.execute(text("SELECT id FROM nd_collections WHERE name = 'copy'")).scalar()}
        docs = "SELECT id FROM nd_documents WHERE collection_id = :c"
        conn.execute(text(f"DELETE FROM nd_shingles WHERE document_id = ({docs} LIMIT 1)"), c)
        conn.execute(
            text(
                "UPDATE nd_terms SET df = df + 1 WHERE id = "
                "(SELECT MIN(id) FROM nd_terms WHERE collection_id = :c)"
            ),
            c,
        )
        conn.execute(
            text(f"DELETE FROM nd_documents WHERE id = ({docs} ORDER BY id DESC LIMIT 1)"), c
        )
    engine.dispose()
    damaged = Counts("damaged")
    check_complete(snapshot(url, "copy"), ref, True, damaged, "copy")
    assert damaged.lost == 1 and damaged.inconsistent >= 1, damaged
    problems = " ".join(damaged.problems)
    assert "document/shingles/text row differs" in problems and "df/cf disagree" in problems


def test_dedup_checks_see_a_cut_file(corpus: Path, tmp_path: Path) -> None:
    harness = DedupHarness(corpus, tmp_path)
    out = tmp_path / "cut"
    out.mkdir()
    (out / "pairs.jsonl").write_bytes(harness.ref["pairs.jsonl"][:-7])
    harness._check(out, "cut", complete=False)
    assert harness.counts.inconsistent == 1
    (out / "pairs.jsonl").write_bytes(harness.ref["pairs.jsonl"])
    (out / "summary.json").write_bytes((harness.ref_dir / "summary.json").read_bytes())
    harness._check(out, "claimed", complete=False)
    assert harness.counts.inconsistent == 2  # summary.json without the other outputs


def test_an_add_killed_before_its_recompute_is_finished_by_the_rerun(tmp_path: Path) -> None:
    """Regression: every batch committed, killed before the statistics recompute; the
    re-run added nothing and so did not recompute, leaving stale signatures behind."""
    import subprocess

    from crash.harness import NEARDUP, check_complete, reference, snapshot
    from neardup.store import Store
    from neardup.text.read import read_corpus

    small = write_corpus(tmp_path / "small.jsonl", docs=80, max_chars=1500)
    url = f"sqlite:///{tmp_path / 'stale.db'}"
    ref = reference(url, "ref", small, "tf-ridf")
    with Store(url) as store:
        store.create_collection("t", "tf-ridf")
        store.add("t", read_corpus([small]), recompute_stats=False)  # the killed run
        assert store.collection("t").stats_dirty
    cmd = [NEARDUP, "add", "t", str(small), "--db", url, "-q"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    counts = Counts("rerun")
    check_complete(snapshot(url, "t"), ref, True, counts, "rerun")
    assert counts.ok(), counts.problems
