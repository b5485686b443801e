"""Methods behind collections: moved to :mod:`neardup.index.methods` (shared by every
backend); re-exported here."""

from neardup.index.methods import (
    KeyRows,
    UnsupportedMethod,
    build_method,
    canonical_form,
    creation_params,
    signs_from_sets,
    slot_keys,
)

__all__ = [
    "KeyRows",
    "UnsupportedMethod",
    "build_method",
    "canonical_form",
    "creation_params",
    "signs_from_sets",
    "slot_keys",
]
