"""Small vectorised helpers on numpy arrays shared by the kernels (no Python loops)."""

from __future__ import annotations

import numpy as np

U64 = np.uint64
_C1 = np.uint64(0xFF51AFD7ED558CCD)
_C2 = np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)


def sorted_unique(x: np.ndarray, *, runs: bool = False) -> np.ndarray:
    """The distinct values of a 1-d array, ascending: ``np.unique(x)`` without its import
    of ``numpy.ma`` (about 10 ms of a command's start-up) and without NaN handling, by one
    sort: numpy >= 2.3's ``np.unique`` of integers goes through a hash table, about 25x
    slower on 2.5 million uint64 fingerprints (1.1 s against 28 s under load).

    Args:
        x: array of any shape (flattened) of an integer dtype.
        runs: ``x`` is mostly a few ascending runs one after another: sorted by timsort
            (``kind="stable"``), which merges them (fifty million int64 in six runs: 0.65 s
            against 4.5 s for the default sort, 2026-12-05).

    Returns:
        A new 1-d array of ``x``'s dtype.
    """
    a = np.sort(np.asarray(x).ravel(), kind="stable" if runs else None)
    if a.size < 2:
        return a
    keep = np.empty(a.size, dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def fmix64(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finalizer, a bijection on uint64 with full avalanche.

    Args:
        x: uint64 array of any shape.

    Returns:
        A new uint64 array of the same shape.
    """
    x = np.asarray(x, dtype=U64).copy()
    with np.errstate(over="ignore"):
        x ^= x >> _S33
        x *= _C1
        x ^= x >> _S33
        x *= _C2
        x ^= x >> _S33
    return x


def fmix64_into(x: np.ndarray, tmp: np.ndarray) -> None:
    """:func:`fmix64` in place: ``x`` (uint64, any shape) is overwritten, ``tmp`` (same
    shape and dtype) is scratch; no allocation."""
    with np.errstate(over="ignore"):
        for mult in (_C1, _C2, None):
            np.right_shift(x, _S33, out=tmp)
            x ^= tmp
            if mult is not None:
                x *= mult


def distinct_order(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct values of a 1-D array by one stable sort.

    Args:
        values: 1-D array of shape (m,).

    Returns:
        ``(order, uid, starts)``: int64 (m,) stable sorting permutation; uint64 (m,) the
        distinct index of each *sorted* value (0, 0, 1, ...); int64 (u,) where each distinct
        value starts in sorted order.
    """
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.empty(ordered.shape[0], dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    uid = np.cumsum(new) - 1
    return order, uid.astype(U64), np.flatnonzero(new)


def seg_arange(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenate ``arange(s, s + n)`` for each ``(s, n)``; int64, total ``lengths.sum()``.

    Args:
        starts: int array, shape (m,).
        lengths: non-negative int array, shape (m,).
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    starts = np.asarray(starts, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    shift = np.repeat(starts - (ends - lengths), lengths)
    return np.arange(total, dtype=np.int64) + shift


def sort_by_owner(values: np.ndarray, owner: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(values, owner)`` sorted by owner, then value (repeats kept).

    One stable argsort of uint64 keys holding the owner in the top bits and the value's top
    bits below; two values of one owner that differ only in the dropped low bits (about one
    owner in 10**10) can come out unordered, and then a lexsort on the full values is taken
    instead, so the result is always exact.

    Args:
        values: uint64 (m,); owner: int64 (m,) with ``0 <= owner < n``; n: owner count.
    """
    bits = max(1, int(n).bit_length())
    if values.size and bits <= 32:
        key = np.asarray(values, dtype=U64) >> np.uint64(bits)
        key |= owner.astype(U64) << np.uint64(64 - bits)
        order = np.argsort(key, kind="stable")
        v, o = values[order], owner[order]
        if not bool(((o[1:] == o[:-1]) & (v[1:] < v[:-1])).any()):
            return v, o
    order = np.lexsort((values, owner))
    return values[order], owner[order]


def group_bounds(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and sizes of runs of equal values in a sorted 1-D array.

    Returns:
        ``(starts, sizes)``, int64 arrays of shape (g,), one entry per run.
    """
    n = sorted_keys.shape[0]
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    change = np.empty(n, dtype=bool)
    change[0] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=change[1:])
    starts = np.flatnonzero(change).astype(np.int64)
    sizes = np.diff(np.append(starts, n))
    return starts, sizes


def equal_groups(keys: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The groups of two or more equal keys, each with its ids in input order.

    The same groups and member order as a stable argsort of ``keys`` followed by
    :func:`group_bounds` (singletons left out), by one plain sort of the keys with each
    position packed into their low bits (a key's top ``64 - b`` bits and its position; an
    order of magnitude faster than the stable argsort). Keys equal only in their top bits
    are split again by their full value.

    Args:
        keys: uint64 (m,); ids: int64 (m,), the id of each key's owner.

    Returns:
        ``(members, starts, sizes)`` as :func:`pairs_in_groups` takes them: int64 member
        ids, and int64 (g,) group starts and sizes (every size >= 2; groups ordered by key,
        not as the stable argsort orders them).
    """
    m = keys.shape[0]
    empty = np.zeros(0, np.int64)
    if m < 2:
        return empty, empty, empty
    bits = int(m - 1).bit_length()
    low = np.uint64((1 << bits) - 1)
    packed = keys & ~low
    packed |= np.arange(m, dtype=U64)
    packed.sort()
    starts, sizes = group_bounds(packed >> np.uint64(bits))
    multi = sizes >= 2
    starts, sizes = starts[multi], sizes[multi]
    at = (packed[seg_arange(starts, sizes)] & low).astype(np.int64)  # positions, by group
    full = keys[at]
    split = np.zeros(at.shape[0], dtype=bool)  # a run whose full keys differ (rare)
    split[1:] = full[1:] != full[:-1]
    split[np.cumsum(sizes)[:-1]] = False
    if split.any():
        return _regroup(keys, ids, at)
    return ids[at].astype(np.int64), np.cumsum(sizes) - sizes, sizes


def _regroup(
    keys: np.ndarray, ids: np.ndarray, at: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`equal_groups` when some runs of equal top bits hold different keys: those
    positions sorted again by (full key, position)."""
    order = np.lexsort((at, keys[at]))
    at = at[order]
    g_starts, g_sizes = group_bounds(keys[at])
    multi = g_sizes >= 2
    g_starts, g_sizes = g_starts[multi], g_sizes[multi]
    at = at[seg_arange(g_starts, g_sizes)]
    return ids[at].astype(np.int64), np.cumsum(g_sizes) - g_sizes, g_sizes


def pairs_in_groups(
    members: np.ndarray, starts: np.ndarray, sizes: np.ndarray, *, max_group: int | None = None
) -> np.ndarray:
    """All unordered pairs of members within each group, vectorised.

    Groups larger than ``max_group`` contribute only a star (their first member paired with
    each other member), which keeps them connected while bounding the output.

    Args:
        members: int64 array; group g is ``members[starts[g] : starts[g] + sizes[g]]``.
        starts, sizes: group layout, int64 arrays of shape (g,).
        max_group: size above which a group gives a star instead of all pairs.

    Returns:
        int64 array of shape (p, 2) with ``pairs[:, 0] < pairs[:, 1]``; may hold repeats
        across groups (callers deduplicate with :func:`unique_pairs`).
    """
    keep = sizes >= 2
    starts, sizes = starts[keep], sizes[keep]
    if max_group is not None:
        big = sizes > max_group
        star = _star_pairs(members, starts[big], sizes[big])
        starts, sizes = starts[~big], sizes[~big]
    else:
        star = np.zeros((0, 2), np.int64)
    # element positions inside groups, each paired with every later element of its group
    pos = seg_arange(starts, sizes)
    group_end = np.repeat(starts + sizes, sizes)
    later = group_end - pos - 1
    first = np.repeat(pos, later)
    second = seg_arange(pos + 1, later)
    pairs = np.stack([members[first], members[second]], axis=1)
    out = np.concatenate([pairs, star]) if star.size else pairs
    return _ordered(out)


def _star_pairs(members: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    if starts.size == 0:
        return np.zeros((0, 2), np.int64)
    head = np.repeat(members[starts], sizes - 1)
    rest = members[seg_arange(starts + 1, sizes - 1)]
    return np.stack([head, rest], axis=1)


def _ordered(pairs: np.ndarray) -> np.ndarray:
    pairs = pairs.astype(np.int64, copy=False)
    lo = np.minimum(pairs[:, 0], pairs[:, 1])
    hi = np.maximum(pairs[:, 0], pairs[:, 1])
    ok = lo != hi
    return np.stack([lo[ok], hi[ok]], axis=1)


def unique_pairs(pairs: np.ndarray, n: int, *, runs: bool = False) -> np.ndarray:
    """Sorted unique rows of an int64 (p, 2) pair array over ids ``0 <= id < n``
    (``runs``: the rows are mostly a few sorted runs, :func:`sorted_unique`)."""
    if pairs.size == 0:
        return np.zeros((0, 2), np.int64)
    return pairs_of_codes(sorted_unique(pair_codes(pairs, n), runs=runs), n)


def with_pairs(pairs: np.ndarray, codes: np.ndarray, more: np.ndarray, n: int) -> np.ndarray:
    """int64 (p', 2): the sorted unique int64 (p, 2) ``pairs`` over ids ``0 <= id < n``
    (their :func:`pair_codes` ``codes``, int64 (p,)) with the rows of ``more`` (int64
    (m, 2), any order, repeats allowed) that they lack, each in its place:
    ``unique_pairs(np.concatenate([pairs, more]), n)`` by one copy of ``pairs`` (fifty
    million candidates and the identical documents' pairs: 0.4 s against 1.8 s for sorting
    them all again, 2026-12-05)."""
    add = sorted_unique(pair_codes(more, n))
    at = np.searchsorted(codes, add)
    known = at < codes.shape[0]
    known[known] = codes[at[known]] == add[known]
    if known.all():
        return pairs
    return np.insert(pairs, at[~known], pairs_of_codes(add[~known], n), axis=0)


def cost_ranges(cumulative: np.ndarray, step: int) -> list[tuple[int, int]]:
    """Consecutive item ranges ``[lo, hi)`` covering items ``0..n-1`` in order, each of at
    most ``step`` cost, or of one item that costs more (at least one item each).

    Args:
        cumulative: int (n + 1,): the running total of the items' costs from 0
            (:attr:`~neardup.methods.sets.ShingleSets.offsets`: fingerprints of each set).
        step: the most cost a range of two or more items has, >= 1.

    Returns:
        ``[(0, b_1), (b_1, b_2), ..., (b_k-1, n)]``; empty when ``n = 0``.
    """
    n = cumulative.shape[0] - 1
    out: list[tuple[int, int]] = []
    lo = 0
    while lo < n:
        hi = int(np.searchsorted(cumulative, cumulative[lo] + step, side="right")) - 1
        hi = min(max(hi, lo + 1), n)
        out.append((lo, hi))
        lo = hi
    return out


def pair_codes(pairs: np.ndarray, n: int) -> np.ndarray:
    """int64 (p,): ``a·n + b`` of each row ``(a, b)`` of int64 (p, 2) pairs over ids
    ``0 <= id < n`` (in the order of the pairs: ascending codes are pairs sorted by (a, b))."""
    return column_codes(pairs[:, 0], pairs[:, 1], n)


def column_codes(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """int64 (p,): :func:`pair_codes` of the pairs ``(a[i], b[i])`` held as two int
    columns of shape (p,) (a table's), without stacking them into (p, 2)."""
    return a.astype(np.int64) * n + b


def pairs_of_codes(codes: np.ndarray, n: int) -> np.ndarray:
    """int64 (p, 2): the pairs of :func:`pair_codes` ``codes``."""
    a, b = np.divmod(codes, n)
    return np.stack([a, b], axis=1)
