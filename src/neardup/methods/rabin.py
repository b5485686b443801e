"""Rabin fingerprints (Rabin 1981), 32- and 64-bit, vectorised with numpy.

Zagorulko et al. (2013) build their shingle indexes with Rabin's fingerprints ("алгоритм
Рабина – Карпа", 32-bit index elements); Fetterly et al. (2003) use 64-bit ones. A Rabin
fingerprint of a byte string ``A`` is the remainder of ``A(x)`` divided by an irreducible
polynomial ``P(x)`` of degree ``k`` over GF(2)::

    f(A) = A(x) mod P(x)

where ``A(x)`` has the bits of ``A`` as coefficients, the first byte's most significant
bit the highest one. The result is a ``k``-bit number. With a seed ``s`` (``0 <= s < 2**32``)
the string is prefixed by ``s`` as a ``k``-bit number: ``f_s(A) = (s(x) x^{8|A|} + A(x)) mod
P(x)``; ``s = 0`` is Rabin's plain fingerprint.

The polynomials (the ``x^k`` term implied; both irreducible, checked by Rabin's test,
:func:`is_irreducible`):

* ``rabin32``: ``P(x) = x^32 + 0x9E3779D3``, the first irreducible ``x^32 + c`` with
  ``c >= 0x9E3779B9`` (the 32-bit golden-ratio constant);
* ``rabin64``: ``P(x) = x^64 + 0x9E3779B97F4A7C23``, the first irreducible ``x^64 + c``
  with ``c >= 0x9E3779B97F4A7C15`` (the 64-bit one).

Rabin chose ``P`` at random so that no adversary knows it; fixed polynomials make the
fingerprints reproducible across runs and machines, which a stored index needs.

Computation: a byte at a time for all strings at once, by the usual table
(``h <- (h x^8 + byte) mod P`` = ``((h << 8) mod 2^k) ^ T[h >> (k-8)] ^ byte``). A word
shingle's fingerprint is combined from its tokens' fingerprints with the linearity of
``f``: ``f(A || B) = f(A) x^{8|B|} + f(B) mod P``; the multiplication by ``x^{8n}`` is done
bit by bit of ``n`` with fixed byte tables, so no shingle text is ever built.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from neardup._array import U64
from neardup.errors import ParameterError, check_int

#: Low ``k`` coefficients of each degree's polynomial (the ``x^k`` term implied).
POLYNOMIALS: dict[int, int] = {32: 0x9E3779D3, 64: 0x9E3779B97F4A7C23}
#: Fingerprint names and their degrees.
DEGREES: dict[str, int] = {"rabin32": 32, "rabin64": 64}


# -- GF(2) polynomial arithmetic on Python ints (reference, tables) -------------------------
def poly_mod(a: int, p: int) -> int:
    """``a(x) mod p(x)`` over GF(2) (ints as coefficient bit strings)."""
    dp = p.bit_length()
    while a.bit_length() >= dp:
        a ^= p << (a.bit_length() - dp)
    return a


def poly_mulmod(a: int, b: int, p: int) -> int:
    """``a(x) b(x) mod p(x)`` over GF(2); ``a`` must already be reduced."""
    top = p.bit_length() - 1
    out = 0
    while b:
        if b & 1:
            out ^= a
        b >>= 1
        a <<= 1
        if (a >> top) & 1:
            a ^= p
    return out


def is_irreducible(p: int) -> bool:
    """Rabin's (1980) test for a polynomial of degree ``k`` a power of two: irreducible iff
    ``x^(2^k) = x (mod p)`` and ``gcd(x^(2^(k/2)) - x, p) = 1``.

    Args:
        p: the polynomial with its top term (e.g. ``(1 << 64) | POLYNOMIALS[64]``).
    """
    k = p.bit_length() - 1
    if k < 2 or k & (k - 1):
        raise ValueError("degree must be a power of two >= 2")

    def x_pow_2_pow(n: int) -> int:
        r = 2  # the polynomial x
        for _ in range(n):
            r = poly_mulmod(r, r, p)
        return r

    if x_pow_2_pow(k) != 2:
        return False
    a, b = p, x_pow_2_pow(k // 2) ^ 2
    while b:
        a, b = b, poly_mod(a, b)
    return a == 1


def rabin_reference(data: bytes, degree: int = 64, seed: int = 0) -> int:
    """The Rabin fingerprint of ``data`` by long division (slow; the definition).

    Args:
        data: any bytes. degree: 32 or 64. seed: prefix, ``0 <= seed < 2**32``.

    Returns:
        ``(seed(x) x^{8 len(data)} + data(x)) mod P(x)``, an int below ``2**degree``.
    """
    p = (1 << degree) | POLYNOMIALS[degree]
    return poly_mod((seed << (8 * len(data))) | int.from_bytes(data, "big"), p)


# -- tables ---------------------------------------------------------------------------------
@lru_cache(maxsize=4)
def _byte_table(degree: int) -> np.ndarray:
    """``T[b] = b(x) x^k mod P``, uint64 (256,)."""
    p = (1 << degree) | POLYNOMIALS[degree]
    return np.array([poly_mod(b << degree, p) for b in range(256)], dtype=U64)


@lru_cache(maxsize=64)
def _mul_tables(degree: int, bit: int) -> np.ndarray:
    """Tables of ``h -> h x^(8 * 2^bit) mod P``: uint64 (k/8, 256); row ``m`` maps byte ``m``
    of ``h`` (``h = sum_m byte_m x^(8m)``), the product is the XOR of the rows' values."""
    p = (1 << degree) | POLYNOMIALS[degree]
    c = 2  # x, raised to the power 8 * 2^bit by squaring
    for _ in range(3 + bit):
        c = poly_mulmod(c, c, p)
    rows = degree // 8
    out = np.zeros((rows, 256), dtype=U64)
    for m in range(rows):
        basis = [poly_mulmod(poly_mod(1 << (8 * m + i), p), c, p) for i in range(8)]
        row = [0] * 256
        for v in range(1, 256):
            low = v & -v
            row[v] = row[v ^ low] ^ basis[low.bit_length() - 1]
        out[m] = row
    return out


