"""Canonical form of a text: the token sequence shingles are built from.

Follows Zagorulko et al. 2013 ("приведение текста к каноническому виду": stop symbols and stop words
out, lower case) and Rodnenko 2009 (``canonize``: lower case, stop symbols stripped, stop words
dropped), with the steps a multilingual corpus needs on top:

1. Unicode NFKC (full-width and compatibility forms fold to their plain letters);
2. lower case, and Russian ``ё`` -> ``е``;
3. tokens are runs of letters and digits (``[^\\W_]+``); every other symbol is a stop symbol.
   A CJK ideograph, kana or hangul syllable is a token by itself (character unigrams:
   Feng 2015 is Chinese, and shingles of w characters are the usual CJK practice);
4. optional stop-word removal (Russian and English Snowball lists, :mod:`.stopwords`, or the
   user's own list, ``stop_word_list``);
5. optional stemming (Snowball via PyStemmer: Cyrillic tokens with the Russian stemmer,
   the rest with the English one) or lemmatization (pymorphy3, Russian only; an extra).

With ``stop_symbols`` set, steps 1-3 are Rodnenko's (2009) ``canonize`` instead: the text is
lower-cased (nothing else), split at whitespace, and each word has the stop symbols stripped
from both ends (``str.strip``); empty words are dropped. Symbols inside a word stay
(``т.д`` stays one word), exactly as in that script.

Steps 1-3 are applied to the whole text at C speed; the token list is the only per-token
Python work. :meth:`CanonicalForm.tokens_with_spans` gives the same tokens with their
character offsets in the original text, for matched passages.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from neardup.errors import ParameterError, check_int

#: Bumped whenever a change to this module changes the tokens of any input.
CANONICAL_VERSION = 1

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
TOKEN_RE = re.compile(rf"[{CJK}]|[^\W_{CJK}]+")
_CJK_RE = re.compile(rf"[{CJK}]")
_CYRILLIC_RE = re.compile(r"[\u0400-\u04ff]")
_WS_RE = re.compile(r"\S+")

Morphology = Literal["none", "stem", "lemma"]
MORPHOLOGIES: tuple[str, ...] = ("none", "stem", "lemma")


def normalize(text: str) -> str:
    """Steps 1-2 of the canonical form: NFKC, lower case, ``ё`` -> ``е``.

    Args:
        text: any Unicode string.

    Returns:
        The normalized string (may differ in length from ``text``).
    """
    if not text.isascii():
        text = _spell_out(text)
        # is_normalized is the quick check alone: ~10x cheaper than normalize() on text that
        # is already NFKC (nearly all real text), and normalize() returns the same string then.
        if not unicodedata.is_normalized("NFKC", text):
            text = unicodedata.normalize("NFKC", text)
    return text.lower().replace("ё", "е")


#: Characters common in real text whose NFKC form is plain ASCII; replacing them first
#: gives the same NFKC result (their compatibility decompositions are starters) but lets
#: ``unicodedata.normalize`` take its quick-check exit instead of a full normalization.
_SPELLED = (("\xa0", " "), ("\u2026", "..."))


def _spell_out(text: str) -> str:
    for char, plain in _SPELLED:
        if char in text:
            text = text.replace(char, plain)
    return text


@dataclass(frozen=True)
class CanonicalForm:
    """How a text becomes canonical tokens (the ``TC_i`` of Zagorulko et al. 2013, Fig. 1).

    Args:
        stop_words: drop Russian and English stop words (Snowball lists).
        morphology: ``none``; ``stem`` (Snowball via PyStemmer); ``lemma`` (pymorphy3 normal
            form of Cyrillic words, Snowball English stemming of the rest; needs the
            ``neardup[lemma]`` extra).
        min_token_length: tokens shorter than this many characters are dropped (``1`` keeps
            all; CJK single characters are always kept).
        stop_word_list: the user's stop words, replacing the Snowball lists when
            ``stop_words`` is true (a tuple of words, kept sorted and unique; each is
            normalized as the text is, so ``Ёж`` matches ``еж``). ``None``: the Snowball lists.
            :func:`read_stop_words` reads one from a file.
        stop_symbols: ``None`` (default): tokens are runs of letters and digits. A string:
            Rodnenko's (2009) ``canonize``: lower case, words split at whitespace, these
            characters stripped from each word's ends (e.g. ``".,!?:;-\n\r()"``).

    Raises:
        ParameterError: a parameter is out of range (the message names it).
    """

    stop_words: bool = True
    morphology: Morphology = "none"
    min_token_length: int = 1
    stop_word_list: tuple[str, ...] | None = None
    stop_symbols: str | None = None
    _cache: dict[str, str] = field(default_factory=dict, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.morphology not in MORPHOLOGIES:
            raise ParameterError("morphology", self.morphology, "one of " + ", ".join(MORPHOLOGIES))
        check_int("min_token_length", self.min_token_length, low=1, high=100)
        if not isinstance(self.stop_words, bool):
            raise ParameterError("stop_words", self.stop_words, "True or False")
        if self.stop_word_list is not None:
            words = self.stop_word_list
            if isinstance(words, str) or not isinstance(words, tuple | list | frozenset | set):
                raise ParameterError("stop_word_list", words, "a tuple of words or None")
            if not all(isinstance(w, str) and w.strip() for w in words):
                raise ParameterError("stop_word_list", words, "non-empty strings only")
            clean = tuple(sorted({self._fold(w.strip()) for w in words}))
            object.__setattr__(self, "stop_word_list", clean)
        if self.stop_symbols is not None and not isinstance(self.stop_symbols, str):
            raise ParameterError("stop_symbols", self.stop_symbols, "a string or None")

    # -- provenance ---------------------------------------------------------------------
    def params(self) -> dict[str, object]:
        """The parameters and version that a signature records (JSON-ready)."""
        out: dict[str, object] = {
            "version": CANONICAL_VERSION,
            "stop_words": self.stop_words,
            "morphology": self.morphology,
            "min_token_length": self.min_token_length,
        }
        # recorded only when set, so keys made before these fields existed stay equal
        if self.stop_word_list is not None:
            out["stop_word_list"] = list(self.stop_word_list)
        if self.stop_symbols is not None:
            out["stop_symbols"] = self.stop_symbols
        return out

    @property
    def vectorisable(self) -> bool:
        """True when :func:`neardup.text.vectorized.canonical_fingerprints` can make the
        tokens without Python strings (no morphology, no Rodnenko split)."""
        return self.morphology == "none" and self.stop_symbols is None

    def _fold(self, word: str) -> str:
        """A stop word as the tokens it must match are made (lower case, and in the default
        tokenizer NFKC and ``ё`` -> ``е`` too)."""
        return word.lower() if self.stop_symbols is not None else normalize(word)

    # -- tokens -------------------------------------------------------------------------
    def tokens(self, text: str) -> list[str]:
        """Canonical tokens of ``text``.

        Args:
            text: clean text (markup already removed).

        Returns:
            The tokens in text order; an empty list for a text with no words.
        """
        if self.stop_symbols is not None:
            symbols = self.stop_symbols
            words = [w.strip(symbols) for w in text.lower().split()]
            return self._finish([w for w in words if w])
        return self._finish(TOKEN_RE.findall(normalize(text)))

    def tokens_with_spans(self, text: str) -> tuple[list[str], list[tuple[int, int]]]:
        """Canonical tokens of ``text`` with ``[start, end)`` character offsets in ``text``.

        The tokens are exactly :meth:`tokens` ``(text)``. Where normalization does not map a
        whitespace-separated chunk character for character (ligatures, compatibility forms,
        composed accents), every token of that chunk gets the chunk's span.

        Returns:
            ``(tokens, spans)``, two lists of equal length.
        """
        if self.stop_symbols is not None:
            return self._split_with_spans(text)
        raw: list[str] = []
        spans: list[tuple[int, int]] = []
        for chunk in _WS_RE.finditer(text):
            original = chunk.group()
            norm = normalize(original)
            same_length = len(norm) == len(original) and _char_for_char(original)
            base = chunk.start()
            for m in TOKEN_RE.finditer(norm):
                raw.append(m.group())
                spans.append((base + m.start(), base + m.end()) if same_length else chunk.span())
        keep = self._keep_mask(raw)
        kept = [t for t, k in zip(raw, keep, strict=True) if k]
        kept_spans = [s for s, k in zip(spans, keep, strict=True) if k]
        return self._morph(kept), kept_spans

    # -- internals ----------------------------------------------------------------------
    def _split_with_spans(self, text: str) -> tuple[list[str], list[tuple[int, int]]]:
        """Rodnenko's split with the span of each word's stripped part (``lower`` keeps
        the length of nearly all text; where it does not, the whole chunk's span)."""
        raw: list[str] = []
        spans: list[tuple[int, int]] = []
        symbols = self.stop_symbols
        for chunk in _WS_RE.finditer(text):
            low = chunk.group().lower()
            word = low.strip(symbols)
            if not word:
                continue
            raw.append(word)
            if len(low) == len(chunk.group()):
                start = chunk.start() + len(low) - len(low.lstrip(symbols))
                spans.append((start, start + len(word)))
            else:
                spans.append(chunk.span())
        keep = self._keep_mask(raw)
        kept = [t for t, k in zip(raw, keep, strict=True) if k]
        kept_spans = [s for s, k in zip(spans, keep, strict=True) if k]
        return self._morph(kept), kept_spans

    @cached_property
    def _stop_set(self) -> frozenset[str]:
        if not self.stop_words:
            return frozenset()
        if self.stop_word_list is not None:
            return frozenset(self.stop_word_list)
        from neardup.text.stopwords import stop_words

        return stop_words()

    def _keep_mask(self, raw: list[str]) -> list[bool]:
        stop = self._stop_set
        n = self.min_token_length
        return [t not in stop and (len(t) >= n or _is_cjk(t)) for t in raw]

    def _finish(self, raw: list[str]) -> list[str]:
        stop = self._stop_set
        n = self.min_token_length
        if n == 1:
            kept = [t for t in raw if t not in stop] if stop else raw
        else:
            kept = [t for t in raw if t not in stop and (len(t) >= n or _is_cjk(t))]
        return self._morph(kept)

    def _morph(self, tokens: list[str]) -> list[str]:
        if self.morphology == "none":
            return tokens
        cache = self._cache
        missing = set(tokens).difference(cache)
        if missing:
            fn = _stemmer_fn() if self.morphology == "stem" else _lemma_fn()
            for t in missing:
                cache[t] = fn(t)
            if len(cache) > 2_000_000:  # bound memory on huge vocabularies
                cache.clear()
                return [fn(t) for t in tokens]
        return [cache[t] for t in tokens]


def _char_for_char(chunk: str) -> bool:
    """True when :func:`normalize` maps ``chunk`` one character to one character.

    Already-NFKC text whose lower case keeps its length maps character for character
    (lower case never shortens a string); other chunks are checked character by character.
    """
    if unicodedata.is_normalized("NFKC", chunk) and len(chunk.lower()) == len(chunk):
        return True
    return all(len(normalize(c)) == 1 for c in chunk)


def _is_cjk(token: str) -> bool:
    return len(token) == 1 and _CJK_RE.match(token) is not None


def _stemmer_fn():  # type: ignore[no-untyped-def]
    import Stemmer  # PyStemmer

    ru = Stemmer.Stemmer("russian")
    en = Stemmer.Stemmer("english")

    def stem(token: str) -> str:
        return ru.stemWord(token) if _CYRILLIC_RE.search(token) else en.stemWord(token)

    return stem


def _lemma_fn():  # type: ignore[no-untyped-def]
    try:
        import pymorphy3
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ParameterError(
            "morphology", "lemma", "installed pymorphy3 (pip install 'neardup[lemma]')"
        ) from exc
    morph = pymorphy3.MorphAnalyzer()
    stem = _stemmer_fn()

    def lemma(token: str) -> str:
        if _CYRILLIC_RE.search(token):
            return str(morph.parse(token)[0].normal_form).replace("ё", "е")
        return stem(token)

    return lemma
