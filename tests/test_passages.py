"""Matched passages (neardup.passages): offsets in both originals, on real Russian/English text."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

from neardup.errors import ParameterError
from neardup.passages import Passage, highlight, matched_passages
from neardup.text.canonical import CanonicalForm
from shared_data import data_path

CANON = CanonicalForm(stop_words=False)
LINES = re.compile(r"[^\n]+")  # RusLit: one paragraph a line
BLOCKS = re.compile(r"[^\n]+(?:\n[^\n]+)*")  # reStructuredText: blank-line separated
Span = tuple[int, int]


@cache
def _linux_doc(doc_id: str) -> str:
    with data_path("linux-doc-revisions", "docs.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record["id"] == doc_id:
                return str(record["text"])
    raise LookupError(doc_id)


def russian(author: str, title: str, limit: int = 30_000) -> str:
    return data_path("ruslit", "prose", author, f"{title}.txt").read_text("utf-8")[:limit]


def english(doc_id: str, limit: int = 30_000) -> str:
    return _linux_doc(doc_id)[:limit]


def paragraphs(text: str, pattern: re.Pattern[str], min_words: int = 40) -> list[Span]:
    """Spans of the paragraphs of ``text`` with at least ``min_words`` words."""
    return [m.span() for m in pattern.finditer(text) if len(m.group().split()) >= min_words]


def word_span(text: str, span: Span) -> Span:
    """From the first canonical token's start to the last one's end inside ``span``."""
    _, spans = CANON.tokens_with_spans(text[span[0] : span[1]])
    return span[0] + spans[0][0], span[0] + spans[-1][1]


def quoting(a: str, pattern: re.Pattern[str], filler_text: str) -> tuple[str, list[Span]]:
    """B = filler + P1 of A + filler + P2 of A + filler; returns B and P1, P2 spans in A.

    Fillers are paragraphs of ``filler_text`` that share no passage with A, chosen so the
    words next to each quotation in B differ from those next to it in A (else the shared
    passage would rightly extend by a word).
    """
    paras = paragraphs(a, pattern)
    p1, p2 = paras[2], paras[6]
    fillers = _fillers(a, filler_text, pattern)
    before1, after1 = _neighbours(a, p1)
    before2, after2 = _neighbours(a, p2)
    f0 = next(f for f in fillers if _last(f) != before1)
    f1 = next(f for f in fillers if _first(f) != after1 and _last(f) != before2 and f != f0)
    f2 = next(f for f in fillers if _first(f) != after2 and f not in (f0, f1))
    b = "\n\n".join([f0, a[p1[0] : p1[1]], f1, a[p2[0] : p2[1]], f2])
    return b, [p1, p2]


def _fillers(a: str, text: str, pattern: re.Pattern[str]) -> Iterator[str]:
    for start, end in paragraphs(text, pattern, min_words=20):
        piece = text[start:end]
        if not matched_passages(a, piece):
            yield piece


def _neighbours(a: str, span: Span) -> tuple[str | None, str | None]:
    before = CANON.tokens(a[: span[0]])
    after = CANON.tokens(a[span[1] :])
    return (before[-1] if before else None), (after[0] if after else None)


def _first(text: str) -> str:
    return CANON.tokens(text)[0]


def _last(text: str) -> str:
    return CANON.tokens(text)[-1]


def _quote_case(lang: str) -> tuple[str, str, list[Span]]:
    if lang == "ru":
        a = russian("Chekhov", "Ариадна")
        b, spans = quoting(a, LINES, russian("Chekhov", "Архиерей"))
    else:
        a = english("6.1/admin-guide/cgroup-v2.rst.gz")
        b, spans = quoting(a, BLOCKS, english("6.1/driver-api/hsi.rst.gz", limit=100_000))
    return a, b, spans


# -- quotation of two paragraphs --------------------------------------------------------------
@pytest.mark.data
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_two_quoted_paragraphs_exact_offsets_in_both_texts(lang: str) -> None:
    a, b, (p1, p2) = _quote_case(lang)
    passages = matched_passages(a, b)
    assert len(passages) == 2
    for passage, para in zip(passages, (p1, p2), strict=True):
        expected = word_span(a, para)
        assert passage.a_span == expected
        quoted = a[expected[0] : expected[1]]
        assert passage.text_b(b) == quoted
        assert b.count(quoted) == 1
        assert passage.b_start == b.index(quoted)
        assert passage.tokens == len(CANON.tokens(quoted))
    assert passages[0].a_start < passages[1].a_start
    assert passages[0].b_start < passages[1].b_start


@pytest.mark.data
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_swapping_texts_swaps_offsets(lang: str) -> None:
    a, b, _ = _quote_case(lang)
    forward = matched_passages(a, b)
    backward = matched_passages(b, a)
    assert backward == sorted((p.swapped() for p in forward), key=lambda p: p.a_start)


@pytest.mark.data
def test_unrelated_texts_share_no_passage() -> None:
    """Two stories and two kernel documents share no passage of 8 words, or of 5 content words.

    With every word kept, 5-word shingles do find stock phrases in two Chekhov stories
    ("и в то же время"): real shared text, but no longer than a shingle.
    """
    ru = (russian("Chekhov", "Ариадна"), russian("Chekhov", "Архиерей"))
    en = (english("6.1/admin-guide/cgroup-v2.rst.gz"), english("6.1/driver-api/hsi.rst.gz"))
    for a, b in (ru, en):
        assert matched_passages(a, b, shingle_size=8) == []
        assert matched_passages(a, b, canonical=CanonicalForm(stop_words=True)) == []
        assert all(p.tokens <= 6 for p in matched_passages(a, b))
    assert matched_passages(*en) == []


@pytest.mark.data
def test_revised_document_passages_are_token_equal() -> None:
    """A real revision pair (6.1 vs 6.12): many passages, each with equal canonical tokens."""
    a = english("6.1/driver-api/hsi.rst.gz")
    b = english("6.12/driver-api/hsi.rst.gz")
    passages = matched_passages(a, b)
    assert passages
    for p in passages:
        assert CANON.tokens(p.text_a(a)) == CANON.tokens(p.text_b(b))


# -- small, synthetic -----------------------------------------------------------------------
def test_case_and_punctuation_do_not_break_a_passage() -> None:
    a = "Intro words here. The quick brown fox jumps over the lazy dog, said Ёжик. The end"
    b = "Something new! the QUICK brown fox — jumps over the lazy dog said ежик; bye now"
    (p,) = matched_passages(a, b)
    assert p.text_a(a) == "The quick brown fox jumps over the lazy dog, said Ёжик"
    assert p.text_b(b) == "the QUICK brown fox — jumps over the lazy dog said ежик"
    assert p.tokens == 11


def test_short_texts_and_empty_texts() -> None:
    assert matched_passages("", "anything at all here now") == []
    assert matched_passages("... !!!", "... !!!") == []
    (p,) = matched_passages("Two words", "two words.")
    assert (p.a_span, p.b_span, p.tokens) == ((0, 9), (0, 9), 2)
    assert matched_passages("two words", "two words more") == []


def test_longest_run_wins_for_repeated_shingles() -> None:
    """A phrase B repeats twice is paired with the occurrence in A's longer shared run."""
    phrase = "one two three four five"
    a = f"alpha {phrase} six seven eight nine. Zulu yankee x-ray"
    b = f"{phrase} stop. Bravo charlie. {phrase} six seven eight nine end"
    (p,) = matched_passages(a, b)
    assert p.text_a(a) == f"{phrase} six seven eight nine"
    assert p.b_start == b.rindex(phrase)
    assert p.tokens == 9


