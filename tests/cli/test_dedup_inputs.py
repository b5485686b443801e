"""``neardup dedup`` on inputs as they come (issue 41): record files without the text field
inside a tree, shards whose ids restart, inputs with different fields written to one
``--kept``, a file rewritten while it is read, the same input given twice, and standard
input on both sides of ``--against``."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from typer.testing import CliRunner, Result

from neardup.cli.main import app

runner = CliRunner()

_WORDS = [
    "river",
    "stone",
    "market",
    "winter",
    "garden",
    "letter",
    "window",
    "harbour",
    "mountain",
    "candle",
    "orchard",
    "lantern",
    "meadow",
    "bridge",
    "village",
    "forest",
    "engine",
    "silver",
    "thunder",
    "castle",
]


def _text(seed: int, n: int = 40) -> str:
    """A plain text of ``n`` words, different for each ``seed``."""
    return " ".join(
        _WORDS[(seed * 7 + k * (seed % 5 + 3)) % len(_WORDS)] + str(k % 9) for k in range(n)
    )


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
