"""Sets of shingle fingerprints for many documents, stored flat (CSR layout).

``values[offsets[i]:offsets[i+1]]`` is document ``i``'s set, sorted and unique. One flat
array instead of a list of arrays keeps a 100k-document corpus to two numpy allocations.
Samples of Zagorulko et al. 2013 live here too: "mod m" (fingerprints divisible by ``m``) and
"n smallest" (the ``n`` smallest fingerprints, Broder's bottom-n sketch).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from neardup._array import U64, cost_ranges, distinct_order, seg_arange, sort_by_owner
from neardup.errors import check_int

#: Fingerprints hashed at a time by :meth:`ShingleSets.content_keys` (bounds its memory).
_KEY_CHUNK = 1 << 22


@dataclass(frozen=True, eq=False)
class ShingleSets:
    """Fingerprint sets of ``n`` documents.

    Attributes:
        values: uint64 array, shape (total,): all sets, concatenated in document order.
        offsets: int64 array, shape (n + 1,): set ``i`` is ``values[offsets[i]:offsets[i+1]]``.
    """

    values: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def __sizeof__(self) -> int:
        """Bytes held: the two arrays (Dask weighs a task's result by ``sys.getsizeof``)."""
        return object.__sizeof__(self) + int(self.values.nbytes + self.offsets.nbytes)

    @property
    def sizes(self) -> np.ndarray:
        """int64 array, shape (n,): the size of each set."""
        return np.diff(self.offsets)

    @property
    def on_disk(self) -> bool:
        """Whether the values are a memory map of a file (spilled by the dedup job)."""
        return isinstance(self.values, np.memmap)

    def get(self, i: int) -> np.ndarray:
        """Document ``i``'s sorted unique fingerprints (a view), uint64 (s,)."""
        return self.values[self.offsets[i] : self.offsets[i + 1]]

    def __iter__(self):  # type: ignore[no-untyped-def]
        for i in range(len(self)):
            yield self.get(i)

    def dense_labels(self) -> ShingleSets:
        """The same sets with each fingerprint replaced by its index among the distinct ones.

        The map is increasing, so every set stays sorted and every intersection size is
        unchanged; labels are below the number of distinct fingerprints (< 2**32 for any
        corpus that fits in memory), which lets
        :func:`neardup.methods.measures.intersection_sizes` pack pair and label in one
        int64. One stable sort, which profits from the sets being sorted runs already.

        Returns:
            :class:`ShingleSets` of uint64 labels, same offsets.
        """
        order, uid, _ = distinct_order(self.values)
        labels = np.empty(self.values.shape[0], dtype=U64)
        labels[order] = uid
        return ShingleSets(labels, self.offsets.copy())

    def doc_ids(self) -> np.ndarray:
        """int64 array, shape (total,): the document index of every value."""
        return np.repeat(np.arange(len(self), dtype=np.int64), self.sizes)

    @classmethod
    def from_arrays(cls, arrays: Sequence[np.ndarray]) -> ShingleSets:
        """Build from per-document arrays that are already sorted and unique."""
        sizes = np.fromiter((a.shape[0] for a in arrays), dtype=np.int64, count=len(arrays))
        offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        values = np.concatenate(arrays).astype(U64) if arrays else np.zeros(0, U64)
        return cls(values, offsets)

    @classmethod
    def from_unsorted(cls, values: np.ndarray, doc: np.ndarray, n: int) -> ShingleSets:
        """Build from (value, document) occurrences in any order, repeats allowed.

        Args:
            values: uint64 (m,); doc: int64 (m,) with ``0 <= doc < n``; n: document count.
        """
        v, d = sort_by_owner(values, doc, n)
        if v.size:
            keep = np.empty(v.size, dtype=bool)
            keep[0] = True
            np.logical_or(v[1:] != v[:-1], d[1:] != d[:-1], out=keep[1:])
            v, d = v[keep], d[keep]
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(d, minlength=n), out=offsets[1:])
        return cls(v, offsets)

    @classmethod
    def concat(cls, parts: Iterable[ShingleSets]) -> ShingleSets:
        """Concatenate batches in order."""
        parts = list(parts)
        if not parts:
            return cls(np.zeros(0, U64), np.zeros(1, np.int64))
        values = np.concatenate([p.values for p in parts])
        sizes = np.concatenate([p.sizes for p in parts])
        offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        return cls(values, offsets)

    def take(self, index: np.ndarray, *, chunk: int | None = None) -> ShingleSets:
        """The sets of documents ``index`` (int array), in that order, in memory.

        ``chunk``: about that many fingerprints gathered a step into the result (bounds the
        gather's int64 index, 8 bytes a value); None: all at once.
        """
        index = np.asarray(index, dtype=np.int64)
        sizes = self.sizes[index]
        offsets = np.zeros(index.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        if chunk is None:
            return ShingleSets(self.values[seg_arange(self.offsets[index], sizes)], offsets)
        out = ShingleSets(np.empty(int(offsets[-1]), dtype=self.values.dtype), offsets)
        for lo, hi in cost_ranges(offsets, chunk):
            gather = seg_arange(self.offsets[index[lo:hi]], sizes[lo:hi])
            out.values[offsets[lo] : offsets[hi]] = self.values[gather]
        return out

    # ---------------------------------------------------------------------------------------------
    def mod_sample(self, m: int) -> ShingleSets:
        """Keep fingerprints divisible by ``m`` (Zagorulko et al. 2013, "method 1"; m=25 there).

        Raises:
            ParameterError: ``m`` < 1.
        """
        check_int("m", m, low=1)
        if m == 1:
            return self
        keep = self.values % np.uint64(m) == 0
        doc = self.doc_ids()[keep]
        offsets = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(np.bincount(doc, minlength=len(self)), out=offsets[1:])
        return ShingleSets(self.values[keep], offsets)

    def min_sample(self, n: int) -> ShingleSets:
        """Keep each set's ``n`` smallest fingerprints (Zagorulko et al. 2013, "method 2"; n=160
        there).

        Raises:
            ParameterError: ``n`` < 1.
        """
        check_int("n", n, low=1)
        sizes = np.minimum(self.sizes, n)
        values = self.values[seg_arange(self.offsets[:-1], sizes)]
        offsets = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        return ShingleSets(values, offsets)

    def content_keys(self) -> np.ndarray:
        """A 64-bit key per set; equal sets have equal keys (exact-duplicate grouping).

        Returns:
            uint64 array, shape (n,). Different sets collide with probability ~2**-64;
            callers that need certainty compare the sets themselves.
        """
        from neardup._array import fmix64

        key = np.zeros(len(self), dtype=U64)
        for lo, hi in cost_ranges(self.offsets, _KEY_CHUNK):  # bounded temporaries
            base = self.offsets[lo]
            with np.errstate(over="ignore"):
                mixed = fmix64(self.values[base : self.offsets[hi]] ^ np.uint64(0x5851F42D4C957F2D))
                # order-free sum of mixed values per set: differences of a wrapping prefix sum
                total = np.zeros(mixed.shape[0] + 1, dtype=U64)
                np.cumsum(mixed, out=total[1:])
                bounds = self.offsets[lo : hi + 1] - base
                key[lo:hi] = total[bounds[1:]] - total[bounds[:-1]]
        return fmix64(key ^ self.sizes.astype(U64))
