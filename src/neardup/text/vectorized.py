"""Canonical tokenization of many texts at once on their UTF-8 bytes (numpy).

:func:`tokenize_batch` finds exactly the tokens of
``TOKEN_RE.findall(normalize(text))`` (:mod:`neardup.text.canonical`) for every text of a
batch, as byte ranges of one UTF-8 buffer, without a Python object per token. Each
character is classified by a 65,536-entry table built from ``str.isalnum`` (the definition
of the regex class ``[^\\W_]``) with the CJK ranges as single-character tokens; characters
outside the Basic Multilingual Plane are classified one distinct code point at a time.
Normalization (NFKC, lower case, ``ё`` -> ``е``) stays at C speed in :func:`normalize`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from neardup._array import sorted_unique
from neardup.text.canonical import TOKEN_RE, CanonicalForm, normalize

OTHER, WORD, CJK, CONT, PAIR, TRIPLE, QUAD = 0, 1, 2, 3, 4, 5, 6


@dataclass(frozen=True, eq=False)
class TokenBatch:
    """Tokens of a batch of texts as byte ranges of one buffer.

    Attributes:
        buffer: uint8 (b,): the normalized texts, UTF-8, joined by ``\\n``.
        starts, ends: int64 (t,): byte range of each token in ``buffer``, ascending.
        offsets: int64 (n + 1,): document i's tokens are ``offsets[i]:offsets[i+1]``.
    """

    buffer: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    offsets: np.ndarray

    def tokens(self, i: int) -> list[str]:
        """Document i's tokens as strings (for tests and debugging)."""
        lo, hi = self.offsets[i], self.offsets[i + 1]
        raw = self.buffer.tobytes()
        return [
            raw[s:e].decode("utf-8", "surrogatepass")
            for s, e in zip(self.starts[lo:hi], self.ends[lo:hi], strict=True)
        ]

    def char_counts(self) -> np.ndarray:
        """int64 (t,): each token's length in characters (UTF-8 lead bytes in its range)."""
        leads = np.zeros(self.buffer.shape[0] + 1, dtype=np.int64)
        np.cumsum(self.buffer.view(np.int8) >= -64, out=leads[1:])
        return leads[self.ends] - leads[self.starts]


@lru_cache(maxsize=1)
def bmp_classes() -> np.ndarray:
    """Class of every BMP code point, straight from the regex the slow path uses."""
    import re

    cjk_alone = re.compile(TOKEN_RE.pattern.split("|", 1)[0])
    table = np.zeros(0x10000, dtype=np.uint8)
    for cp in range(0x10000):
        ch = chr(cp)
        if cjk_alone.fullmatch(ch):
            table[cp] = CJK
        elif TOKEN_RE.fullmatch(ch):
            table[cp] = WORD
    return table


@lru_cache(maxsize=1)
def _byte_table() -> bytes:
    """Class code of every byte value, for ``bytes.translate``.

    ASCII bytes, and the leads of two-byte characters whose 64 characters share one class
    (the Cyrillic leads among them), get that class; other two-byte leads get
    :data:`PAIR`, three- and four-byte leads :data:`TRIPLE` / :data:`QUAD` (their
    characters are classified one by one), continuation bytes :data:`CONT`.
    """
    bmp = bmp_classes()
    table = bytearray(256)
    for b in range(256):
        if b < 0x80:
            table[b] = int(bmp[b])
        elif b < 0xC0:
            table[b] = CONT
        elif b < 0xE0:
            block = bmp[(b & 0x1F) << 6 : ((b & 0x1F) << 6) + 64]
            table[b] = int(block[0]) if bool((block == block[0]).all()) else PAIR
        else:
            table[b] = TRIPLE if b < 0xF0 else QUAD
    return bytes(table)


