"""The dedup job on real text: pairs, containment drops, skips, outputs, determinism."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from neardup.errors import ParameterError
from neardup.job.pipeline import DedupOptions, dedup
from neardup.output import write_result
from neardup.text.types import Document, Skipped
from shared_data import REPO

# the stories ship with the repository (the same files as ../shared/data/ruslit), so a clone
# without ../shared still tests the job
CHEKHOV = REPO / "examples" / "corpus" / "chekhov"


def _story() -> str:
    return (CHEKHOV / "Хамелеон.txt").read_text(encoding="utf-8")


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in text.splitlines() if p.strip()]


def _corpus() -> list[Document]:
    paras = _paragraphs(_story())
    full = "\n".join(paras)
    part = "\n".join(paras[2:8])  # a passage quoted alone
    revised = "\n".join(p.replace("Очумелов", "Очумелов-младший") for p in paras[:-2])
    other = "\n".join(_paragraphs((CHEKHOV / "Тоска.txt").read_text(encoding="utf-8")))
    return [
        Document("full", full),
        Document("part", part),
        Document("revised", revised),
        Document("other", other),
        Document("tiny", "Да."),
    ]


def test_contained_document_is_reported_and_dropped_in_favour_of_container() -> None:
    res = dedup(_corpus(), options=DedupOptions(measure="containment", threshold=0.9))
    by = {(p.a, p.b): p for p in res.pairs}
    assert by[("full", "part")].containment_ba >= 0.9
    dropped = {d.id: d for d in res.dropped}
    assert dropped["part"].kept == "full"
    assert "contained" in dropped["part"].reason
    assert "other" not in dropped and "full" not in dropped
    assert [s.id for s in res.skipped] == ["tiny"] and res.skipped[0].reason == "too-short"


def test_resemblance_finds_revision_but_not_quote() -> None:
    res = dedup(_corpus(), options=DedupOptions(threshold=0.5))
    pairs = {(p.a, p.b) for p in res.pairs}
    assert ("full", "revised") in pairs
    assert ("full", "part") not in pairs  # resemblance of a short quote is low


@pytest.mark.parametrize("method", ["shingles-full", "minhash-lsh", "shingles-mod", "shingles-min"])
def test_methods_agree_on_an_obvious_duplicate(method: str) -> None:
    res = dedup(_corpus(), method=method, options=DedupOptions(threshold=0.6))
    assert ("full", "revised") in {(p.a, p.b) for p in res.pairs}


def test_outputs_written_and_deterministic(tmp_path: Path) -> None:
    def run(out: Path) -> dict[str, bytes]:
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


def test_bad_options_name_the_parameter() -> None:
    with pytest.raises(ParameterError, match="threshold"):
        DedupOptions(threshold=1.5)
    with pytest.raises(ParameterError, match="keep"):
        DedupOptions(keep="shortest")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="method"):
        dedup([Document("a", "x y z")], method="nope")
    with pytest.raises(ParameterError, match="bogus"):
        dedup([Document("a", "x y z")], bogus=1)


# -- issue 27: every record read is kept, removed or skipped -------------------------------------
def _corpus_docs() -> list[Document | Skipped]:
    from pathlib import Path

    stories = sorted((Path(__file__).parents[1] / "examples/corpus/chekhov").glob("*.txt"))
    texts = [p.read_text(encoding="utf-8") for p in stories[:6]]
    docs: list[Document | Skipped] = [Document(f"d{i}", t) for i, t in enumerate(texts)]
    docs += [Document("d0", texts[0]), Document("x", "too short")]  # id d0 again: a copy
    docs.append(Skipped("bad", "f.jsonl:9", "unreadable", "malformed JSON"))
    return docs


def test_summary_reports_the_lsh_banding_and_its_point_at_t() -> None:
    """minhash-lsh's bands x rows and ``P(candidate | J = t)`` are in the summary: 40 x 3 at
    0.5 by default, for recall (1 - (1 - 0.5^3)^40 = 0.99521), 25 x 5 at the balanced point
    (1 - (1 - 0.5^5)^25 = 0.547839); a method without bands has no ``lsh``."""
    res = dedup(
        _corpus(),
        method="minhash-lsh",
        options=DedupOptions(threshold=0.5),
        candidate_probability=None,
    )
    assert res.summary["lsh"] == {"bands": 25, "rows": 5, "candidate_probability_at_t": 0.547839}
    res = dedup(_corpus(), method="minhash-lsh", options=DedupOptions(threshold=0.5))
    assert res.summary["lsh"] == {"bands": 40, "rows": 3, "candidate_probability_at_t": 0.99521}
    assert res.summary["candidate_pairs"] >= res.summary["pairs"] > 0
    assert "lsh" not in dedup(_corpus(), options=DedupOptions(threshold=0.5)).summary


def test_the_sketch_prefilter_drops_only_candidates_far_below_t(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under 40 x 3 the passage quoted alone ("part") becomes a candidate of the full story
    and of its revision, at resemblance far below 0.5: their sketches agree on fewer than
    47 of 128 slots (P(X < 47 | J = 0.5) = 0.000931), so only the revision pair is compared
    exactly; without the prefilter the same pairs come out."""
    import numpy as np

    from neardup.methods.shingle_methods import MinHashLSH

    opts = DedupOptions(threshold=0.5)
    res = dedup(_corpus(), method="minhash-lsh", options=opts)  # 40 x 3 by default
    s = res.summary
    assert (s["candidate_pairs"], s["prefiltered_pairs"], s["verified_pairs"]) == (3, 2, 1)
    assert s["prefilter"] == {"min_agreeing_slots": 47, "slots": 128, "miss_at_t": 0.000931}
    assert "prefilter" in s["seconds"]
    monkeypatch.setattr(
        MinHashLSH, "prefilter", lambda self, sigs, pairs, t, **kw: np.ones(len(pairs), bool)
    )
    every = dedup(_corpus(), method="minhash-lsh", options=opts)
    assert every.summary["verified_pairs"] == 3
    assert (
        [(p.a, p.b) for p in every.pairs]
        == [(p.a, p.b) for p in res.pairs]
        == [("full", "revised")]
    )
    # the own rule reads the sketches itself; containment is not estimated by them
    for other in (DedupOptions(threshold=0.5, decision="own"), DedupOptions(measure="containment")):
        s = dedup(_corpus(), method="minhash-lsh", options=other).summary
        assert s["prefiltered_pairs"] == 0 and "prefilter" not in s


