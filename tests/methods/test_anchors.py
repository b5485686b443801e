"""Anchor words (Ilyinsky et al. 2002, interpreted): hand-computed dictionary and
signature, real Russian and English paragraphs, parameters, stored bytes, the job."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import IncompatibleSignatureError, ParameterError, UsageError
from neardup.job.pipeline import DedupOptions, dedup
from neardup.methods.anchors import AnchorWords
from neardup.methods.base import Prepared, Signature
from neardup.methods.corpus_stats import CorpusStatistics
from neardup.methods.registry import make_method
from neardup.text.canonical import CanonicalForm
from neardup.text.types import Document
from shared_data import paragraphs

PLAIN = CanonicalForm(stop_words=False)


@pytest.fixture(scope="module")
def corpus() -> list[Prepared]:
    texts = paragraphs("progit-ru-revisions", 15) + paragraphs("linux-doc-revisions", 15)
    canon = CanonicalForm()
    return [Prepared(str(i), t, canon.tokens(t)) for i, t in enumerate(texts)]


def fitted(docs: list[list[str]] | list[Prepared], **params: Any) -> AnchorWords:
    method = AnchorWords(**params)
    tokens = [d.tokens if isinstance(d, Prepared) else d for d in docs]
    method.fit(CorpusStatistics.from_token_lists(tokens))
    return method


def one(method: AnchorWords, tokens: tuple[str, ...] | list[str]) -> Signature:
    return method.signature(method.sign([Prepared("x", "", tokens)]), 0)


# -- hand-built collection (N = 10) ----------------------------------------------------------
# df: alpha 3, beta 2, gamma 5, delta 6, everywhere 10, rare 1
D0 = ["alpha"] * 4 + ["beta"] * 2 + ["gamma", "delta", "rare", "everywhere"]
TINY = [
    D0,
    ["alpha", "beta", "gamma", "delta", "everywhere"],
    ["alpha", "gamma", "delta", "everywhere"],
    ["gamma", "delta", "everywhere"],
    ["gamma", "delta", "everywhere"],
    ["delta", "everywhere"],
    *[["everywhere", f"filler{i}"] for i in range(4)],
]
HAND = {"min_df_share": 0.2, "max_df_share": 0.5, "min_rel_freq": 0.15, "top": 3, "min_anchors": 1}


def sha1_u64(text: str) -> int:
    return int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], "little")


def test_dictionary_and_signature_by_hand() -> None:
    method = fitted(TINY, canonical=PLAIN, **HAND)
    # 0.2 <= df/N <= 0.5 and df >= 2: alpha (0.3), beta (0.2), gamma (0.5)
    assert method.anchors == {"alpha", "beta", "gamma"}
    # in D0 (10 tokens): alpha 0.4, beta 0.2 >= 0.15; gamma 0.1 < 0.15
    assert method.chosen_anchors(D0) == ["alpha", "beta"]
    sig = one(method, D0)
    assert sig.payload.dtype == np.uint64
    assert sig.payload.tolist() == [sha1_u64("alpha beta")]
    # top=1 keeps the most frequent anchor only
    assert one(fitted(TINY, canonical=PLAIN, **{**HAND, "top": 1}), D0).payload.tolist() == [
        sha1_u64("alpha")
    ]


def test_dictionary_keeps_the_most_frequent_anchors() -> None:
    method = fitted(TINY, canonical=PLAIN, **{**HAND, "max_anchors": 2})
    assert method.anchors == {"gamma", "alpha"}  # df 5 and 3 beat beta's 2


def test_no_anchor_no_signature() -> None:
    method = fitted(TINY, canonical=PLAIN, **{**HAND, "min_anchors": 2})
    sig = one(method, ["alpha", "delta", "everywhere"])  # one anchor < min_anchors
    assert sig.payload.tolist() == [0]
    assert method.compare(sig, sig) == 0.0


def test_sign_before_fit_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="fit"):
        AnchorWords().sign([Prepared("a", "", ["x"])])


# -- real text -----------------------------------------------------------------------------
@pytest.mark.data
def test_small_edit_matches_other_text_does_not(corpus: list[Prepared]) -> None:
    method = fitted(corpus)
    canon = method.canonical
    for doc in (corpus[0], corpus[20]):  # Russian (progit-ru), English (linux-doc)
        edited = doc.text.replace(".", ";", 1) + " ok"  # punctuation and one rare word
        a, b = one(method, doc.tokens), one(method, canon.tokens(edited))
        assert a.payload.any()
        assert method.compare(a, b) == 1.0
    assert method.compare(one(method, corpus[0].tokens), one(method, corpus[1].tokens)) == 0.0


@pytest.mark.data
@settings(derandomize=True, max_examples=50, deadline=None)
@given(data=st.data())
def test_identical_texts_match_and_fresh_methods_agree(
    corpus: list[Prepared], data: st.DataObject
) -> None:
    doc = corpus[data.draw(st.integers(0, len(corpus) - 1))]
    tokens = data.draw(st.lists(st.sampled_from(doc.tokens), min_size=1, max_size=40))
    a, b = one(fitted(corpus), tokens), one(fitted(corpus), tokens)
    assert a.to_bytes() == b.to_bytes()
    assert AnchorWords().compare(a, b) == (1.0 if a.payload.any() else 0.0)


@pytest.mark.data
def test_differently_made_signatures_refuse_comparison(corpus: list[Prepared]) -> None:
    base = fitted(corpus)
    sig = one(base, corpus[0].tokens)
    others = (fitted(corpus, top=5), fitted(corpus[:-1]), fitted(corpus, canonical=PLAIN))
    for other in others:
        with pytest.raises(IncompatibleSignatureError):
            base.compare(sig, one(other, corpus[0].tokens))


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"min_df_share": 0.5, "max_df_share": 0.4}, "max_df_share"),
        ({"top": 3, "min_anchors": 4}, "min_anchors"),
    ],
)
def test_rules_across_parameters_name_the_parameter(params: dict[str, Any], name: str) -> None:
    with pytest.raises(ParameterError) as err:
        AnchorWords(**params)
    assert err.value.name == name


@pytest.mark.data
def test_job_finds_a_copy(corpus: list[Prepared]) -> None:
    docs = [Document(d.id, d.text) for d in corpus] + [Document("copy", corpus[5].text + "!")]
    res = dedup(docs, method="anchor-words", options=DedupOptions(threshold=0.5, decision="own"))
    assert ("5", "copy") in {(p.a, p.b) for p in res.pairs}
    assert isinstance(make_method("anchor-words"), AnchorWords)
