"""XXH64 of many byte strings at once, vectorised with numpy.

Bit-exact with the reference XXH64 (Yann Collet, xxHash specification v0.1.1, "XXH64
algorithm description"): for every ``[start, end)`` range of one byte buffer it returns
what ``xxhash.xxh64_intdigest(buffer[start:end], seed)`` returns, without a Python call per
string. Strings of 32 bytes or more go through the four-lane stripe loop, the rest start
from ``seed + PRIME64_5``; then 8-byte, 4-byte and 1-byte steps and the final avalanche.
Each step runs over all strings that still have input, so the cost is about 20 numpy
operations per 8 bytes of the longest string, not a Python loop per string.

:func:`token_fingerprints` is the per-token form (the ``xxhash`` library, one call a
token): the fingerprints shingles, SimHash and the stop-word table are built from.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xxhash

U64 = np.uint64
P1 = np.uint64(0x9E3779B185EBCA87)
P2 = np.uint64(0xC2B2AE3D27D4EB4F)
P3 = np.uint64(0x165667B19E3779F9)
P4 = np.uint64(0x85EBCA77C2B2AE63)
P5 = np.uint64(0x27D4EB2F165667C5)


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def _round(acc: np.ndarray, lane: np.ndarray) -> np.ndarray:
    return _rotl(acc + lane * P2, 31) * P1


def _merge(acc: np.ndarray, val: np.ndarray) -> np.ndarray:
    return (acc ^ _round(np.zeros_like(val), val)) * P1 + P4


def _views(buffer: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unaligned little-endian u64/u32 reads at every byte offset, and the bytes as u64."""
    padded = np.zeros(buffer.shape[0] + 8, dtype=np.uint8)
    padded[: buffer.shape[0]] = buffer
    n = buffer.shape[0] + 1
    r64 = np.ndarray((n,), dtype="<u8", buffer=padded.data, strides=(1,))
    r32 = np.ndarray((n,), dtype="<u4", buffer=padded.data, strides=(1,))
    return r64, r32, padded


def xxh64_ranges(
    buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray, seed: int = 0
) -> np.ndarray:
    """XXH64 of ``buffer[starts[i]:ends[i]]`` for every i.

    Args:
        buffer: uint8 array (the bytes).
        starts, ends: int64 arrays of shape (m,), ``0 <= start <= end <= len(buffer)``.
        seed: XXH64 seed, ``0 <= seed < 2**64``.

    Returns:
        uint64 array of shape (m,).
    """
    r64, r32, padded = _views(np.ascontiguousarray(buffer, dtype=np.uint8))
    starts = np.asarray(starts, dtype=np.int64)
    length = np.asarray(ends, dtype=np.int64) - starts
    short = length < SHORT
    if short.all() and starts.shape[0] > 4 * SHORT:
        return _short_ranges(r64, r32, padded, starts, length, np.uint64(seed))
    if short.any() and not short.all() and starts.shape[0] > 4 * SHORT:
        out = np.empty(starts.shape[0], dtype=U64)
        out[short] = _short_ranges(r64, r32, padded, starts[short], length[short], np.uint64(seed))
        out[~short] = xxh64_ranges(buffer, starts[~short], starts[~short] + length[~short], seed)
        return out
    s = np.uint64(seed)
    with np.errstate(over="ignore"):
        h = np.full(starts.shape[0], s + P5, dtype=U64)
        pos = starts.copy()
        big = np.flatnonzero(length >= 32)
        if big.size:
            h[big], pos[big] = _stripes(r64, starts[big], length[big], s)
        h += length.astype(U64)
        rem = length - (pos - starts)
        idx = np.flatnonzero(rem >= 8)
        while idx.size:
            k = _round(np.zeros(idx.size, U64), r64[pos[idx]])
            h[idx] = _rotl(h[idx] ^ k, 27) * P1 + P4
            pos[idx] += 8
            rem[idx] -= 8
            idx = idx[rem[idx] >= 8]
        idx = np.flatnonzero(rem >= 4)
        if idx.size:
            k = r32[pos[idx]].astype(U64) * P1
            h[idx] = _rotl(h[idx] ^ k, 23) * P2 + P3
            pos[idx] += 4
            rem[idx] -= 4
        idx = np.flatnonzero(rem >= 1)
        while idx.size:
            k = padded[pos[idx]].astype(U64) * P5
            h[idx] = _rotl(h[idx] ^ k, 11) * P1
            pos[idx] += 1
            rem[idx] -= 1
            idx = idx[rem[idx] >= 1]
        h ^= h >> np.uint64(33)
        h *= P2
        h ^= h >> np.uint64(29)
        h *= P3
        h ^= h >> np.uint64(32)
    return h


