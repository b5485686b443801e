"""``neardup dedup`` on inputs as they come (issue 41): record files without the text field
inside a tree, shards whose ids restart, inputs with different fields written to one
``--kept``, a file rewritten while it is read, the same input given twice, and standard
input on both sides of ``--against``."""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from neardup.cli.main import app

runner = CliRunner()

CHEKHOV = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "chekhov"


@functools.cache
def _paragraphs() -> list[str]:
    """The paragraphs of 40 words or more of the Chekhov stories in ``examples/corpus``."""
    found: list[str] = []
    for path in sorted(CHEKHOV.glob("*.txt")):
        lines = path.read_text(encoding="utf-8").splitlines()
        found += [x.strip() for x in lines if len(x.split()) >= 40]
    return found


def _text(seed: int) -> str:
    """A real paragraph, a different one for each ``seed``."""
    return _paragraphs()[seed]


def _run(*args: str, stdin: str | None = None) -> Result:
    return runner.invoke(app, list(args), input=stdin, catch_exceptions=False)


# -- item 5: a record file without the text field -----------------------------------------------
def _tree_with_a_table(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text(_text(1))
    (root / "b.txt").write_text(_text(1) + " end")
    (root / "c.rst").write_text(_text(2))
    with gzip.open(root / "sub" / "table.csv.gz", "wt") as f:
        f.write("name,value\nx,1\n")
    return root


def test_a_table_without_the_text_field_inside_a_tree_is_a_skip_row(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = _tree_with_a_table(tmp_path / "Documentation")
    pq.write_table(pa.table({"content": [_text(3)]}), root / "sub" / "p.parquet")
    out = tmp_path / "out"
    res = _run("dedup", str(root), "-q", "--out", str(out))
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in (out / "skipped.jsonl").read_text().splitlines()]
    by_id = {r["id"]: r for r in rows}
    assert set(by_id) == {"sub/table.csv.gz", "sub/p.parquet"}
    assert "no column 'text'" in by_id["sub/table.csv.gz"]["detail"]
    assert "name" in by_id["sub/table.csv.gz"]["detail"]
    assert "no column 'text'" in by_id["sub/p.parquet"]["detail"]
    assert "content" in by_id["sub/p.parquet"]["detail"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["documents"] == 3 and summary["dropped"] == 1


def test_a_record_file_named_alone_without_the_field_is_refused_before_work(
    tmp_path: Path,
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"id": "a", "text": _text(1)}) + "\n")
    bad = tmp_path / "p.parquet"
    pq.write_table(pa.table({"id": ["b"], "content": [_text(1)]}), bad)
    out = tmp_path / "out"
    for args in ([str(bad)], [str(good), str(bad)]):  # not only the first record file
        res = _run("dedup", *args, "-q", "--out", str(out))
        assert res.exit_code == 2, res.output
        assert "p.parquet (its fields: id, content)" in res.stderr
        assert not out.exists()
    table = tmp_path / "t.csv.gz"
    with gzip.open(table, "wt") as f:
        f.write("name,value\nx,1\n")
    res = _run("dedup", str(good), str(table), "-q")
    assert res.exit_code == 2 and "t.csv.gz (its fields: name, value)" in res.stderr


# -- item 24: standard input on both sides ---------------------------------------------------------
def test_standard_input_on_both_sides_is_a_usage_error(tmp_path: Path) -> None:
    line = json.dumps({"id": "a", "text": _text(4)}) + "\n"
    for args in (
        ["dedup", "-", "--against", "-"],
        ["dedup", "-", "-"],
        ["substrings", "-", "--against", "-"],
        ["contamination", "-", "--eval", "-"],
    ):
        res = _run(*args, "-q", stdin=line)
        assert res.exit_code == 2, (args, res.output)
        assert "standard input named once" in res.stderr


# -- item 4: ids named by the outputs are found in the written records -----------------------------
def _shards(root: Path) -> list[Path]:
    """Two JSONL shards whose ids both restart at 0: shard1 repeats two of shard0's texts
    (one exactly, one with a word more) and adds one of its own; a record without an id."""
    root.mkdir()
    s0: list[dict[str, object]] = [{"id": i, "text": _text(10 + i), "src": "a"} for i in range(3)]
    s1: list[dict[str, object]] = [
        {"id": 0, "text": _text(10), "lang": "en"},
        {"id": 1, "text": _text(11) + " extra", "lang": "en"},
        {"id": 2, "text": _text(20), "lang": "en"},
        {"text": _text(12) + " again"},
    ]
    paths = [root / "shard0.jsonl", root / "shard1.jsonl"]
    for path, rows in zip(paths, (s0, s1), strict=True):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return paths