def test_summary_counts_every_record_read() -> None:
    result = dedup(_corpus_docs(), options=DedupOptions(threshold=0.5))
    s = result.summary
    assert (s["read"], s["kept"], s["removed"], s["skipped"]) == (9, 6, 1, 2)
    assert s["renamed_ids"] == 1 and "d0#2" in result.ids  # the repeated id, renamed


def test_a_record_lost_inside_the_job_fails_it_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    from neardup.errors import AccountingError

    dedup_module = importlib.import_module("neardup.job.pipeline")

    real = dedup_module.screen

    def lose_one(prepared, repeated):  # type: ignore[no-untyped-def]
        out = real(prepared, repeated)  # the last accepted document vanishes, unreported
        return dataclasses.replace(out, accepted=out.accepted[:-1], take=out.take[:-1])

    monkeypatch.setattr(dedup_module, "screen", lose_one)
    with pytest.raises(
        AccountingError, match=r"9 records read but 6 kept [+] 0 removed [+] 2 skipped = 8"
    ):
        dedup(_corpus_docs(), options=DedupOptions(threshold=0.5))


def _variants(text: str, n: int) -> list[str]:
    """``n`` copies of ``text``, copy i with its i-th word replaced (near-identical)."""
    words = text.split()
    return [" ".join([*words[:i], "ВСТАВКА", *words[i + 1 :]]) for i in range(n)]


@pytest.mark.parametrize(("copies", "relabelled"), [(4, False), (12, True)])
def test_dense_labels_only_where_the_candidates_gather_several_times_the_corpus(
    copies: int, relabelled: bool
) -> None:
    # Relabelling sorts every fingerprint of the corpus: with clusters of 4 near-copies
    # the candidates gather 3 values a value and verify faster without it (at a million
    # documents it cost 36 s and saved none); clusters of 12 gather 11 a value.
    stories = sorted((REPO / "examples" / "corpus" / "chekhov").glob("*.txt"))[:5]
    docs = [
        Document(f"{s.stem}-{i}", t)
        for s in stories
        for i, t in enumerate(_variants(" ".join(s.read_text().split()[:300]), copies))
    ]
    result = dedup(docs, options=DedupOptions(threshold=0.5))
    assert len(result.pairs) == 5 * copies * (copies - 1) // 2
    assert ("relabel" in result.summary["seconds"]) is relabelled
