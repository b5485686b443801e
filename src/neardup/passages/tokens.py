"""The tokens of a text pair for text alignment: word and stem ids, offsets, sentences.

Both texts are tokenized as :meth:`CanonicalForm.tokens_with_spans` does with every word
kept (one C-speed regular-expression split when normalization maps the text character for
character). Words get ids shared by the two texts; so do their stems (Snowball via
PyStemmer: Cyrillic words with the Russian stemmer, the rest with the English one, as
``CanonicalForm(morphology="stem")``). *Content* words are the words that are not stop
words. A sentence with
fewer than :data:`MIN_SENTENCE_WORDS` content words is joined to the next one, as
Sanchez-Perez, Sidorov & Gelbukh 2014 join sentences shorter than three words. Sentences
end at terminal punctuation before white space or at a blank line (one regular
expression; no abbreviation rules: a sentence cut after "Dr." is joined back when short,
and a seed needs only roughly right sentences).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from neardup.text.canonical import TOKEN_RE, CanonicalForm

#: A sentence with fewer content words is joined to the next one.
MIN_SENTENCE_WORDS = 3

_DEFAULT_CANONICAL = CanonicalForm(stop_words=False)
_TOKEN_SPLIT = re.compile(f"({TOKEN_RE.pattern})")  # split() keeps the tokens
_CYR_LOW, _CYR_HIGH = "\u0400", "\u04ff"  # a word starting with a Cyrillic letter
#: The end of a sentence: terminal punctuation (with closing quotes or brackets) before
#: white space, a Chinese full stop, or a blank line. A run of ``.!?…`` is tried from its
#: first character only, and without backtracking (possessive): ``[.!?…]+`` tried at every
#: character of a 45,000-point run failing at its end was quadratic (issue 41).
_SENTENCE_END = re.compile(
    "(?=[.!?\u2026\n\u3002\uff01\uff1f\uff1b])"  # lets the engine skip at C speed
    "(?:(?<![.!?\u2026])[.!?\u2026]++[\"'\u00bb\u201d\u2019)\\]]*+\\s+"
    "|[\u3002\uff01\uff1f\uff1b]+"
    "|\n\\s*\n)"
)


@dataclass(frozen=True, slots=True)
class Tokens:
    """One text's tokens as arrays (``n`` tokens, ``s`` sentences).

    Attributes:
        ids: word id of each token, int64 (n,), shared by the two texts of a pair.
        stems: stem id of each token, int64 (n,), shared by the two texts.
        start, end: ``[start, end)`` character offsets of each token, int64 (n,).
        content: the token is not a stop word, bool (n,).
        sentence: sentence number of each token, 0..s-1 ascending, int64 (n,).
        sent_start, sent_end: character offsets of each sentence (its first token's start,
            its last token's end), int64 (s,).
    """

    ids: np.ndarray
    stems: np.ndarray
    start: np.ndarray
    end: np.ndarray
    content: np.ndarray
    sentence: np.ndarray
    sent_start: np.ndarray
    sent_end: np.ndarray

    @property
    def sentences(self) -> int:
        """``s``: the number of sentences."""
        return int(self.sent_start.size)


def _empty() -> Tokens:
    z = np.zeros(0, np.int64)
    return Tokens(z, z, z, z, z.astype(bool), z, z, z)


def token_arrays(text_a: str, text_b: str) -> tuple[Tokens, Tokens]:
    """Tokens of both texts (every word kept), with word and stem ids shared by the two."""
    (tok_a, start_a, end_a), (tok_b, start_b, end_b) = spans(text_a), spans(text_b)
    if not tok_a or not tok_b:
        return _empty(), _empty()
    tokens = tok_a + tok_b
    vocab: dict[str, int] = {}  # a word's id: the index of its first occurrence
    ids = np.fromiter(map(vocab.setdefault, tokens, itertools.count()), np.int64, len(tokens))
    words = list(vocab)
    stem_of = _stem_ids(words)  # by word id order of first occurrence
    first = np.fromiter(vocab.values(), np.int64, len(words))
    table = np.zeros(len(tokens), np.int64)
    table[first] = stem_of
    stems = table[ids]
    stop = _stop_words()
    is_stop = np.fromiter(map(stop.__contains__, words), bool, len(words))
    content_table = np.zeros(len(tokens), bool)
    content_table[first] = ~is_stop
    content = content_table[ids]
    n = len(tok_a)
    return (
        _finish(ids[:n], stems[:n], start_a, end_a, content[:n], text_a),
        _finish(ids[n:], stems[n:], start_b, end_b, content[n:], text_b),
    )


def _finish(
    ids: np.ndarray,
    stems: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    content: np.ndarray,
    text: str,
) -> Tokens:
    sentence = sentence_numbers(text, start, content)
    first = np.flatnonzero(np.concatenate(([True], sentence[1:] != sentence[:-1])))
    last = np.append(first[1:], sentence.size) - 1
    return Tokens(ids, stems, start, end, content, sentence, start[first], end[last])


def sentence_numbers(text: str, start: np.ndarray, content: np.ndarray) -> np.ndarray:
    """Sentence number of each token (int64, ascending from 0, no number skipped).

    Short sentences (fewer than :data:`MIN_SENTENCE_WORDS` content words) are joined to
    the next one.
    """
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    bounds = np.array([0, *ends], dtype=np.int64)
    raw = np.maximum(np.searchsorted(bounds, start, side="right") - 1, 0)
    _, dense = np.unique(raw, return_inverse=True)
    dense = dense.reshape(-1)
    words = np.bincount(dense, weights=content.astype(np.float64))
    opens = np.ones(words.size, dtype=bool)
    opens[1:] = words[:-1] >= MIN_SENTENCE_WORDS
    return (np.cumsum(opens) - 1)[dense].astype(np.int64)


def spans(text: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """:meth:`CanonicalForm.tokens_with_spans` (every word kept), spans as int64 arrays.

    When normalization maps the whole text character for character (the usual case) the
    tokens and the text between them come from one C-speed regular-expression split of
    the normalized text, and the spans from their cumulated lengths.
    """
    from neardup.text.canonical import normalize

    plain = text.replace("\xa0", " ")  # NFKC maps it to one space: same length
    if unicodedata.is_normalized("NFKC", plain) and len(plain.lower()) == len(plain):
        pieces = _TOKEN_SPLIT.split(normalize(plain))  # text, token, text, ..., token, text
        tokens = pieces[1::2]
        ends = np.cumsum(np.fromiter(map(len, pieces), np.int64, len(pieces)))
        return tokens, ends[0:-1:2].copy(), ends[1::2].copy()
    tokens, pairs = _DEFAULT_CANONICAL.tokens_with_spans(text)
    pos = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return tokens, pos[:, 0].copy(), pos[:, 1].copy()


def _stop_words() -> frozenset[str]:
    from neardup.text.stopwords import stop_words

    return stop_words()


@lru_cache(maxsize=1)
def _stemmers() -> tuple[Any, Any]:
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer("russian"), Stemmer.Stemmer("english")


def _stem_ids(words: list[str]) -> np.ndarray:
    """Stem id of each word (ids numbered by first occurrence), int64 (len(words),)."""
    ru, en = _stemmers()
    cyr = [_CYR_LOW <= w[0] <= _CYR_HIGH for w in words]
    ru_words = [w for w, c in zip(words, cyr, strict=True) if c]
    en_words = [w for w, c in zip(words, cyr, strict=True) if not c]
    ru_stems = iter(ru.stemWords(ru_words))
    en_stems = iter(en.stemWords(en_words))
    stems = [next(ru_stems) if c else next(en_stems) for c in cyr]
    table: dict[str, int] = {}
    return np.fromiter(map(table.setdefault, stems, itertools.count()), np.int64, len(stems))
