"""TF-RIDF (seed 004): top-6 words and CRC32 computed by hand from explicit df/cf numbers,
incremental statistics, real Russian and English paragraphs, parameters, the job."""

from __future__ import annotations

import math
import zlib
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import IncompatibleSignatureError, UsageError
from neardup.job.pipeline import DedupOptions, dedup
from neardup.methods.base import Prepared, Signature
from neardup.methods.corpus_stats import CorpusStatistics
from neardup.methods.registry import make_method
from neardup.methods.tfridf import TFRIDF
from neardup.text.canonical import CanonicalForm
from neardup.text.types import Document
from shared_data import paragraphs

PLAIN = CanonicalForm(stop_words=False, morphology="none", min_token_length=1)


@pytest.fixture(scope="module")
def corpus() -> list[Prepared]:
    texts = paragraphs("progit-ru-revisions", 15) + paragraphs("linux-doc-revisions", 15)
    canon = TFRIDF().canonical
    return [Prepared(str(i), t, canon.tokens(t)) for i, t in enumerate(texts)]


def fitted(docs: list[list[str]] | list[Prepared], **params: Any) -> TFRIDF:
    method = TFRIDF(**params)
    tokens = [d.tokens if isinstance(d, Prepared) else d for d in docs]
    method.fit(CorpusStatistics.from_token_lists(tokens))
    return method


def one(method: TFRIDF, tokens: tuple[str, ...] | list[str]) -> Signature:
    return method.signature(method.sign([Prepared("x", "", tokens)]), 0)


# -- hand-built collection -----------------------------------------------------------------
DOC = ["kernel"] * 3 + ["driver"] * 2 + ["module", "memory", "buffer", "device", "common"]
TINY = [DOC, ["common", "device", "buffer", "memory"], ["common", "device", "buffer"],
        ["common", "device"]]  # fmt: skip
# explicit statistics of TINY (N = 4): word -> (count in DOC, df, cf)
TABLE = {
    "kernel": (3, 1, 3),
    "driver": (2, 1, 2),
    "module": (1, 1, 1),
    "memory": (1, 2, 2),
    "buffer": (1, 3, 3),
    "device": (1, 4, 4),
    "common": (1, 4, 4),
}


def test_top_six_and_crc32_by_hand() -> None:
    n = 4
    weight = {}
    for word, (count, df, cf) in TABLE.items():
        tf = 0.5 + 0.5 * count / 3  # tf_max: "kernel" occurs 3 times
        weight[word] = tf * (-math.log(df / n) + math.log(1 - math.exp(-cf / n)))
    # kernel 0.747 > driver 0.378 > module -0.082 > memory -0.160 > buffer -0.234
    # > common = device -0.306 (a tie: broken by the word, "common" < "device")
    ranked = sorted(weight, key=lambda w: (-round(weight[w], 12), w))
    assert ranked[:6] == ["kernel", "driver", "module", "memory", "buffer", "common"]
    assert weight["common"] == weight["device"]
    method = fitted(TINY, canonical=PLAIN)
    assert method.words(DOC) == ["buffer", "common", "driver", "kernel", "memory", "module"]
    expected = zlib.crc32(b"buffercommondriverkernelmemorymodule")  # no separator (seed 004)
    sig = one(method, DOC)
    assert sig.payload.dtype == np.uint32 and sig.payload.tolist() == [expected]


def test_min_length_and_no_signature() -> None:
    method = fitted([*TINY, ["ab", "ab", "cd"]], canonical=PLAIN)
    assert method.words(["ab", "kernel"]) == ["kernel"]
    empty = one(method, ["ab", "cd"])  # every word shorter than 3: no signature
    assert empty.payload.tolist() == [0]
    assert method.compare(empty, empty) == 0.0


def test_statistics_update_incrementally() -> None:
    stats = CorpusStatistics.from_token_lists(TINY)
    method = TFRIDF(canonical=PLAIN, top=2)
    method.fit(stats)
    before = one(method, DOC)
    assert method.words(DOC) == ["driver", "kernel"]
    for _ in range(10):  # "kernel" spreads evenly (df ~ cf): its RIDF falls below 0
        stats.add(["kernel"])
    after = one(method, DOC)
    assert method.words(DOC) == ["driver", "module"]
    with pytest.raises(IncompatibleSignatureError):
        method.compare(before, after)
    for _ in range(10):
        stats.remove(["kernel"])
    assert one(method, DOC) == before  # same statistics again: same key and signature


