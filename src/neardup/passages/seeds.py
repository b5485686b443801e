"""Seeds of text alignment: pairs of matching pieces of A and B, as character boxes.

Three kinds, all vectorised with numpy:

* *exact* word ``n``-grams over every token (Broder 1997's shingles);
* *sorted* ``k``-grams of consecutive content-word stems (stop words dropped, the stems
  sorted), after Torrejon & Ramos 2013: they survive stop-word changes, inflection and
  reordering inside the ``k``-gram;
* *sentence* pairs (Sanchez-Perez, Sidorov & Gelbukh 2014): a sentence of A and a sentence
  of B whose bags of content-word stems have a tf-idf cosine above ``cos_min`` *and* a Dice
  coefficient above ``dice_min`` (tf: count in the sentence; idf: ``log(N / df)`` over the
  ``N`` sentences of both texts). They survive paraphrase and translation, which keep a
  sentence's content words but not their order or their neighbours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neardup._array import fmix64, seg_arange
from neardup.passages.tiles import _cap_pairs
from neardup.passages.tokens import Tokens

_KIND_EXACT = np.uint64(0x9E3779B97F4A7C15)
_KIND_SORTED = np.uint64(0xC2B2AE3D27D4EB4F)
_KIND_SENTENCE = np.uint64(0x165667B19E3779F9)


@dataclass(frozen=True, slots=True)
class Seeds:
    """Seed pairs (``p`` of them).

    Attributes:
        boxes: int64 (p, 4): ``a_start, a_end, b_start, b_end`` character offsets.
        occ_a, occ_b: int64 (p,): the seed's occurrence in A and in B (a number per
            occurrence, unique across kinds), to pair a repeated seed only once.
        hashes: uint64 (p,): the seed's value (equal seeds, equal hashes).
        sentence: bool (p,): a sentence-pair seed.
    """

    boxes: np.ndarray
    occ_a: np.ndarray
    occ_b: np.ndarray
    hashes: np.ndarray
    sentence: np.ndarray

    def __len__(self) -> int:
        return int(self.boxes.shape[0])

    def take(self, mask: np.ndarray) -> Seeds:
        """The seeds where ``mask`` (bool (p,) or indices) selects."""
        return Seeds(
            self.boxes[mask], self.occ_a[mask], self.occ_b[mask], self.hashes[mask],
            self.sentence[mask],
        )  # fmt: skip


def gram_hashes(ids: np.ndarray, size: int, salt: np.uint64, *, sort: bool) -> np.ndarray:
    """uint64 hash of every window of ``size`` consecutive ids (sorted first if ``sort``)."""
    from numpy.lib.stride_tricks import sliding_window_view

    windows = sliding_window_view(ids, size)
    if sort:
        windows = np.sort(windows, axis=1)
    h = np.full(windows.shape[0], salt, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for col in range(size):
            h = fmix64(h * np.uint64(31) + windows[:, col].astype(np.uint64))
    return h


def _grams_of(t: Tokens, n: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """N-gram seeds of one text: ``(hash, first token, last token)``, arrays of shape (s,)."""
    hashes, first, last = [], [], []
    if n and t.ids.size >= n:
        hashes.append(gram_hashes(t.ids, n, _KIND_EXACT, sort=False))
        starts = np.arange(t.ids.size - n + 1, dtype=np.int64)
        first.append(starts)
        last.append(starts + n - 1)
    where = np.flatnonzero(t.content)
    if k and where.size >= k:
        hashes.append(gram_hashes(t.stems[where], k, _KIND_SORTED, sort=True))
        first.append(where[: where.size - k + 1])
        last.append(where[k - 1 :])
    if not hashes:
        empty = np.zeros(0, np.int64)
        return np.zeros(0, np.uint64), empty, empty
    return np.concatenate(hashes), np.concatenate(first), np.concatenate(last)


def _join(keys_a: np.ndarray, keys_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs ``(x, y)`` with ``keys_a[x] == keys_b[y]`` (capped, see ``_cap_pairs``)."""
    order = np.argsort(keys_b, kind="stable")
    sorted_b = keys_b[order]
    lo = np.searchsorted(sorted_b, keys_a, side="left")
    count = _cap_pairs(np.searchsorted(sorted_b, keys_a, side="right") - lo)
    return np.repeat(np.arange(keys_a.size), count), order[seg_arange(lo, count)]


def gram_seeds(ta: Tokens, tb: Tokens, n: int, k: int) -> Seeds:
    """Every pair of equal exact ``n``-grams and sorted ``k``-grams (0 turns a kind off)."""
    ha, fa, la = _grams_of(ta, n, k)
    hb, fb, lb = _grams_of(tb, n, k)
    pick_a, pick_b = _join(ha, hb)
    boxes = np.stack(
        [ta.start[fa[pick_a]], ta.end[la[pick_a]], tb.start[fb[pick_b]], tb.end[lb[pick_b]]],
        axis=1,
    )
    return Seeds(boxes, pick_a, pick_b, ha[pick_a], np.zeros(pick_a.size, dtype=bool))


@dataclass(frozen=True, slots=True)
class _Bags:
    """Content-stem bags of one text's sentences: one row per (sentence, stem)."""

    sentence: np.ndarray  # int64 (e,)
    stem: np.ndarray  # int64 (e,)
    tf: np.ndarray  # float64 (e,)
    start: np.ndarray  # int64 (e,): first character of the stem's tokens in the sentence
    end: np.ndarray  # int64 (e,): last character (exclusive) of its tokens there