def tokenize_batch(texts: Sequence[str]) -> TokenBatch:
    """Canonical tokens (before stop words and morphology) of every text, vectorised.

    Each byte gets a class from a 256-entry ``bytes.translate`` table; the few characters
    its lead byte does not decide (non-uniform two-byte leads, all longer characters) are
    classified from their code points; a continuation byte takes its character's class;
    token boundaries are the edges of the word-byte runs, plus one token per CJK character.

    Args:
        texts: raw clean texts (normalization is applied here).

    Returns:
        :class:`TokenBatch`; ``batch.tokens(i) == TOKEN_RE.findall(normalize(texts[i]))``.
    """
    encoded = [normalize(t).encode("utf-8", "surrogatepass") for t in texts]
    raw = b"\n".join(encoded)
    buf = np.frombuffer(raw, dtype=np.uint8)
    n = buf.shape[0]
    cls = np.frombuffer(raw.translate(_byte_table()), dtype=np.uint8).copy()
    odd, width = _resolve(buf, cls)
    word = np.zeros(n + 2, dtype=bool)  # word[i + 1]: byte i belongs to a word character
    np.equal(cls, WORD, out=word[1 : n + 1])
    word[2 : n + 1] |= (cls[1:] == CONT) & word[1:n]
    long_word = (cls[odd] == WORD) & (width >= 3)  # bytes 3 and 4 of longer characters
    word[odd[long_word] + 3] = True
    word[odd[long_word & (width == 4)] + 4] = True
    edges = np.flatnonzero(word[1:] != word[:-1])
    starts, ends = edges[0::2], edges[1::2]
    is_cjk = cls[odd] == CJK
    if is_cjk.any():
        starts = np.concatenate([starts, odd[is_cjk]])
        ends = np.concatenate([ends, odd[is_cjk] + width[is_cjk]])
        order = np.argsort(starts, kind="stable")
        starts, ends = starts[order], ends[order]
    sizes = np.fromiter((len(e) + 1 for e in encoded), dtype=np.int64, count=len(encoded))
    doc_starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if len(texts) else sizes
    offsets = np.empty(len(texts) + 1, dtype=np.int64)
    offsets[:-1] = np.searchsorted(starts, doc_starts)
    offsets[-1] = starts.shape[0]
    return TokenBatch(buf, starts.astype(np.int64), ends.astype(np.int64), offsets)


