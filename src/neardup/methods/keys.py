"""Index keys of signatures: the rows a collection stores and the groups the Dask engine
shuffles by. Documents sharing a key in the same slot are candidates.

A method gives its keys by one hook, :meth:`~neardup.methods.base.MethodBase.keys`, in the
form its ``capabilities.keys`` declares; the other form is derived:

* :class:`GroupKeys`: dense grouping keys, uint64 ``(n, slots)`` with a validity mask (form
  ``groups``; the Dask engine groups by ``(slot, key)``, :func:`group_keys`);
* :class:`KeyRows`: keys flattened to one row per ``(document, slot, key)``, keys as
  signed int64 (form ``rows``; ``nd_index`` rows of a collection, :func:`key_rows`, which
  derives them from :class:`GroupKeys` by :meth:`GroupKeys.rows`);
* :func:`slot_keys`: the generic exact keys of signature payloads, one per non-empty slot,
  salted by its slot number (I-Match: the first 8 bytes of each 20-byte SHA-1 slot).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neardup._array import U64, fmix64
from neardup.errors import FormatError, ParameterError

EMPTY_SLOT = np.uint64(2**64 - 1)
_DIGEST = 20
_SLOT_SALT = np.uint64(0x5EED_CAFE_F00D)


@dataclass(frozen=True, slots=True)
class KeyRows:
    """Index keys of a batch, flat.

    Attributes:
        row: int64 (k,), the document's position in the batch.
        band: int64 (k,), band or slot number.
        key: int64 (k,), the 64-bit key reinterpreted as signed.
    """

    row: np.ndarray
    band: np.ndarray
    key: np.ndarray

    def for_row(self, i: int) -> np.ndarray:
        """Keys of batch row ``i``: int64 (m,)."""
        return self.key[self.row == i]


@dataclass(frozen=True, slots=True)
class GroupKeys:
    """Grouping keys of ``n`` documents, one per slot.

    Attributes:
        keys: uint64 (n, slots).
        valid: bool (n, slots), False where a document has no key in that slot.
        salted: the collection's rows (:meth:`rows`) salt each key by its slot number, as
            :func:`slot_keys` does (the rows are then the :func:`slot_keys` of payloads
            whose slot values and validity these keys are).
        first_slot: the slot number of column 0 in the rows (band, and salt): the
            payload slot of the first grouping key when the keys are a payload's last
            slots.
    """

    keys: np.ndarray
    valid: np.ndarray
    salted: bool = False
    first_slot: int = 0

    def rows(self) -> KeyRows:
        """The valid keys as :class:`KeyRows` (document, then slot order; band = slot +
        ``first_slot``; salted by the band when ``salted``)."""
        row, slot = np.nonzero(self.valid)
        band = slot.astype(np.int64) + self.first_slot
        key = np.ascontiguousarray(self.keys[row, slot], dtype=U64)
        if self.salted:
            key = _salted(key, band)
        return KeyRows(row.astype(np.int64), band, key.view(np.int64))


def key_rows(keys: GroupKeys | KeyRows) -> KeyRows:
    """A collection's rows of a method's :meth:`~neardup.methods.base.MethodBase.keys`:
    :meth:`GroupKeys.rows`, or the :class:`KeyRows` as given."""
    return keys.rows() if isinstance(keys, GroupKeys) else keys


def group_keys(keys: GroupKeys | KeyRows) -> GroupKeys:
    """The Dask engine's grouping keys of a method's
    :meth:`~neardup.methods.base.MethodBase.keys` (form ``groups``).

    Raises:
        ParameterError: the keys are rows (form ``rows``: a document may have many keys in
            a slot, so they have no dense form).
    """
    if not isinstance(keys, GroupKeys):
        raise ParameterError("keys", "rows", "grouping keys (capabilities keys='groups')")
    return keys


def _salted(vals: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """uint64 slot values salted by their slot number (equal values in different slots
    give different keys)."""
    return fmix64(vals ^ fmix64(slot.astype(U64) + _SLOT_SALT))


def slot_keys(payloads: list[np.ndarray]) -> KeyRows:
    """Exact keys of signature payloads (one per non-empty slot, salted by slot number).

    Raises:
        FormatError: a byte payload is not made of 20-byte slots.
    """
    if not payloads:
        empty = np.zeros(0, np.int64)
        return KeyRows(empty, empty, empty)
    first = payloads[0]
    if all(p.dtype == first.dtype and p.shape == first.shape for p in payloads):
        return _stacked_slot_keys(np.stack(payloads))
    rows, bands, keys = [], [], []
    for i, payload in enumerate(payloads):
        vals, valid = _slot_values(payload)
        slots = np.flatnonzero(valid)
        salted = _salted(vals[slots], slots)
        rows.append(np.full(slots.shape[0], i, np.int64))
        bands.append(slots.astype(np.int64))
        keys.append(salted.view(np.int64))
    return KeyRows(np.concatenate(rows), np.concatenate(bands), np.concatenate(keys))


def _stacked_slot_keys(stacked: np.ndarray) -> KeyRows:
    """Slot keys of payloads of one dtype and shape, stacked (n, ...): vectorised, the same
    rows in the same order (document, then slot) as one :func:`_slot_values` per payload."""
    n = stacked.shape[0]
    if stacked.dtype == np.uint8:
        if stacked.ndim != 2 or stacked.shape[1] % _DIGEST:
            raise FormatError(f"byte signature of {stacked.shape[1:]} bytes: not 20-byte slots")
        slots = stacked.reshape(n, -1, _DIGEST)
        vals = np.ascontiguousarray(slots[:, :, :8]).view("<u8")[:, :, 0].astype(U64)
        valid = slots.any(axis=2)
    else:
        vals = stacked.reshape(n, -1).astype(U64)
        valid = (vals != 0) & (vals != EMPTY_SLOT)
    rows, slot = np.nonzero(valid)
    salted = _salted(vals[rows, slot], slot)
    return KeyRows(rows.astype(np.int64), slot.astype(np.int64), salted.view(np.int64))


def _slot_values(payload: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(uint64 slot values, bool validity) of one signature payload."""
    if payload.dtype == np.uint8:
        if payload.shape[0] % _DIGEST:
            raise FormatError(f"byte signature of {payload.shape[0]} bytes: not 20-byte slots")
        slots = payload.reshape(-1, _DIGEST)
        vals = np.ascontiguousarray(slots[:, :8]).view("<u8")[:, 0].astype(U64)
        return vals, np.asarray(slots.any(axis=1))
    vals = payload.astype(U64)
    return vals, (vals != 0) & (vals != EMPTY_SLOT)
