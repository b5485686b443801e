"""Text alignment (neardup.passages.align_passages): exact offsets on real Russian/English text."""

from __future__ import annotations

import itertools
import json
import random
import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import ParameterError
from neardup.evaluate.planted import LEVELS, PlantedPair, build_set, shared_texts
from neardup.passages import ALIGN_MIN_CHARS, AlignedPassage, align_passages
from neardup.text.canonical import CanonicalForm
from shared_data import DATA, data_path

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


def russian(title: str, limit: int = 30_000) -> str:
    return data_path("ruslit", "prose", "Chekhov", f"{title}.txt").read_text("utf-8")[:limit]


def english(doc_id: str, limit: int = 30_000) -> str:
    return _linux_doc(doc_id)[:limit]


def paragraphs(text: str, pattern: re.Pattern[str], min_words: int = 40) -> list[Span]:
    return [m.span() for m in pattern.finditer(text) if len(m.group().split()) >= min_words]


def word_span(text: str, span: Span) -> Span:
    """From the first canonical token's start to the last one's end inside ``span``."""
    _, spans = CANON.tokens_with_spans(text[span[0] : span[1]])
    return span[0] + spans[0][0], span[0] + spans[-1][1]


def texts(lang: str) -> tuple[str, str, re.Pattern[str]]:
    """A (the source), a long unrelated filler text, and the paragraph pattern."""
    if lang == "ru":
        return russian("Ариадна"), russian("Архиерей"), LINES
    return (
        english("6.1/admin-guide/cgroup-v2.rst.gz"),
        english("6.1/driver-api/hsi.rst.gz", limit=100_000),
        BLOCKS,
    )


def fillers(filler_text: str, pattern: re.Pattern[str]) -> list[str]:
    """Paragraphs of the filler text, in order (real text unrelated to A)."""
    return [filler_text[s:e] for s, e in paragraphs(filler_text, pattern, min_words=20)]


def replace_words(text: str, positions: tuple[int, ...], words: list[str]) -> str:
    """``text`` with the whitespace-separated words at ``positions`` replaced by ``words``."""
    chunks = re.split(r"(\s+)", text)
    for k, pos in enumerate(positions):
        chunks[2 * pos] = words[k]
    return "".join(chunks)


# -- must show: exact offsets --------------------------------------------------------------
@pytest.mark.data
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_one_copied_passage_gives_one_passage_with_exact_offsets(lang: str) -> None:
    a, filler, pattern = texts(lang)
    p1 = paragraphs(a, pattern)[3]
    fill = fillers(filler, pattern)
    before, after = "\n\n".join(fill[:6]), "\n\n".join(fill[6:12])
    quoted = a[p1[0] : p1[1]]
    b = f"{before}\n\n{quoted}\n\n{after}"
    (p,) = align_passages(a, b)
    assert p.a_span == word_span(a, p1)
    start = len(before) + 2
    assert p.b_span == word_span(b, (start, start + len(quoted)))
    assert p.text_a(a) == p.text_b(b)


@pytest.mark.data
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_two_passages_separated_by_unrelated_text_give_two(lang: str) -> None:
    a, filler, pattern = texts(lang)
    paras = paragraphs(a, pattern)
    p1, p2 = paras[2], paras[6]
    fill = fillers(filler, pattern)
    parts = ["\n\n".join(fill[:4]), a[p1[0] : p1[1]], "\n\n".join(fill[4:10])]
    parts += [a[p2[0] : p2[1]], "\n\n".join(fill[10:14])]
    b = "\n\n".join(parts)
    first, second = align_passages(a, b)
    assert (first.a_span, second.a_span) == (word_span(a, p1), word_span(a, p2))
    s1 = len(parts[0]) + 2
    s2 = s1 + len(parts[1]) + 2 + len(parts[2]) + 2
    assert first.b_span == word_span(b, (s1, s1 + p1[1] - p1[0]))
    assert second.b_span == word_span(b, (s2, s2 + p2[1] - p2[0]))


