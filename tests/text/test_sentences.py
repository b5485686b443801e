"""split_sentences(): exact spans on Russian, English and Chinese text, and invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.text.sentences import split_sentences


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Разум дан человеку для того, чтобы он разумно жил. А не для того только, "
            "чтобы он понимал!",
            ["Разум дан человеку для того, чтобы он разумно жил.",
             "А не для того только, чтобы он понимал!"],
        ),
        (
            "Это, т. е. вот это, важно. Смотри рис. 3 и т. д. Потом было другое.",
            ["Это, т. е. вот это, важно.", "Смотри рис. 3 и т. д.", "Потом было другое."],
        ),
        (
            "Mr. Smith went to Washington, e.g. by train. Pi is 3.14 exactly. Is it? Yes!",
            ["Mr. Smith went to Washington, e.g. by train.", "Pi is 3.14 exactly.", "Is it?",
             "Yes!"],
        ),
        (
            "А. С. Пушкин родился в 1799 г. в Москве. Он поэт.",
            ["А. С. Пушкин родился в 1799 г. в Москве.", "Он поэт."],
        ),
        ("— Куда? — спросил он. — Домой!", ["— Куда? — спросил он.", "— Домой!"]),
        ("«Стой!» — крикнул он. Все остановились.",
         ["«Стой!» — крикнул он.", "Все остановились."]),
        (
            'He said "Stop." Then he left... And came back.',
            ['He said "Stop."', "Then he left...", "And came back."],
        ),
        ("I said no. See No. 5 here.", ["I said no.", "See No. 5 here."]),
        ("我爱北京。天安门很大！你去过吗？是的；去过。",
         ["我爱北京。", "天安门很大！", "你去过吗？", "是的；", "去过。"]),
        ("他说：“好。”然后走了。", ["他说：“好。”", "然后走了。"]),
        (
            "Title\n\nFirst para line one\nline two. Second sentence.\n \n\nLast",
            ["Title", "First para line one\nline two.", "Second sentence.", "Last"],
        ),
        ("Steps:\n1. Open the file.\n2. Save it.\n- done",
         ["Steps:", "1. Open the file.", "2. Save it.", "- done"]),
        ("  No final point  ", ["No final point"]),
        ("", []),
        (" \n\n\t", []),
    ],
)  # fmt: skip
def test_exact_sentences(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_spans_are_offsets_into_the_text() -> None:
    assert split_sentences("  One.  Two!\n\nThree?") == [(2, 6), (8, 12), (14, 20)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab Я.!?。\n\t«»—1")), max_size=80))
def test_spans_are_ordered_stripped_non_empty(text: str) -> None:
    spans = split_sentences(text)
    previous_end = 0
    for start, end in spans:
        assert previous_end <= start < end <= len(text)
        piece = text[start:end]
        assert piece == piece.strip() and piece
        previous_end = end
    covered = "".join(text[a:b] for a, b in spans)
    assert "".join(covered.split()) == "".join(text.split())  # no character lost


ABBREVIATION_TAILS = st.text(
    alphabet=st.sampled_from(list("тТдДпПрр.etcETC _1²x ,\u00a0")), max_size=9
)


@settings(max_examples=800, deadline=None)
@given(ABBREVIATION_TAILS)
def test_abbreviation_and_word_checks_equal_their_regexes(before: str) -> None:
    from neardup.text import sentences as s

    assert s._final_abbreviation(before) == (s._FINAL_ABBREVIATION.search(before) is not None)
    word = s._WORD_BEFORE.search(before)
    assert s._word_before(before) == (word.group(1) if word else "")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab Я.!?。\n\t«»—1-*")), max_size=120))
def test_paragraphs_split_alone_give_the_same_sentences(text: str) -> None:
    from neardup.text.sentences import paragraph_spans, split_paragraph

    pieces = [
        (start + a, start + b)
        for start, end in paragraph_spans(text)
        for a, b in split_paragraph(text[start:end])
    ]
    assert pieces == split_sentences(text)