def _resolve(buf: np.ndarray, cls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Classify the characters whose lead byte does not decide the class, in place.

    Returns:
        ``(positions, widths)``: int64 (k,) lead positions of those characters and their
        UTF-8 lengths (2, 3 or 4 bytes); ``cls[positions]`` then holds their classes.
    """
    odd = np.flatnonzero(cls >= PAIR)
    if odd.size == 0:
        return odd, odd
    width = cls[odd].astype(np.int64) - (PAIR - 2)
    last = buf.shape[0] - 1
    b0 = buf[odd].astype(np.uint32)
    b1, b2, b3 = (buf[np.minimum(odd + k, last)].astype(np.uint32) & 0x3F for k in (1, 2, 3))
    cp = np.where(
        width == 2,
        ((b0 & 0x1F) << 6) | b1,
        np.where(
            width == 3,
            ((b0 & 0x0F) << 12) | (b1 << 6) | b2,
            ((b0 & 0x07) << 18) | (b1 << 12) | (b2 << 6) | b3,
        ),
    )
    out = bmp_classes()[np.minimum(cp, 0xFFFF)]
    astral = np.flatnonzero(cp > 0xFFFF)
    if astral.size:
        uniq, inverse = np.unique(cp[astral], return_inverse=True)
        known = np.array([WORD if chr(int(c)).isalnum() else 0 for c in uniq], dtype=np.uint8)
        out[astral] = known[inverse]
    cls[odd] = out
    return odd, width


def canonical_fingerprints(
    texts: Sequence[str], canonical: CanonicalForm, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """XXH64 fingerprints of every text's canonical tokens, vectorised.

    Equal to ``token_fingerprints(canonical.tokens(text), seed)`` for each text
    (:mod:`neardup.text.xxh64`): stop words and tokens shorter than
    ``min_token_length`` are dropped by comparing fingerprints and character counts.
    With ``morphology`` other than ``none`` the tokens must be strings, so the per-token
    path is used.

    Args:
        texts: clean texts; canonical: the canonical form; seed: XXH64 seed.

    Returns:
        ``(fingerprints, offsets)``: uint64 (t,) and int64 (n + 1,); document i's token
        fingerprints are ``fingerprints[offsets[i]:offsets[i+1]]``.
    """
    from neardup.text.xxh64 import token_fingerprints, xxh64_ranges

    if not canonical.vectorisable:
        lists = [canonical.tokens(t) for t in texts]
        offsets = np.zeros(len(lists) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in lists], out=offsets[1:])
        flat = [tok for x in lists for tok in x]
        return token_fingerprints(flat, seed), offsets
    batch = tokenize_batch(texts)
    fp = xxh64_ranges(batch.buffer, batch.starts, batch.ends, seed)
    keep = np.ones(fp.shape[0], dtype=bool)
    if canonical.stop_words:
        keep &= ~stop_table(seed, canonical.stop_word_list).contains(fp)
    if canonical.min_token_length > 1:
        is_cjk = bmp_classes()[_first_code_points(batch)] == CJK
        chars = batch.char_counts()
        keep &= (chars >= canonical.min_token_length) | (is_cjk & (chars == 1))
    kept = np.zeros(fp.shape[0] + 1, dtype=np.int64)
    np.cumsum(keep, out=kept[1:])
    return fp[keep], kept[batch.offsets]


@dataclass(frozen=True, eq=False)
class FingerprintTable:
    """A set of uint64 fingerprints with vectorised membership (open addressing).

    ``2**bits`` slots addressed by a fingerprint's top ``bits`` bits, linear probing; an
    empty slot holds a value whose top bits differ from every slot that probes it, so it
    never matches.

    Attributes:
        slots: uint64 (2**bits,); bits: address width; probes: longest probe sequence.
    """

    slots: np.ndarray
    bits: int
    probes: int

    @classmethod
    def build(cls, values: np.ndarray, *, bits: int = 16) -> FingerprintTable:
        """Table of the distinct ``values`` (uint64 (k,), k < 2**bits / 2)."""
        size = 1 << bits
        slots = (np.arange(size, dtype=np.uint64) + np.uint64(1)) % np.uint64(size)
        slots <<= np.uint64(64 - bits)
        used = np.zeros(size, dtype=bool)
        probes = 1
        for v in sorted_unique(np.asarray(values, dtype=np.uint64)).tolist():
            i, step = v >> (64 - bits), 1
            while used[i]:
                i, step = (i + 1) % size, step + 1
            slots[i], used[i] = v, True
            probes = max(probes, step)
        return cls(slots, bits, probes)

    def contains(self, values: np.ndarray) -> np.ndarray:
        """bool (m,): which of ``values`` (uint64 (m,)) are in the table."""
        home = (values >> np.uint64(64 - self.bits)).astype(np.intp)
        found = self.slots[home] == values
        mask = (1 << self.bits) - 1
        for step in range(1, self.probes):
            found |= self.slots[(home + step) & mask] == values
        return found


@lru_cache(maxsize=8)
def stop_table(seed: int, words: tuple[str, ...] | None = None) -> FingerprintTable:
    """Fingerprints of the stop words (``None``: the Snowball lists); a list too large for
    the default table gets a wider one."""
    values = stop_fingerprints(True, seed, words)
    bits = max(16, int(values.shape[0] * 4).bit_length())
    return FingerprintTable.build(values, bits=bits)


@lru_cache(maxsize=8)
def stop_fingerprints(enabled: bool, seed: int, words: tuple[str, ...] | None = None) -> np.ndarray:
    if not enabled:
        return np.zeros(0, dtype=np.uint64)
    from neardup.text.stopwords import stop_words
    from neardup.text.xxh64 import token_fingerprints

    chosen = sorted(stop_words()) if words is None else list(words)
    return sorted_unique(token_fingerprints(chosen, seed))


def _first_code_points(batch: TokenBatch) -> np.ndarray:
    """Code point (BMP part) of each token's first character."""
    padded = np.zeros(batch.buffer.shape[0] + 4, dtype=np.uint32)
    padded[: batch.buffer.shape[0]] = batch.buffer
    s = batch.starts
    b0 = padded[s]
    three = (b0 >= 0xE0) & (b0 < 0xF0)
    cp3 = ((b0 & 0x0F) << 12) | ((padded[s + 1] & 0x3F) << 6) | (padded[s + 2] & 0x3F)
    return np.where(three, cp3, 0).astype(np.int64)
