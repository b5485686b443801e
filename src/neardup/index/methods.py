"""Methods behind collections (every backend: memory, SQLite, PostgreSQL): building them
from stored parameters, and their index keys.

A collection stores the method's *init* parameters (JSON) fixed at creation; for
``minhash-lsh`` the LSH bands and rows are resolved once and stored too (so the banding
never changes under a collection, and no optimisation runs per request).

Index keys (``nd_index`` rows, 64-bit, stored as signed int64):

* ``minhash-lsh``: one key per band, :func:`neardup.methods.lsh.band_keys` (bands are salted
  apart already); a candidate shares at least one band key;
* other shingle methods (``shingles-full/-mod/-min``): the (sampled) fingerprints;
* exact-key methods (``imatch``, ``imatch-random``, ``tf-ridf``, ``anchor-words``): each
  non-empty signature slot, salted by its slot number (I-Match: the first 8 bytes of each
  20-byte SHA-1 slot); ``megashingles``: each mega-shingle slot so salted (the slots its
  own rule and the Dask engine group by; its super-shingles are no keys);
* ``sl-st``: the distinct q-grams of the sentence-length string (``window`` consecutive
  sentences, Feng 2015), which every pair with a verified block shares;
* ``spotsigs``: the prefix of each spot-signature bag in its size partition and the one
  below (Theobald et al. 2008 §5), which every pair at the threshold shares.

Beside them, each document with a non-empty shingle set has a *content-key* row (band
:data:`CONTENT_BAND`): the content key of its full shingle set
(:meth:`neardup.methods.sets.ShingleSets.content_keys`, the key by which the job pairs
identical documents whatever the rule), salted apart from the method's keys. A check then
finds a stored document identical to the text even when the method gives them no key
(SpotSigs on Chinese text: no antecedent, no spot signature). Collections of methods signed
and keyed from statistics (``needs_fit``: ``tf-ridf``, ``imatch``, ``anchor-words``, whose
keys ``recompute`` rewrites without the shingle sets) have none yet
(:attr:`MethodPlan.content_key <neardup.methods.plan.MethodPlan.content_key>`).

Each method gives its keys by its ``keys`` hook, a collection's rows by
:func:`~neardup.methods.keys.key_rows` (:mod:`neardup.methods.keys`).
``sl-st`` and ``spotsigs`` sign each document from its text at ``add``
(:attr:`MethodPlan.signs_at_add <neardup.methods.plan.MethodPlan.signs_at_add>`); their
signatures are stored (and those of ``shingles-mod``:
:attr:`~neardup.methods.plan.MethodPlan.keeps_signature`) and ``check`` decides on them by the
method's own rule, as the job does. Methods without an exact or LSH key
(``keys="none"`` in their capabilities: ``simhash``, Hamming tables) cannot back a collection yet
(:class:`UnsupportedMethod`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from neardup._array import fmix64
from neardup.errors import FormatError, ParameterError, UnsupportedMethod
from neardup.methods.base import Method
from neardup.methods.keys import KeyRows, key_rows, slot_keys
from neardup.methods.plan import MethodPlan, plan_for
from neardup.methods.registry import make_method, method_class
from neardup.methods.sets import ShingleSets
from neardup.text.canonical import CANONICAL_VERSION, CanonicalForm

__all__ = [
    "CONTENT_BAND",
    "KeyRows",
    "build_method",
    "canonical_form",
    "collection_keys",
    "collection_methods",
    "content_key_rows",
    "creation_params",
    "slot_keys",
]


#: ``band`` of a document's content-key row (no method's band or slot number is negative).
CONTENT_BAND = -1
_CONTENT_SALT = np.uint64(0x6A09E667F3BCC909)


def collection_methods() -> list[str]:
    """Registry names of the methods that can back a collection (their capabilities have
    index keys)."""
    from neardup.methods.registry import method_classes

    return [c.name for c in method_classes() if plan_for(c.name).has_index_keys]


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
    cls = method_class(method)
    if not plan_for(method).has_index_keys:
        raise UnsupportedMethod(
            f"method {method!r} cannot back a collection yet (no exact or LSH index key); "
            f"use one of {', '.join(collection_methods())}"
        )
    fields = {f.name for f in dataclasses.fields(cls) if f.init}
    init = {k: v for k, v in params.items() if k != "canonical"}
    if "threshold" in fields:
        init.setdefault("threshold", threshold)
    canonical = _canonical(params.get("canonical"), cls)
    meth = make_method(method, **init, **({"canonical": canonical} if canonical else {}))
    init.update(meth.resolved_params())
    return init, dict(meth.canonical.params())


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


def content_key_rows(sets: ShingleSets) -> KeyRows:
    """The content-key row of each non-empty set of ``sets`` (row ``i``: set ``i``): its
    :meth:`~neardup.methods.sets.ShingleSets.content_keys` value salted (``fmix64(key ^
    salt)``, as signed int64), band :data:`CONTENT_BAND`. Equal sets, equal keys; an empty
    set has none (the job pairs identical non-empty sets only)."""
    live = np.flatnonzero(sets.sizes > 0)
    with np.errstate(over="ignore"):
        key = fmix64(sets.content_keys()[live] ^ _CONTENT_SALT)
    band = np.full(live.shape[0], CONTENT_BAND, dtype=np.int64)
    return KeyRows(live.astype(np.int64), band, np.ascontiguousarray(key).view(np.int64))


def collection_keys(
    meth: Method, sigs: Any, sets: ShingleSets, *, plan: MethodPlan | None = None
) -> KeyRows:
    """The index rows of a batch in a collection: the method's keys of ``sigs``
    and, when its plan has a content key (:attr:`~neardup.methods.plan.MethodPlan.content_key`),
    the :func:`content_key_rows` of the batch's full shingle sets ``sets`` (the same
    documents, in the same order). ``plan``: ``plan_for(meth)`` when the caller has it."""
    rows = key_rows(meth.keys(sigs))
    if not (plan_for(meth) if plan is None else plan).content_key:
        return rows
    extra = content_key_rows(sets)
    return KeyRows(
        np.concatenate([rows.row, extra.row]),
        np.concatenate([rows.band, extra.band]),
        np.concatenate([rows.key, extra.key]),
    )
