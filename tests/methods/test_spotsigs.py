"""SpotSigs (Theobald et al. 2008): spot signatures, multiset Jaccard, partitioned index."""

from __future__ import annotations

import numpy as np
import pytest
import xxhash
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import ParameterError
from neardup.methods.base import Prepared
from neardup.methods.registry import make_method
from neardup.methods.spotsigs import SpotSigs, multiset_jaccard, spot_signatures
from neardup.text.canonical import CanonicalForm
from shared_data import job_scores

OBAMA = (
    "At a rally to kick off a weeklong campaign for the South Carolina primary, Obama tried "
    "to set the record straight from an attack circulating widely on the Internet that is "
    "designed to play into prejudices against Muslims and fears of terrorism."
)


def prep(method: SpotSigs, *texts: str) -> list[Prepared]:
    return [Prepared(str(i), t, method.canonical.tokens(t)) for i, t in enumerate(texts)]


def test_paper_example_signatures() -> None:
    m = SpotSigs()
    assert m.spots(m.canonical.tokens(OBAMA)) == [
        "a:rally:kick",
        "a:weeklong:campaign",
        "the:south:carolina",
        "the:record:straight",
        "an:attack:circulating",
        "the:internet:designed",
        "is:designed:play",
    ]


def test_distance_and_chain() -> None:
    toks = ["the", "alpha", "of", "bravo", "charlie", "the", "delta"]
    ants = frozenset({"the"})
    assert spot_signatures(toks, ants, distance=2, chain=1) == ["the:bravo"]
    assert spot_signatures(toks, ants, distance=1, chain=3) == ["the:alpha:bravo:charlie"]


def test_russian_signature_payload_derived_independently() -> None:
    m = SpotSigs()
    t = "Кот был дома. Это был очень старый кот, и он спал на диване."
    # antecedents был, это, на; stop words "и", "он" are skipped inside chains;
    # "на диване" ends the text with a chain of 1 < 2: no signature
    expected = ["был:дома:очень", "это:очень:старый", "был:очень:старый"]
    assert m.spots(m.canonical.tokens(t)) == expected
    sig = m.signature(m.sign(prep(m, t)), 0)
    hashes = sorted(xxhash.xxh64_intdigest(s.encode(), 0) for s in expected)
    assert sig.payload.tolist() == hashes


def test_english_signature_payload_derived_independently() -> None:
    m = SpotSigs()
    sig = m.signature(m.sign(prep(m, "The cat sat. The cat sat. The dog ran away.")), 0)
    expected = ["the:cat:sat", "the:cat:sat", "the:dog:ran"]  # a bag: the repeat counts twice
    assert sig.payload.tolist() == sorted(xxhash.xxh64_intdigest(s.encode()) for s in expected)


def test_multiset_jaccard() -> None:
    a = np.array([1, 1, 1, 2], np.uint64)
    b = np.array([1, 2, 2, 3], np.uint64)
    assert multiset_jaccard(a, b) == pytest.approx(2 / 6)  # min: 1+1, max: 3+2+1
    assert multiset_jaccard(a[:0], b[:0]) == 0.0


def test_match_non_match_symmetry_and_candidates() -> None:
    m = SpotSigs(threshold=0.5)
    edited = OBAMA.replace("fears of terrorism", "fear of violence")
    other = "The weather is nice and the sea is calm; there was a boat on the horizon today."
    sigs = m.sign(prep(m, OBAMA, edited, other))
    sim = m.similarity(sigs, np.array([[0, 1], [0, 2]]))
    assert sim[0] >= 0.5 > sim[1]
    assert m.candidates(sigs).tolist() == [[0, 1]]
    s = [m.signature(sigs, i) for i in range(3)]
    assert all(m.compare(x, y) == m.compare(y, x) for x in s for y in s)
    assert m.compare(s[0], s[1]) == pytest.approx(sim[0])


def test_candidates_equal_brute_force_above_threshold() -> None:
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(30)]
    texts = []
    for _ in range(60):
        toks = rng.choice(["the", "a", "is", *words], size=int(rng.integers(5, 60)))
        texts.append(" ".join(toks))
    for t in (0.3, 0.6, 1.0):
        m = SpotSigs(threshold=t)
        sigs = m.sign(prep(m, *texts))
        all_pairs = np.array([(i, j) for i in range(60) for j in range(i + 1, 60)])
        sim = m.similarity(sigs, all_pairs)
        want = {tuple(p) for p in all_pairs[sim >= t].tolist()}
        got = {tuple(p) for p in m.candidates(sigs).tolist()}
        assert want <= got
        assert len(got) < len(all_pairs)


WORDS = st.sampled_from(["the", "a", "is", "cat", "dog", "ran", "sat", "mat", "big", "в", "кот"])


@settings(derandomize=True, max_examples=50, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=40))
def test_identical_texts_match_and_signatures_deterministic(words: list[str]) -> None:
    t = " ".join(words)
    s1, s2 = SpotSigs().sign(prep(SpotSigs(), t, t)), SpotSigs().sign(prep(SpotSigs(), t))
    assert SpotSigs().signature(s1, 0) == SpotSigs().signature(s2, 0)
    if s1.data.sizes[0]:
        assert SpotSigs().similarity(s1, np.array([[0, 1]]))[0] == 1.0
        assert SpotSigs().candidates(s1).tolist() == [[0, 1]]


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("canonical", CanonicalForm()),
    ],
)
def test_a_form_without_stop_words_is_refused(param: str, value: object) -> None:
    with pytest.raises(ParameterError) as err:
        make_method("spotsigs", **{param: value})
    assert err.value.name == param


@pytest.mark.data
def test_job_on_progit_ru() -> None:
    r = job_scores("progit-ru-revisions", "spotsigs", 0.3, {})
    assert r["precision"] > 0.7 and r["recall"] > 0.6