def _written(path: Path) -> list[dict[str, object]]:
    import csv

    import pyarrow.parquet as pq

    if path.suffix == ".parquet":
        return list(pq.read_table(path).to_pylist())
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as f:
            return [{k: (v or None) for k, v in r.items()} for r in csv.DictReader(f)]
    return [json.loads(x) for x in path.read_text().splitlines()]


def _key(record: dict[str, object]) -> str:
    """The id a written record is joined by: neardup_id where it has one, else its id."""
    return str(record.get("neardup_id") or record["id"])


def test_every_id_the_outputs_name_is_found_in_the_written_records(tmp_path: Path) -> None:
    shards = _shards(tmp_path / "in")
    for suffix in (".jsonl", ".parquet", ".csv"):
        out, kept, removed = (
            tmp_path / f"o{suffix}",
            tmp_path / f"k{suffix}",
            tmp_path / f"r{suffix}",
        )
        args = [str(p) for p in shards]
        res = _run(
            "dedup", *args, "-q", "--out", str(out), "--kept", str(kept), "--removed", str(removed)
        )
        assert res.exit_code == 0, res.output
        dropped = [json.loads(x) for x in (out / "dropped.jsonl").read_text().splitlines()]
        kept_rows, removed_rows = _written(kept), _written(removed)
        assert {d["id"] for d in dropped} == {_key(r) for r in removed_rows}
        assert {d["kept"] for d in dropped} <= {_key(r) for r in kept_rows}
        assert {_key(r) for r in kept_rows}.isdisjoint(_key(r) for r in removed_rows)
        assert len(dropped) == 3 and len(kept_rows) == 4
        # the records keep their own ids; the job's id is beside them when it differs
        assert sorted(
            str(r["id"]) for r in removed_rows + kept_rows if r.get("id") is not None
        ) == ["0", "0", "1", "1", "2", "2"]
        assert sum(r.get("neardup_id") is not None for r in kept_rows + removed_rows) == 4

        marked = tmp_path / f"m{suffix}"
        res = _run("dedup", *args, "-q", "--kept", str(marked), "--mark")
        assert res.exit_code == 0, res.output
        rows = _written(marked)
        keys = [_key(r) for r in rows]
        assert len(rows) == 7 and len(set(keys)) == 7
        named = {str(r["duplicate_of"]) for r in rows if r["duplicate_of"] is not None}
        assert len(named) == 3 and named <= set(keys)


# -- item 23: the same input given twice --------------------------------------------------------
def test_an_input_given_twice_is_read_once_and_counts_agree_with_the_written_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "D"
    tree.mkdir()
    rows = [{"text": _text(30)}, {"text": _text(31)}, {"text": _text(30) + " more"}]
    (tree / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tree / "b.txt").write_text(_text(31))
    monkeypatch.chdir(tree)  # a.jsonl's fallback ids and places are both "a.jsonl:LINE"
    for args in (["a.jsonl", "a.jsonl"], [".", "a.jsonl"], ["a.jsonl", "."], ["b.txt", "b.txt"]):
        out = tmp_path / "out"
        kept, removed = tmp_path / "k.jsonl", tmp_path / "r.jsonl"
        res = _run(
            "dedup", *args, "-q", "--out", str(out), "--kept", str(kept), "--removed", str(removed)
        )
        assert res.exit_code == 0, (args, res.output)
        summary = json.loads((out / "summary.json").read_text())
        skipped = [json.loads(x) for x in (out / "skipped.jsonl").read_text().splitlines()]
        assert [s["reason"] for s in skipped] == ["unsupported"], args
        assert "an input given twice is read once" in skipped[0]["detail"]
        written = len(kept.read_text().splitlines()), len(removed.read_text().splitlines())
        assert written == (summary["kept"], summary["dropped"]), args
        assert summary["documents"] == (1 if args[0] == "b.txt" else 4 if "." in args else 3)


# -- item 6: an input that changes between the read and the write of --kept ------------------
def test_an_input_changed_before_kept_is_written_gives_a_warning_not_a_silent_shortfall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neardup.job import export

    path = tmp_path / "in.jsonl"
    rows = [{"id": f"r{i}", "text": _text(40 + i)} for i in range(4)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    real = export.export_records

    def after_a_rewrite(*args: object, **kw: object) -> int:  # a writer truncates meanwhile
        path.write_text("".join(json.dumps(r) + "\n" for r in rows[:3]))
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(export, "export_records", after_a_rewrite)
    out, kept = tmp_path / "out", tmp_path / "k.jsonl"
    res = _run("dedup", str(path), "-q", "--out", str(out), "--kept", str(kept))
    assert res.exit_code == 0, res.output
    assert len(kept.read_text().splitlines()) == 3
    summary = json.loads((out / "summary.json").read_text())
    (warning,) = [w for w in summary["warnings"] if w.startswith("--kept")]
    assert warning.startswith("--kept holds 3 records of the 4 the job counted")
    assert "--kept holds 3 records of the 4" in " ".join(res.stderr.split())
