"""Result objects name documents by id, and their tables (``to_arrow`` / ``to_pandas``)
hold the rows of the JSON lines files, on the sample corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import neardup
from neardup.errors import ParameterError
from neardup.job.pairs import PairTable
from shared_data import require

pd = require("pandas")

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"


@pytest.fixture(scope="module")
def result() -> neardup.DedupResult:
    opts = neardup.DedupOptions(measure="containment", threshold=0.5)
    return neardup.dedup([str(CORPUS)], options=opts, jobs=1)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_clusters_and_dropped_speak_ids(result: neardup.DedupResult) -> None:
    by_keep = {c.keep: c for c in result.clusters}
    vanka = by_keep["web/vanka.html"]
    assert vanka.members == ("chekhov/Ванька.txt", "web/vanka.html")
    assert [result.ids[i] for i in vanka.member_indexes] == list(vanka.members)
    assert result.ids[vanka.keep_index] == vanka.keep
    dropped = {d.id: d for d in result.dropped}
    assert dropped["chekhov/Ванька.txt"].kept == "web/vanka.html"
    assert dropped["chekhov/Ванька.txt"].cluster == vanka.cluster
    for c in result.clusters:  # every dropped member of a cluster is a Dropped with that id
        assert {m for m in c.members if m != c.keep} == {
            d.id for d in result.dropped if d.cluster == c.cluster
        }


@pytest.mark.parametrize("table", ["pairs", "clusters", "dropped", "skipped"])
def test_tables_hold_the_jsonl_rows(
    result: neardup.DedupResult, tmp_path: Path, table: str
) -> None:
    neardup.write_result(result, tmp_path)
    rows = _jsonl(tmp_path / f"{table}.jsonl")
    arrow = result.to_arrow(table)
    frame = result.to_pandas(table)
    assert arrow.column_names == list(rows[0]) == list(frame.columns)
    got = arrow.to_pylist()
    assert len(got) == len(rows) == len(frame) > 0
    for mine, written in zip(got, rows, strict=True):
        for key, value in written.items():
            if isinstance(value, float):
                assert mine[key] == pytest.approx(value, abs=1e-6)
            else:
                assert mine[key] == value
    records = frame.to_dict("records")
    assert records == got


def test_table_values_on_known_rows(result: neardup.DedupResult) -> None:
    clusters = result.to_pandas("clusters")
    row = clusters[clusters["keep"] == "wiki/Тоска.wiki"].iloc[0]
    assert row["members"] == ["chekhov/Тоска.txt", "wiki/Тоска.wiki"]
    pairs = result.to_arrow("pairs")
    assert pairs.schema.field("resemblance").type == pa.float64()
    assert set(pairs.column("decision").to_pylist()) == {"verified"}
    skipped = result.to_arrow("skipped")
    assert dict(zip(skipped["id"].to_pylist(), skipped["reason"].to_pylist(), strict=True)) == {
        "bad/binary.txt": "binary",
        "bad/empty.txt": "empty",
        "bad/short.txt": "too-short",
    }
    with pytest.raises(ParameterError, match="table='documents'"):
        result.to_arrow("documents")


def test_empty_tables_keep_their_types() -> None:
    empty = neardup.dedup([neardup.Document("x", "один два три четыре пять шесть")])
    clusters = empty.to_arrow("clusters")
    assert clusters.num_rows == 0
    assert clusters.schema.field("members").type == pa.list_(pa.string())
    assert str(empty.to_pandas("dropped")["cluster"].dtype) == "int64"
    assert empty.to_pandas("pairs").columns.tolist()[:2] == ["a", "b"]


def test_pair_table_from_pairs_round_trip(result: neardup.DedupResult) -> None:
    pairs = list(result.pairs)
    again = PairTable.from_pairs(pairs)
    assert isinstance(
        result.pairs, PairTable
    )  # DedupResult.pairs is a Sequence[Pair]; dedup gives a PairTable
    assert again == pairs and again.method == "shingles-full"
    assert list(again.lines()) == list(result.pairs.lines())
    assert again.to_arrow().equals(result.pairs.to_arrow())
    plain = neardup.DedupResult(result.ids, pairs, result.clusters, result.dropped, [])
    assert plain.to_arrow("pairs").equals(result.to_arrow("pairs"))


def test_check_result_table(tmp_path: Path) -> None:
    store = neardup.Store(f"sqlite:///{tmp_path}/c.db")
    try:
        store.create_collection("stories", "minhash-lsh", threshold=0.5, measure="containment")
        story = (CORPUS / "chekhov" / "Хамелеон.txt").read_text(encoding="utf-8")
        store.add("stories", [neardup.Document("story", story, source="Хамелеон.txt")])
        excerpt = (CORPUS / "excerpts" / "Хамелеон (начало).txt").read_text(encoding="utf-8")
        res = store.check("stories", excerpt)
    finally:
        store.close()
    table = res.to_arrow()
    assert table.column_names == list(res.matches[0].as_dict())
    assert table.column("id").to_pylist() == ["story"]
    assert table.column("containment_query").to_pylist() == [1.0]
    assert json.loads(table.column("evidence")[0].as_py()) == res.matches[0].evidence
    frame = res.to_pandas()
    assert frame["id"].tolist() == ["story"] and frame["size_doc"].dtype == "int64"
