"""Snowball stop-word lists (English 174 words, Russian 159 words)."""

from __future__ import annotations

import pytest

from neardup.errors import ParameterError
from neardup.text.stopwords import stop_words


def test_list_sizes_match_snowball() -> None:
    from importlib import resources

    def listed(lang: str) -> set[str]:
        text = resources.files("neardup.text").joinpath("data", f"stopwords-{lang}.txt")
        lines = text.read_text(encoding="utf-8").splitlines()
        return {w.strip() for w in lines if w.strip() and not w.startswith("#")}

    en, ru = listed("en"), listed("ru")
    assert (len(en), len(ru)) == (174, 159)
    parts = {p for w in en if "'" in w for p in w.split("'") if p} - {"can", "won"}
    assert stop_words(("en",)) == frozenset(en | parts)
    assert stop_words(("ru",)) == frozenset(ru)
    assert len(stop_words()) == len(en | parts) + 159  # disjoint alphabets


def test_contraction_parts_added_but_not_content_words() -> None:
    en = stop_words(("en",))
    assert {"doesn", "t", "s", "ll", "ve", "re", "isn", "shan"} <= en
    assert {"can", "won"}.isdisjoint(en)


def test_english_words_and_commented_out_ones() -> None:
    en = stop_words(("en",))
    assert {"i", "me", "the", "and", "very", "don't", "cannot", "ought", "would"} <= en
    # commented out in stop.txt ("| us", "|will", "|can", "|may", "| one")
    assert {"us", "will", "can", "may", "must", "one", "mine"}.isdisjoint(en)


def test_russian_words_are_yo_folded_and_ranked_list_complete() -> None:
    ru = stop_words(("ru",))
    assert {"и", "в", "не", "что", "ее", "еще", "человек", "жизнь", "между"} <= ru
    assert not any("ё" in w for w in ru)
    assert {"её", "ещё"}.isdisjoint(ru)


def test_all_lower_case_without_comment_marks() -> None:
    words = stop_words()
    assert all(w == w.lower() and w.strip() == w and w for w in words)
    assert not any(w.startswith("#") or "|" in w for w in words)


def test_cached_and_order_insensitive() -> None:
    assert stop_words() is stop_words()
    assert stop_words(("ru", "en")) is stop_words(("en", "ru"))
    assert stop_words(()) == frozenset()


@pytest.mark.parametrize("languages", [("de",), ("en", "fr"), "en", ["en", 1]])
def test_unknown_language_raises(languages: object) -> None:
    with pytest.raises(ParameterError):
        stop_words(languages)  # type: ignore[arg-type]
