"""One pair decision (:func:`neardup.job.decide.decide`): a collection check, an ``Index`` query
and the dedup job decide a known pair identically (same score, same rule)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
import pytest

from neardup import Index
from neardup.job.decide import DECIDED, Decision, decide, signature_scores
from neardup.job.pairs import DECIDED as PAIR_DECIDED
from neardup.job.pipeline import DedupOptions, dedup
from neardup.methods.registry import make_method, method_classes
from neardup.methods.sets import ShingleSets
from neardup.store import Store
from neardup.text.types import Document

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"
#: The known pair: a Pro Git chapter and its copy without its title line (a near-duplicate
#: by every method's rule, resemblance 0.9987, not an identical one).
STORED, QUERY = "progit/2016/rerere.asc", "edited/rerere.asc"


def _documents() -> list[Document]:
    """The plain-text documents of examples/corpus (Pro Git chapters, Chekhov stories) and
    the edited copy."""
    paths = sorted(CORPUS.glob("progit/*/*.asc")) + sorted(CORPUS.glob("chekhov/*.txt"))
    docs = [Document(p.relative_to(CORPUS).as_posix(), p.read_text("utf-8")) for p in paths]
    text = (CORPUS / STORED).read_text("utf-8")
    edited = text.split("\n", 1)[1]
    return [*docs, Document(QUERY, edited)]


def _methods() -> list[str]:
    return [cls.name for cls in method_classes() if cls.capabilities.has_index_keys]


def test_decided_codes_are_the_pair_codes() -> None:
    assert DECIDED == PAIR_DECIDED


@pytest.mark.parametrize("measure", ["resemblance", "containment"])
def test_verified_score_is_the_measure_that_decided(
    measure: Literal["resemblance", "containment"],
) -> None:
    sets = ShingleSets.from_arrays([
        np.array([1, 2, 3, 4], np.uint64),
        np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], np.uint64),
        np.array([1, 2, 3, 4], np.uint64),
    ])  # fmt: skip
    cand = np.array([[0, 1], [0, 2]], np.int64)
    got = decide(sets, cand, decision=Decision(measure=measure, threshold=0.5))
    if measure == "resemblance":  # 4/10 is below 0.5; the identical pair decides at 1
        assert got.pairs.tolist() == [[0, 2]] and got.score.tolist() == [1.0]
    else:  # all of document 0 is in document 1: containment 1 decides, resemblance 0.4
        assert got.pairs.tolist() == [[0, 1], [0, 2]] and got.score.tolist() == [1.0, 1.0]
        assert got.resemblance.tolist() == [0.4, 1.0]
    assert {got.rules[c].label for c in got.codes} == {f"{measure} >= 0.5 verified"}


def test_identical_pair_decided_under_an_own_rule_that_rejects_it() -> None:
    meth = make_method("shingles-full")
    sets = ShingleSets.from_arrays([np.array([1, 2], np.uint64), np.array([1, 2], np.uint64)])
    decision = Decision(threshold=0.5, mode="own")
    got = decide(
        sets,
        np.array([[0, 1]]),
        decision=decision,
        method=meth,
        own_scores=lambda pairs: np.zeros(pairs.shape[0]),
    )
    assert [got.rules[c].decision for c in got.codes] == ["identical"]
    assert got.score.tolist() == [1.0] and got.labels[2] == "identical shingle sets"


def test_containment_own_score_is_the_estimated_containment() -> None:
    """shingles-mod under containment: the score is the sample containment it decided on,
    not the resemblance (issue 29, item 6)."""
    meth = make_method("shingles-mod", m=1)  # every fingerprint sampled: exact estimate
    sets = ShingleSets.from_arrays([
        np.array([1, 2, 3, 4], np.uint64), np.arange(1, 11, dtype=np.uint64)
    ])  # fmt: skip
    sigs = meth.from_sets(sets)
    decision = Decision(measure="containment", threshold=0.5, mode="own")
    own = signature_scores(meth, sigs, "containment")
    got = decide(sets, np.array([[0, 1]]), decision=decision, method=meth, own_scores=own)
    assert got.score.tolist() == [1.0] and got.resemblance.tolist() == [0.4]
    assert got.labels[1] == "containment on mod-1 samples >= 0.5"


def _dedup_pair(method: str, docs: list[Document], **opts: object) -> dict[str, object]:
    result = dedup(docs, method=method, options=DedupOptions(threshold=0.5, **opts))  # type: ignore[arg-type]
    found = [p for p in result.pairs if {p.a, p.b} == {STORED, QUERY}]
    assert len(found) == 1, f"{method}: the known pair is not decided by dedup"
    pair = found[0]
    return {"score": round(pair.score, 6), "decision": pair.decision, "rule": pair.rule}


@pytest.mark.parametrize("method", _methods())
def test_store_check_and_dedup_decide_the_known_pair_alike(tmp_path: Path, method: str) -> None:
    docs = _documents()
    want = _dedup_pair(method, docs)
    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    try:
        store.create_collection("c", method, threshold=0.5)
        # every document stored, the query too, so lexical methods fit the same statistics
        store.add("c", docs)
        query = next(d.text for d in docs if d.id == QUERY)
        match = next(m for m in store.check("c", query).matches if m.doc_id == STORED)
    finally:
        store.close()
    ev = match.evidence
    assert {"score": ev["score"], "decision": ev["decision"], "rule": ev["rule"]} == want


def test_store_check_samples_shingles_mod_as_the_job_does(tmp_path: Path) -> None:
    revision = Document(
        "progit/latest/rerere.asc", (CORPUS / "progit/latest/rerere.asc").read_text("utf-8")
    )
    docs = [d for d in _documents() if d.id not in (QUERY, revision.id)] + [revision]
    result = dedup(docs, method="shingles-mod", options=DedupOptions(threshold=0.5))
    want = next(round(p.score, 6) for p in result.pairs if {p.a, p.b} == {STORED, revision.id})
    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    try:
        store.create_collection("c", "shingles-mod", threshold=0.5)
        store.add("c", docs)
        match = next(m for m in store.check("c", revision.text).matches if m.doc_id == STORED)
    finally:
        store.close()
    assert match.evidence["score"] == want


@pytest.mark.parametrize("measure", ["resemblance", "containment"])
def test_index_check_and_dedup_decide_the_known_pair_alike(
    measure: Literal["resemblance", "containment"],
) -> None:
    docs = _documents()
    want = _dedup_pair("shingles-full", docs, measure=measure)
    index = Index(measure=measure, threshold=0.5)
    index.add(doc for doc in docs if doc.id != QUERY)
    match = next(m for m in index.check(next(d.text for d in docs if d.id == QUERY)).matches)
    assert match.doc_id == STORED
    evidence = {k: match.evidence[k] for k in ("score", "decision", "rule")}
    assert evidence == want


def test_store_check_under_containment_scores_the_sample_containment(tmp_path: Path) -> None:
    """Issue 29 item 6: a shingles-mod collection deciding on containment reports the
    sample containment it decided on, not the sample resemblance."""
    text = (CORPUS / STORED).read_text("utf-8")
    half = text[: len(text) // 3]
    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    try:
        store.create_collection("c", "shingles-mod", {"m": 2}, measure="containment")
        store.add("c", [Document("whole", text)])
        match = store.check("c", half).matches[0]
    finally:
        store.close()
    ev = match.evidence
    assert ev["decision"] == "own" and ev["rule"] == "containment on mod-2 samples >= 0.5"
    assert match.resemblance < 0.5 <= ev["score"]  # resemblance alone would reject it
    assert ev["score"] == pytest.approx(match.containment_query, abs=0.05)
