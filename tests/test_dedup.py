"""The dedup job on real text: pairs, containment drops, skips, outputs, determinism."""

from __future__ import annotations

import json

import pytest

from neardup.dedup import DedupOptions, dedup
from neardup.errors import ParameterError
from neardup.output import write_result
from neardup.text.types import Document
from shared_data import data_path


def _story() -> str:
    path = data_path("ruslit", "prose", "Chekhov", "Хамелеон.txt")
    return path.read_text(encoding="utf-8")


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in text.splitlines() if p.strip()]


def _corpus() -> list[Document]:
    paras = _paragraphs(_story())
    full = "\n".join(paras)
    part = "\n".join(paras[2:8])  # a passage quoted alone
    revised = "\n".join(p.replace("Очумелов", "Очумелов-младший") for p in paras[:-2])
    other = "\n".join(_paragraphs(data_path("ruslit", "prose", "Chekhov", "Тоска.txt").read_text()))
    return [
        Document("full", full),
        Document("part", part),
        Document("revised", revised),
        Document("other", other),
        Document("tiny", "Да."),
    ]


def test_contained_document_is_reported_and_dropped_in_favour_of_container():
    res = dedup(_corpus(), options=DedupOptions(measure="containment", threshold=0.9))
    by = {(p.a, p.b): p for p in res.pairs}
    assert by[("full", "part")].containment_ba >= 0.9
    dropped = {d.id: d for d in res.dropped}
    assert dropped["part"].kept == "full"
    assert "contained" in dropped["part"].reason
    assert "other" not in dropped and "full" not in dropped
    assert [s.id for s in res.skipped] == ["tiny"] and res.skipped[0].reason == "too-short"


def test_resemblance_finds_revision_but_not_quote():
    res = dedup(_corpus(), options=DedupOptions(threshold=0.5))
    pairs = {(p.a, p.b) for p in res.pairs}
    assert ("full", "revised") in pairs
    assert ("full", "part") not in pairs  # resemblance of a short quote is low


@pytest.mark.parametrize("method", ["shingles-full", "minhash-lsh", "shingles-mod", "shingles-min"])
def test_methods_agree_on_an_obvious_duplicate(method):
    res = dedup(_corpus(), method=method, options=DedupOptions(threshold=0.6))
    assert ("full", "revised") in {(p.a, p.b) for p in res.pairs}


def test_outputs_written_and_deterministic(tmp_path):
    def run(out):
        res = dedup(_corpus(), options=DedupOptions(measure="containment"), clock=lambda: 0.0)
        write_result(res, out)
        return {
            f: (out / f).read_bytes() for f in ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl")
        }

    first, second = run(tmp_path / "a"), run(tmp_path / "b")
    assert first == second
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["documents"] == 4 and summary["skipped"] == 1
    assert summary["skipped_by_reason"] == {"too-short": 1}
    row = json.loads(first["pairs.jsonl"].splitlines()[0])
    assert set(row) == {
        "a",
        "b",
        "resemblance",
        "containment_ab",
        "containment_ba",
        "score",
        "method",
        "decision",
        "rule",
    }
    assert row["decision"] == "verified" and summary["decision"]["mode"] == "verified"


def test_bad_options_name_the_parameter():
    with pytest.raises(ParameterError, match="threshold"):
        DedupOptions(threshold=1.5)
    with pytest.raises(ParameterError, match="keep"):
        DedupOptions(keep="shortest")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="method"):
        dedup([Document("a", "x y z")], method="nope")
    with pytest.raises(ParameterError, match="bogus"):
        dedup([Document("a", "x y z")], bogus=1)
