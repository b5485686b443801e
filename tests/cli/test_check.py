"""``neardup collection check`` / ``neardup check``: record by record, one result per
record, grep's exit codes (0 nothing matched, 1 a duplicate, 2 an error), and the command
tree (``collection add|check|remove`` with top-level aliases, ``delete`` asks first)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from neardup.cli.check import result_line
from neardup.cli.main import app

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
runner = CliRunner()


def _run(*args: str, **kw: Any) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False, **kw)


@pytest.fixture()
def db(tmp_path: Path) -> list[str]:
    """A SQLite collection ``stories`` holding the Chekhov stories of the sample corpus."""
    url = f"sqlite:///{tmp_path / 'c.db'}"
    assert _run("collection", "create", "stories", "--db", url).exit_code == 0
    res = _run("collection", "add", "stories", str(CORPUS / "chekhov"), "--db", url, "-q")
    assert res.exit_code == 0, res.output
    return ["--db", url]


def _records(tmp_path: Path) -> Path:
    """JSONL: a web copy of "Ванька", an unrelated Pro Git chapter, a too-short line."""
    vanka = (CORPUS / "web" / "vanka.html").read_text(encoding="utf-8")
    git = (CORPUS / "progit" / "latest" / "bash.asc").read_text(encoding="utf-8")
    rows = [
        {"id": "vanka-copy", "text": vanka},
        {"id": "git-bash", "text": git},
        {"id": "tiny", "text": "Ванька"},
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    return path


def test_one_json_line_per_record_and_exit_1_on_a_duplicate(tmp_path: Path, db: list[str]) -> None:
    res = _run("collection", "check", "stories", str(_records(tmp_path)), "--json", *db)
    assert res.exit_code == 1, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["vanka-copy", "git-bash", "tiny"]
    assert [r["status"] for r in rows] == ["duplicate", "unique", "skipped"]
    best = rows[0]["matches"][0]
    assert best["id"] == "Ванька.txt" and best["resemblance"] > 0.9
    assert rows[1]["matches"] == [] and rows[2]["reason"] == "too-short"


def test_text_lines_and_exit_0_when_nothing_matched(tmp_path: Path, db: list[str]) -> None:
    git = CORPUS / "progit" / "latest"
    res = _run("check", "stories", str(git / "bash.asc"), str(git / "rerere.asc"), *db)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines == [line for line in lines if ": no duplicate (" in line] and len(lines) == 2
    assert lines[0].startswith("bash.asc: no duplicate")


def test_a_folder_is_checked_file_by_file(db: list[str]) -> None:
    res = _run("check", "stories", str(CORPUS / "wiki"), str(CORPUS / "web"), "--json", *db)
    assert res.exit_code == 1
    rows = {r["id"]: r for r in map(json.loads, res.stdout.splitlines())}
    # two folders: ids are paths from their common parent (issue 27)
    assert rows["wiki/Тоска.wiki"]["matches"][0]["id"] == "Тоска.txt"
    assert rows["web/vanka.html"]["matches"][0]["id"] == "Ванька.txt"


def test_max_bytes_skips_large_records(tmp_path: Path, db: list[str]) -> None:
    res = _run("check", "stories", str(_records(tmp_path)), "--max-bytes", "100", "--json", *db)
    assert res.exit_code == 0  # every record skipped as oversize: nothing matched
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["reason"] for r in rows] == ["oversize", "oversize", "too-short"]


@pytest.mark.parametrize(
    "args",
    [
        ["check", "no-such", str(CORPUS / "wiki")],
        ["check", "stories", str(CORPUS / "no-such-file.txt")],
        ["check", "stories", str(CORPUS / "wiki"), "--limit", "0"],
        ["check", "stories"],
    ],
)
def test_errors_exit_2(db: list[str], args: list[str]) -> None:
    assert _run(*args, *db).exit_code == 2


def test_stdin_dash(db: list[str]) -> None:
    text = (CORPUS / "wiki" / "Тоска.wiki").read_text(encoding="utf-8")
    res = _run("check", "stories", "-", "--json", *db, input=text)
    assert res.exit_code == 1, res.output
    assert json.loads(res.stdout.splitlines()[0])["matches"][0]["id"] == "Тоска.txt"


def test_result_line_names_the_best_match() -> None:
    row: dict[str, Any] = {
        "id": "q",
        "status": "duplicate",
        "matches": [
            {"id": "a", "resemblance": 0.5, "containment_query": 1.0, "containment_doc": 0.5},
            {"id": "b", "resemblance": 0.4, "containment_query": 0.9, "containment_doc": 0.4},
        ],
    }
    assert result_line(row) == (
        "q: duplicate of a (resemblance 0.500, 1.000 of it in that document, "
        "0.500 of that document in it); also of b (0.400)"
    )
    row["matches"] += [
        {"id": f"c{i}", "resemblance": 0.3, "containment_query": 0.3, "containment_doc": 0.3}
        for i in range(6)
    ]
    assert result_line(row).endswith(
        "also of b (0.400), c0 (0.300), c1 (0.300), c2 (0.300), c3 (0.300) "
        "and 2 more (--json lists them)"
    )


def test_closing_line_counts_and_quiet_prints_nothing(db: list[str]) -> None:
    web = str(CORPUS / "web" / "vanka.html")
    short = str(CORPUS / "chekhov" / "Тоска.txt")
    res = _run("check", "stories", web, short, *db)
    assert res.exit_code == 1
    assert res.stderr.strip().splitlines()[-1] == "2 checked: 2 duplicate(s), 0 unique, 0 skipped"
    quiet = _run("check", "stories", web, "-q", *db)
    assert quiet.exit_code == 1 and quiet.stdout == "" and quiet.stderr == ""


def test_command_tree_and_aliases(tmp_path: Path, db: list[str]) -> None:
    names = {c.name for c in app.registered_commands}
    assert {"add", "check", "remove"} <= names and "dask-dedup" not in names
    res = _run("collection", "remove", "stories", "Ванька.txt", *db)
    assert res.exit_code == 0, res.output
    web = str(CORPUS / "web" / "vanka.html")
    assert _run("collection", "check", "stories", web, *db).exit_code == 0  # removed
    assert _run("add", "stories", str(CORPUS / "chekhov" / "Ванька.txt"), *db).exit_code == 0
    assert _run("check", "stories", web, *db).exit_code == 1


def test_delete_asks_first(db: list[str]) -> None:
    # CliRunner's stdin is not a terminal: without --yes the command refuses (exit 2)
    res = _run("collection", "delete", "stories", *db)
    assert res.exit_code == 2 and "--yes" in res.stderr
    assert "stories" in _run("collection", "list", *db).stdout
    assert _run("collection", "delete", "stories", "-y", *db).exit_code == 0
    assert "stories" not in _run("collection", "list", *db).stdout


def test_delete_prompt_at_a_terminal(db: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from neardup.cli import collection

    monkeypatch.setattr(collection, "interactive", lambda: True)
    res = runner.invoke(app, ["collection", "delete", "stories", *db], input="n\n")
    assert res.exit_code == 1 and "cancelled" in res.stderr
    res = runner.invoke(app, ["collection", "delete", "stories", *db], input="y\n")
    assert res.exit_code == 0, res.output


def test_top_k_ranks_by_score_then_id(tmp_path: Path, db: list[str]) -> None:
    vanka = (CORPUS / "chekhov" / "Ванька.txt").read_text(encoding="utf-8")
    copies = tmp_path / "copies.jsonl"
    rows = [{"id": "b-copy", "text": vanka}, {"id": "a-copy", "text": vanka}]
    copies.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    assert _run("collection", "add", "stories", str(copies), *db, "-q").exit_code == 0
    web = str(CORPUS / "web" / "vanka.html")
    res = _run(
        "check", "stories", str(CORPUS / "chekhov" / "Ванька.txt"), "--top", "2", "--json", *db
    )
    assert res.exit_code == 1, res.output
    (row,) = [json.loads(line) for line in res.stdout.splitlines()]
    assert [m["id"] for m in row["matches"]] == ["a-copy", "b-copy"]  # all score 1: by id
    assert [m["evidence"]["score"] for m in row["matches"]] == [1.0, 1.0]
    res = _run("check", "stories", web, "--top", "5", "--json", *db)
    (row,) = [json.loads(line) for line in res.stdout.splitlines()]
    scores = [m["evidence"]["score"] for m in row["matches"]]
    assert len(scores) == 3 and scores == sorted(scores, reverse=True)
    assert _run("check", "stories", web, "--top", "0", *db).exit_code == 2
