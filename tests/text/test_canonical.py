"""CanonicalForm: exact tokens of pinned sentences, normalization, CJK, morphology, spans."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import ParameterError
from neardup.text.canonical import CANONICAL_VERSION, CanonicalForm, normalize

SEED_001 = (
    "Разум дан человеку для того, чтобы он разумно жил, а не для того только, чтобы он "
    "понимал, что он неразумно живет."
)
ENGLISH = "The quick brown fox jumps over the lazy dogs; it was 3.14 times faster in 2024!"


def test_seed_001_sentence_without_stop_word_removal() -> None:
    assert CanonicalForm(stop_words=False).tokens(SEED_001) == [
        "разум", "дан", "человеку", "для", "того", "чтобы", "он", "разумно", "жил", "а",
        "не", "для", "того", "только", "чтобы", "он", "понимал", "что", "он", "неразумно",
        "живет",
    ]  # fmt: skip


def test_seed_001_sentence_with_stop_words_removed() -> None:
    assert CanonicalForm().tokens(SEED_001) == [
        "разум", "дан", "человеку", "разумно", "жил", "понимал", "неразумно", "живет",
    ]  # fmt: skip


def test_seed_001_sentence_stemmed_and_lemmatized() -> None:
    assert CanonicalForm(morphology="stem").tokens(SEED_001) == [
        "разум", "дан", "человек", "разумн", "жил", "понима", "неразумн", "живет",
    ]  # fmt: skip
    assert CanonicalForm(morphology="lemma").tokens(SEED_001) == [
        "разум", "дать", "человек", "разумно", "жить", "понимать", "неразумно", "жить",
    ]  # fmt: skip


def test_english_sentence() -> None:
    assert CanonicalForm(stop_words=False).tokens(ENGLISH) == [
        "the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dogs", "it", "was",
        "3", "14", "times", "faster", "in", "2024",
    ]  # fmt: skip
    assert CanonicalForm().tokens(ENGLISH) == [
        "quick", "brown", "fox", "jumps", "lazy", "dogs", "3", "14", "times", "faster", "2024",
    ]  # fmt: skip
    assert CanonicalForm(morphology="stem").tokens(ENGLISH) == [
        "quick", "brown", "fox", "jump", "lazi", "dog", "3", "14", "time", "faster", "2024",
    ]  # fmt: skip
    # lemma mode stems non-Cyrillic words with the English Snowball stemmer
    assert CanonicalForm(morphology="lemma").tokens("running connections") == ["run", "connect"]


def test_contraction_parts_are_stop_words() -> None:
    # "doesn't" and "it's" are in the Snowball list; tokens break at the apostrophe
    assert CanonicalForm(stop_words=False).tokens("It doesn't, it's") == [
        "it",
        "doesn",
        "t",
        "it",
        "s",
    ]
    assert CanonicalForm().tokens("It doesn't, it's odd") == ["odd"]


def test_yo_folds_to_ye() -> None:
    assert normalize("Ёлка, ещё ЁЖИК") == "елка, еще ежик"
    assert CanonicalForm(stop_words=False).tokens("Ёлка, ещё ЁЖИК") == ["елка", "еще", "ежик"]
    assert CanonicalForm().tokens("Ёлка, ещё её") == ["елка"]  # "еще", "ее" are stop words


def _reference(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower().replace("ё", "е")


_SPELLED_OUT = st.text(
    alphabet=st.sampled_from(list("aZ\u0301\u0308ёЁй\xa0\u2026.\u2024 ﬁＡ")) | st.characters(),
    max_size=40,
)


@settings(derandomize=True, max_examples=400, deadline=None)
@given(_SPELLED_OUT)
def test_normalize_equals_nfkc_lower_yo(text: str) -> None:
    # the ASCII shortcut and the no-break space / ellipsis spelled out before NFKC
    # (for its quick check) give exactly NFKC + lower case + ё -> е
    assert normalize(text) == _reference(text)


def test_no_break_space_and_ellipsis_fold_like_nfkc() -> None:
    text = "Ну\xa0и\u2026 Ё\u0308"
    assert normalize(text) == "ну и... е\u0308" == _reference(text)


def test_nfkc_full_width_and_ligatures() -> None:
    assert normalize("ＨＥＬＬＯ １２３") == "hello 123"
    assert CanonicalForm(stop_words=False).tokens("ＨＥＬＬＯ Ｗｏｒｌｄ １２３ ﬁne") == [
        "hello", "world", "123", "fine",
    ]  # fmt: skip


def test_cjk_characters_are_single_tokens() -> None:
    assert CanonicalForm().tokens("我爱北京天安门。日本語のテキスト 한국어 mixed中文text") == [
        "我", "爱", "北", "京", "天", "安", "门", "日", "本", "語", "の", "テ", "キ", "ス",
        "ト", "한", "국", "어", "mixed", "中", "文", "text",
    ]  # fmt: skip


def test_min_token_length_keeps_cjk_and_symbols_are_separators() -> None:
    form = CanonicalForm(stop_words=False, min_token_length=3)
    assert form.tokens("я иду в 北京 go home") == ["иду", "北", "京", "home"]
    assert CanonicalForm(stop_words=False).tokens("snake_case a-b «c» x@y.z") == [
        "snake", "case", "a", "b", "c", "x", "y", "z",
    ]  # fmt: skip
    assert CanonicalForm().tokens("...!!! --- ") == []


def test_tokens_with_spans_exact() -> None:
    form = CanonicalForm(stop_words=False)
    assert form.tokens_with_spans("Ёлка, ещё") == (["елка", "еще"], [(0, 4), (6, 9)])
    # the ligature changes its chunk's length: the token gets the whole chunk's span
    assert form.tokens_with_spans("ＨＥＬＬＯ ﬁne-x") == (
        ["hello", "fine", "x"],
        [(0, 5), (6, 11), (6, 11)],
    )
    assert CanonicalForm().tokens_with_spans("Он и она") == ([], [])


def test_params_and_validation() -> None:
    assert CanonicalForm().params() == {
        "version": CANONICAL_VERSION,
        "stop_words": True,
        "morphology": "none",
        "min_token_length": 1,
    }
    assert CanonicalForm(morphology="stem") == CanonicalForm(morphology="stem")
    for kwargs in ({"morphology": "x"}, {"min_token_length": 0}, {"stop_words": "yes"}):
        with pytest.raises(ParameterError):
            CanonicalForm(**kwargs)


FORMS = [
    CanonicalForm(stop_words=False),
    CanonicalForm(),
    CanonicalForm(min_token_length=3),
    CanonicalForm(morphology="stem"),
]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_tokens_equal_tokens_with_spans_and_spans_in_bounds(text: str) -> None:
    for form in FORMS:
        tokens, spans = form.tokens_with_spans(text)
        assert tokens == form.tokens(text)
        assert len(spans) == len(tokens)
        for start, end in spans:
            assert 0 <= start < end <= len(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZяЁ1 ,.\n中ＡＢ")), max_size=40))
def test_spans_slice_their_tokens(text: str) -> None:
    form = CanonicalForm(stop_words=False)
    tokens, spans = form.tokens_with_spans(text)
    for token, (start, end) in zip(tokens, spans, strict=True):
        assert normalize(text[start:end]) == token


def test_spans_after_a_ligature_and_a_combining_accent() -> None:
    text = "ﬁ-e\u0301x"  # NFKC: "fi-éx", same length 5, offsets shifted
    tokens, spans = CanonicalForm(stop_words=False).tokens_with_spans(text)
    assert tokens == ["fi", "éx"]
    assert spans == [(0, 5), (0, 5)]  # not char-for-char: the whole chunk's span
