"""Every input format round-trips ids and extra fields to ``--kept`` / ``--removed``.

The corpus is real: the Chekhov stories of ``examples/corpus`` as records with extra
fields, plus a copy of one story with every 15th word deleted (resemblance ~0.7 with its
original, so the job drops it).
"""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.job.export import export_records, output_format
from neardup.job.pipeline import dedup
from neardup.text.read import read_options

CHEKHOV = Path(__file__).resolve().parents[1] / "examples" / "corpus" / "chekhov"


def _records() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for i, path in enumerate(sorted(CHEKHOV.glob("*.txt"))):
        text = path.read_text(encoding="utf-8")
        rows.append({"id": f"s{i}", "text": text, "title": path.stem, "n": i})
    words = rows[0]["text"].split(" ")
    copy = " ".join(w for k, w in enumerate(words) if k % 15 != 7)
    rows.append({"id": "copy", "text": copy, "title": "copy", "n": -1})
    return rows


def _write(fmt: str, rows: list[dict[str, Any]], root: Path) -> Path:
    if fmt in ("jsonl", "jsonl.gz", "jsonl.zst"):
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
        path = root / f"in.{fmt}"
        if fmt.endswith(".gz"):
            data = gzip.compress(data)
        elif fmt.endswith(".zst"):
            data = zstandard.ZstdCompressor().compress(data)
        path.write_bytes(data)
        return path
    table = pa.Table.from_pylist(rows)
    if fmt == "parquet":
        path = root / "in.parquet"
        pq.write_table(table, path, row_group_size=5)
        return path
    if fmt == "arrow":
        path = root / "in.arrow"
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
            w.write_table(table, max_chunksize=4)
        return path
    if fmt == "datasets":  # the layout datasets' save_to_disk writes
        path = root / "ds"
        path.mkdir()
        name = "data-00000-of-00001.arrow"
        with pa.OSFile(str(path / name), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as w:
            w.write_table(table, max_chunksize=4)
        (path / "state.json").write_text(json.dumps({"_data_files": [{"filename": name}]}))
        (path / "dataset_info.json").write_text("{}")
        return path
    assert fmt == "csv"
    path = root / "in.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "text", "title", "n"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def _read_back(path: Path) -> list[dict[str, Any]]:
    if output_format(path) == "parquet":
        return pq.read_table(path).to_pylist()
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        raw = gzip.decompress(raw)
    return [json.loads(line) for line in raw.decode().splitlines()]


FORMATS = ["jsonl", "jsonl.gz", "jsonl.zst", "parquet", "arrow", "datasets", "csv"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("out_name", ["kept.jsonl", "kept.parquet"])
def test_kept_and_removed_round_trip_every_field(tmp_path: Path, fmt: str, out_name: str) -> None:
    rows = _records()
    src = _write(fmt, rows, tmp_path)
    result = dedup([str(src)], jobs=1)
    assert [d.id for d in result.dropped] == ["copy"]
    assert result.dropped[0].kept == "s0"
    opts = read_options()
    kept_ids = {i for i in result.ids if i != "copy"}
    out = tmp_path / out_name
    assert export_records([str(src)], out, kept_ids, opts) == len(rows) - 1
    back = _read_back(out)
    want = [r for r in rows if r["id"] != "copy"]
    if fmt == "csv":  # CSV has no types: every field comes back as text
        want = [{k: str(v) for k, v in r.items()} for r in want]
    assert back == want
    removed = tmp_path / ("removed" + out_name.removeprefix("kept"))
    assert export_records([str(src)], removed, {"copy"}, opts) == 1
    assert [r["id"] for r in _read_back(removed)] == ["copy"]


def test_jsonl_lines_are_copied_byte_for_byte(tmp_path: Path) -> None:
    rows = _records()
    src = tmp_path / "in.jsonl"
    lines = [json.dumps(r, ensure_ascii=True, indent=None, separators=(",", ":")) for r in rows]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "kept.jsonl"
    export_records([str(src)], out, {"s1", "s3"}, read_options())
    assert out.read_text(encoding="utf-8") == lines[1] + "\n" + lines[3] + "\n"


def test_cli_kept_parquet_is_the_deduplicated_corpus(tmp_path: Path) -> None:
    rows = _records()
    src = _write("parquet", rows, tmp_path)
    out = tmp_path / "out.parquet"
    res = CliRunner().invoke(app, ["dedup", str(src), "--kept", str(out), "-q", "--jobs", "2"])
    assert res.exit_code == 0, res.output
    assert pq.read_table(out).to_pylist() == [r for r in rows if r["id"] != "copy"]
    assert pq.read_schema(out) == pq.read_schema(src)


def test_document_tree_exports_clean_text(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    rows = _records()
    for r in rows[:3] + rows[-1:]:
        (tree / f"{r['id']}.txt").write_text(r["text"], encoding="utf-8")
    result = dedup([str(tree)], jobs=1)
    assert [d.id for d in result.dropped] == ["copy.txt"]
    out = tmp_path / "kept.jsonl"
    export_records([str(tree)], out, set(result.ids) - {"copy.txt"}, read_options())
    back = _read_back(out)
    assert [r["id"] for r in back] == ["s0.txt", "s1.txt", "s2.txt"]
    assert back[1]["text"] == rows[1]["text"]


def test_output_names_are_checked() -> None:
    from neardup.errors import ParameterError

    with pytest.raises(ParameterError, match="output"):
        output_format("kept.tsv")
    assert output_format("kept.csv") == output_format("kept.csv.zst") == "csv"


def test_jobs_do_not_change_the_result(tmp_path: Path) -> None:
    src = _write("jsonl", _records() * 1, tmp_path)
    one = dedup([str(src)], jobs=1, method="minhash-lsh")
    two = dedup([str(src)], jobs=2, method="minhash-lsh")
    assert one.ids == two.ids
    assert list(one.pairs) == list(two.pairs)
    assert one.skipped == two.skipped
    assert one.dropped == two.dropped


@pytest.mark.slow
def test_pdf_pairs_with_its_text_in_dedup(tmp_path: Path) -> None:
    from text.test_read_inputs import make_pdf

    text = _records()[1]["text"]
    words = text.split()[:200]
    (tmp_path / "story.txt").write_text(" ".join(words), encoding="utf-8")
    make_pdf(tmp_path / "story.pdf", [" ".join(words[i : i + 12]) for i in range(0, 200, 12)])
    result = dedup([str(tmp_path)], jobs=2)
    assert [(p.a, p.b) for p in result.pairs] == [("story.pdf", "story.txt")]
    assert result.pairs[0].resemblance == 1.0


def _shards(fmt: str, root: Path) -> tuple[list[Path], list[dict[str, Any]]]:
    """Two shards whose ids restart (``s0, s1, ...`` in each): the second holds the first's
    stories again (other titles) and one record of its own."""
    first = _records()
    second = [{**r, "title": r["title"] + " (again)"} for r in first[:-1]]
    own = "Каштанка " * 40 + "и ещё несколько слов"
    second.append({"id": "s0", "text": own, "title": "x", "n": 99})
    paths = []
    for k, rows in enumerate((first, second)):
        sub = root / f"shard{k}"
        sub.mkdir()
        paths.append(_write(fmt, rows, sub))
    return paths, first + second


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "csv"])
@pytest.mark.parametrize("method", ["minhash-lsh", "tf-ridf"])  # the worker and one-pass paths
def test_sharded_ids_that_restart_lose_no_record(tmp_path: Path, fmt: str, method: str) -> None:
    paths, rows = _shards(fmt, tmp_path)
    kept, removed, out = tmp_path / "k.jsonl", tmp_path / "r.jsonl", tmp_path / "out"
    args = ["dedup", *map(str, paths), "--method", method, "--out", str(out), "-q"]
    res = CliRunner().invoke(app, [*args, "--kept", str(kept), "--removed", str(removed)])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    n = len(rows)
    assert summary["read"] == n == summary["kept"] + summary["removed"] + summary["skipped"]
    assert summary["skipped"] == 0 and summary["renamed_ids"] == n // 2
    assert "repeat an id seen before" in summary["warnings"][-1]
    back = _read_back(kept) + _read_back(removed)
    assert len(back) == n  # every record is in one output, with its original fields
    assert sorted((r["id"], r["title"]) for r in back) == sorted(
        (str(r["id"]), r["title"]) for r in rows
    )
    assert summary["removed"] >= len(rows) // 2 - 1  # the cut stories are near-duplicates
    assert summary["outputs"]["kept"]["records"] == summary["kept"]


def test_two_trees_with_the_same_paths_keep_distinct_ids(tmp_path: Path) -> None:
    for release in ("6.1", "6.12"):
        for i, path in enumerate(sorted(CHEKHOV.glob("*.txt"))[:3]):
            doc = tmp_path / release / "Documentation" / f"d{i}" / "index.txt"
            doc.parent.mkdir(parents=True)
            doc.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    trees = [str(tmp_path / r / "Documentation") for r in ("6.1", "6.12")]
    result = dedup(trees, jobs=1)
    assert result.summary["read"] == 6 and not result.skipped
    assert sorted(result.ids) == [
        f"{r}/Documentation/d{i}/index.txt" for r in ("6.1", "6.12") for i in range(3)
    ]
    assert sorted((p.a, p.b) for p in result.pairs) == [  # the cross-release pairs
        (f"6.1/Documentation/d{i}/index.txt", f"6.12/Documentation/d{i}/index.txt")
        for i in range(3)
    ]
    files = sorted(str(p) for p in tmp_path.glob("*/Documentation/*/index.txt"))
    assert sorted(dedup(files, jobs=1).ids) == sorted(result.ids)  # files named one by one


@pytest.mark.parametrize("method", ["minhash-lsh", "tf-ridf"])  # the worker and one-pass paths
def test_dedup_keeps_a_record_nested_1000_deep(tmp_path: Path, method: str) -> None:
    deep = "[" * 1000 + "]" * 1000
    stories = _records()[:3]
    lines = [json.dumps(r, ensure_ascii=False) for r in stories]
    lines[1] = lines[1][:-1] + f', "meta": {deep}}}'
    src = tmp_path / "deep.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    kept, out = tmp_path / "kept.jsonl", tmp_path / "out"
    args = ["dedup", str(src), "--method", method, "--kept", str(kept), "--out", str(out), "-q"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert kept.read_text(encoding="utf-8").splitlines() == lines  # byte for byte
    assert json.loads((out / "summary.json").read_text())["kept"] == 3


def test_kept_csv_after_an_unclosed_quote_has_every_other_row(tmp_path: Path) -> None:
    stories = _records()[:4]
    src = tmp_path / "in.csv"
    with open(src, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "text", "title", "n"])
        writer.writeheader()
        writer.writerows(stories[:2])
        f.write('broken,"an opened quote and the rest of the file,x,-2\n')
        writer.writerows(stories[2:])
    kept, out = tmp_path / "kept.jsonl", tmp_path / "out"
    res = CliRunner().invoke(app, ["dedup", str(src), "--kept", str(kept), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert [r["id"] for r in _read_back(kept)] == ["s0", "s1", "s2", "s3"]
    skipped = [json.loads(x) for x in (out / "skipped.jsonl").read_text().splitlines()]
    line = src.read_text(encoding="utf-8").split("broken,")[0].count("\n") + 1
    assert [(s["id"], s["reason"]) for s in skipped] == [(f"in.csv:{line}", "unreadable")]


_DIE_IN_EXPORT = """
import os, signal, sys
import neardup.job.export as ex
real = ex._open_text_out
def dying(path, final):
    f = real(path, final)
    f.write(b'{"partial": '); f.flush()
    os.kill(os.getpid(), signal.SIGKILL)
ex._open_text_out = dying
from neardup.cli.main import run
sys.argv = ["neardup", *sys.argv[1:]]
run()
"""


def test_kill_during_kept_leaves_no_summary_claiming_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    src = _write("jsonl", _records(), tmp_path)
    out, kept = tmp_path / "out", tmp_path / "kept.jsonl"
    args = ["dedup", str(src), "--out", str(out), "--kept", str(kept), "-q"]
    assert CliRunner().invoke(app, args).exit_code == 0  # a first complete run
    before = kept.read_bytes()
    src.write_text(src.read_text(encoding="utf-8").split("\n", 1)[1], encoding="utf-8")
    died = subprocess.run([sys.executable, "-c", _DIE_IN_EXPORT, *args], check=False)
    assert died.returncode == -9
    assert not (out / "summary.json").exists()  # nothing claims the half-written run
    assert kept.read_bytes() == before  # the old output, whole
    assert len(list(tmp_path.glob(".kept.jsonl.*"))) == 1  # the killed run's temporary
    assert CliRunner().invoke(app, args).exit_code == 0  # run again: published together
    assert not list(tmp_path.glob(".kept.jsonl.*"))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["outputs"]["kept"]["records"] == len(kept.read_text().splitlines())
    assert summary["kept"] == summary["outputs"]["kept"]["records"] == len(_records()) - 1


def test_a_csv_of_20000_columns_is_written_in_linear_time(tmp_path: Path) -> None:
    """Issue 41 item 24: each field of each row was looked up in the header as a list
    (20,000 x 20,000 comparisons a row: seconds each); a set makes it the row's width."""
    import time

    names = ["id", "text", *(f"c{i}" for i in range(20_000))]
    rows = [
        [f"r{r}", f"row {r} of a wide table", *(str(i) for i in range(20_000))] for r in range(6)
    ]
    src = tmp_path / "wide.csv"
    with src.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([names, *rows])
    start = time.perf_counter()
    n = export_records([src], tmp_path / "k.csv", {"r0", "r3", "r5"}, read_options())
    took = time.perf_counter() - start
    assert n == 3
    with (tmp_path / "k.csv").open(newline="", encoding="utf-8") as f:
        back = list(csv.reader(f))
    assert back == [names, rows[0], rows[3], rows[5]]
    assert took < 6.0, f"{took:.1f} s"  # about 0.3 s; the list lookup took 10-25 s


def test_parquet_output_of_inputs_with_different_fields_unifies_their_schemas(
    tmp_path: Path,
) -> None:
    """Issue 41 item 3: text files, JSONL records and a Parquet file of other columns to
    one ``--kept``/``--removed`` Parquet file (a traceback before: pyarrow's "field names
    are not matching"). Fields missing from a record are null; a field that is a number in
    one file and a string in another is text."""
    rows = _records()
    tree = tmp_path / "mix"
    tree.mkdir()
    (tree / "a.txt").write_text(rows[0]["text"], encoding="utf-8")
    (tree / "b.jsonl").write_text(
        json.dumps({"id": "j", "text": rows[1]["text"], "n": 3, "tags": ["x", "y"]}) + "\n"
    )
    pq.write_table(
        pa.table({"id": ["p"], "text": [rows[2]["text"]], "score": [0.5]}), tree / "c.parquet"
    )
    (tree / "d.jsonl").write_text(json.dumps({"id": "copy", "text": rows[-1]["text"], "n": "x"}))
    (tree / "e.jsonl").write_text(json.dumps({"id": "e", "text": rows[3]["text"], "n": "x"}))
    kept, removed = tmp_path / "k.parquet", tmp_path / "r.parquet"
    res = CliRunner().invoke(
        app, ["dedup", str(tree), "-q", "--kept", str(kept), "--removed", str(removed)]
    )
    assert res.exit_code == 0, res.output
    table = pq.read_table(kept)
    assert table.schema.names == ["id", "text", "source", "n", "tags", "score"]
    assert table.schema.field("n").type == pa.string()  # 3 and "x": text
    got = table.drop_columns(["text"]).to_pylist()
    assert got == [
        {"id": "a.txt", "source": str(tree / "a.txt"), "n": None, "tags": None, "score": None},
        {"id": "j", "source": None, "n": "3", "tags": ["x", "y"], "score": None},
        {"id": "p", "source": None, "n": None, "tags": None, "score": 0.5},
        {"id": "e", "source": None, "n": "x", "tags": None, "score": None},
    ]
    texts = [rows[1]["text"], rows[2]["text"], rows[3]["text"]]
    assert table.column("text").to_pylist()[1:] == texts
    assert pq.read_table(removed).to_pylist() == [
        {"id": "copy", "text": rows[-1]["text"], "n": "x"}
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.parquet", "mix", "r.parquet"]


@pytest.mark.parametrize("out_name", ["k.parquet", "k.csv", "k.jsonl"])
def test_records_of_one_batch_with_different_fields_keep_every_field(
    tmp_path: Path, out_name: str
) -> None:
    """Records of one JSONL block (one batch) whose fields differ: the fields of every
    record are written, not only the first record's (pyarrow's from_pylist takes the
    first row's keys), a field a record lacks null (Parquet) or empty (CSV)."""
    rows = _records()[:3]
    path = tmp_path / "in.jsonl"
    records = [
        {"id": "a", "text": rows[0]["text"], "n": 1},
        {"id": "b", "text": rows[1]["text"], "tags": ["x", "y"]},
        {"id": "c", "text": rows[2]["text"], "n": 2, "lang": "ru"},
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    out = tmp_path / out_name
    assert export_records([path], out, {"a", "b", "c"}, read_options()) == 3
    if out_name.endswith(".parquet"):
        table = pq.read_table(out)
        assert table.schema.names == ["id", "text", "n", "tags", "lang"]
        assert table.drop_columns(["text"]).to_pylist() == [
            {"id": "a", "n": 1, "tags": None, "lang": None},
            {"id": "b", "n": None, "tags": ["x", "y"], "lang": None},
            {"id": "c", "n": 2, "tags": None, "lang": "ru"},
        ]
    elif out_name.endswith(".csv"):
        with open(out, newline="", encoding="utf-8") as fh:
            got = list(csv.DictReader(fh))
        assert [list(r) for r in got[:1]] == [["id", "text", "n", "tags", "lang"]]
        assert [(r["id"], r["n"], r["tags"], r["lang"]) for r in got] == [
            ("a", "1", "", ""),
            ("b", "", '["x", "y"]', ""),
            ("c", "2", "", "ru"),
        ]
    else:  # JSONL lines are copied byte for byte
        assert out.read_text() == path.read_text()


def test_kept_passes_over_record_files_the_job_could_not_read(tmp_path: Path) -> None:
    """A file that is not Parquet, a truncated Arrow file and corrupt gzip streams (JSONL,
    CSV) beside good records: the job lists them as skip rows, and ``--kept`` writes every
    other kept record (the export ended on the first, a traceback)."""
    rows = _records()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.jsonl").write_text(
        "".join(
            json.dumps({"id": f"a{i}", "text": r["text"]}) + "\n" for i, r in enumerate(rows[:2])
        )
    )
    (tree / "b.parquet").write_bytes(b"PAR1 not really a Parquet file")
    (tree / "c.arrow").write_bytes(b"ARROW1\x00\x00 cut short")
    whole = gzip.compress(json.dumps({"id": "d", "text": rows[2]["text"]}).encode() * 40)
    (tree / "d.jsonl.gz").write_bytes(whole[:40] + b"garbage" * 10)
    pq.write_table(pa.table({"id": ["e"], "text": [rows[3]["text"]]}), tree / "e.parquet")
    table = gzip.compress(("id,text\n" + "f,plain words\n" * 400).encode())
    (tree / "f.csv.gz").write_bytes(table[:60] + b"garbage" * 10)
    kept = tmp_path / "k.jsonl"
    res = CliRunner().invoke(app, ["dedup", str(tree), "-q", "--kept", str(kept)])
    assert res.exit_code == 0, res.output
    assert [json.loads(x)["id"] for x in kept.read_text().splitlines()] == ["a0", "a1", "e"]


def test_the_job_id_is_added_to_a_jsonl_line_keeping_its_other_bytes() -> None:
    from neardup.job.export import _line_with_id

    assert _line_with_id(b'{"id": 0,  "text": "a"}  ', "s1.jsonl:1") == (
        b'{"id": 0,  "text": "a", "neardup_id": "s1.jsonl:1"}'
    )
    assert _line_with_id(b"{ }", "f:2") == b'{"neardup_id": "f:2"}'
    got = _line_with_id(b'{"neardup_id": "old", "text": "\xc3\xa9"}', "f:3")
    assert json.loads(got) == {"text": "é", "neardup_id": "f:3"}
