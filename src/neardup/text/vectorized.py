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

from neardup.text.canonical import TOKEN_RE, CanonicalForm, normalize

WORD, CJK = 1, 2


@dataclass(frozen=True, eq=False)
class TokenBatch:
    """Tokens of a batch of texts as byte ranges of one buffer.

    Attributes:
        buffer: uint8 (b,): the normalized texts, UTF-8, joined by ``\\n``.
        starts, ends: int64 (t,): byte range of each token in ``buffer``.
        chars: int64 (t,): each token's length in characters.
        offsets: int64 (n + 1,): document i's tokens are ``offsets[i]:offsets[i+1]``.
    """

    buffer: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    chars: np.ndarray
    offsets: np.ndarray

    def tokens(self, i: int) -> list[str]:
        """Document i's tokens as strings (for tests and debugging)."""
        lo, hi = self.offsets[i], self.offsets[i + 1]
        raw = self.buffer.tobytes()
        return [
            raw[s:e].decode("utf-8", "surrogatepass")
            for s, e in zip(self.starts[lo:hi], self.ends[lo:hi], strict=True)
        ]


@lru_cache(maxsize=1)
def _bmp_classes() -> np.ndarray:
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


def tokenize_batch(texts: Sequence[str]) -> TokenBatch:
    """Canonical tokens (before stop words and morphology) of every text, vectorised.

    Args:
        texts: raw clean texts (normalization is applied here).

    Returns:
        :class:`TokenBatch`; ``batch.tokens(i) == TOKEN_RE.findall(normalize(texts[i]))``.
    """
    encoded = [normalize(t).encode("utf-8", "surrogatepass") for t in texts]
    buf = np.frombuffer(b"\n".join(encoded), dtype=np.uint8)
    lead = np.flatnonzero((buf < 0x80) | (buf >= 0xC0))
    cls = _classes(buf, lead)
    word = cls == WORD
    before = np.empty_like(word)
    before[0:1] = False
    before[1:] = word[:-1]
    after = np.empty_like(word)
    after[-1:] = False
    after[:-1] = word[1:]
    cjk = cls == CJK
    first = np.flatnonzero((word & ~before) | cjk)
    last = np.flatnonzero((word & ~after) | cjk) + 1
    char_end = np.append(lead, buf.shape[0])
    starts, ends = lead[first], char_end[last]
    sizes = np.fromiter((len(e) + 1 for e in encoded), dtype=np.int64, count=len(encoded))
    doc_ends = np.cumsum(sizes)  # byte just after each document's separator
    doc_of_token = np.searchsorted(doc_ends, starts, side="right")
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(doc_of_token, minlength=len(texts))[: len(texts)], out=offsets[1:])
    return TokenBatch(buf, starts.astype(np.int64), ends.astype(np.int64), last - first, offsets)


THREE_BYTE = 3  # marker in the pair table: the character needs its third byte


@lru_cache(maxsize=1)
def _pair_classes() -> np.ndarray:
    """Class of the character that starts with bytes ``(b0, b1)``, for all 65,536 pairs.

    One- and two-byte UTF-8 characters are decided by their first two bytes; a lead byte
    of a longer character gives :data:`THREE_BYTE` (or 4-byte: decided separately).
    """
    bmp = _bmp_classes()
    b0 = np.arange(256, dtype=np.int64)[:, None]
    b1 = np.arange(256, dtype=np.int64)[None, :]
    ascii_cls = bmp[np.minimum(b0, 0x7F)]
    two_cp = ((b0 & 0x1F) << 6) | (b1 & 0x3F)
    table = np.where(b0 < 0x80, ascii_cls, 0)
    table = np.where((b0 >= 0xC0) & (b0 < 0xE0), bmp[two_cp], table)
    table = np.where(b0 >= 0xE0, THREE_BYTE, table)
    return np.ascontiguousarray(table.astype(np.uint8).reshape(-1))


def _classes(buf: np.ndarray, lead: np.ndarray) -> np.ndarray:
    """Class (0, WORD, CJK) of every character, given the positions of its lead bytes."""
    padded = np.zeros(buf.shape[0] + 4, dtype=np.uint8)
    padded[: buf.shape[0]] = buf
    pairs = np.ndarray((buf.shape[0] + 1,), dtype=">u2", buffer=padded.data, strides=(1,))
    cls = _pair_classes()[pairs[lead]]
    longer = np.flatnonzero(cls == THREE_BYTE)
    if longer.size:
        cls[longer] = _long_classes(padded, lead[longer])
    return cls


