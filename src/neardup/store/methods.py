"""Methods behind collections: building them from stored parameters, and their index keys.

A collection stores the method's *init* parameters (JSON) fixed at creation; for
``minhash-lsh`` the LSH bands and rows are resolved once and stored too (so the banding
never changes under a collection, and no optimisation runs per request).

Index keys (``nd_index`` rows, 64-bit, stored as signed int64):

* ``minhash-lsh``: one key per band, :func:`neardup.methods.lsh.band_keys` (bands are salted
  apart already); a candidate shares at least one band key;
* other shingle methods (``shingles-full/-mod/-min``): the (sampled) fingerprints;
* exact-key methods (``megashingles``, ``imatch``, ``imatch-random``, ``tf-ridf``,
  ``anchor-words``): each non-empty signature slot, salted by its slot number
  (I-Match: the first 8 bytes of each 20-byte SHA-1 slot).

Methods without an exact or LSH key (``simhash``: Hamming tables, ``sl-st``, ``spotsigs``)
cannot back a collection yet (:class:`~neardup.store.errors.UnsupportedMethod`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from neardup._array import U64, fmix64
from neardup.errors import FormatError, ParameterError
from neardup.methods.base import Method, Signatures
from neardup.methods.lsh import band_keys
from neardup.methods.registry import make_method, method_class
from neardup.methods.sets import ShingleSets
from neardup.methods.shingle_methods import MinHashLSH, ShingleMethod
from neardup.methods.shingles import Shingling
from neardup.store.errors import UnsupportedMethod
from neardup.text.canonical import CANONICAL_VERSION, CanonicalForm

UNSUPPORTED = ("simhash", "sl-st", "spotsigs")
_EMPTY = np.uint64(2**64 - 1)
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


def creation_params(
    method: str, params: dict[str, Any], threshold: float
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Validated init parameters and canonical-form parameters to store for a collection.

    ``threshold`` fills the method's own ``threshold`` when it has one and none was given;
    ``minhash-lsh`` gets its resolved ``bands``/``rows``. ``canonical`` in ``params`` may be
    a :class:`CanonicalForm` or a dict of its init fields.

    Raises:
        ParameterError: unknown method or parameter, or a value out of range.
        UnsupportedMethod: the method has no database index (see the module docstring).
    """
    if method in UNSUPPORTED:
        raise UnsupportedMethod(
            f"method {method!r} cannot back a collection yet (no exact or LSH index key); "
            "use minhash-lsh, shingles-*, megashingles, imatch, tf-ridf or anchor-words"
        )
    cls = method_class(method)
    fields = {f.name for f in dataclasses.fields(cls) if f.init}
    init = {k: v for k, v in params.items() if k != "canonical"}
    if "threshold" in fields:
        init.setdefault("threshold", threshold)
    canonical = _canonical(params.get("canonical"), cls)
    meth = make_method(method, **init, **({"canonical": canonical} if canonical else {}))
    if isinstance(meth, MinHashLSH):
        lsh = meth.lsh
        init["bands"], init["rows"] = lsh.bands, lsh.rows
    form = getattr(meth, "canonical", None) or CanonicalForm()
    return init, dict(form.params())


def _canonical(value: object, cls: type) -> CanonicalForm | None:
    if value is None:
        return None
    if isinstance(value, CanonicalForm):
        return value
    if isinstance(value, dict):
        return canonical_form(value)
    raise ParameterError("canonical", value, "a CanonicalForm or a dict of its fields")


def canonical_form(stored: dict[str, Any]) -> CanonicalForm:
    """The :class:`CanonicalForm` of stored canonical parameters.

    Raises:
        FormatError: made by another canonical-form version.
        ParameterError: a bad field.
    """
    fields = dict(stored)
    version = fields.pop("version", CANONICAL_VERSION)
    if version != CANONICAL_VERSION:
        raise FormatError(
            f"collection tokens were made by canonical form version {version}; this neardup "
            f"has version {CANONICAL_VERSION}: re-create the collection"
        )
    try:
        return CanonicalForm(**fields)
    except TypeError as exc:
        raise ParameterError("canonical", stored, f"CanonicalForm fields ({exc})") from None


def build_method(method: str, params: dict[str, Any], canonical: dict[str, Any]) -> Method:
    """The method of a collection from its stored parameters."""
    fields = {f.name for f in dataclasses.fields(method_class(method)) if f.init}
    extra = {"canonical": canonical_form(canonical)} if "canonical" in fields else {}
    return make_method(method, **params, **extra)


def shingling_of(meth: Method) -> Shingling:
    """The shingling the exact (verification) sets are made with: the method's own, or the
    default :class:`Shingling` (5-word shingles) for methods without one."""
    return getattr(meth, "shingling", None) or Shingling()


def canonical_of(meth: Method) -> CanonicalForm:
    """The method's canonical form (the default one for methods without)."""
    return getattr(meth, "canonical", None) or CanonicalForm()


def signs_from_sets(meth: Method) -> bool:
    """True when signatures come from the shingle sets alone (no statistics needed)."""
    return hasattr(meth, "from_sets") and not meth.needs_fit


def index_keys(meth: Method, sigs: Signatures) -> KeyRows:
    """Index keys of every document of ``sigs`` (see the module docstring)."""
    if isinstance(meth, MinHashLSH):
        return _lsh_keys(meth, sigs.data)
    if isinstance(meth, ShingleMethod):
        sets: ShingleSets = sigs.data
        vals = sets.values.astype(U64)
        return KeyRows(sets.doc_ids(), np.zeros(vals.shape[0], np.int64), vals.view(np.int64))
    payloads = [meth.signature(sigs, i).payload for i in range(sigs.count)]
    return slot_keys(payloads)


def _lsh_keys(meth: MinHashLSH, sketches: np.ndarray) -> KeyRows:
    live = np.flatnonzero(~np.all(sketches == _EMPTY, axis=1))
    keys = band_keys(sketches[live], meth.lsh)
    n, b = keys.shape
    rows = np.repeat(live.astype(np.int64), b)
    bands = np.tile(np.arange(b, dtype=np.int64), n)
    return KeyRows(rows, bands, keys.reshape(-1).view(np.int64))


def slot_keys(payloads: list[np.ndarray]) -> KeyRows:
    """Exact keys of signature payloads (one per non-empty slot, salted by slot number)."""
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
        salted = fmix64(vals[slots] ^ fmix64(slots.astype(U64) + _SLOT_SALT))
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
        valid = (vals != 0) & (vals != _EMPTY)
    rows, slot = np.nonzero(valid)
    salted = fmix64(vals[rows, slot] ^ fmix64(slot.astype(U64) + _SLOT_SALT))
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
    return vals, (vals != 0) & (vals != _EMPTY)
