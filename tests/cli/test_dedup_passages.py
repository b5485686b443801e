"""``neardup dedup --passages``: passages.jsonl for the verified pairs (issue 19)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.passages import align_passages
from shared_data import data_path
from store._db import db_url, pg_database, unique  # noqa: F401  (fixtures)

runner = CliRunner()


@pytest.mark.data
def test_dedup_writes_the_passages_of_each_verified_pair(tmp_path: Path) -> None:
    prose = data_path("ruslit", "prose", "Chekhov")
    story = (prose / "Ариадна.txt").read_text("utf-8")[:6000]
    other = (prose / "Архиерей.txt").read_text("utf-8")[:6000]
    revised = story[:3000] + "\n\n" + other[:1500] + "\n\n" + story[3000:]
    corpus = tmp_path / "docs.jsonl"
    rows = [{"id": "story", "text": story}, {"id": "revised", "text": revised}]
    rows.append({"id": "other", "text": other[1000:]})
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    out = tmp_path / "out"
    args = ["dedup", str(corpus), "--out", str(out), "--passages", "-q", "--content-type", "text"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    pairs = [json.loads(line) for line in (out / "pairs.jsonl").read_text("utf-8").splitlines()]
    assert [(p["a"], p["b"]) for p in pairs] == [("story", "revised")]
    found = [json.loads(line) for line in (out / "passages.jsonl").read_text("utf-8").splitlines()]
    expected = [
        {"a": "story", "b": "revised", "a_start": p.a_start, "a_end": p.a_end}
        | {"b_start": p.b_start, "b_end": p.b_end, "seeds": p.seeds}
        for p in align_passages(story, revised)
    ]
    assert found == expected
    assert len(found) == 2  # the story before and after the inserted 1,500 characters
    assert found[0]["a_start"] == found[0]["b_start"] == 0
    assert found[1]["b_end"] - found[1]["b_start"] == found[1]["a_end"] - found[1]["a_start"]
    bad = runner.invoke(app, ["dedup", str(corpus), "--passages", "-q"])
    assert bad.exit_code == 2


@pytest.mark.data
def test_check_passages_align_the_query_with_each_match(db_url: str, tmp_path: Path) -> None:  # noqa: F811
    prose = data_path("ruslit", "prose", "Chekhov")
    story = (prose / "Ариадна.txt").read_text("utf-8")[:6000]
    other = (prose / "Архиерей.txt").read_text("utf-8")[:3000]
    name = unique()
    db = ["--db", db_url]
    assert (
        runner.invoke(app, ["collection", "create", name, "-m", "minhash-lsh", *db]).exit_code == 0
    )
    corpus = tmp_path / "c.jsonl"
    rows = [{"id": "story", "text": story}, {"id": "other", "text": other}]
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    assert runner.invoke(app, ["add", name, str(corpus), *db]).exit_code == 0
    query_text = other[:1200] + "\n\n" + story[:5000]
    query = tmp_path / "q.txt"
    query.write_text(query_text, encoding="utf-8")
    result = runner.invoke(app, ["check", name, str(query), "--passages", "--json", *db])
    assert result.exit_code == 1, result.output  # 1: a duplicate was found
    matches = {m["id"]: m for m in json.loads(result.stdout)["matches"]}
    expected = align_passages(query_text, story)
    assert [
        (p["a_start"], p["a_end"], p["b_start"], p["b_end"]) for p in matches["story"]["passages"]
    ] == [(p.a_start, p.a_end, p.b_start, p.b_end) for p in expected]
    assert expected[0].b_start == 0 and expected[0].a_start == len(other[:1200]) + 2
    plain = runner.invoke(app, ["check", name, str(query), "--passages", *db])
    assert f"story [{expected[0].b_start}, {expected[0].b_end})" in plain.stdout