def _long_classes(padded: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Classes of 3- and 4-byte characters starting at ``pos``."""
    b0 = padded[pos].astype(np.uint32)
    b1 = padded[pos + 1].astype(np.uint32) & 0x3F
    b2 = padded[pos + 2].astype(np.uint32) & 0x3F
    cp3 = ((b0 & 0x0F) << 12) | (b1 << 6) | b2
    out = _bmp_classes()[np.minimum(cp3, 0xFFFF)]
    four = np.flatnonzero(b0 >= 0xF0)
    if four.size:
        b3 = padded[pos[four] + 3].astype(np.uint32) & 0x3F
        astral = ((b0[four] & 0x07) << 18) | (b1[four] << 12) | (b2[four] << 6) | b3
        uniq, inverse = np.unique(astral, return_inverse=True)
        known = np.array([WORD if chr(int(c)).isalnum() else 0 for c in uniq], dtype=np.uint8)
        out[four] = known[inverse]
    return out


def canonical_fingerprints(
    texts: Sequence[str], canonical: CanonicalForm, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """XXH64 fingerprints of every text's canonical tokens, vectorised.

    Equal to ``token_fingerprints(canonical.tokens(text), seed)`` for each text
    (:mod:`neardup.methods.shingles`): stop words and tokens shorter than
    ``min_token_length`` are dropped by comparing fingerprints and character counts.
    With ``morphology`` other than ``none`` the tokens must be strings, so the per-token
    path is used.

    Args:
        texts: clean texts; canonical: the canonical form; seed: XXH64 seed.

    Returns:
        ``(fingerprints, offsets)``: uint64 (t,) and int64 (n + 1,); document i's token
        fingerprints are ``fingerprints[offsets[i]:offsets[i+1]]``.
    """
    from neardup.methods.shingles import token_fingerprints
    from neardup.methods.xxh64 import xxh64_ranges

    if canonical.morphology != "none":
        lists = [canonical.tokens(t) for t in texts]
        offsets = np.zeros(len(lists) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in lists], out=offsets[1:])
        flat = [tok for x in lists for tok in x]
        return token_fingerprints(flat, seed), offsets
    batch = tokenize_batch(texts)
    fp = xxh64_ranges(batch.buffer, batch.starts, batch.ends, seed)
    keep = np.ones(fp.shape[0], dtype=bool)
    stop = _stop_fingerprints(canonical.stop_words, seed)
    if stop.size:
        pos = np.minimum(np.searchsorted(stop, fp), stop.size - 1)
        keep &= stop[pos] != fp
    if canonical.min_token_length > 1:
        is_cjk = _bmp_classes()[_first_code_points(batch)] == CJK
        keep &= (batch.chars >= canonical.min_token_length) | (is_cjk & (batch.chars == 1))
    doc = np.repeat(np.arange(len(texts), dtype=np.int64), np.diff(batch.offsets))
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(doc[keep], minlength=len(texts)), out=offsets[1:])
    return fp[keep], offsets


@lru_cache(maxsize=8)
def _stop_fingerprints(enabled: bool, seed: int) -> np.ndarray:
    if not enabled:
        return np.zeros(0, dtype=np.uint64)
    from neardup.methods.shingles import token_fingerprints
    from neardup.text.stopwords import stop_words

    return np.unique(token_fingerprints(sorted(stop_words()), seed))


def _first_code_points(batch: TokenBatch) -> np.ndarray:
    """Code point (BMP part) of each token's first character."""
    padded = np.zeros(batch.buffer.shape[0] + 4, dtype=np.uint32)
    padded[: batch.buffer.shape[0]] = batch.buffer
    s = batch.starts
    b0 = padded[s]
    three = (b0 >= 0xE0) & (b0 < 0xF0)
    cp3 = ((b0 & 0x0F) << 12) | ((padded[s + 1] & 0x3F) << 6) | (padded[s + 2] & 0x3F)
    return np.where(three, cp3, 0).astype(np.int64)