def test_touching_tiles_merge_and_gaps_split() -> None:
    a = "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12"
    b = "a1 a2 a3 a4 a5 a6 CHANGED a8 a9 a10 a11 a12"
    p1, p2 = matched_passages(a, b)
    assert (p1.text_a(a), p2.text_a(a)) == ("a1 a2 a3 a4 a5 a6", "a8 a9 a10 a11 a12")
    (whole,) = matched_passages(a, a)
    assert whole.a_span == whole.b_span == (0, len(a))


def test_stop_words_dropped_passage_ends_on_content_words() -> None:
    canonical = CanonicalForm(stop_words=True)
    a = "and the river flows past the old mill into the sea of"
    b = "of the river flows past the old mill into the sea and"
    (p,) = matched_passages(a, b, canonical=canonical, shingle_size=3)
    assert p.text_a(a) == "river flows past the old mill into the sea"


def test_parameters_are_checked() -> None:
    with pytest.raises(ParameterError, match="shingle_size"):
        matched_passages("a b", "a b", shingle_size=0)
    with pytest.raises(ParameterError, match="text_b"):
        matched_passages("a b", b"a b")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="spans"):
        highlight("abc", [(2, 5)])


def test_highlight_styles_the_spans() -> None:
    a = "keep this part, and this one"
    out = highlight(a, [(5, 14), (20, 28)], style="bold red")
    assert isinstance(out, Text)
    assert out.plain == a
    styled = [(s.start, s.end, str(s.style)) for s in out.spans]
    assert styled == [(5, 14, "bold red"), (20, 28, "bold red")]


