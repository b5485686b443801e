"""The dependency audit: wired into CI beside the tests, fatal on a vulnerability."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def _audit():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("ci_audit", REPO / ".ci" / "audit.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ci_runs_the_audit_and_fails_when_it_fails() -> None:
    """``.ci/run`` starts ``make audit`` beside lint and the tests (it waits on the
    network) and fails when it exits non-zero, after the tests' log."""
    run = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    steps = re.search(r"^steps=\((.*)\)$", run, re.MULTILINE)
    assert steps is not None and '"make audit"' in steps.group(1)
    lines = run.splitlines()
    waits = [i for i, line in enumerate(lines) if 'wait "${pids[$i]}"' in line]
    assert waits and waits[0] > lines.index('NEARDUP_DOCS_SITE="$(pwd)/site" make test')
    assert 'failed="$failed ${steps[$i]}' in run and "exit 1; }" in run
    make = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "\naudit: " in make and ".ci/audit.py" in make
    assert "pip-audit" in (REPO / "pyproject.toml").read_text(encoding="utf-8")


@pytest.mark.slow
def test_pip_audit_is_installed() -> None:
    exe = Path(sys.executable).with_name("pip-audit")
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("pip-audit")


def test_a_vulnerability_fails_the_audit(capsys: pytest.CaptureFixture[str]) -> None:
    audit = _audit()
    deps = [
        {"name": "ok", "version": "1.0", "vulns": []},
        {"name": "bad", "version": "0.1", "vulns": [{"id": "PYSEC-0", "fix_versions": ["0.2"]}]},
    ]
    assert audit._judge(deps) == 1
    assert "VULNERABLE bad 0.1: PYSEC-0 (fixed in 0.2)" in capsys.readouterr().out
    assert audit._judge(deps[:1]) == 0


def test_latest_release_record_audits_a_skipped_dependency(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An index answering only /pypi/NAME/json still audits distributions at their latest
    release, and a vulnerability found there is fatal."""
    audit = _audit()
    monkeypatch.setattr(audit, "_installed", lambda name: "2.0")
    record: dict[str, Any] = {
        "info": {"version": "2.0"},
        "vulnerabilities": [{"id": "GHSA-x", "fixed_in": []}],
    }
    monkeypatch.setattr(audit, "_latest_record", lambda name: record)
    skipped = [
        {
            "name": "pkg",
            "skip_reason": "Dependency not found on PyPI and could not be audited: pkg (2.0)",
        }
    ]
    assert audit._judge(skipped) == 1
    assert "VULNERABLE pkg 2.0: GHSA-x (fixed in no fix yet)" in capsys.readouterr().out
    record["vulnerabilities"] = [{"id": "GHSA-y", "withdrawn": "2024-01-01"}]
    assert audit._judge(skipped) == 0
    record["info"]["version"] = "3.0"
    assert audit._judge(skipped) == 0
    assert "only the latest release is answered" in capsys.readouterr().out