def test_sign_before_fit_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="fit"):
        TFRIDF().sign([Prepared("a", "", ["kernel"])])


def test_unseen_words_count_as_in_the_document() -> None:
    method = fitted(TINY, canonical=PLAIN)
    assert method.words(["zebra", "zebra", "kernel"]) == ["kernel", "zebra"]


# -- real text -----------------------------------------------------------------------------
@pytest.mark.data
def test_small_edit_matches_other_text_does_not(corpus: list[Prepared]) -> None:
    method = fitted(corpus)
    canon = method.canonical
    for doc in (corpus[0], corpus[20]):  # Russian (progit-ru), English (linux-doc)
        words = doc.text.split()
        # a small edit: a stop word and a short word added, punctuation changed
        edited = " ".join([*words[:3], "и", "the", "a", *words[3:]]) + "!"
        assert method.compare(one(method, doc.tokens), one(method, canon.tokens(edited))) == 1.0
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
    assert TFRIDF().compare(a, b) == (1.0 if a.payload.any() else 0.0)


@pytest.mark.data
def test_differently_made_signatures_refuse_comparison(corpus: list[Prepared]) -> None:
    base = fitted(corpus)
    sig = one(base, corpus[0].tokens)
    for other in (fitted(corpus, top=5), fitted(corpus[:-1]), fitted(corpus, canonical=PLAIN)):
        with pytest.raises(IncompatibleSignatureError):
            base.compare(sig, one(other, corpus[0].tokens))


def test_default_canonical_form_is_seed_004() -> None:
    canon = make_method("tf-ridf").canonical
    assert (canon.stop_words, canon.morphology, canon.min_token_length) == (True, "stem", 3)


@pytest.mark.data
def test_job_finds_a_copy(corpus: list[Prepared]) -> None:
    docs = [Document(d.id, d.text) for d in corpus] + [Document("copy", corpus[5].text + "!")]
    res = dedup(docs, method="tf-ridf", options=DedupOptions(threshold=0.5, decision="own"))
    assert ("5", "copy") in {(p.a, p.b) for p in res.pairs}


@settings(max_examples=60, deadline=None)
@given(
    docs=st.lists(st.lists(st.sampled_from(["aa", "bb", "cc", "dd", "ee", "f"]), max_size=12)),
    top=st.integers(1, 4),
)
def test_vectorised_signing_picks_the_words_of_top_words(docs: list[list[str]], top: int) -> None:
    # few words, many equal weights: the choice hinges on ties and 12-decimal rounding;
    # sign (vectorised, sign_counts) must pick per document what top_words picks
    meth = TFRIDF(top=top, min_length=2, canonical=CanonicalForm())
    meth.fit(CorpusStatistics.from_token_lists(docs))
    got = meth.sign([Prepared(str(i), "", d) for i, d in enumerate(docs)]).data
    words = [meth.words(d) for d in docs]  # top_words, one document at a time
    assert got.tolist() == [zlib.crc32("".join(w).encode()) if w else 0 for w in words]


def test_tf_ridf_on_lemmas_matches_inflected_forms_that_stems_keep_apart() -> None:
    """Romanov 2019 signs lemmas (Mystem); ``morphology="lemma"`` (pymorphy3) is the
    closest: "читали/читает", "писали/пишет" have one lemma and two stems."""
    from neardup.job.compare import compare
    from neardup.methods.registry import make_method
    from neardup.text.canonical import CanonicalForm

    a = "Студенты читали старые книги в библиотеке и писали длинные конспекты по истории"
    b = "Студент читает старую книгу в библиотеке и пишет длинный конспект по истории"
    scores = {}
    for morphology in ("stem", "lemma"):
        canonical = CanonicalForm(stop_words=True, morphology=morphology, min_token_length=3)
        meth = make_method("tf-ridf", canonical=canonical)
        scores[morphology] = compare(a, b, method=meth, corpus=["история", "книга"]).score
    assert scores == {"stem": 0.0, "lemma": 1.0}
