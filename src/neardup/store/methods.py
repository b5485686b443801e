"""Methods behind collections: moved to :mod:`neardup.index.methods` (shared by every
backend); re-exported here."""

from neardup.index.methods import (
    KeyRows,
    UnsupportedMethod,
    build_method,
    canonical_form,
    collection_keys,
    collection_methods,
    creation_params,
    keeps_signature,
    signs_at_add,
    signs_from_sets,
    slot_keys,
)
from neardup.methods.options import DEFAULT_COLLECTION_METHOD

__all__ = [
    "DEFAULT_COLLECTION_METHOD",
    "KeyRows",
    "UnsupportedMethod",
    "build_method",
    "canonical_form",
    "collection_keys",
    "collection_methods",
    "creation_params",
    "keeps_signature",
    "signs_at_add",
    "signs_from_sets",
    "slot_keys",
]
