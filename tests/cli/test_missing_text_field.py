"""A record file named on the command line whose records lack ``--text-field``: every
command that reads a corpus exits 2 before any output, naming the file, the field and the
fields the records have; when only some records lack it, those are skip rows
(``unreadable``, ``field 'body' is missing``) and the rest run."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner, Result

from neardup.cli.main import app

runner = CliRunner()
STORIES = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "chekhov"


def _texts() -> list[str]:
    """Three stories' openings (2,000 characters) and a copy of the first with one word
    changed: d0 and d3 are the one near-duplicate pair."""
    names = ["Ванька.txt", "Гриша.txt", "Дачница.txt"]
    texts = [(STORIES / n).read_text(encoding="utf-8")[:2000] for n in names]
    words = texts[0].split()
    words[40] = "перемена"
    return [*texts, " ".join(words)]


def _run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


def _flat(output: str) -> str:
    """The output without its whitespace (the console wraps a long path anywhere)."""
    return "".join(output.split())


def _records_without_body(tmp_path: Path, fmt: str) -> Path:
    """The four texts under ``text`` (fields id, text, title) as JSONL, CSV or Parquet."""
    rows = [{"id": f"d{i}", "text": t, "title": f"t{i}"} for i, t in enumerate(_texts())]
    path = tmp_path / f"docs.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    elif fmt == "csv":
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=["id", "text", "title"])
            writer.writeheader()
            writer.writerows(rows)
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _refused(res: Result, path: Path) -> None:
    assert res.exit_code == 2, res.output
    assert _flat(res.output) == _flat(
        f"error: --text-field='body' is not allowed: a field of {path} "
        "(its fields: id, text, title)"
    )


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_dedup_and_add_refuse_a_field_no_record_has(tmp_path: Path, fmt: str) -> None:
    path = _records_without_body(tmp_path, fmt)
    out = tmp_path / "out"
    _refused(_run("dedup", str(path), "--text-field", "body", "--out", str(out)), path)
    assert not out.exists()
    db = ["--db", f"sqlite:///{tmp_path / 'c.db'}"]
    assert _run("collection", "create", "c", *db).exit_code == 0
    _refused(_run("add", "c", str(path), "--text-field", "body", *db), path)
    _refused(_run("check", "c", str(path), "--text-field", "body", *db), path)
    res = _run("collection", "stats", "c", "--json", *db)
    assert json.loads(res.stdout)["documents"] == 0  # nothing was added


@pytest.mark.parametrize(
    "command",
    [
        ["lines"],
        ["substrings"],
        ["contamination", "--eval", "EVAL", "--ngram", "8"],
        ["evaluate", "--gold", "GOLD", "--methods", "shingles-full"],
    ],
)
def test_the_corpus_commands_refuse_a_field_no_record_has(
    tmp_path: Path, command: list[str]
) -> None:
    path = _records_without_body(tmp_path, "jsonl")
    evals = tmp_path / "eval.txt"
    evals.write_text(_texts()[1][:500], encoding="utf-8")
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"a": "d0", "b": "d3", "label": 1}) + "\n", encoding="utf-8")
    args = [{"EVAL": str(evals), "GOLD": str(gold)}.get(a, a) for a in command]
    _refused(_run(args[0], str(path), *args[1:], "--text-field", "body"), path)


def test_records_without_the_field_are_skipped_and_the_rest_run(tmp_path: Path) -> None:
    texts = _texts()
    rows = [{"id": f"d{i}", "body": t} for i, t in enumerate(texts)]
    rows[1] = {"id": "d1", "text": texts[1]}  # this record lacks body
    path = tmp_path / "some.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    out = tmp_path / "out"
    res = _run("dedup", str(path), "--text-field", "body", "--out", str(out), "-q", "-t", "0.5")
    assert res.exit_code == 0, res.output
    skipped = [json.loads(line) for line in (out / "skipped.jsonl").read_text().splitlines()]
    assert skipped == [
        {
            "id": "d1",
            "source": f"{path}:2",
            "reason": "unreadable",
            "detail": "field 'body' is missing",
        }
    ]
    pairs = [json.loads(line) for line in (out / "pairs.jsonl").read_text().splitlines()]
    assert [(p["a"], p["b"]) for p in pairs] == [("d0", "d3")]
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["read"], summary["documents"], summary["skipped"]) == (4, 3, 1)
    db = ["--db", f"sqlite:///{tmp_path / 'c.db'}"]
    assert _run("collection", "create", "c", *db).exit_code == 0
    res = _run("add", "c", str(path), "--text-field", "body", "--json", *db)
    assert res.exit_code == 0, res.output
    added = json.loads(res.stdout[res.stdout.index("{") :])
    assert added["added"] == 3 and added["skipped"] == skipped
