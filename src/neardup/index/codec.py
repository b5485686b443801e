"""Values a collection derives from a document and their stored forms, the same on every
backend (memory, SQLite, PostgreSQL): the verification set of its shingle fingerprints, its
content hash, its shown title, the storable form of ids and terms; the bytes of a shingle set
(``nd_shingles.fingerprints``) and of a text (``nd_texts.body``, :func:`encode_text` and
:func:`decode_text`). Texts: format in :mod:`neardup.store.schema` (``nd_texts``).

Shingle sets: format version 2 (migration 0004 and later), little-endian, documented for
other readers:

* byte 0: the format version, ``2``;
* then ``4 * s`` bytes: the ``s`` distinct values ``fingerprint >> 32`` of the document's
  64-bit shingle fingerprints (:class:`neardup.methods.shingles.Shingling`), sorted
  ascending, each a uint32 little-endian; for 32-bit fingerprints (``crc32``,
  ``rabin32``: Rodnenko 2009, Zagorulko et al. 2013) the fingerprints themselves
  (:func:`fingerprint_shift` is 0; their high halves are all 0, so one shared value would
  make every pair of documents identical).

Why 32 bits: check verifies a candidate with the resemblance and containments of the two
sets (Broder 1997). Two different shingles share their high 32 bits with probability
``2**-32``, so for documents of ``a`` and ``b`` shingles the expected number of false shared
shingles is ``a * b / 2**32`` (``4e-6`` for 128-shingle documents): the measures move by
less than ``1e-7``, while the stored set takes half the bytes. Delta-encoding and zlib
were measured and dropped: hashed values are uniform, so the deltas of a 128-value set
compress to 100.5 % of the raw uint64 bytes and 97.8 % of the raw uint32 bytes (5,000
documents of the scale corpus), for 80 microseconds per document.

Version 1 (rows written before migration 0004) is the uint64 fingerprints themselves,
little-endian, with no version byte; such rows are kept and read as they are. The two are
told apart by length: a version-1 value is a multiple of 8 bytes, a version-2 value is
``1 + 4 * s`` bytes, odd.
"""

from __future__ import annotations

import os
import re
import threading
import zlib
from itertools import pairwise

import numpy as np
import xxhash
import zstandard

from neardup._array import sorted_unique
from neardup.errors import FormatError
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


#: The format byte of ``nd_shingles.fingerprints`` written by this neardup.
SET_FORMAT = 2
_SHIFT = np.uint64(32)


def encode_set(fingerprints: np.ndarray) -> bytes:
    """``nd_shingles.fingerprints`` (format 2) of one document's uint64 fingerprints."""
    return bytes((SET_FORMAT,)) + verification_set(fingerprints).astype("<u4").tobytes()


def encode_sets(values: np.ndarray, offsets: np.ndarray, *, shift: int = 32) -> list[bytes]:
    """:func:`encode_set` of every set of a flat batch, vectorised.

    Args:
        values: uint64 (total,), the sets concatenated, each sorted and unique.
        offsets: int64 (n + 1,), set ``i`` is ``values[offsets[i]:offsets[i+1]]``.
        shift: 32 for 64-bit fingerprints, 0 for 32-bit ones (:func:`fingerprint_shift`).

    Returns:
        ``n`` byte strings, equal to ``encode_set`` of each set.
    """
    n = offsets.shape[0] - 1
    if n <= 0:
        return []
    high = (values >> np.uint64(shift)).astype(np.uint32)
    doc = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    # the high halves of a sorted set are sorted: drop repeats inside each document
    keep = np.ones(high.shape[0], dtype=bool)
    if high.shape[0] > 1:
        keep[1:] = (high[1:] != high[:-1]) | (doc[1:] != doc[:-1])
    high, doc = high[keep], doc[keep]
    bounds = np.searchsorted(doc, np.arange(n + 1, dtype=np.int64))
    raw = high.astype("<u4").tobytes()
    head = bytes((SET_FORMAT,))
    return [head + raw[4 * a : 4 * b] for a, b in pairwise(bounds.tolist())]


def decode_set(blob: bytes) -> np.ndarray:
    """The verification set of a stored ``nd_shingles.fingerprints`` value.

    Returns:
        uint32 (t,), sorted, unique (format 2); a version-1 value (uint64 without a
        version byte, only in a database not yet migrated) is reduced the same way.

    Raises:
        FormatError: an unknown version byte or a truncated value.
    """
    data = bytes(blob)
    if len(data) % 2 == 1 and data[0] == SET_FORMAT and (len(data) - 1) % 4 == 0:
        return np.frombuffer(data, dtype="<u4", offset=1).astype(np.uint32)
    if len(data) % 8 == 0:
        return verification_set(np.frombuffer(data, dtype="<u8"))
    found = f"format byte {data[0]}" if data else "an empty value"
    raise FormatError(
        f"stored shingle set: {found} of {len(data)} bytes; this neardup reads format {SET_FORMAT}"
    )