@pytest.mark.data
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_passage_with_replaced_words_is_one_passage(lang: str) -> None:
    """Three words of a quoted paragraph replaced by words of another text: still one passage,
    from the paragraph's first word to its last, in A and in B."""
    a, filler, pattern = texts(lang)
    p1 = paragraphs(a, pattern)[3]
    fill = fillers(filler, pattern)
    new_words = fill[-1].split()[3:6]
    edited = replace_words(a[p1[0] : p1[1]], (6, 16, 26), new_words)
    assert edited != a[p1[0] : p1[1]]
    before = "\n\n".join(fill[:6])
    b = f"{before}\n\n{edited}\n\n" + "\n\n".join(fill[6:12])
    (p,) = align_passages(a, b)
    assert p.a_span == word_span(a, p1)
    start = len(before) + 2
    assert p.b_span == word_span(b, (start, start + len(edited)))


@pytest.mark.data
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_swapping_texts_swaps_offsets(lang: str) -> None:
    a, filler, pattern = texts(lang)
    paras = paragraphs(a, pattern)
    fill = fillers(filler, pattern)
    b = "\n\n".join(
        [*fill[:5], a[paras[2][0] : paras[4][1]], *fill[5:9], a[paras[7][0] : paras[7][1]]]
    )
    forward = align_passages(a, b)
    assert len(forward) == 2
    assert align_passages(b, a) == sorted((p.swapped() for p in forward), key=lambda p: p.a_start)


@cache
def planted_pairs() -> list[PlantedPair]:
    data_path("ruslit")
    return build_set(shared_texts(DATA, per_language=30), pairs_per_level=3, seed=7)


@pytest.mark.slow
@pytest.mark.data
def test_symmetry_and_minimum_length_on_planted_pairs() -> None:
    """Every planted pair, every obfuscation level: swapping A and B swaps the offsets (the
    summary mode left out: it aligns a short A with a long B, one way), and no passage is
    shorter than ``min_chars`` in either text."""
    for pair in planted_pairs():
        for min_chars in (60, ALIGN_MIN_CHARS, 400):
            forward = align_passages(pair.a_text, pair.b_text, min_chars=min_chars, summary=False)
            backward = align_passages(pair.b_text, pair.a_text, min_chars=min_chars, summary=False)
            assert backward == sorted((p.swapped() for p in forward), key=lambda p: p.a_start)
            for p in align_passages(pair.a_text, pair.b_text, min_chars=min_chars):
                assert p.a_end - p.a_start >= min_chars
                assert p.b_end - p.b_start >= min_chars
                assert p.seeds >= 3


@pytest.mark.slow
@pytest.mark.data
def test_planted_cases_are_found_at_every_level() -> None:
    """Each planted case is overlapped by exactly one passage, which covers 70 % of it or more."""
    for pair in planted_pairs():
        found = align_passages(pair.a_text, pair.b_text)
        assert len(found) == len(pair.cases), (pair.a, pair.level)
        for case in pair.cases:
            (p,) = [
                p
                for p in found
                if p.a_start < case.a_offset + case.a_length and p.a_end > case.a_offset
            ]
            covered = min(p.a_end, case.a_offset + case.a_length) - max(p.a_start, case.a_offset)
            assert covered >= 0.7 * case.a_length, (pair.a, pair.level)
            assert p.b_start < case.b_offset + case.b_length and p.b_end > case.b_offset


@pytest.mark.data
def test_unrelated_texts_share_no_passage() -> None:
    for lang in ("ru", "en"):
        a, filler, _ = texts(lang)
        assert align_passages(a, filler) == []


@pytest.mark.data
def test_revised_document_aligns_as_few_long_passages() -> None:
    """A real revision (6.1 vs 6.12 of one kernel document): the shared text comes back as
    long passages, in order in both texts, not as many fragments."""
    a = english("6.1/driver-api/hsi.rst.gz")
    b = english("6.12/driver-api/hsi.rst.gz")
    found = align_passages(a, b)
    assert found
    assert sum(p.a_end - p.a_start for p in found) >= 0.9 * len(a)
    assert [p.b_start for p in found] == sorted(p.b_start for p in found)


