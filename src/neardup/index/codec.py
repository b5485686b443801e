"""Values a collection derives from a document, the same on every backend (memory, SQLite,
PostgreSQL): the verification set of its shingle fingerprints, its content hash, its shown
title, the storable form of ids and terms. The database forms of sets and texts are in
:mod:`neardup.store.codec`, whose docstring explains the 32-bit verification set.
"""

from __future__ import annotations

import re

import numpy as np
import xxhash

from neardup._array import sorted_unique
from neardup.options import id_too_long

#: Shingle fingerprints that are 32 bits wide: stored whole (:func:`fingerprint_shift`).
NARROW_FINGERPRINTS = frozenset({"crc32", "rabin32"})
#: Longest term kept as itself in the statistics tables, UTF-8 bytes (see :func:`term_key`).
MAX_TERM_BYTES = 1000
UNPAIRED = re.compile("[\x00\ud800-\udfff]")


def fingerprint_shift(fingerprint: str) -> int:
    """The right shift making a stored verification value of a shingle fingerprint kind:
    32 (the high half) for 64-bit kinds, 0 for 32-bit ones (:data:`NARROW_FINGERPRINTS`)."""
    return 0 if fingerprint in NARROW_FINGERPRINTS else 32


def verification_set(fingerprints: np.ndarray, *, shift: int = 32) -> np.ndarray:
    """The stored verification set of fingerprints: the sorted distinct high 32 bits
    (``shift`` 32, 64-bit fingerprints) or the fingerprints themselves (``shift`` 0, 32-bit
    ones; :func:`fingerprint_shift`).

    Args:
        fingerprints: uint64 (s,), any order.
        shift: 32 or 0.

    Returns:
        uint32 (t,), sorted, unique, ``t <= s``.
    """
    high = (np.asarray(fingerprints, dtype=np.uint64) >> np.uint64(shift)).astype(np.uint32)
    return sorted_unique(high)


def content_hash(text_: str) -> bytes:
    """XXH3-128 of the text's UTF-8 bytes: 16 bytes."""
    return xxhash.xxh3_128_digest(text_.encode("utf-8", "surrogatepass"))


def scrub(value: str) -> str:
    """``value`` with NUL and lone surrogates replaced by U+FFFD (storable and printable)."""
    return UNPAIRED.sub("\ufffd", value) if UNPAIRED.search(value) else value


def title(text_: str) -> str:
    """The first non-blank line of the text, stripped, at most 200 characters."""
    for line in text_.splitlines():
        line = line.strip()
        if line:
            return line[:200]
    return ""


def bad_doc_id(doc_id: object) -> str | None:
    """Why ``doc_id`` cannot be stored (``None``: it can): not a string, NUL characters
    (PostgreSQL text cannot hold them), lone surrogates (not encodable), over
    :data:`~neardup.options.MAX_ID_BYTES` UTF-8 bytes (the rule of every surface)."""
    if not isinstance(doc_id, str):
        return f"document id is a {type(doc_id).__name__}, not a string"
    if UNPAIRED.search(doc_id):
        return "document id holds NUL or lone surrogate characters"
    return id_too_long(doc_id)


def term_key(term: str) -> str:
    """The statistics tables' form of a term: the term itself, or for a term over
    :data:`MAX_TERM_BYTES` UTF-8 bytes (a 'word' no index can hold: PostgreSQL's B-tree
    entries stop at 2704 bytes) ``#`` and its XXH3-128 in hex. Canonical tokens are letters
    and digits only, so the stand-in never equals a real term; documents and queries map
    their terms the same way, so signatures stay comparable."""
    if len(term) * 4 <= MAX_TERM_BYTES or len(term.encode("utf-8")) <= MAX_TERM_BYTES:
        return term
    return "#" + xxhash.xxh3_128_hexdigest(term.encode("utf-8"))
