"""What ``neardup dedup`` shows: clusters and pairs without ``--out``, JSON with the pairs,
JSON lines streamed, Rich markup in file names printed as text, and output files that
honour the umask."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from neardup.cli.dedup_output import top_pairs
from neardup.cli.main import app
from neardup.job.pipeline import dedup
from neardup.output import current_umask, write_result

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
runner = CliRunner()
KNOWN = {
    frozenset(("chekhov/Тоска.txt", "wiki/Тоска.wiki")),
    frozenset(("chekhov/Ванька.txt", "web/vanka.html")),
    frozenset(("progit/2016/rerere.asc", "progit/latest/rerere.asc")),
    frozenset(("chekhov/Хамелеон.txt", "excerpts/Хамелеон (начало).txt")),
    frozenset(("progit/2016/bash.asc", "progit/latest/bash.asc")),
}


def _run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_table_shows_clusters_and_pairs_and_says_where_the_rest_is() -> None:
    res = _run("dedup", str(CORPUS), "-q")
    assert res.exit_code == 0, res.output
    assert "largest clusters" in res.stdout and "closest pairs" in res.stdout
    assert "web/vanka.html" in res.stdout and "chekhov/Ванька.txt" in res.stdout
    assert "0.999" in res.stdout  # Тоска.txt vs Тоска.wiki
    assert "--out DIR" in " ".join(res.stdout.split())


def test_top_limits_the_tables_and_names_the_total(tmp_path: Path) -> None:
    res = _run("dedup", str(CORPUS), "-q", "--top", "2", "--out", str(tmp_path / "o"))
    assert res.exit_code == 0, res.output
    assert "closest pairs (2 of 5)" in res.stdout
    assert "largest clusters (2 of 5)" in res.stdout
    assert "full results in" in res.stdout and "pairs.jsonl" in res.stdout


def test_json_holds_summary_pairs_and_clusters() -> None:
    res = _run("dedup", str(CORPUS), "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert set(doc) == {"summary", "pairs", "clusters", "dropped", "skipped"}
    assert {frozenset((p["a"], p["b"])) for p in doc["pairs"]} == KNOWN
    assert doc["summary"]["pairs"] == 5 and len(doc["clusters"]) == 5
    kept = {c["keep"]: set(c["members"]) for c in doc["clusters"]}
    assert kept["chekhov/Хамелеон.txt"] == {
        "chekhov/Хамелеон.txt",
        "excerpts/Хамелеон (начало).txt",
    }
    assert {s["id"] for s in doc["skipped"]} == {"bad/empty.txt", "bad/binary.txt", "bad/short.txt"}


def test_jsonl_streams_the_same_rows_as_the_out_files(tmp_path: Path) -> None:
    res = _run("dedup", str(CORPUS), "--format", "jsonl", "--out", str(tmp_path / "o"))
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_type.setdefault(r.pop("type"), []).append(r)
    assert rows[-1]["documents"] == 33 and list(by_type)[-1] == "summary"
    for name, kind in (("pairs", "pair"), ("clusters", "cluster"), ("dropped", "dropped")):
        written = [
            json.loads(x) for x in (tmp_path / "o" / f"{name}.jsonl").read_text().splitlines()
        ]
        assert by_type[kind] == written


@pytest.mark.parametrize("args", [["--json", "--format", "jsonl"], ["--top", "-1"], ["-f", "csv"]])
def test_bad_output_options_exit_2(args: list[str]) -> None:
    assert _run("dedup", str(CORPUS), *args).exit_code == 2


def test_top_pairs_orders_by_the_measure() -> None:
    res = dedup([str(CORPUS / "chekhov"), str(CORPUS / "excerpts")])
    by_res = top_pairs(res.pairs, "resemblance", 1)
    by_cont = top_pairs(res.pairs, "containment", 10)
    assert by_res[0].resemblance == max(p.resemblance for p in res.pairs)
    keys = [max(p.containment_ab, p.containment_ba) for p in by_cont]
    assert keys == sorted(keys, reverse=True) and len(by_cont) == len(res.pairs)
    assert top_pairs(list(res.pairs), "resemblance", 1) == by_res  # a plain list too


def test_markup_in_file_names_is_printed_as_text(tmp_path: Path) -> None:
    root = tmp_path / "in"
    root.mkdir()
    text = (CORPUS / "chekhov" / "Тоска.txt").read_text(encoding="utf-8")
    (root / "[red]a.txt").write_text(text, encoding="utf-8")
    (root / "b [bold].txt").write_text(text, encoding="utf-8")
    res = _run("dedup", str(root), "-q")
    assert res.exit_code == 0, res.output
    flat = "".join(res.stdout.split())
    assert "[red]a.txt" in flat and "b[bold].txt" in flat


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_output_files_honour_the_umask(tmp_path: Path, mask: int) -> None:
    res = dedup([str(CORPUS / "chekhov")])
    old = os.umask(mask)
    try:
        assert current_umask() == mask
        out = write_result(res, tmp_path / "o")
    finally:
        os.umask(old)
    for name in ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl", "summary.json"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o666 & ~mask, name


def test_memory_mib_0_spills_to_disk_and_finds_the_same_pairs(tmp_path: Path) -> None:
    spill = tmp_path / "spill"
    spill.mkdir()
    held = _run("dedup", str(CORPUS), "--json")
    spilled = _run("dedup", str(CORPUS), "--json", "--memory-mib", "0", "--spill-dir", str(spill))
    assert held.exit_code == spilled.exit_code == 0, spilled.output
    a, b = json.loads(held.stdout), json.loads(spilled.stdout)
    assert b["summary"]["executor"]["spilled_to_disk"] is True
    assert a["summary"]["executor"]["spilled_to_disk"] is False
    assert b["pairs"] == a["pairs"] and b["clusters"] == a["clusters"]
    assert {frozenset((p["a"], p["b"])) for p in b["pairs"]} == KNOWN
    assert list(spill.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--memory-mib", "-1"], "--memory-mib"),
        (["--spill-dir", "."], "only with --engine local"),
    ],
)
def test_memory_options_are_checked(args: list[str], message: str) -> None:
    extra = ["--engine", "dask"] if args[0] == "--spill-dir" else []
    res = _run("dedup", str(CORPUS), "-q", *args, *extra)
    assert res.exit_code == 2 and message in res.output


# -- issue 27: a full or read-only disk under --out, --kept, --spill-dir ---------------------------
def _disk_error(code: int, text: str) -> object:
    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(code, text, str(kwargs.get("dir") or (args[0] if args else "")))

    return fail


@pytest.mark.parametrize(
    ("target", "flags"),
    [
        ("neardup.output.tempfile.mkstemp", ["--out", "{tmp}/out"]),
        ("neardup.job.export.tempfile.mkstemp", ["--kept", "{tmp}/kept.jsonl"]),
        ("neardup._spill.tempfile.TemporaryFile", ["--spill-dir", "{tmp}", "--memory-mib", "0"]),
    ],
)
@pytest.mark.parametrize(
    ("code", "text"), [(28, "No space left on device"), (30, "Read-only file system")]
)
def test_disk_errors_end_in_one_line_and_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, flags: list[str], code: int,
    text: str,
) -> None:  # fmt: skip
    import importlib

    module, name, attr = target.split(".")[:-2], *target.split(".")[-2:]
    owner = getattr(importlib.import_module(".".join(module)), name)  # its tempfile
    monkeypatch.setattr(owner, attr, _disk_error(code, text))
    args = ["dedup", str(CORPUS / "chekhov"), "-q", "--jobs", "1", "--method", "minhash-lsh"]
    res = CliRunner().invoke(app, [*args, *(f.format(tmp=tmp_path) for f in flags)])
    assert res.exit_code == 1, res.output
    lines = res.stderr.strip().splitlines()
    assert lines[-1].startswith("error: cannot write ") and lines[-1].endswith(text), lines
    assert "Traceback" not in res.output and not isinstance(res.exception, OSError)


@pytest.mark.parametrize("flag", ["--out", "--kept", "--removed", "--spill-dir"])
def test_an_output_that_cannot_be_a_directory_is_refused_before_work(
    tmp_path: Path, flag: str
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    place = blocker / ("kept.jsonl" if flag in ("--kept", "--removed") else "sub")
    res = CliRunner().invoke(app, ["dedup", str(CORPUS / "chekhov"), "-q", flag, str(place)])
    assert res.exit_code == 2, res.output
    assert f"{flag}=" in res.stderr and "is not allowed" in res.stderr
    assert "documents" not in res.stdout  # refused before any work
