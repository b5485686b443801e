"""The Russian paraphrase set (neardup.evaluate.paraphrase) on Chekhov's stories."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from neardup.errors import ParameterError
from neardup.evaluate.paraphrase import Rewrite, build_paraphrase_set, paraphrase, rewrite_word
from neardup.passages import align_passages

CHEKHOV = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "chekhov"
STORIES = ("Хамелеон", "Ванька", "Тоска", "Гриша", "Хирургия", "Толстый и тонкий")


def _docs() -> list[tuple[str, str]]:
    return [(n, (CHEKHOV / f"{n}.txt").read_text(encoding="utf-8")) for n in STORIES]


def test_a_synonym_takes_the_form_of_the_word_it_replaces() -> None:
    always = Rewrite(synonym=1.0, lemma=0.0)
    rng = random.Random(0)
    assert rewrite_word("сказал", rng, always) in ("произнёс", "молвил")
    assert rewrite_word("Сказал", rng, always) in ("Произнёс", "Молвил")
    assert rewrite_word("домами", rng, always) == "жилищами"
    assert rewrite_word("стол", rng, always) == "стол"  # no synonym listed


def test_paraphrase_rewrites_words_order_and_sentences_deterministically() -> None:
    text = (
        "Он сказал, что придёт завтра утром. Старый дом стоял у дороги, и никто не смотрел "
        "на него. Вдруг девушка быстро пошла к реке, не оглядываясь назад."
    )
    first = paraphrase(text, random.Random(3))
    assert first == paraphrase(text, random.Random(3))
    assert first != text and first != paraphrase(text, random.Random(4))
    words = set(re.findall(r"\w+", text.lower()))
    new = set(re.findall(r"\w+", first.lower()))
    assert new - words  # synonyms or lemmas came in
    assert len(new & words) >= len(words) // 3  # and it is still the same text


def test_rewrite_rates_are_probabilities() -> None:
    with pytest.raises(ParameterError, match="shuffle"):
        Rewrite(shuffle=1.5)


def test_build_paraphrase_set_gold_offsets_and_alignment() -> None:
    pairs = build_paraphrase_set(_docs(), pairs=5, seed=1)
    assert [p.a for p in pairs] == [f"ru-paraphrase-{k}-a" for k in range(5)]
    assert pairs[4].cases == ()  # every fifth pair is negative
    assert pairs == build_paraphrase_set(_docs(), pairs=5, seed=1)
    for pair in pairs[:4]:
        for case in pair.cases:
            original = pair.b_text[case.b_offset : case.b_offset + case.b_length]
            planted = pair.a_text[case.a_offset : case.a_offset + case.a_length]
            assert planted != original and planted[:1].isupper()
            assert case.level == "paraphrase" and case.language == "ru"
        found = align_passages(pair.a_text, pair.b_text)
        for case in pair.cases:  # each planted paraphrase is found where it was put
            assert any(
                p.a_start < case.a_offset + case.a_length and case.a_offset < p.a_end for p in found
            )


def test_build_paraphrase_set_needs_two_documents() -> None:
    with pytest.raises(ParameterError, match="docs"):
        build_paraphrase_set(_docs()[:1], pairs=2)