# -- small cases -------------------------------------------------------------------------------
def test_no_shared_text_and_empty_texts() -> None:
    assert align_passages("", "anything at all") == []
    assert align_passages("... !!!", "... !!!") == []
    assert align_passages("one two three four five", "six seven eight nine ten") == []


def test_parameters_are_checked() -> None:
    with pytest.raises(ParameterError, match="seed_size"):
        align_passages("a b", "a b", seed_size=1)
    with pytest.raises(ParameterError, match="sorted_size"):
        align_passages("a b", "a b", sorted_size=1)
    with pytest.raises(ParameterError, match="max_gap"):
        align_passages("a b", "a b", max_gap=-1)
    with pytest.raises(ParameterError, match="min_chars"):
        align_passages("a b", "a b", min_chars=0)
    with pytest.raises(ParameterError, match="text_a"):
        align_passages(None, "a b")  # type: ignore[arg-type]


def test_aligned_passage_helpers() -> None:
    p = AlignedPassage(a_start=1, a_end=3, b_start=4, b_end=6, seeds=5)
    assert (p.text_a("xaby"), p.text_b("0123456")) == ("ab", "45")
    assert p.swapped() == AlignedPassage(4, 6, 1, 3, 5)
    assert p.swapped().swapped() == p
    assert set(LEVELS) == {"none", "replace", "edit", "reorder"}


# -- properties ---------------------------------------------------------------------------------
VOCAB = [
    *("мир", "дом", "лес", "река", "море", "поле", "ночь"),
    *("the", "fox", "runs", "over", "a", "lazy", "dog", "while", "and", "of", "in"),
]
SEPARATORS = [" ", ", ", ".\n", " — ", "\n\n"]
texts_st = st.lists(st.sampled_from(VOCAB), min_size=0, max_size=120)


def _render(words: list[str], seps: list[str]) -> str:
    return "".join(w + seps[i % len(seps)] for i, w in enumerate(words))


@settings(max_examples=100, deadline=None)
@given(
    texts_st,
    texts_st,
    st.lists(st.sampled_from(VOCAB), min_size=0, max_size=80),
    st.lists(st.sampled_from(SEPARATORS), min_size=1, max_size=4),
    st.integers(20, 200),
)
def test_passages_are_within_bounds_long_enough_disjoint_and_symmetric(
    a_words: list[str], b_words: list[str], shared: list[str], seps: list[str], min_chars: int
) -> None:
    a = _render(a_words[:40] + shared + a_words[40:], seps)
    b = _render(b_words[:60] + shared + b_words[60:], seps[::-1])
    found = align_passages(a, b, min_chars=min_chars)
    for p in found:
        assert p.a_start >= 0 and p.a_start + min_chars <= p.a_end <= len(a)
        assert p.b_start >= 0 and p.b_start + min_chars <= p.b_end <= len(b)
    for first, second in itertools.pairwise(found):
        assert first.a_end <= second.a_start
    by_b = sorted(found, key=lambda p: p.b_start)
    for first, second in itertools.pairwise(by_b):
        assert first.b_end <= second.b_start
    back = align_passages(b, a, min_chars=min_chars)
    assert {p.swapped() for p in back} == set(found)


# -- issue 32: sentence seeds and the summary mode, on Chekhov's stories (in the repository) ---
CHEKHOV = Path(__file__).resolve().parents[1] / "examples" / "corpus" / "chekhov"


def _story(name: str) -> list[str]:
    text = (CHEKHOV / f"{name}.txt").read_text(encoding="utf-8")
    return [p for p in text.split("\n") if len(p.split()) >= 30]


def _covered(found: list[AlignedPassage], lo: int, hi: int, side: str) -> float:
    """Share of ``[lo, hi)`` inside the passages' ``side`` ("a" or "b")."""
    inside = sum(
        max(0, min(hi, getattr(p, f"{side}_end")) - max(lo, getattr(p, f"{side}_start")))
        for p in found
    )
    return inside / (hi - lo)