SHORT = 64  # strings shorter than this take the length-grouped path (at most one stripe)


def _short_ranges(
    r64: np.ndarray,
    r32: np.ndarray,
    padded: np.ndarray,
    starts: np.ndarray,
    length: np.ndarray,
    seed: np.uint64,
) -> np.ndarray:
    """XXH64 of strings shorter than :data:`SHORT` bytes, one length at a time.

    The strings are ordered by length (a stable radix sort of small integers), so each
    length's steps (one 32-byte stripe from 32 bytes on, then ``L % 32 // 8`` eight-byte,
    ``L % 8 // 4`` four-byte and ``L % 4`` one-byte rounds) run on one contiguous slice
    without masks or scatters.
    """
    order = np.argsort(length.astype(np.uint8), kind="stable")
    sorted_starts = starts[order]
    bounds = np.zeros(SHORT + 1, dtype=np.int64)
    np.cumsum(np.bincount(length, minlength=SHORT), out=bounds[1:])
    out = np.empty(starts.shape[0], dtype=U64)
    with np.errstate(over="ignore"):
        for size in range(SHORT):
            lo, hi = bounds[size], bounds[size + 1]
            if lo < hi:
                out[lo:hi] = _short_one_length(r64, r32, padded, sorted_starts[lo:hi], size, seed)
    result = np.empty_like(out)
    result[order] = out
    return result


def _short_one_length(
    r64: np.ndarray,
    r32: np.ndarray,
    padded: np.ndarray,
    pos: np.ndarray,
    size: int,
    seed: np.uint64,
) -> np.ndarray:
    """XXH64 of ``size``-byte strings (``size <`` :data:`SHORT`) starting at ``pos``."""
    if size >= 32:  # one stripe
        h, _ = _stripes(r64, pos, np.full(pos.shape[0], size, dtype=np.int64), seed)
        h += np.uint64(size)
        at = 32
    else:
        h = np.full(pos.shape[0], seed + P5 + np.uint64(size), dtype=U64)
        at = 0
    tmp = np.empty_like(h)
    while size - at >= 8:
        k = r64[pos + at] * P2
        np.bitwise_or(k << np.uint64(31), k >> np.uint64(33), out=k)
        k *= P1
        h ^= k
        _rotl_into(h, 27, tmp)
        h *= P1
        h += P4
        at += 8
    if size - at >= 4:
        h ^= r32[pos + at].astype(U64) * P1
        _rotl_into(h, 23, tmp)
        h *= P2
        h += P3
        at += 4
    while at < size:
        h ^= padded[pos + at].astype(U64) * P5
        _rotl_into(h, 11, tmp)
        h *= P1
        at += 1
    h ^= h >> np.uint64(33)
    h *= P2
    h ^= h >> np.uint64(29)
    h *= P3
    h ^= h >> np.uint64(32)
    return h


def _rotl_into(x: np.ndarray, r: int, tmp: np.ndarray) -> None:
    """``x = rotl(x, r)`` in place (``tmp``: scratch of x's shape)."""
    np.right_shift(x, np.uint64(64 - r), out=tmp)
    x <<= np.uint64(r)
    x |= tmp


def _stripes(
    r64: np.ndarray, starts: np.ndarray, length: np.ndarray, s: np.uint64
) -> tuple[np.ndarray, np.ndarray]:
    """The 32-byte stripe loop for strings of 32 bytes or more: (h, position after)."""
    m = starts.shape[0]
    v = [
        np.full(m, s + P1 + P2, U64),
        np.full(m, s + P2, U64),
        np.full(m, s, U64),
        np.full(m, s - P1, U64),
    ]
    pos = starts.copy()
    limit = starts + length - 32
    idx = np.arange(m)
    while idx.size:
        p = pos[idx]
        for lane in range(4):
            v[lane][idx] = _round(v[lane][idx], r64[p + 8 * lane])
        pos[idx] += 32
        idx = idx[pos[idx] <= limit[idx]]
    h = _rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)
    for lane in range(4):
        h = _merge(h, v[lane])
    return h, pos


def token_fingerprints(tokens: Sequence[str], seed: int = 0) -> np.ndarray:
    """XXH64 of each token's UTF-8 bytes.

    Args:
        tokens: any tokens.
        seed: XXH64 seed.

    Returns:
        uint64 array of shape (len(tokens),).
    """
    h = xxhash.xxh64_intdigest
    return np.fromiter(
        (h(t.encode("utf-8", "surrogatepass"), seed) for t in tokens), dtype=U64, count=len(tokens)
    )