def _mask(degree: int) -> np.uint64:
    return np.uint64((1 << degree) - 1)


def shift_bytes(h: np.ndarray, nbytes: np.ndarray, degree: int) -> np.ndarray:
    """``h(x) x^(8 n) mod P`` for each element: uint64 (m,) fingerprints, int64 (m,) ``n``."""
    h = h.copy()
    if h.size == 0:
        return h
    top = int(nbytes.max()).bit_length()
    eight = np.uint64(8)
    byte = np.uint64(0xFF)
    for bit in range(top):
        sel = np.flatnonzero((nbytes >> bit) & 1)
        if sel.size == 0:
            continue
        tables = _mul_tables(degree, bit)
        part = h[sel]
        acc = np.zeros_like(part)
        for m in range(degree // 8):
            acc ^= tables[m][(part >> (eight * np.uint64(m))) & byte]
        h[sel] = acc
    return h


# -- vectorised fingerprints ----------------------------------------------------------------
def rabin_bytes(chunks: Sequence[bytes], degree: int = 64, seed: int = 0) -> np.ndarray:
    """Rabin fingerprints of many byte strings at once.

    Args:
        chunks: byte strings (any lengths, empty allowed).
        degree: 32 or 64. seed: prefix, ``0 <= seed < 2**32``.

    Returns:
        uint64 (len(chunks),), each equal to :func:`rabin_reference` of its chunk.

    Raises:
        ParameterError: ``degree`` or ``seed`` out of range.
    """
    if degree not in POLYNOMIALS:
        raise ParameterError("degree", degree, "32 or 64")
    check_int("seed", seed, low=0, high=2**32 - 1)
    n = len(chunks)
    out = np.full(n, seed, dtype=U64)
    if n == 0:
        return out
    lengths = np.fromiter((len(c) for c in chunks), dtype=np.int64, count=n)
    buf = np.frombuffer(b"".join(chunks), dtype=np.uint8)
    starts = np.zeros(n, dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    order = np.argsort(-lengths, kind="stable")  # the live strings are a prefix at each step
    s_len, s_start = lengths[order], starts[order]
    h = out[order]
    table, mask = _byte_table(degree), _mask(degree)
    down, eight = np.uint64(degree - 8), np.uint64(8)
    live = n
    for j in range(int(s_len[0]) if n else 0):
        while live and s_len[live - 1] <= j:
            live -= 1
        part = h[:live]
        nxt = table[part >> down]
        nxt ^= (part << eight) & mask
        nxt ^= buf[s_start[:live] + j]
        h[:live] = nxt
    out[order] = h
    return out


def shingle_spans(
    lengths: np.ndarray, size: int, step: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the shingles of a batch start, and how many tokens each has.

    Shingles start every ``step`` tokens (``0, step, ... <= n - size``); when ``step > 1``
    leaves words after the last full shingle (``(n - size) % step != 0``), they make one
    last, shorter shingle starting ``step`` after it, as the shingle tutorial's
    non-overlapping shingles keep the tail («... | и проверки ресурса на релевантность |
    запросу»). A document with ``0 < n < size`` tokens has one shingle of all of them, one
    with none has none.

    Args:
        lengths: int64 (n,): tokens per document.
        size, step: shingle size and step, ``1 <= step <= size``.

    Returns:
        ``(first, width, doc)``: int64 (s,) each: the first token's index in the
        concatenated tokens, the shingle's token count, the document index; documents in
        order, shingles in document order.
    """
    from neardup._array import seg_arange

    lengths = np.asarray(lengths, dtype=np.int64)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    full = np.where(lengths >= size, (lengths - size) // step + 1, 0)
    tail = (lengths >= size) & ((lengths - size) % step != 0)
    short = (lengths > 0) & (lengths < size)
    counts = full + tail + short
    offset = seg_arange(np.zeros_like(counts), counts) * step
    first = np.repeat(starts, counts) + offset
    doc = np.repeat(np.arange(lengths.shape[0], dtype=np.int64), counts)
    width = np.minimum(np.repeat(lengths, counts) - offset, size)
    return first, width, doc


def rabin_word_shingles(
    token_lists: Sequence[Sequence[str]], size: int, step: int, degree: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Rabin fingerprints of every word shingle (tokens joined by one space, UTF-8).

    Shingles as :func:`shingle_spans` places them (the tail of ``step > 1`` kept as a
    shorter shingle); a document with ``0 < n < size`` tokens has one shingle of all of
    them, one with none has none.

    Returns:
        ``(values, doc)``: uint64 (s,) fingerprints (each equal to
        ``rabin_reference(" ".join(shingle).encode(), degree, seed)``) and int64 (s,)
        document indexes, in document order.
    """
    lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
    ids: dict[str, int] = {}
    flat = np.fromiter(
        (ids.setdefault(t, len(ids)) for toks in token_lists for t in toks),
        dtype=np.int64,
        count=int(lengths.sum()),
    )
    words = [w.encode("utf-8", "surrogatepass") for w in ids]
    first_fp = rabin_bytes(words, degree, seed)  # f_seed(t): a shingle's first token
    next_fp = rabin_bytes([b" " + w for w in words], degree, 0)  # f(" " t): the others
    next_len = np.fromiter((len(w) + 1 for w in words), dtype=np.int64, count=len(words))
    first, width, doc = shingle_spans(lengths, size, step)
    if first.size == 0:
        return np.zeros(0, dtype=U64), doc
    h = first_fp[flat[first]]
    for i in range(1, size):
        live = np.flatnonzero(width > i)
        if live.size == 0:
            break
        tok = flat[first[live] + i]
        h[live] = shift_bytes(h[live], next_len[tok], degree) ^ next_fp[tok]
    return h, doc
