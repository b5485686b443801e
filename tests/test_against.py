"""``dedup(B, against=A)`` and ``neardup dedup B --against A`` / ``--against-collection``:
only B's documents are dropped, each naming its match in A and the score; A-A pairs are
never compared; ``within`` decides whether B's own duplicates go too; the local job with
one or two worker processes, and A as a collection, give the same result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from neardup import Document, dedup
from neardup.cli.main import app
from neardup.errors import ParameterError
from neardup.job.pipeline import DedupOptions
from store._db import db_url, pg_database, unique  # noqa: F401  (fixtures)

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"
runner = CliRunner()

# the examples corpus split in two: A = the sources, B = their renderings and revisions
A_INPUTS = [CORPUS / "chekhov", CORPUS / "progit" / "2016"]
B_INPUTS = [CORPUS / "progit" / "latest", CORPUS / "web", CORPUS / "wiki"]
#: B document -> its known match in A (examples/gold.jsonl), score at threshold 0.5
MATCHED = {
    "progit/latest/bash.asc": ("progit/2016/bash.asc", 0.538153),
    "progit/latest/rerere.asc": ("progit/2016/rerere.asc", 0.924906),
    "web/vanka.html": ("chekhov/Ванька.txt", 0.998674),
    "wiki/Тоска.wiki": ("chekhov/Тоска.txt", 0.998914),
}
B_KEPT = [
    "progit/latest/first-time-setup.asc",
    "progit/latest/gitweb.asc",
    "progit/latest/tagging.asc",
    "progit/latest/workflows.asc",
    "web/zametki-chitatelya.html",
]

# constructed: two A documents that are copies of each other, a B revision of one,
# and two B documents that are copies of each other but of nothing in A
_WORDS = [f"w{i}" for i in range(400)]
_OLD = " ".join(_WORDS[:120])
_NEW = " ".join(_WORDS[:110] + ["changed"] * 10)
_OTHER = " ".join(_WORDS[200:320])
A_DOCS = [Document("a1", _OLD), Document("a2", _OLD), Document("a3", " ".join(_WORDS[330:]))]
B_DOCS = [Document("b1", _NEW), Document("b2", _OTHER), Document("b3", _OTHER)]


def _dropped(result) -> dict[str, tuple[str | None, float | None]]:  # type: ignore[no-untyped-def]
    return {d.id: (d.match, d.score) for d in result.dropped}


def test_examples_known_matches_named_and_no_a_document_dropped() -> None:
    result = dedup([str(p) for p in B_INPUTS], against=[str(p) for p in A_INPUTS], jobs=1)
    assert result.against == 22  # A's documents come first in ids
    scores = {
        d.id: (d.match, None if d.score is None else round(d.score, 6)) for d in result.dropped
    }
    assert scores == MATCHED
    assert result.kept_ids() == B_KEPT
    assert not any(d.id in result.ids[: result.against] for d in result.dropped)
    s = result.summary
    assert (s["read"], s["kept"], s["removed"], s["skipped"]) == (9, 5, 4, 0)
    assert s["against"]["documents"] == 22 and s["against"]["matched"] == 4
    # never a pair of two A documents (the sources hold none above 0.5 anyway)
    a_ids = set(result.ids[: result.against])
    assert not any(p.a in a_ids and p.b in a_ids for p in result.pairs)


def test_within_drops_b_copies_and_no_within_keeps_them() -> None:
    on = dedup(B_DOCS, against=A_DOCS)  # b1 vs a1: 106 shared 5-shingles of 121, 0.876033
    off = dedup(B_DOCS, against=A_DOCS, within=False)
    assert _dropped(on) == {"b1": ("a1", 0.876033), "b3": (None, None)}
    assert _dropped(off) == {"b1": ("a1", 0.876033)}
    assert on.kept_ids() == ["b2"] and off.kept_ids() == ["b2", "b3"]
    # a1 and a2 are identical: never paired, never dropped; b1's match is the smaller id
    pairs = {frozenset((p.a, p.b)) for p in on.pairs}
    assert frozenset(("a1", "a2")) not in pairs
    assert {frozenset(("a1", "b1")), frozenset(("a2", "b1"))} <= pairs
    row = next(d for d in on.dropped if d.id == "b3").as_dict()
    assert row["kept"] == "b2" and "match" not in row and row["cluster"] == 0
    assert off.summary["against"]["within"] is False


def test_one_and_two_workers_give_the_same_result() -> None:
    runs = [
        dedup([str(p) for p in B_INPUTS], against=[str(p) for p in A_INPUTS], jobs=j)
        for j in (1, 2)
    ]
    one, two = ([d.as_dict() for d in r.dropped] for r in runs)
    assert one == two and runs[0].ids == runs[1].ids


def test_without_against_the_dropped_rows_are_unchanged() -> None:
    row = dedup(B_DOCS).dropped[0].as_dict()
    assert set(row) == {"id", "kept", "cluster", "reason"}


def test_cli_kept_is_b_only_and_removed_rows_name_the_match(tmp_path: Path) -> None:
    kept, removed, out = tmp_path / "kept.jsonl", tmp_path / "removed.jsonl", tmp_path / "out"
    args = ["dedup", *map(str, B_INPUTS), "-q", "-o", str(out)]
    args += [x for p in A_INPUTS for x in ("--against", str(p))]
    result = runner.invoke(
        app, [*args, "--kept", str(kept), "--removed", str(removed), "--passages"]
    )
    assert result.exit_code == 0, result.output
    shared = [json.loads(x) for x in (out / "passages.jsonl").read_text().splitlines()]
    assert {(p["a"], p["b"]) for p in shared} >= {("chekhov/Ванька.txt", "web/vanka.html")}
    assert [json.loads(x)["id"] for x in kept.read_text().splitlines()] == B_KEPT
    assert sorted(json.loads(x)["id"] for x in removed.read_text().splitlines()) == sorted(MATCHED)
    rows = [json.loads(x) for x in (out / "dropped.jsonl").read_text().splitlines()]
    assert {r["id"]: (r["match"], round(r["score"], 6)) for r in rows} == MATCHED
    summary = json.loads((out / "summary.json").read_text())
    assert summary["read"] == summary["kept"] + summary["removed"] + summary["skipped"] == 9


def test_cli_refuses_against_where_it_does_not_run() -> None:
    a = str(CORPUS / "chekhov")
    dask = ["dedup", str(CORPUS / "web"), "--against-collection", "x", "--engine", "dask"]
    refused = runner.invoke(app, dask)
    assert refused.exit_code == 2 and "--against-collection" in refused.output
    # --against INPUT... runs on Dask (tests/distributed/test_against_dask.py)
    dask = ["dedup", str(CORPUS / "web"), "--against", a, "--engine", "dask", "--dry-run"]
    assert runner.invoke(app, dask).exit_code == 0
    alone = runner.invoke(app, ["dedup", str(CORPUS / "web"), "--no-within"])
    assert alone.exit_code == 2 and "--no-within" in alone.output
    both = ["dedup", str(CORPUS / "web"), "--against", a, "--against-collection", "x"]
    assert runner.invoke(app, both).exit_code == 2
    plan = runner.invoke(app, ["dedup", str(CORPUS / "web"), "--against", a, "--dry-run"])
    assert plan.exit_code == 0 and "against" in plan.output and "chekhov" in plan.output


def test_collection_form_gives_the_same_result(db_url: str, tmp_path: Path) -> None:  # noqa: F811
    from neardup.corpus.against import against_collection
    from neardup.store import Store

    name = unique()
    store = Store(db_url)
    try:
        store.create_collection(name, method="shingles-full", threshold=0.5)
        store.add(name, _read(A_INPUTS))
        result = against_collection([str(p) for p in B_INPUTS], store, name, jobs=1)
        with pytest.raises(ParameterError, match="threshold"):
            against_collection(B_DOCS, store, name, options=DedupOptions(threshold=0.7))
    finally:
        store.close()
    assert _dropped(result) == MATCHED
    assert result.kept_ids() == B_KEPT
    assert result.summary["against"]["collection"] == name
    out = tmp_path / "out"
    args = ["dedup", *map(str, B_INPUTS), "--against-collection", name, "--db", db_url]
    cli = runner.invoke(app, [*args, "-q", "-o", str(out)])
    assert cli.exit_code == 0, cli.output
    rows = [json.loads(x) for x in (out / "dropped.jsonl").read_text().splitlines()]
    assert {r["id"]: (r["match"], r["score"]) for r in rows} == MATCHED


def _read(paths: list[Path]):  # type: ignore[no-untyped-def]
    from neardup.text.read import read_corpus

    return read_corpus([str(p) for p in paths])


def test_containment_drops_an_excerpt_of_an_a_document() -> None:
    opts = DedupOptions(measure="containment", threshold=0.7)
    b, a = [str(CORPUS / "excerpts")], [str(CORPUS / "chekhov")]
    result = dedup(b, against=a, options=opts, jobs=1)
    (row,) = result.dropped
    assert (row.id, row.match) == ("excerpts/Хамелеон (начало).txt", "chekhov/Хамелеон.txt")
    assert row.score == 1.0  # the excerpt is copied whole
    assert result.kept_ids() == [] and result.summary["against"]["documents"] == 16
    # resemblance 0.627: below 0.7, no match
    resemblance = dedup(b, against=a, options=DedupOptions(threshold=0.7), jobs=1)
    assert resemblance.kept_ids() == ["excerpts/Хамелеон (начало).txt"]


@pytest.mark.data
@pytest.mark.slow
def test_linux_doc_6_12_against_6_1_drops_every_labelled_revision_at_the_threshold() -> None:
    from neardup import compare
    from shared_data import data_path, load_docs

    docs = load_docs("linux-doc-revisions")
    a = [d for d in docs if d.id.startswith("6.1/")]
    b = [d for d in docs if d.id.startswith("6.12/")]
    result = dedup(b, against=a)
    text = {d.id: d.text for d in docs}
    dropped = {d.id: d for d in result.dropped}
    assert result.against == len(a) and all(i.startswith("6.12/") for i in dropped)
    assert all(d.match is None or d.match.startswith("6.1/") for d in dropped.values())
    gold = [
        json.loads(x)
        for x in data_path("linux-doc-revisions", "gold.jsonl").read_text().splitlines()
    ]
    close = 0
    for row in gold:  # every labelled revision at resemblance >= 0.5 is gone, for an A match
        res = compare(text[row["a"]], text[row["b"]]).resemblance
        if res >= 0.5:
            close += 1
            d = dropped[row["b"]]
            assert d.match is not None and d.score is not None and d.score >= res - 1e-6
        elif row["b"] not in dropped:
            assert row["b"] in result.kept_ids()
    assert close == 1116, close  # of the 1,185 labelled pairs
    s = result.summary
    assert s["read"] == s["kept"] + s["removed"] + s["skipped"] == len(b)
