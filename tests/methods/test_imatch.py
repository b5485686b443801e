"""I-Match and I-Match with lexicon randomization: hand-computed lexicon and SHA-1,
real Russian and English paragraphs, parameters, stored bytes, the job."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import IncompatibleSignatureError, ParameterError, UsageError
from neardup.job.pipeline import DedupOptions, dedup
from neardup.methods.base import Prepared, Signature
from neardup.methods.corpus_stats import CorpusStatistics
from neardup.methods.imatch import IMatch, IMatchRandom
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


def fitted(cls: type = IMatch, docs: list[Prepared] | None = None, **params: Any) -> IMatch:
    method = cls(**params)
    method.fit(CorpusStatistics.from_token_lists(d.tokens for d in docs or []))
    return method


def one(method: IMatch, tokens: tuple[str, ...] | list[str], text: str = "") -> Signature:
    return method.signature(method.sign([Prepared("x", text, tokens)]), 0)


# -- hand-built collection -----------------------------------------------------------------
# N = 4 documents; nidf = log(4/df) / log(4): df=1 -> 1, df=2 -> 0.5, df=3 -> 0.2075, df=4 -> 0
TINY = [
    ["kernel", "memory", "buffer", "device", "common"],
    ["memory", "buffer", "device", "common"],
    ["buffer", "device", "common"],
    ["device", "common"],
]


def test_lexicon_and_signature_by_hand() -> None:
    method = fitted(IMatch, [Prepared(str(i), "", t) for i, t in enumerate(TINY)])
    # min_nidf=0.2 <= nidf <= 0.95: memory (0.5) and buffer (0.2075) only
    assert method.lexicon == {"memory", "buffer"}
    sig = one(method, TINY[0])
    assert sig.payload.dtype == np.uint8 and sig.payload.shape == (20,)
    assert sig.payload.tobytes() == hashlib.sha1(b"buffer memory").digest()
    # no lexicon term: all-zero signature that matches nothing, not even itself
    empty = one(method, ["device", "common"])
    assert not empty.payload.any()
    assert method.compare(empty, empty) == 0.0


def test_sign_before_fit_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="fit"):
        IMatch().sign([Prepared("a", "", ["x"])])
    with pytest.raises(UsageError, match="fit"):
        IMatchRandom().sign([Prepared("a", "", ["x"])])


def test_random_lexicons_by_hand() -> None:
    docs = [Prepared(str(i), "", t) for i, t in enumerate(TINY)]
    method = fitted(IMatchRandom, docs, K=3, drop=0.5, seed=5)
    assert isinstance(method, IMatchRandom)  # narrows the type: fitted gives an IMatch
    extra = method._extra
    assert len(extra) == 3
    assert all(len(lex) == 1 and lex < method.lexicon for lex in extra)
    sig = one(method, TINY[0]).payload
    assert sig.shape == (20 * 4,)
    assert sig[:20].tobytes() == hashlib.sha1(b"buffer memory").digest()
    for k, lex in enumerate(extra, start=1):
        (term,) = lex
        assert sig[20 * k : 20 * k + 20].tobytes() == hashlib.sha1(term.encode()).digest()


# -- real text -----------------------------------------------------------------------------
@pytest.mark.data
@pytest.mark.parametrize("cls", [IMatch, IMatchRandom])
def test_small_edit_matches_other_text_does_not(corpus: list[Prepared], cls: type[IMatch]) -> None:
    method = fitted(cls, corpus)
    canon = CanonicalForm()
    for doc in (corpus[0], corpus[20]):  # Russian (progit-ru), English (linux-doc)
        edited = doc.text.rstrip() + " ."  # punctuation only: same lexicon terms
        a, b = one(method, doc.tokens), one(method, canon.tokens(edited))
        assert method.compare(a, b) == 1.0
    assert method.compare(one(method, corpus[0].tokens), one(method, corpus[1].tokens)) == 0.0


@pytest.mark.data
def test_randomization_survives_a_changed_lexicon_term(corpus: list[Prepared]) -> None:
    doc = next(d for d in corpus[:15] if len(set(d.tokens)) >= 12)
    plain, rand = fitted(IMatch, corpus), fitted(IMatchRandom, corpus)
    assert isinstance(rand, IMatchRandom)  # narrows the type: fitted gives an IMatch
    terms = sorted(set(doc.tokens) & plain.lexicon)
    dropped = [t for t in doc.tokens if t != terms[0]]
    assert plain.compare(one(plain, doc.tokens), one(plain, dropped)) == 0.0
    # the term is missing from some of the K randomized lexicons (about a third of them)
    if any(terms[0] not in lex for lex in rand._extra):
        assert rand.compare(one(rand, doc.tokens), one(rand, dropped)) == 1.0


@pytest.mark.data
@settings(derandomize=True, max_examples=50, deadline=None)
@given(data=st.data())
def test_identical_texts_match_and_fresh_methods_agree(
    corpus: list[Prepared], data: st.DataObject
) -> None:
    doc = corpus[data.draw(st.integers(0, len(corpus) - 1))]
    tokens = data.draw(st.lists(st.sampled_from(doc.tokens), min_size=1, max_size=40))
    for cls in (IMatch, IMatchRandom):
        a, b = one(fitted(cls, corpus), tokens), one(fitted(cls, corpus), tokens)
        assert a.to_bytes() == b.to_bytes()
        assert cls().compare(a, b) == (1.0 if a.payload.any() else 0.0)


@pytest.mark.data
def test_differently_made_signatures_refuse_comparison(corpus: list[Prepared]) -> None:
    base = fitted(IMatch, corpus)
    sig = one(base, corpus[0].tokens)
    others = [
        fitted(IMatch, corpus, min_nidf=0.3),
        fitted(IMatch, corpus[:-1]),  # other lexicon, same parameters
        fitted(IMatch, corpus, canonical=PLAIN),
        fitted(IMatchRandom, corpus),
    ]
    for other in others:
        with pytest.raises(IncompatibleSignatureError):
            base.compare(sig, one(other, corpus[0].tokens))
    with pytest.raises(IncompatibleSignatureError):
        r = fitted(IMatchRandom, corpus)
        r.compare(one(r, corpus[0].tokens), one(fitted(IMatchRandom, corpus, seed=1), []))


@pytest.mark.parametrize(
    ("cls", "params", "name"),
    [
        (IMatch, {"min_nidf": 0.6, "max_nidf": 0.5}, "max_nidf"),
        (IMatchRandom, {"drop": 1.0}, "drop"),
    ],
)
def test_rules_across_parameters_name_the_parameter(
    cls: type[IMatch], params: dict[str, Any], name: str
) -> None:
    with pytest.raises(ParameterError) as err:
        cls(**params)
    assert err.value.name == name


def test_registry_builds_both() -> None:
    assert type(make_method("imatch")) is IMatch
    assert type(make_method("imatch-random", K=3)) is IMatchRandom


@pytest.mark.data
@pytest.mark.parametrize("name", ["imatch", "imatch-random"])
def test_job_finds_a_copy(corpus: list[Prepared], name: str) -> None:
    docs = [Document(d.id, d.text) for d in corpus] + [Document("copy", corpus[5].text + "!")]
    res = dedup(docs, method=name, options=DedupOptions(threshold=0.5, decision="own"))
    assert ("5", "copy") in {(p.a, p.b) for p in res.pairs}
    cand = make_method(name)
    assert cand.capabilities.needs_fit and cand.capabilities.exact_key
