"""``neardup dedup`` / ``check`` / ``collection add`` with the reader's file selection, the
field check before any output, and CSV written back as CSV (issue 30, the data engineer)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from neardup.cli.main import app

runner = CliRunner()
WORDS = [f"w{i}" for i in range(400)]


def _text(start: int, n: int = 60, swap: int | None = None) -> str:
    words = WORDS[start : start + n]
    if swap is not None:
        words[swap] = "changed"
    return " ".join(words)


def _run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


def _summary(output: str) -> dict[str, Any]:
    return json.loads(output[output.index("{") :])["summary"]


@pytest.fixture
def abi(tmp_path: Path) -> Path:
    """A tree like Documentation/ABI: extensionless text files, a YAML file, a binary."""
    root = tmp_path / "ABI"
    (root / "testing").mkdir(parents=True)
    (root / "sysfs-a").write_text(_text(0), encoding="utf-8")
    (root / "sysfs-b").write_text(_text(0, swap=30), encoding="utf-8")  # near-duplicate of a
    (root / "rules.yaml").write_text(_text(100), encoding="utf-8")
    (root / "blob").write_bytes(bytes(range(256)) * 40)
    (root / "testing" / "sysfs-c").write_text(_text(200), encoding="utf-8")
    return root


def test_extensionless_files_are_documents_and_a_binary_a_true_skip(abi: Path) -> None:
    res = _run("dedup", str(abi), "--json", "-q")
    summary = _summary(res.stdout)
    assert summary["documents"] == 4 and summary["pairs"] == 1
    assert summary["skipped_by_reason"] == {"binary": 1}


@pytest.mark.parametrize(
    ("flags", "documents"),
    [
        (["--include", "sysfs-*"], 3),
        (["--include", "sysfs-*", "--exclude", "testing/*"], 2),
        (["--exclude", "blob", "--no-recursive"], 3),
        (["--exclude", "blob", "--limit", "2"], 2),
    ],
)
def test_include_exclude_recursive_limit(abi: Path, flags: list[str], documents: int) -> None:
    res = _run("dedup", str(abi), "--json", "-q", *flags)
    summary = _summary(res.stdout)
    assert summary["documents"] == documents
    assert summary["skipped"] == 0


def test_selection_options_are_refused_with_dask(abi: Path) -> None:
    res = _run("dedup", str(abi), "--engine", "dask", "--limit", "2")
    assert res.exit_code == 2 and "--limit" in res.output


def test_collection_add_and_check_share_the_selection(abi: Path, tmp_path: Path) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'c.db'}"]
    assert _run("collection", "create", "abi", *db).exit_code == 0
    res = _run("add", "abi", str(abi), "--no-recursive", "--exclude", "blob", "--json", *db)
    assert json.loads(res.stdout[res.stdout.index("{") :])["added"] == 3
    res = _run("check", "abi", str(abi), "--include", "sysfs-c", "--json", *db)
    rows = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    assert [(r["id"], r["status"]) for r in rows] == [("testing/sysfs-c", "unique")]


def test_a_wrong_text_field_fails_before_any_output(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "body": [_text(0), _text(0, swap=3)]}), data)
    out = tmp_path / "out"
    kept = tmp_path / "kept.parquet"
    res = _run("dedup", str(data), "--kept", str(kept), "--out", str(out))
    assert res.exit_code == 2
    assert res.output == (
        f"error: --text-field='text' is not allowed: a field of {data} (its fields: id, body)\n"
    )
    assert not out.exists() and not kept.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.parquet"]
    res = _run("dedup", str(data), "--text-field", "body", "--id-field", "key", "-q")
    assert res.exit_code == 2 and "--id-field='key'" in res.output
    res = _run("dedup", str(data), "--text-field", "body", "--json", "-q")
    assert res.exit_code == 0 and _summary(res.stdout)["pairs"] == 1


def test_csv_in_csv_out_keeps_every_field(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "text": _text(0), "lang": "en", "note": 'has "quotes", commas'},
        {"id": "b", "text": _text(0, swap=5), "lang": "en", "note": "line\nbreak"},
        {"id": "c", "text": _text(150), "lang": "de", "note": ""},
    ]
    data = tmp_path / "in.csv"
    with data.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "text", "lang", "note"])
        writer.writeheader()
        writer.writerows(rows)
    kept, removed = tmp_path / "kept.csv", tmp_path / "removed.csv"
    res = _run("dedup", str(data), "-q", "--kept", str(kept), "--removed", str(removed))
    assert res.exit_code == 0, res.output
    with kept.open(newline="", encoding="utf-8") as f:
        back = list(csv.DictReader(f))
    with removed.open(newline="", encoding="utf-8") as f:
        gone = list(csv.DictReader(f))
    assert back == [rows[0], rows[2]]  # a and b have as many words: the first is kept
    assert gone == [rows[1]]
    assert kept.read_text(encoding="utf-8").splitlines()[0] == "id,text,lang,note"
