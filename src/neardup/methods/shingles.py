"""Shingles and their fingerprints, one document or a whole batch at a time.

A *shingle* is a run of ``size`` consecutive canonical tokens (Broder 1997; Zagorulko et
al. 2013) taken every ``step`` tokens: ``step=1`` gives overlapping shingles, ``step=size`` the
non-overlapping ones of the shingle-method tutorial («Метод шинглов: алгоритм, применение и
основные параметры», n.d.). ``unit="char"`` gives character k-shingles of the
canonical text (tokens joined by one space), for short texts.

Fingerprints (the "контрольные суммы" of Zagorulko et al. 2013 and Rodnenko 2009):

* ``xxh64`` (default): every token is hashed once with XXH64 (``xxhash.xxh64_intdigest``
  of its UTF-8 bytes, seed ``seed``); a word shingle's fingerprint is the order-sensitive
  combination ``h = fmix64(rotl(h, 31) * P ^ t_i)`` over its token fingerprints ``t_i``
  (``P = 0x9E3779B97F4A7C15``, ``fmix64`` MurmurHash3's finalizer), computed for all
  shingles of a batch with numpy. Character shingles are XXH64 of their UTF-8 bytes.
* ``crc32``: CRC-32 (zlib) of the shingle text, tokens joined by one space: the 32-bit
  checksum of Rodnenko 2009, slower (one call per shingle), kept for compatibility.
* ``rabin32`` / ``rabin64``: Rabin's (1981) fingerprint of the shingle text (tokens joined
  by one space, UTF-8) modulo a fixed irreducible polynomial of degree 32 or 64
  (:mod:`neardup.methods.rabin` names them): the 32-bit index elements of Zagorulko et al.
  2013 and the 64-bit fingerprints of Fetterly et al. 2003. Vectorised: each distinct token
  is fingerprinted once and the shingles are combined from the tokens (``f(A || B) =
  f(A) x^{8|B|} + f(B) mod P``), no shingle text is built.

A document with fewer tokens than ``size`` (but at least one) has one shingle: all of
its tokens. A document with no tokens has the empty set.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Literal

import numpy as np
import xxhash

from neardup._array import U64, fmix64, fmix64_into, sorted_unique
from neardup.errors import check_choice, check_int
from neardup.methods.rabin import DEGREES, rabin_bytes, rabin_word_shingles, shingle_spans
from neardup.methods.sets import ShingleSets
from neardup.text.canonical import CanonicalForm
from neardup.text.xxh64 import token_fingerprints

FingerprintKind = Literal["xxh64", "crc32", "rabin32", "rabin64"]
FINGERPRINTS: tuple[str, ...] = ("xxh64", "crc32", "rabin32", "rabin64")
UNITS: tuple[str, ...] = ("word", "char")
_P = np.uint64(0x9E3779B97F4A7C15)
_R = np.uint64(31)
_L = np.uint64(33)


@dataclass(frozen=True, slots=True)
class Shingling:
    """How a token sequence becomes a set of shingle fingerprints.

    Args:
        size: tokens (``unit="word"``) or characters (``unit="char"``) per shingle, 1-64.
        step: distance between shingle starts, ``1 <= step <= size``.
        unit: ``word`` or ``char``.
        fingerprint: ``xxh64`` (64-bit, default), ``crc32`` (32-bit, Rodnenko 2009), ``rabin32``
            or ``rabin64`` (Rabin 1981; Zagorulko et al. 2013 use 32 bits, Fetterly et al.
            2003 64).
        seed: hash seed, ``0 <= seed < 2**32`` (CRC-32's initial value; Rabin's prefix).

    Raises:
        ParameterError: a parameter is out of range.
    """

    size: int = 5
    step: int = 1
    unit: Literal["word", "char"] = "word"
    fingerprint: FingerprintKind = "xxh64"
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("size", self.size, low=1, high=64)
        check_int("step", self.step, low=1, high=self.size)
        check_choice("unit", self.unit, UNITS)
        check_choice("fingerprint", self.fingerprint, FINGERPRINTS)
        check_int("seed", self.seed, low=0, high=2**32 - 1)

    def params(self) -> dict[str, object]:
        """JSON-ready parameters (recorded in signatures)."""
        return {
            "size": self.size,
            "step": self.step,
            "unit": self.unit,
            "fingerprint": self.fingerprint,
            "seed": self.seed,
        }

    # -- per document -------------------------------------------------------------------
    def shingles(self, tokens: Sequence[str]) -> list[str]:
        """The shingles as text (tokens joined by one space), in document order.

        Args:
            tokens: canonical tokens.

        Returns:
            One string per shingle (repeats kept), ``[]`` for no tokens.
        """
        if self.unit == "char":
            text = " ".join(tokens)
            k = self.size
            if not text:
                return []
            if len(text) <= k:
                return [text]
            return [
                text[i : i + k] for i in range(0, _last_start(len(text), k, self.step), self.step)
            ]
        n, w = len(tokens), self.size
        if n == 0:
            return []
        if n < w:
            return [" ".join(tokens)]
        return [
            " ".join(tokens[i : i + w]) for i in range(0, _last_start(n, w, self.step), self.step)
        ]

    def fingerprints(self, tokens: Sequence[str]) -> np.ndarray:
        """Sorted unique fingerprints of one document's shingles.

        Returns:
            uint64 array, shape (s,), strictly increasing (``crc32`` and ``rabin32`` values
            < 2**32).
        """
        return self.batch([tokens]).get(0)

    # -- batch --------------------------------------------------------------------------
    def batch(self, token_lists: Sequence[Sequence[str]]) -> ShingleSets:
        """Fingerprint sets of many documents at once (the fast path).

        Args:
            token_lists: canonical tokens of each document.

        Returns:
            :class:`ShingleSets` with one sorted unique set per document, in input order.
        """
        if self.unit == "char" or self.fingerprint == "crc32":
            return ShingleSets.from_arrays([self._slow(t) for t in token_lists])
        if self.fingerprint != "xxh64":
            values, doc = self._word_rabin(token_lists)
            return ShingleSets.from_unsorted(values, doc, len(token_lists))
        values, doc = self._word_xxh64(token_lists)
        return ShingleSets.from_unsorted(values, doc, len(token_lists))

    def batch_texts(self, texts: Sequence[str], canonical: CanonicalForm) -> ShingleSets:
        """Fingerprint sets straight from clean texts (the vectorised fast path).

        Equal to ``self.batch([canonical.tokens(t) for t in texts])``; word shingles with
        ``xxh64`` fingerprints skip the per-token Python objects entirely
        (:func:`neardup.text.vectorized.canonical_fingerprints`).

        Returns:
            :class:`ShingleSets`, one set per text, in order.
        """
        values, doc = self.occurrences_texts(texts, canonical)
        return ShingleSets.from_unsorted(values, doc, len(texts))

    def occurrences_texts(
        self, texts: Sequence[str], canonical: CanonicalForm
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every shingle occurrence's fingerprint and document index, repeats kept.

        Returns:
            ``(values, doc)``: uint64 (m,) and int64 (m,), documents in order.
        """
        if self.unit == "char" or self.fingerprint == "crc32":
            sets = self.batch([canonical.tokens(t) for t in texts])
            return sets.values, sets.doc_ids()
        if self.fingerprint != "xxh64":
            return self._word_rabin([canonical.tokens(t) for t in texts])
        from neardup.text.vectorized import canonical_fingerprints

        tok, offsets = canonical_fingerprints(texts, canonical, self.seed)
        return self.from_token_fingerprints(tok, np.diff(offsets))

    def occurrences(self, tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Fingerprint of every shingle occurrence with its first token's index.

        Returns:
            ``(fingerprints, starts)``: uint64 and int64 arrays of shape (s,), in document
            order (repeats kept). For ``unit="char"``, starts are character offsets in the
            space-joined canonical text.
        """
        if self.unit == "char" or self.fingerprint == "crc32":
            sh = self.shingles(tokens)
            fp = self._hash_texts(sh)
            return fp, np.arange(len(sh), dtype=np.int64) * self.step
        if self.fingerprint == "xxh64":
            values, _ = self._word_xxh64([tokens])
        else:
            values, _ = self._word_rabin([tokens])
        first, _, _ = shingle_spans(np.array([len(tokens)], np.int64), self.size, self.step)
        return values, first.astype(np.int64)

    def _hash_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Fingerprints of shingle texts, uint64 (len(texts),)."""
        encoded = [s.encode("utf-8", "surrogatepass") for s in texts]
        if self.fingerprint in DEGREES:
            return rabin_bytes(encoded, DEGREES[self.fingerprint], self.seed)
        if self.fingerprint == "crc32":
            seed = self.seed
            return np.fromiter(
                (zlib.crc32(b, seed) & 0xFFFFFFFF for b in encoded), dtype=U64, count=len(encoded)
            )
        h = xxhash.xxh64_intdigest
        return np.fromiter((h(b, self.seed) for b in encoded), dtype=U64, count=len(encoded))

    def _slow(self, tokens: Sequence[str]) -> np.ndarray:
        return sorted_unique(self._hash_texts(self.shingles(tokens)))

    def _word_rabin(self, token_lists: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        """Word-shingle Rabin fingerprints of a batch (values, doc index), vectorised."""
        degree = DEGREES[self.fingerprint]
        return rabin_word_shingles(token_lists, self.size, self.step, degree, self.seed)

    def _word_xxh64(self, token_lists: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        """Word-shingle XXH64-combined fingerprints of a batch (values, doc index)."""
        lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
        tok = token_fingerprints(list(chain.from_iterable(token_lists)), self.seed)
        return self.from_token_fingerprints(tok, lengths)

    def from_token_fingerprints(
        self, tok: np.ndarray, lengths: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Shingle fingerprints and document indexes from concatenated token fingerprints.

        Args:
            tok: uint64 (t,): the token fingerprints of all documents, one after another
                (:func:`neardup.text.xxh64.token_fingerprints` or
                :func:`neardup.text.vectorized.canonical_fingerprints`, same seed).
            lengths: int64 (n,): tokens per document.

        Returns:
            ``(values, doc)``: uint64 (s,) shingle fingerprints and int64 (s,) the document
            index of each, documents in order (a document with tokens has >= 1 shingle).
        """
        # starts 0, s, 2s, ... <= n - w, the tail of s > 1 as a shorter shingle, and one
        # shingle for a short document (0 < n < w): shingle_spans
        first, width, doc = shingle_spans(np.asarray(lengths, np.int64), self.size, self.step)
        values = _combine(tok, first, width, self.size)
        return values, doc


def _last_start(n: int, w: int, step: int) -> int:
    """The end of the ``range`` of shingle starts of ``n >= w`` items: past ``n - w``, and
    past the tail's start when ``step`` leaves items after the last full shingle."""
    return n - w + 1 if (n - w) % step == 0 else n - w + step


def _combine(tok: np.ndarray, first: np.ndarray, width: np.ndarray, w: int) -> np.ndarray:
    """Order-sensitive combination of ``width`` token fingerprints from each ``first``.

    ``h_0 = 0``, ``h_{i+1} = fmix64(rotl(h_i, 31) * P ^ t_i)`` over the shingle's tokens
    (uint64 arithmetic mod 2**64), computed in place over all shingles at once.
    """
    if first.size == 0:
        return np.zeros(0, dtype=U64)
    h = np.zeros(first.shape[0], dtype=U64)
    tmp = np.empty_like(h)
    with np.errstate(over="ignore"):
        for i in range(w):
            live = width > i
            if not live.all():
                idx = np.flatnonzero(live)
                t = tok[first[idx] + i]
                hi = h[idx]
                h[idx] = fmix64(((hi << _R) | (hi >> _L)) * _P ^ t)
                continue
            if i == 0:
                np.take(tok, first, out=h)
            else:
                np.right_shift(h, _L, out=tmp)
                h <<= _R
                h |= tmp
                h *= _P
                h ^= tok[first + i]
            fmix64_into(h, tmp)
    return h
