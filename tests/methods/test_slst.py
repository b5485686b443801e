"""SL+ST (seed 002): length strings, suffix automaton, verification, Jaccard, job run."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.methods.base import Prepared
from neardup.methods.registry import make_method
from neardup.methods.slst import (
    SLST,
    Block,
    SentenceString,
    SuffixAutomaton,
    block_jaccard,
    split_verified,
    verified_blocks,
)
from shared_data import job_scores, load_docs

WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
]


def sentence(first: int, length: int) -> str:
    """A sentence of ``length`` distinct non-stop words starting at ``WORDS[first]``."""
    words = [WORDS[(first + k) % len(WORDS)] for k in range(length)]
    return " ".join(words).capitalize() + "."


def text(spec: list[tuple[int, int]]) -> str:
    return " ".join(sentence(f, n) for f, n in spec)


def prep(*texts: str) -> list[Prepared]:
    return [Prepared(str(i), t, t.split()) for i, t in enumerate(texts)]


def brute_lcs(a: list[int], b: list[int]) -> int:
    best = 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b):
            if x == y:
                cur[j + 1] = prev[j] + 1
                best = max(best, cur[j + 1])
        prev = cur
    return best


# -- the seed's rules --------------------------------------------------------------------
def test_split_verified_seed_examples() -> None:
    # block of 5, 3rd sentence differs -> two blocks of 2
    a = [1, 2, 3, 4, 5]
    assert split_verified(Block(0, 0, 5), a, [1, 2, 9, 4, 5], 2) == [
        Block(0, 0, 2),
        Block(3, 3, 2),
    ]
    # block of 4, 2nd and 3rd differ -> dropped entirely
    assert split_verified(Block(0, 0, 4), [1, 2, 3, 4], [1, 8, 9, 4], 2) == []


def test_pair_split_at_unverified_sentence_and_single_dropped() -> None:
    base = [(0, 3), (5, 4), (10, 5), (15, 6), (20, 7)]
    changed = [*base[:2], (13, 5), *base[3:]]  # 3rd sentence: same length, other terms
    m = SLST()
    sigs = m.sign(prep(text(base), text(changed)))
    a, b = sigs.data.get(0), sigs.data.get(1)
    assert a.text == b.text == "34567"
    blocks = verified_blocks(a, b, 2)
    assert sorted(blocks, key=lambda x: x.a) == [Block(0, 0, 2), Block(3, 3, 2)]
    assert m.similarity(sigs, np.array([[0, 1]]))[0] == pytest.approx(4 / (5 + 5 - 4))
    # 2nd and 3rd differ in a block of 4: both pieces have length 1 and are dropped
    four = [(0, 3), (5, 4), (10, 5), (15, 6)]
    other = [(0, 3), (7, 4), (13, 5), (15, 6)]
    sigs = m.sign(prep(text(four), text(other)))
    assert verified_blocks(sigs.data.get(0), sigs.data.get(1), 2) == []
    assert m.similarity(sigs, np.array([[0, 1]]))[0] == 0.0


def test_jaccard_counts_shared_sentences_once() -> None:
    # A's block 0..1 copied twice into B: 2 shared sentences, not 4
    assert block_jaccard([Block(0, 0, 2), Block(0, 2, 2)], 2, 4) == pytest.approx(2 / 4)


def test_length_string_english_pinned() -> None:
    t = (
        "The quick brown fox jumps over the lazy dog. It was a very cold day! "
        "Why? Because the sun had set at five o'clock in the evening."
    )
    # stop words out: quick brown fox jumps lazy dog (6); cold day (2); (0);
    # sun set five o clock evening (6)
    s = SLST().sign(prep(t)).data.get(0)
    assert s.text == "6206"


def test_length_string_russian_pinned_and_long_sentence_ignored() -> None:
    long = " ".join(f"Слово{i}" for i in range(40)) + "."
    t = f"Мама мыла раму. А. С. Пушкин написал много стихов и поэм! {long} Это было давно."
    # мама мыла раму (3); пушкин написал стихов поэм (4: "а", "с", "много", "и" are stop
    # words); 40 words > 35: ignored; это давно (2: "было" is a stop word)
    s = SLST().sign(prep(t)).data.get(0)
    assert s.text == "342"
    assert SLST(max_length=3).sign(prep(t)).data.get(0).text == "32"


def test_long_lengths_are_letters() -> None:
    t = sentence(0, 10) + " " + sentence(1, 26)
    assert SLST().sign(prep(t)).data.get(0).text == "aq"


@settings(derandomize=True, max_examples=50, deadline=None)
@given(
    st.lists(st.integers(0, 3), max_size=40),
    st.lists(st.integers(0, 3), max_size=40),
)
def test_suffix_automaton_lcs_equals_brute_force(a: list[int], b: list[int]) -> None:
    lengths, _ = SuffixAutomaton(a).match(b)  # the longest match ending at each place of b
    assert max(lengths, default=0) == brute_lcs(a, b)


@settings(derandomize=True, max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=25))
def test_end_positions_are_all_occurrences(s: list[int]) -> None:
    sam = SuffixAutomaton(s)
    for length in (1, 2):
        for start in range(len(s) - length + 1):
            sub = s[start : start + length]
            lengths, states = sam.match(sub)
            expected = [
                i + length - 1 for i in range(len(s) - length + 1) if s[i : i + length] == sub
            ]
            assert lengths[-1] == length
            assert sam.end_positions(states[-1]) == expected


# -- the method contract -----------------------------------------------------------------
PARA = st.lists(st.tuples(st.integers(0, 25), st.integers(1, 8)), min_size=1, max_size=8)


@settings(derandomize=True, max_examples=50, deadline=None)
@given(PARA)
def test_identical_texts_match_and_signatures_deterministic(spec: list[tuple[int, int]]) -> None:
    t = text(spec)
    s1 = SLST().sign(prep(t, t))
    s2 = SLST().sign(prep(t))
    assert SLST().signature(s1, 0) == SLST().signature(s2, 0)
    assert SLST().similarity(s1, np.array([[0, 1]]))[0] == 1.0
    assert [0, 1] in SLST().candidates(s1).tolist()


def test_match_and_non_match_and_symmetry() -> None:
    m = SLST()
    spec = [(i * 3 % 26, 2 + i % 6) for i in range(10)]
    edited = [*spec[:7], (25, 9), *spec[8:]]
    unrelated = [(i * 5 % 26, 1 + (i * 7) % 9) for i in range(10)]
    sigs = m.sign(prep(text(spec), text(edited), text(unrelated)))
    sim = m.similarity(sigs, np.array([[0, 1], [0, 2]]))
    assert sim[0] >= 0.5 > sim[1]
    s = [m.signature(sigs, i) for i in range(3)]
    for x in s:
        for y in s:
            assert m.compare(x, y) == m.compare(y, x)
    assert m.compare(s[0], s[1]) == pytest.approx(sim[0])


def test_payload_layout() -> None:
    m = SLST()
    sig = m.signature(m.sign(prep(text([(0, 3), (5, 12)]))), 0)
    assert sig.payload.dtype == np.uint64 and sig.payload.shape == (4,)
    assert sig.payload[:2].tolist() == [3, 12]
    assert SentenceString.from_payload(sig.payload).text == "3c"


# -- the job -----------------------------------------------------------------------------
@pytest.mark.data
def test_job_on_progit_ru() -> None:
    r = job_scores("progit-ru-revisions", "sl-st", 0.3, {})
    assert r["precision"] > 0.8 and r["recall"] > 0.5


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.parametrize("name", ["progit-ru-revisions", "linux-doc-zh-revisions"])
def test_symbol_bound_is_an_upper_bound_and_loses_no_pair(name: str) -> None:
    from neardup.methods.slst import symbol_bounds

    docs = [Prepared(d.id, d.text, []) for d in load_docs(name)]
    loose = make_method("sl-st", threshold=1e-9)  # prunes only pairs sharing no symbol
    sigs = loose.sign(docs)
    cand = loose.candidates(sigs)
    sim = loose.similarity(sigs, cand)
    bound = symbol_bounds(sigs.data, cand)
    assert cand.shape[0] > 100 and (sim > 0.3).sum() > 10
    assert np.all(sim <= bound + 1e-12)
    strict = make_method("sl-st", threshold=0.5)
    kept = {tuple(p) for p in strict.candidates(strict.sign(docs)).tolist()}
    assert {tuple(p) for p in cand[sim >= 0.5].tolist()} <= kept
    assert len(kept) < cand.shape[0]


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("name", ["progit-ru-revisions", "linux-doc-zh-revisions"])
def test_window_bound_is_an_upper_bound(name: str) -> None:
    from neardup.methods.slst import window_bounds
    from shared_data import load_docs

    docs = [Prepared(d.id, d.text, []) for d in load_docs(name)]
    m = make_method("sl-st")
    assert isinstance(m, SLST)  # narrows the type: make_method gives a Method
    sigs = m.sign(docs)
    pairs, bound = window_bounds(sigs.data, m.window, m.max_df)
    sim = m.similarity(sigs, pairs)
    assert pairs.shape[0] > 400 and (sim >= 0.5).sum() > 30
    assert np.all(sim <= bound + 1e-12)
    assert (bound < 0.5).sum() > pairs.shape[0] // 2  # it prunes most pairs


@pytest.mark.data
def test_batch_strings_equal_one_document_at_a_time() -> None:
    from neardup.methods.slst import sentence_string, sentence_strings
    from neardup.text.sentences import split_sentences
    from shared_data import load_docs

    texts = [d.text for d in load_docs("progit-ru-revisions")][:60]
    from neardup.text.canonical import CanonicalForm

    canon = CanonicalForm()
    batch = sentence_strings(texts, canon)
    for i, body in enumerate(texts):
        one = sentence_string(body, canon)
        assert np.array_equal(batch.get(i).codes, one.codes)
        assert np.array_equal(batch.get(i).terms, one.terms)
        counts = [len(canon.tokens(body[a:b])) for a, b in split_sentences(body)]
        assert one.codes.tolist() == [n for n in counts if n <= 35]


def test_signing_reads_the_text_only() -> None:
    base = [(0, 3), (5, 4), (10, 5), (15, 6)]
    m = SLST()
    with_tokens = m.sign(prep(text(base)))
    without = m.sign([Prepared("0", text(base), ())])
    assert np.array_equal(with_tokens.data.codes, without.data.codes)
    assert np.array_equal(with_tokens.data.terms, without.data.terms)
    assert SLST.capabilities.signs_from_text


def test_chinese_sentence_lengths_are_counted_in_words() -> None:
    """Feng 2015 counts words; one canonical token per Chinese character made 16 % of the
    sentences of linux-doc-zh-revisions longer than 35 (dropped). A 40-character sentence
    of kref.rst is 28 jieba words: kept in words, dropped in characters."""
    from neardup.methods.slst import cjk_word_delta, sentence_strings
    from neardup.text.canonical import CanonicalForm

    text = (
        "如果你已经有了一个指向kref-ed结构体的有效指针（refcount不能为零），"
        "你可以在没有锁的情况下这样做。"
    )
    canonical = CanonicalForm()
    assert len(canonical.tokens(text)) == 40
    assert 40 + cjk_word_delta(text) == 28
    words = sentence_strings([text], canonical)
    assert words.codes.tolist() == [28]
    chars = sentence_strings([text], canonical, cjk_lengths="characters")
    assert chars.codes.tolist() == []  # over the 35 cap: left out
    english = "The kref structure counts references to an object."
    assert sentence_strings([english], canonical).codes.tolist() == [len(canonical.tokens(english))]
    assert make_method("sl-st").params()["cjk_lengths"] == "words"


def test_chinese_verification_terms_are_words_as_the_lengths_are() -> None:
    """Issue 41 item 20: each pair of sentences has the same length in jieba words (3, 2, 3)
    and the same first two characters, but other first words (北京大学, 学生 / 北京, 人口):
    verified on words, no block survives; on characters the three sentences were one
    verified block (J = 1)."""
    from neardup.methods.slst import word_terms
    from neardup.text.canonical import CanonicalForm

    a = "北京大学学生很多。中国银行很大。今天天气很好。"
    b = "北京人口很多。中国人民银行很大。今天下雨了。"
    canonical = CanonicalForm()
    assert word_terms("北京大学学生很多", canonical) == ["北京大学", "学生"]
    assert word_terms("Linux 内核文档很多", canonical) == ["linux", "内核"]
    assert word_terms("今天", canonical, limit=5) == ["今天"]
    meth = make_method("sl-st")
    sigs = meth.sign(prep(a, b, a))
    assert sigs.data.codes.tolist() == [3, 2, 3, 3, 2, 3, 3, 2, 3]
    pairs = np.array([[0, 1], [0, 2]], np.int64)
    assert meth.similarity(sigs, pairs).tolist() == [0.0, 1.0]