def _bags(t: Tokens) -> _Bags:
    where = np.flatnonzero(t.content)
    if where.size == 0:
        z = np.zeros(0, np.int64)
        return _Bags(z, z, z.astype(np.float64), z, z)
    sent, stem = t.sentence[where], t.stems[where]
    span = int(stem.max()) + 1
    raw = sent * span + stem
    order = np.argsort(raw, kind="stable")
    ordered = raw[order]
    first = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    keys = ordered[first]
    tf = np.diff(np.append(first, raw.size)).astype(np.float64)
    start = np.minimum.reduceat(t.start[where][order], first)
    end = np.maximum.reduceat(t.end[where][order], first)
    return _Bags(keys // span, keys % span, tf, start, end)


def _shared_boxes(ba: _Bags, bb: _Bags, shared: _Shared, keep: np.ndarray) -> np.ndarray:
    """Character boxes of the kept sentence pairs: from the first to the last token of a
    shared stem in each sentence, int64 (len(keep), 4)."""
    x, y, pair = shared
    if keep.size == 0:
        return np.zeros((0, 4), np.int64)
    rank = np.full(int(pair.max()) + 1 if pair.size else 0, -1, dtype=np.int64)
    rank[keep] = np.arange(keep.size)
    use = rank[pair] >= 0
    x, y, group = x[use], y[use], rank[pair[use]]
    a0, a1 = _group_extent(group, keep.size, ba.start[x], ba.end[x])
    b0, b1 = _group_extent(group, keep.size, bb.start[y], bb.end[y])
    return np.stack([a0, a1, b0, b1], axis=1).reshape(-1, 4)


def _group_extent(
    inverse: np.ndarray, groups: int, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per group (``inverse`` labels 0..groups-1): min of ``start`` and max of ``end``."""
    order = np.argsort(inverse, kind="stable")
    first = np.searchsorted(inverse[order], np.arange(groups))
    return np.minimum.reduceat(start[order], first), np.maximum.reduceat(end[order], first)


_Shared = tuple[np.ndarray, np.ndarray, np.ndarray]


def _similarity(
    ba: _Bags, bb: _Bags, n_a: int, n_b: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, _Shared]:
    """Sentence pairs sharing a content stem, with their tf-idf cosine and Dice coefficient,
    from the bags of ``n_a`` and ``n_b`` sentences.

    Returns:
        ``(i, j, cosine, dice, shared)``: sentence numbers in A and B (int64 (q,)), the two
        similarities (float64 (q,), in [0, 1]) and, for :func:`_shared_boxes`, the shared
        stems: A's and B's bag rows and the pair each belongs to (int64 (e,) each).
    """
    empty = np.zeros(0, np.int64)
    nothing = (empty, empty, empty.astype(float), empty.astype(float), (empty,) * 3)
    if ba.stem.size == 0 or bb.stem.size == 0:
        return nothing
    vocab = int(max(ba.stem.max(), bb.stem.max())) + 1
    df = np.bincount(ba.stem, minlength=vocab) + np.bincount(bb.stem, minlength=vocab)
    idf = np.log((n_a + n_b) / np.maximum(df, 1))
    wa, wb = ba.tf * idf[ba.stem], bb.tf * idf[bb.stem]
    norm_a = np.sqrt(np.bincount(ba.sentence, wa * wa, minlength=n_a))
    norm_b = np.sqrt(np.bincount(bb.sentence, wb * wb, minlength=n_b))
    size_a = np.bincount(ba.sentence, minlength=n_a)
    size_b = np.bincount(bb.sentence, minlength=n_b)
    x, y = _join(ba.stem, bb.stem)
    if x.size == 0:
        return nothing
    keys, inverse = np.unique(ba.sentence[x] * n_b + bb.sentence[y], return_inverse=True)
    inverse = inverse.reshape(-1)
    dot = np.bincount(inverse, wa[x] * wb[y])
    shared = np.bincount(inverse)
    i, j = keys // n_b, keys % n_b
    with np.errstate(invalid="ignore", divide="ignore"):
        cosine = np.nan_to_num(dot / (norm_a[i] * norm_b[j]))
    dice = 2 * shared / (size_a[i] + size_b[j])
    return i, j, np.minimum(cosine, 1.0), dice, (x, y, inverse)


def sentence_seeds(
    ta: Tokens, tb: Tokens, *, cos_min: float, dice_min: float, occ_a: int, occ_b: int
) -> Seeds:
    """Sentence pairs with cosine > ``cos_min`` and Dice > ``dice_min``, as seeds.

    ``occ_a``, ``occ_b``: the first occurrence numbers to use (after the n-gram seeds').
    Each sentence pair is a seed value of its own (its hash is unique).
    """
    ba, bb = _bags(ta), _bags(tb)
    i, j, cosine, dice, shared = _similarity(ba, bb, ta.sentences, tb.sentences)
    keep = np.flatnonzero((cosine > cos_min) & (dice > dice_min))
    i, j = i[keep], j[keep]
    boxes = _shared_boxes(ba, bb, shared, keep)
    with np.errstate(over="ignore"):
        hashes = fmix64(
            (i.astype(np.uint64) * np.uint64(1_000_003) + j.astype(np.uint64)) ^ _KIND_SENTENCE
        )
    return Seeds(boxes.reshape(-1, 4), i + occ_a, j + occ_b, hashes, np.ones(i.size, bool))


def concat(parts: list[Seeds]) -> Seeds:
    """The seeds of ``parts`` in one :class:`Seeds`."""
    return Seeds(
        np.concatenate([p.boxes for p in parts]).reshape(-1, 4),
        np.concatenate([p.occ_a for p in parts]),
        np.concatenate([p.occ_b for p in parts]),
        np.concatenate([p.hashes for p in parts]),
        np.concatenate([p.sentence for p in parts]),
    )