def test_passage_helpers() -> None:
    p = Passage(a_start=1, a_end=3, b_start=4, b_end=6, tokens=1, a_token=0, b_token=2)
    assert p.text_a("xaby") == "ab"
    assert p.text_b("0123456") == "45"
    assert p.swapped() == Passage(4, 6, 1, 3, 1, 2, 0)
    assert p.swapped().swapped() == p


# -- properties -----------------------------------------------------------------------------
VOCAB = ["мир", "Ёлка", "елка", "дом", "the", "Fox", "fox", "run", "42", "x"]
SEPARATORS = [" ", ", ", ".\n", " — ", "\n\n", "!  "]
words = st.lists(st.sampled_from(VOCAB), min_size=0, max_size=40)


def _render(tokens: list[str], seps: list[str]) -> str:
    return "".join(t + seps[i % len(seps)] for i, t in enumerate(tokens))


@settings(max_examples=150, deadline=None)
@given(
    words,
    words,
    words,
    st.lists(st.sampled_from(SEPARATORS), min_size=1, max_size=5),
    st.lists(st.sampled_from(SEPARATORS), min_size=1, max_size=5),
    st.integers(1, 6),
)
def test_passages_have_equal_tokens_and_do_not_overlap(
    a_words: list[str],
    b_words: list[str],
    shared: list[str],
    seps_a: list[str],
    seps_b: list[str],
    w: int,
) -> None:
    a = _render(a_words[: len(a_words) // 2] + shared + a_words[len(a_words) // 2 :], seps_a)
    b = _render(b_words + shared, seps_b)
    passages = matched_passages(a, b, shingle_size=w)
    for p in passages:
        assert 0 <= p.a_start < p.a_end <= len(a)
        assert 0 <= p.b_start < p.b_end <= len(b)
        tokens = CANON.tokens(p.text_a(a))
        assert tokens == CANON.tokens(p.text_b(b))
        assert len(tokens) == p.tokens >= min(w, len(CANON.tokens(a)), len(CANON.tokens(b)))
    for first, second in pairwise(passages):
        assert first.a_end <= second.a_start
    b_sorted = sorted(passages, key=lambda p: p.b_start)
    for first, second in pairwise(b_sorted):
        assert first.b_end <= second.b_start
    if len(shared) >= w:  # a shared stretch of a shingle or more is found somewhere
        assert passages