def set_size(nbytes: int) -> int:
    """Number of values in a stored set of ``nbytes`` bytes (format 2 or 1)."""
    return (nbytes - 1) // 4 if nbytes % 2 == 1 else nbytes // 8


# -- texts -----------------------------------------------------------------------------------
#: Format byte of the ``nd_texts.body`` neardup writes (see :mod:`neardup.store.schema`):
#: 2 = one Zstandard frame (level 3) of the UTF-8 bytes. Version 1 (zlib), written before,
#: is read as well.
TEXT_FORMAT = 2
#: The earlier text format: zlib (RFC 1950) of the UTF-8 bytes.
ZLIB_TEXT_FORMAT = 1
#: Zstandard level 3 on the planted corpus (5,000 texts of 2.2 KB): 53.1 % of the UTF-8
#: bytes in 18 us a text; zlib level 1, the format before, 52.9 % in 54 us (a quarter of
#: a bulk add's time at a million documents); level 1: 54.0 % in 17 us.
_TEXT_LEVEL = 3
_codecs = threading.local()  # a Zstandard context is not to be shared between threads


def _compressor() -> zstandard.ZstdCompressor:
    made: zstandard.ZstdCompressor | None = getattr(_codecs, "compressor", None)
    if made is None:
        made = _codecs.compressor = zstandard.ZstdCompressor(level=_TEXT_LEVEL)
    return made


def _decompressor() -> zstandard.ZstdDecompressor:
    made: zstandard.ZstdDecompressor | None = getattr(_codecs, "decompressor", None)
    if made is None:
        made = _codecs.decompressor = zstandard.ZstdDecompressor()
    return made


def encode_text(text_: str) -> bytes:
    """``nd_texts.body`` of a text: the format byte :data:`TEXT_FORMAT`, then one
    Zstandard frame (level 3, with its content size) of its UTF-8 bytes (``surrogatepass``:
    lone surrogates survive the round trip)."""
    raw = text_.encode("utf-8", "surrogatepass")
    return bytes((TEXT_FORMAT,)) + _compressor().compress(raw)


#: Threads that compress a batch of texts (:func:`encode_texts`), at most.
_TEXT_THREADS = 4


def encode_texts(texts: list[str]) -> list[bytes]:
    """:func:`encode_text` of each text, the same bytes, compressed by Zstandard's own
    threads (``multi_compress_to_buffer``, up to :data:`_TEXT_THREADS`, one a core) with the
    interpreter lock released: a bulk add compresses its batches in its reader thread
    while the writer thread binds rows, and 100,000 texts took 2.1 s of that thread's time
    one by one (2026-12-03). Backends without that call compress one by one."""
    many = getattr(_compressor(), "multi_compress_to_buffer", None)
    if many is None or len(texts) < 2:
        return [encode_text(t) for t in texts]
    raws = [t.encode("utf-8", "surrogatepass") for t in texts]
    head = bytes((TEXT_FORMAT,))
    frames = many(raws, threads=min(_TEXT_THREADS, os.cpu_count() or 1))
    return [head + bytes(frame) for frame in frames]


def decode_text(body: bytes, *, expected_hash: bytes | None = None) -> str:
    """The text of an ``nd_texts.body``: format :data:`TEXT_FORMAT` (:func:`encode_text`)
    or :data:`ZLIB_TEXT_FORMAT` (rows written before).

    Args:
        body: the stored bytes.
        expected_hash: the document's ``content_hash``; checked when given.

    Raises:
        FormatError: empty, an unknown format byte, bad compressed data, or a hash mismatch.
    """
    if not body or body[0] not in (TEXT_FORMAT, ZLIB_TEXT_FORMAT):
        found = "no format byte" if not body else f"format byte {body[0]}"
        known = f"{ZLIB_TEXT_FORMAT} and {TEXT_FORMAT}"
        raise FormatError(f"stored text: {found}, this neardup reads formats {known}")
    try:
        if body[0] == ZLIB_TEXT_FORMAT:
            raw = zlib.decompress(body[1:])
        else:
            raw = _decompressor().decompress(body[1:])
    except (zlib.error, zstandard.ZstdError) as exc:
        kind = "zlib" if body[0] == ZLIB_TEXT_FORMAT else "Zstandard"
        raise FormatError(f"stored text: corrupt {kind} data ({exc})") from None
    if expected_hash is not None and xxhash.xxh3_128_digest(raw) != expected_hash:
        raise FormatError("stored text does not match the document's content hash")
    return raw.decode("utf-8", "surrogatepass")


def shown_title(stored: str, body: bytes | None) -> str:
    """A document's title: the stored one, or (stored empty, the text kept) the first
    non-blank line of its text (:func:`title`). Since migration 0006
    ``add`` stores no title for documents whose text it keeps: it was a copy of that line
    (316 bytes a document on the scale corpus)."""
    if stored or body is None:
        return stored
    try:
        return scrub(title(decode_text(bytes(body))))
    except FormatError:
        return ""