def _shuffled_sentences(text: str, rng: random.Random) -> str:
    """Each sentence's words in a random order (the heaviest word-order change)."""
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        words = sentence.rstrip(".!?").split()
        rng.shuffle(words)
        out.append(" ".join(words) + ".")
    return " ".join(out)


def test_sentence_seeds_find_a_reordered_passage_the_ngram_seeds_miss() -> None:
    """A passage whose sentences keep their words but not their order shares no word n-gram
    with its source; its sentences still share their content words, so the sentence seeds
    (Sanchez-Perez et al. 2014) find it whole, where the n-gram seeds alone find nothing."""
    source = "\n".join(_story("Хамелеон"))
    original = "\n".join(_story("Хамелеон")[1:4])
    rewritten = _shuffled_sentences(original, random.Random(0))
    host = _story("Ванька")
    before = "\n".join(host[:2]) + "\n"
    suspicious = before + rewritten + "\n" + "\n".join(host[2:])
    a_lo, a_hi = len(before), len(before) + len(rewritten)
    b_lo = source.index(original)
    b_hi = b_lo + len(original)
    found = align_passages(suspicious, source)
    assert len(found) == 1
    assert _covered(found, a_lo, a_hi, "a") > 0.95
    assert _covered(found, b_lo, b_hi, "b") > 0.95
    assert align_passages(suspicious, source, sentences=False, summary=False) == []


def test_summary_mode_aligns_a_short_passage_with_a_long_stretch() -> None:
    """A summary (the first words of every fourth sentence of eight paragraphs) is one
    passage whose B side spans the summarized paragraphs (granularity 1); the ordinary
    extension, with the summary mode off, finds pieces at most."""
    paragraphs = _story("Хамелеон")
    source = "\n".join(paragraphs)
    stretch = "\n".join(paragraphs[1:9])
    sentences = re.split(r"(?<=[.!?])\s+", stretch)
    summary = " ".join(" ".join(s.split()[:7]).rstrip(",;:.") + "." for s in sentences[::4])
    host = _story("Ванька")
    before = "\n".join(host[:2]) + "\n"
    suspicious = before + summary + "\n" + "\n".join(host[2:])
    b_lo = source.index(stretch)
    b_hi = b_lo + len(stretch)
    assert len(summary) * 4 < len(stretch)
    found = align_passages(suspicious, source)
    assert len(found) == 1
    (p,) = found
    assert p.b_end - p.b_start > 3 * (p.a_end - p.a_start)
    assert _covered(found, b_lo, b_hi, "b") > 0.95
    assert _covered(found, len(before), len(before) + len(summary), "a") > 0.95
    plain = align_passages(suspicious, source, summary=False)
    assert _covered(plain, b_lo, b_hi, "b") < 0.5


def test_stems_let_sorted_seeds_match_inflected_words() -> None:
    """The sorted seeds are built from stems (PyStemmer), so a passage whose words changed
    their endings is found as one passage; the sentence and summary parts off."""
    from neardup.evaluate.paraphrase import Rewrite, paraphrase

    source = "\n".join(_story("Тоска"))
    original = "\n".join(_story("Тоска")[2:5])
    only_lemmas = Rewrite(synonym=0.0, lemma=1.0, swap=0, shuffle=0, delete=0, split=0, merge=0)
    rewritten = paraphrase(original, random.Random(1), rates=only_lemmas)
    host = _story("Гриша")
    suspicious = "\n".join(host[:2]) + "\n" + rewritten + "\n" + "\n".join(host[2:])
    found = align_passages(suspicious, source, sentences=False, summary=False)
    b_lo = source.index(original)
    assert len(found) == 1 and _covered(found, b_lo, b_lo + len(original), "b") > 0.9


def test_bad_flags_are_refused() -> None:
    with pytest.raises(ParameterError, match="summary"):
        align_passages("a b c", "a b c", summary=1)  # type: ignore[arg-type]
