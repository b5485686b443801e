"""``neardup serve`` as a process: the token out of its process title, proxy headers
believed only from configured proxies (issue 41, items 7 and 23)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from neardup.cli.serve import hide_token_argument
from served import served

NEARDUP = str(Path(sys.executable).with_name("neardup"))


@contextmanager
def _serve(tmp_path: Path, *args: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    db = f"sqlite:///{tmp_path / 's.db'}"

    def command(port: int) -> list[str]:
        return [NEARDUP, "serve", "--db", db, "--port", str(port), "--no-crawl", *args]

    with served(command, tmp_path / "serve.log") as running:
        yield running


def test_hide_token_argument_blanks_the_value_only() -> None:
    argv = ["neardup", "serve", "--token", "s3cret", "--port", "1", "--token=other"]
    assert hide_token_argument(list(argv[:2])) is False
    assert hide_token_argument(argv) is True
    assert argv == ["neardup", "serve", "--token", "***", "--port", "1", "--token=***"]


@pytest.mark.slow
def test_a_token_flag_leaves_the_process_title(tmp_path: Path) -> None:
    with _serve(tmp_path, "--token", "s3cret-in-argv") as (base, proc):
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        auth = {"Authorization": "Bearer s3cret-in-argv"}
        body = {"name": "c", "method": "minhash-lsh"}
        assert httpx.post(f"{base}/collections", json=body, headers=auth).status_code == 201
    assert b"serve" in cmdline and b"s3cret" not in cmdline
    log = (tmp_path / "serve.log").read_text()
    assert "NEARDUP_TOKEN" in log and "--token-file" in log  # the warning


def _guesses(base: str, n: int) -> list[int]:
    codes = []
    with httpx.Client(base_url=base, timeout=10) as client:
        for i in range(n):
            headers = {
                "Authorization": f"Bearer guess{i}",
                "X-Forwarded-For": f"203.0.113.{i % 250 + 1}",
            }
            codes.append(
                client.post("/collections", json={"name": "x"}, headers=headers).status_code
            )
    return codes


@pytest.mark.slow
def test_a_forged_forwarded_for_changes_nothing_by_default(tmp_path: Path) -> None:
    with _serve(tmp_path, "--token", "t0ken") as (base, _proc):
        codes = _guesses(base, 300)
    assert codes[:10] == [401] * 10 and codes[10:] == [429] * 290
    log = (tmp_path / "serve.log").read_text()
    assert "203.0.113." not in log and "127.0.0.1:" in log


@pytest.mark.slow
def test_forwarded_for_is_believed_from_a_trusted_proxy(tmp_path: Path) -> None:
    with _serve(tmp_path, "--token", "t0ken", "--trusted-proxy", "127.0.0.1") as (base, _proc):
        codes = _guesses(base, 30)  # 30 clients behind the proxy, one guess each
    assert codes == [401] * 30
    log = (tmp_path / "serve.log").read_text()
    assert "203.0.113.7:" in log


def test_a_bad_trusted_proxy_is_a_usage_error() -> None:
    from typer.testing import CliRunner

    from neardup.cli.main import app

    result = CliRunner().invoke(app, ["serve", "--trusted-proxy", "not-an-address"])
    assert result.exit_code == 2 and "not-an-address" in result.output


def test_serve_and_the_service_share_the_cpu_budget() -> None:
    from neardup.cli import serve
    from neardup.service import limits

    assert serve.DEFAULT_BUDGET == limits.DEFAULT_BUDGET  # serve does not import the service
