"""`neardup.Index`: the in-memory incremental index on real text (the sample corpus):
verified resemblance equal to `compare`, containment finding an excerpt, removal, save and
load, pandas/arrow views, and the index agreeing with brute force."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup.errors import FormatError, InputError, ParameterError
from neardup.index.memory import Index
from neardup.job.pairs import PairTable
from neardup.methods.shingles import Shingling
from neardup.text.canonical import CanonicalForm
from shared_data import require

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
STORIES = {
    p.name: p.read_text(encoding="utf-8") for p in sorted((CORPUS / "chekhov").glob("*.txt"))
}
WEB_VANKA = (CORPUS / "web" / "vanka.html").read_text(encoding="utf-8")
EXCERPT = (CORPUS / "excerpts" / "Хамелеон (начало).txt").read_text(encoding="utf-8")


def _index(**kw: Any) -> Index:
    idx = Index(**kw)
    report = idx.add(STORIES.items())
    assert (report.added, report.skipped) == (len(STORIES), ())
    return idx


def _ids(result: neardup.CheckResult) -> list[str]:
    return [m.doc_id for m in result.matches]


def test_check_finds_the_copy_with_the_exact_resemblance() -> None:
    idx = _index()
    res = idx.check(WEB_VANKA)
    assert _ids(res) == ["Ванька.txt"] and res.duplicate
    exact = neardup.compare(WEB_VANKA, STORIES["Ванька.txt"])
    assert res.matches[0].resemblance == pytest.approx(exact.resemblance, abs=1e-12)
    assert res.matches[0].containment_query == pytest.approx(exact.containment_ab, abs=1e-12)
    assert _ids(idx.check(STORIES["Тоска.txt"])) == ["Тоска.txt"]  # itself, nothing else


def test_containment_finds_an_excerpt_that_resemblance_misses() -> None:
    by_resemblance = _index(threshold=0.8)
    assert _ids(by_resemblance.check(EXCERPT)) == []
    by_containment = _index(measure="containment", threshold=0.8)
    res = by_containment.check(EXCERPT)
    assert _ids(res) == ["Хамелеон.txt"]
    assert res.matches[0].containment_query == 1.0 and res.matches[0].resemblance < 0.8


def test_add_outcomes_and_remove() -> None:
    idx = _index()
    again = idx.add([("Ванька.txt", "anything at all here"), ("tiny", "Ванька")])
    assert [(s.id, s.reason) for s in again.skipped] == [
        ("Ванька.txt", "changed"),
        ("tiny", "too-short"),
    ]
    assert again.added == 0 and "tiny" not in idx
    idx.remove("Ванька.txt")
    assert "Ванька.txt" not in idx and len(idx) == len(STORIES) - 1
    assert _ids(idx.check(WEB_VANKA)) == []
    with pytest.raises(InputError, match=r"Ванька\.txt"):
        idx.remove("Ванька.txt")
    for name in list(idx):
        idx.remove(name)
    assert len(idx) == 0 and not idx._postings  # nothing left behind
    assert idx.add([("Ванька.txt", STORIES["Ванька.txt"])]).added == 1
    assert _ids(idx.check(WEB_VANKA)) == ["Ванька.txt"]


def test_bad_parameters_and_short_checks() -> None:
    with pytest.raises(ParameterError, match="threshold"):
        Index(threshold=0)
    with pytest.raises(ParameterError, match="measure"):
        Index(measure="cosine")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="too short"):
        Index().check("два слова")
    with pytest.raises(ParameterError, match="text"):
        Index().check(1)  # type: ignore[arg-type]
    (skip,) = Index().add([("a\x00b", "a text with words enough to store it")]).skipped
    assert skip.reason == "unreadable"


@pytest.mark.parametrize("measure", ["resemblance", "containment"])
def test_save_and_load_round_trip(tmp_path: Path, measure: str) -> None:
    idx = _index(measure=measure, threshold=0.6, shingle_size=4)
    path = idx.save(tmp_path / "i.npz")
    again = Index.load(path)
    assert again.params() == idx.params() and sorted(again) == sorted(idx)
    for text in (WEB_VANKA, EXCERPT):
        assert again.check(text).matches == idx.check(text).matches
    (tmp_path / "bad.npz").write_bytes(b"not an index")
    with pytest.raises(FormatError):
        Index.load(tmp_path / "bad.npz")
    with pytest.raises(InputError):
        Index.load(tmp_path / "missing.npz")


@pytest.mark.parametrize("method", ["sl-st", "spotsigs", "shingles-mod"])
def test_methods_keeping_signatures_save_and_load(tmp_path: Path, method: str) -> None:
    """SL+ST and SpotSigs sign at add (no text is kept: their signatures and keys are
    saved); shingles-mod keeps its mod-m sample of the 64-bit set: a loaded index checks
    as the one it was saved from, and the story stored verbatim is found with score 1."""
    idx = Index(method=method, threshold=0.5)
    idx.add([neardup.Document(k, v) for k, v in STORIES.items()])
    again = Index.load(idx.save(tmp_path / "i.npz"))
    for text in (STORIES["Ванька.txt"], WEB_VANKA):
        a, b = idx.check(text), again.check(text)
        assert [(m.doc_id, m.evidence) for m in a.matches] == [
            (m.doc_id, m.evidence) for m in b.matches
        ]
    found = idx.check(STORIES["Ванька.txt"]).matches
    assert found and found[0].doc_id == "Ванька.txt" and found[0].evidence["score"] == 1.0


def test_results_as_tables() -> None:
    pd = require("pandas")
    require("pyarrow")
    res = _index(measure="containment", threshold=0.5).check(EXCERPT)
    frame = res.to_pandas()
    assert list(frame["id"]) == _ids(res) and frame["containment_query"].iloc[0] == 1.0
    table = res.to_arrow()
    assert table.column("id").to_pylist() == _ids(res)
    pairs = neardup.dedup([str(CORPUS / "chekhov"), str(CORPUS / "web")]).pairs
    assert isinstance(
        pairs, PairTable
    )  # DedupResult.pairs is a Sequence[Pair]; dedup gives a PairTable
    pf = pairs.to_pandas()
    assert isinstance(pf, pd.DataFrame) and len(pf) == len(pairs)
    assert list(zip(pf["a"], pf["b"], strict=True)) == [(p.a, p.b) for p in pairs]
    assert pairs.to_arrow().column("resemblance").to_pylist() == [p.resemblance for p in pairs]


PARAGRAPHS = [
    p.strip() for text in STORIES.values() for p in text.split("\n") if len(p.split()) >= 12
][:40]


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(
    stored=st.lists(st.integers(0, len(PARAGRAPHS) - 1), min_size=1, max_size=12, unique=True),
    query=st.lists(st.integers(0, len(PARAGRAPHS) - 1), min_size=1, max_size=3),
    threshold=st.sampled_from([0.2, 0.5, 0.9]),
)
def test_containment_index_equals_brute_force(
    stored: list[int], query: list[int], threshold: float
) -> None:
    idx = Index(measure="containment", threshold=threshold, shingle_size=3)
    idx.add((f"p{i}", PARAGRAPHS[i]) for i in stored)
    text = " ".join(PARAGRAPHS[i] for i in query)
    got = set(_ids(idx.check(text, limit=100)))
    fq = Shingling(size=3).fingerprints(CanonicalForm().tokens(text))  # brute force
    want = set()
    for i in stored:
        fd = idx._docs[f"p{i}"].fps
        shared = np.intersect1d(fq, fd).shape[0]
        if max(shared / fq.shape[0], shared / fd.shape[0]) >= threshold:
            want.add(f"p{i}")
    assert got == want


def test_any_method_with_index_keys_saves_and_loads(tmp_path: Path) -> None:
    from neardup.text.types import Document

    idx = Index(method="tf-ridf", decision="own", name="stories")
    idx.add(Document(k, v) for k, v in STORIES.items())
    page = next(neardup.read_corpus(CORPUS / "web" / "vanka.html"))
    assert isinstance(page, Document)
    web = page.text  # the extracted text
    before = idx.check(web)
    assert [m.doc_id for m in before.matches] == ["Ванька.txt"]
    assert before.matches[0].evidence["rule"] == "TF-RIDF equal signature"
    again = Index.load(idx.save(tmp_path / "tfridf.npz"))
    assert again.params() == idx.params() and again.info.method == "tf-ridf"
    after = again.check(web)
    assert [m.as_dict() for m in after.matches] == [m.as_dict() for m in before.matches]
    assert again.get("Ванька.txt") == idx.get("Ванька.txt")


def test_an_index_saved_by_the_first_format_still_loads(tmp_path: Path) -> None:
    import json

    fps = Shingling(size=5).fingerprints(CanonicalForm().tokens(STORIES["Ванька.txt"]))
    fps = np.unique(fps)
    params = {
        "measure": "resemblance",
        "threshold": 0.5,
        "shingle_size": 5,
        "num_perm": 128,
        "canonical": {k: v for k, v in CanonicalForm().params().items() if k != "version"},
        "min_tokens": 3,
        "max_df": 5000,
    }
    header = json.dumps({"format": "neardup-index/1", "params": params, "ids": ["v"]})
    path = tmp_path / "old.npz"
    with open(path, "wb") as fh:
        np.savez(fh, header=np.array(header), values=fps, offsets=np.array([0, fps.shape[0]]))
    assert _ids(Index.load(path).check(WEB_VANKA)) == ["v"]


def test_method_choices_are_validated() -> None:
    from neardup.errors import UnsupportedMethod

    with pytest.raises(UnsupportedMethod, match="simhash"):
        Index(method="simhash")
    with pytest.raises(ParameterError, match="shingle_size"):
        Index(method="minhash-lsh", shingle_size=4)
    with pytest.raises(ParameterError, match="method_params"):
        Index(method_params={"num_perm": 64})
    with pytest.raises(ParameterError, match="measure"):
        Index(method="megashingles", decision="own", measure="containment")
    with pytest.raises(ParameterError, match="k"):
        Index().check("the quick brown fox jumps over the lazy dog", k=0)
