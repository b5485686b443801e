"""`neardup lines`, `substrings`, `contamination`: exit codes, --json, --out, --help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from neardup.cli.main import app
from shared_data import require

runner = CliRunner()

SHARED = "This paragraph of licence text is copied into many pages of the site, word for word."


def _run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


def _corpus(tmp_path: Path) -> Path:
    rows = [
        {"id": f"p{i}", "text": f"Menu\nUnique line {i} about topic {i * 31}.\n{SHARED}\n"}
        for i in range(3)
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


@pytest.mark.parametrize("command", ["lines", "substrings", "contamination"])
def test_help_has_an_example(command: str) -> None:
    result = _run(command, "--help")
    assert result.exit_code == 0
    assert "Example" in result.output and f"neardup {command}" in result.output


def test_lines_json_and_out(tmp_path: Path) -> None:
    path = _corpus(tmp_path)
    result = _run("lines", str(path), "--json", "--out", str(tmp_path / "out"))
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [(u["text"], u["documents"]) for u in data["repeated"]] == [("Menu", 3), (SHARED, 3)]
    assert data["summary"]["removed_chars"] == 2 * (len("Menu\n") + len(SHARED) + 1)
    out = tmp_path / "out"
    assert {p.name for p in out.iterdir()} == {
        "repeated.jsonl",
        "documents.jsonl",
        "skipped.jsonl",
        "summary.json",
    }
    docs = [json.loads(x) for x in (out / "documents.jsonl").read_text().splitlines()]
    assert [d["removed_chars"] for d in docs] == [0, 5 + len(SHARED) + 1, 5 + len(SHARED) + 1]


def test_lines_table_and_exit_codes(tmp_path: Path) -> None:
    path = _corpus(tmp_path)
    result = _run("lines", str(path), "--top", "1")
    assert result.exit_code == 0 and "Menu" in result.stdout
    assert _run("lines", str(path), "--unit", "word").exit_code == 2
    assert _run("lines", str(path), "--min-docs", "1").exit_code == 2
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert _run("lines", str(empty)).exit_code == 1
    assert _run("lines", str(tmp_path / "missing.jsonl")).exit_code == 1


def test_lines_leaves_punctuation_lines_unless_asked(tmp_path: Path) -> None:
    rows = [{"id": f"p{i}", "text": f"Story {i} of {i * 7}.\n}};\n=====\n"} for i in range(3)]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    plain = json.loads(_run("lines", str(path), "--json").stdout)
    assert plain["repeated"] == [] and plain["summary"]["cut_units"] == 0
    both = json.loads(_run("lines", str(path), "--json", "--symbols").stdout)
    assert [u["text"] for u in both["repeated"]] == ["};", "====="]


def test_substrings_json_and_kept(tmp_path: Path) -> None:
    require("pydivsufsort")
    path = _corpus(tmp_path)
    kept = tmp_path / "kept.jsonl"
    result = _run("substrings", str(path), "--min-bytes", "40", "--json", "--kept", str(kept))
    assert result.exit_code == 0
    spans = json.loads(result.stdout)["spans"]
    # the shared paragraph with the newlines around it (the line after "Menu" differs)
    assert [s["text"] for s in spans] == [f".\n{SHARED}\n"] * 3 or [s["text"] for s in spans] == [
        f"\n{SHARED}\n"
    ] * 3
    assert all(SHARED not in json.loads(x)["text"] for x in kept.read_text().splitlines())
    assert _run("substrings", str(path), "--min-bytes", "0").exit_code == 2


def test_contamination_exit_codes_like_grep(tmp_path: Path) -> None:
    path = _corpus(tmp_path)
    ev = tmp_path / "eval.jsonl"
    ev.write_text(json.dumps({"id": "q", "text": "Quiz: " + SHARED}) + "\n")
    found = _run("contamination", str(path), "--eval", str(ev), "--json")
    assert found.exit_code == 1
    data = json.loads(found.stdout)
    assert [d["id"] for d in data["contaminated"]] == ["p0", "p1", "p2"]
    assert data["items"] == [{"eval_id": "q", "documents": 3}]
    clean = tmp_path / "clean.jsonl"
    words = "nothing in common at all here with any page of the corpus above, none at all"
    clean.write_text(json.dumps({"id": "z", "text": words}) + "\n")
    assert _run("contamination", str(path), "--eval", str(clean)).exit_code == 0
    assert _run("contamination", str(path), "--eval", str(ev), "--ngram", "0").exit_code == 2
    assert _run("contamination", str(path)).exit_code == 2  # --eval missing


def test_contamination_against_nothing_fails_naming_the_evaluation_set(tmp_path: Path) -> None:
    # a decontamination gate must not pass when there is nothing to look for
    path = _corpus(tmp_path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    folder = tmp_path / "no_items"
    folder.mkdir()
    binary = tmp_path / "items.bin"
    binary.write_bytes(b"\x00\x01\x02\x03 not text \x00" * 8)
    short = tmp_path / "short.jsonl"
    short.write_text(json.dumps({"id": "q", "text": "Quiz: twelve words are not enough"}) + "\n")
    for ev, why in (
        (empty, "no item could be read"),
        (folder, "no item could be read"),
        (binary, "binary: 1"),
        (short, "shorter than 13 words"),
    ):
        result = _run("contamination", str(path), "--eval", str(ev))
        assert result.exit_code == 2, ev
        message = "".join(result.output.split())  # Rich wraps long paths anywhere
        assert "".join(f"the evaluation set '{ev}' holds no 13-gram".split()) in message
        assert "".join(why.split()) in message


def test_contamination_warns_of_items_too_short_to_find(tmp_path: Path) -> None:
    path = _corpus(tmp_path)
    ev = tmp_path / "eval.jsonl"
    rows = [{"id": "q", "text": "Quiz: " + SHARED}, {"id": "s", "text": "too short"}]
    ev.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = _run("contamination", str(path), "--eval", str(ev))
    assert result.exit_code == 1
    assert "1 evaluation items are shorter than 13 words" in result.stderr


def _two_trees(tmp_path: Path) -> tuple[Path, Path]:
    """A/docs/a{0,1,2}.txt and B/docs/b{0,1,2}.txt: each B file an A file with a line more."""
    a, b = tmp_path / "A" / "docs", tmp_path / "B" / "docs"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    for i in range(3):
        text = f"{SHARED}\nThe {i}th page tells its own story of {i * 31} words or so.\n"
        (a / f"a{i}.txt").write_text(text, "utf-8")
        (b / f"b{i}.txt").write_text(text + f"Added in B: note {i}.\n", "utf-8")
    return tmp_path / "A", tmp_path / "B"


def test_ids_are_named_one_way_as_dedup_against_names_them(tmp_path: Path) -> None:
    # dedup B --against A names each side relative to their common parent; substrings
    # --against and contamination --eval named each side relative to itself (docs/b0.txt,
    # a0.txt), so their tables and files did not match dedup's (B/docs/b0.txt, A/docs/a0.txt)
    a, b = _two_trees(tmp_path)
    dedup = json.loads(_run("dedup", str(b), "--against", str(a), "--format", "json", "-q").stdout)
    b_ids = sorted(d["id"] for d in dedup["dropped"])
    assert b_ids == ["B/docs/b0.txt", "B/docs/b1.txt", "B/docs/b2.txt"]
    assert sorted(d["match"] for d in dedup["dropped"]) == [
        "A/docs/a0.txt",
        "A/docs/a1.txt",
        "A/docs/a2.txt",
    ]
    require("pydivsufsort")
    kept = tmp_path / "kept.jsonl"
    spans = _run(
        "substrings",
        str(b),
        "--against",
        str(a),
        "--min-bytes",
        "40",
        "--json",
        "--kept",
        str(kept),
    )
    assert sorted({s["id"] for s in json.loads(spans.stdout)["spans"]}) == b_ids
    assert len(kept.read_text("utf-8").splitlines()) == 3  # the B records, their ids found
    ev = a / "docs" / "a1.txt"
    found = _run("contamination", str(b), "--eval", str(ev), "--ngram", "8", "--json")
    data = json.loads(found.stdout)
    assert [d["id"] for d in data["contaminated"]] == b_ids
    assert data["items"] == [{"eval_id": "A/docs/a1.txt", "documents": 3}]
    table = _run("contamination", str(b), "--eval", str(ev), "--ngram", "8", "--kept", str(kept))
    assert table.exit_code == 1
    assert "B/docs/b0.txt" in table.stdout and "A/docs/a1.txt" in table.stdout
    assert kept.read_text("utf-8") == ""  # every B document is contaminated: none kept


def test_against_tables_show_ids_without_their_shared_directory(tmp_path: Path) -> None:
    # each column names the directory its ids share; the outputs keep the whole ids
    a, b = _two_trees(tmp_path)
    table = _run("dedup", str(b), "--against", str(a), "-q")
    assert table.exit_code == 0
    assert "a (in A/docs/)" in table.stdout and "b (in B/docs/)" in table.stdout
    rows = [x.split("│") for x in table.stdout.splitlines() if x.startswith("│ a") and ".txt" in x]
    assert sorted((r[1].strip(), r[2].strip()) for r in rows) == [
        ("a0.txt", "b0.txt"),
        ("a1.txt", "b1.txt"),
        ("a2.txt", "b2.txt"),
    ]
    require("pydivsufsort")
    spans = _run("substrings", str(b), "--against", str(a), "--min-bytes", "40", "-q")
    assert "id (in B/docs/)" in spans.stdout
    assert {x.split("│")[1].strip() for x in spans.stdout.splitlines() if x.startswith("│ b")} == {
        "b0.txt",
        "b1.txt",
        "b2.txt",
    }
    alone = _run("dedup", str(b), "-q")  # not against: the ids as they are
    assert "(in " not in alone.stdout


def test_contamination_prints_one_row_a_document(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    question = "Which river flows through the ancient city that was once the capital"
    other = "Name the largest planet of the solar system and the moon it is known for"
    text = f"{question}. Some words between them here. {other}. And {question}."
    path.write_text(json.dumps({"id": "c", "text": text}) + "\n", "utf-8")
    ev = tmp_path / "eval.jsonl"
    rows = [{"id": "q1", "text": question}, {"id": "q2", "text": other}]
    ev.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    result = _run("contamination", str(path), "--eval", str(ev), "--ngram", "8")
    assert result.exit_code == 1
    rows_shown = [x for x in result.stdout.splitlines() if x.startswith("│ c ")]
    assert len(rows_shown) == 1  # three passages, one row
    assert [c.strip() for c in rows_shown[0].split("│")[2:5]] == ["3", "18", "q1, q2"]
    data = json.loads(
        _run("contamination", str(path), "--eval", str(ev), "--ngram", "8", "--json").stdout
    )
    (doc,) = data["contaminated"]
    assert (doc["passages"], doc["ngrams"], doc["eval_ids"]) == (3, 18, ["q1", "q2"])
    assert [m["eval_id"] for m in doc["matches"]] == ["q1", "q2", "q1"]


def test_substrings_without_the_extra_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pydivsufsort", None)  # import fails
    result = _run("substrings", str(_corpus(tmp_path)))
    assert result.exit_code == 2
    assert "pip install 'neardup[substrings]'" in " ".join(result.output.split())


def test_lines_near_counts_lines_differing_by_a_date(tmp_path: Path) -> None:
    rows = [
        {"id": f"p{i}", "text": f"Updated on {i + 10} May 2024 by the editors of this site.\n"
                                f"Story number {i} is unique, {i * 977} words long.\n"}
        for i in range(4)
    ]  # fmt: skip
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    assert json.loads(_run("lines", str(path), "--json").stdout)["repeated"] == []
    data = json.loads(_run("lines", str(path), "--near", "--threshold", "0.7", "--json").stdout)
    assert [(u["documents"], u["variants"], u["first_id"]) for u in data["repeated"]] == [
        (4, 4, "p0")
    ]
    assert data["summary"]["near_threshold"] == 0.7
    assert _run("lines", str(path), "--near", "--threshold", "1.5").exit_code == 2
    table = _run("lines", str(path), "--near", "--threshold", "0.7").stdout
    assert "variants" in table and "Updated on 10 May 2024" in table
