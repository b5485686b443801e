"""Read a corpus: files, directory trees, JSONL and CSV into documents (or skips).

Every document goes through the same steps: size limit, empty check, binary check
(:func:`.encoding.looks_binary`), decoding (:func:`.encoding.decode`), content type (forced
or :func:`.sniff.sniff_content_type`), markup removal (:func:`.extract.extract`). A document
that fails a step is yielded as a :class:`Skipped` value with a reason; only a missing input
path or a bad parameter raises.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import json
import os
import re
import sys
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import IO

from neardup.errors import DecodeError, InputError, ParameterError, check_choice, check_int
from neardup.text.encoding import decode, looks_binary
from neardup.text.extract import extract
from neardup.text.sniff import sniff_content_type
from neardup.text.types import CONTENT_TYPES, ContentType, Document, Skipped, SkipReason

#: Document files a directory walk reads (each may also end in ``.gz``).
DOCUMENT_SUFFIXES: tuple[str, ...] = (".txt", ".md", ".rst", ".asc", ".html", ".htm", ".wiki")
JSONL_SUFFIXES: tuple[str, ...] = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")
CSV_SUFFIXES: tuple[str, ...] = (".csv",)
_GZIP_ERRORS = (OSError, EOFError, zlib.error)
_CHUNK = 1 << 20
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class _Options:
    id_field: str
    text_field: str
    content_type: str
    max_bytes: int


def read_corpus(
    inputs: Sequence[str | os.PathLike[str]],
    *,
    id_field: str = "id",
    text_field: str = "text",
    content_type: str = "auto",
    max_bytes: int = 20_000_000,
    glob: str | None = None,
) -> Iterator[Document | Skipped]:
    """Documents of ``inputs``, in input order, each directory walked in sorted order.

    Inputs:

    * a directory: every file below it (recursively, sorted by path components) whose name
      ends in one of :data:`DOCUMENT_SUFFIXES`, optionally followed by ``.gz``; other files
      are ignored. With ``glob``, the files whose relative POSIX path matches it
      (:func:`fnmatch.fnmatchcase`, where ``*`` also matches ``/``; a pattern without ``/``
      is matched against the file name) are read instead, JSONL and CSV ones as record
      files. Document id: the path relative to the directory, POSIX slashes
      (``a/b.txt.gz``).
    * a ``.jsonl``/``.ndjson`` file (optionally ``.gz``): one JSON object a line; id from
      ``id_field`` (``FILE:LINE`` when absent or null), text from ``text_field``; blank lines
      are passed over; a malformed line is skipped as ``unreadable``.
    * a ``.csv`` file (UTF-8, header row): the same fields, by column name.
    * any other file: one document, id = the file name.

    Skip reasons: ``empty`` (no bytes, or only whitespace), ``binary``, ``undecodable``,
    ``oversize`` (raw payload over ``max_bytes``: file size checked before reading, a
    ``.gz`` decompressed at most ``max_bytes + 1`` bytes far, a JSONL line or a record's
    text over the limit), ``unreadable`` (I/O or gzip error, malformed JSON/CSV record,
    missing text field), ``no-text`` (nothing left after markup removal).

    Args:
        inputs: file and directory paths (a single path is accepted too).
        id_field: JSONL/CSV field holding the document id.
        text_field: JSONL/CSV field holding the document text.
        content_type: ``auto`` (sniff each document: file name and content; JSONL/CSV
            fields by content), or force ``text``, ``html`` or ``wiki``.
        max_bytes: largest raw payload read, in bytes (>= 1).
        glob: pattern selecting the files of directory inputs (see above), or ``None``.

    Returns:
        An iterator of :class:`Document` (text = clean extracted text, raw_bytes = payload
        size before decoding) and :class:`Skipped` values.

    Raises:
        ParameterError: bad ``content_type``, ``max_bytes``, ``id_field``, ``text_field`` or
            ``glob`` (raised by this call, before iteration).
        InputError: an input does not exist or is neither a file nor a directory (raised by
            this call, before anything is yielded).
    """
    if isinstance(inputs, str | os.PathLike):
        inputs = [inputs]
    check_choice("content_type", content_type, CONTENT_TYPES)
    check_int("max_bytes", max_bytes, low=1)
    for name, value in (("id_field", id_field), ("text_field", text_field)):
        if not isinstance(value, str) or not value:
            raise ParameterError(name, value, "a non-empty string")
    if glob is not None and (not isinstance(glob, str) or not glob):
        raise ParameterError("glob", glob, "a non-empty pattern string or None")
    paths = [_check_input(p) for p in inputs]
    options = _Options(id_field, text_field, content_type, max_bytes)
    return _iterate(paths, options, glob)


def _check_input(value: str | os.PathLike[str]) -> Path:
    path = Path(value)
    if not path.exists():
        raise InputError(f"input {os.fspath(value)!r} does not exist")
    if not (path.is_file() or path.is_dir()):
        raise InputError(f"input {os.fspath(value)!r} is neither a file nor a directory")
    return path


def _iterate(
    paths: list[Path], options: _Options, glob: str | None
) -> Iterator[Document | Skipped]:
    for path in paths:
        if path.is_dir():
            for file, rel in _walk(path, glob):
                yield from _read_file(file, scrub(rel), options)
        else:
            yield from _read_file(path, scrub(path.name), options)


def _walk(root: Path, glob: str | None) -> Iterator[tuple[Path, str]]:
    """``(file, relative POSIX path)`` below ``root`` selected by suffix or ``glob``, sorted."""
    found: list[tuple[tuple[str, ...], Path]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        base = Path(dirpath)
        for name in filenames:
            file = base / name
            rel = file.relative_to(root).parts
            if _selected(PurePosixPath(*rel), glob) and file.is_file():
                found.append((rel, file))
    found.sort(key=lambda item: item[0])
    for rel, file in found:
        yield file, "/".join(rel)


def _selected(rel: PurePosixPath, glob: str | None) -> bool:
    if glob is None:
        name = rel.name.lower().removesuffix(".gz")
        return name.endswith(DOCUMENT_SUFFIXES)
    target = str(rel) if "/" in glob else rel.name
    return fnmatchcase(target, glob)


def _read_file(path: Path, doc_id: str, options: _Options) -> Iterator[Document | Skipped]:
    lower = path.name.lower()
    if lower.endswith(JSONL_SUFFIXES):
        yield from _read_jsonl(path, doc_id, options)
    elif lower.endswith(CSV_SUFFIXES):
        yield from _read_csv(path, doc_id, options)
    else:
        yield _read_document(path, doc_id, options)


# -- one document a file ----------------------------------------------------------------
def _read_document(path: Path, doc_id: str, options: _Options) -> Document | Skipped:
    source = scrub(str(path))
    limit = options.max_bytes
    try:
        size = path.stat().st_size
        if size > limit:
            return Skipped(doc_id, source, "oversize", f"{size} bytes > max_bytes={limit}")
        data = _read_gzip(path, limit) if path.name.lower().endswith(".gz") else path.read_bytes()
    except _GZIP_ERRORS as exc:
        return Skipped(doc_id, source, "unreadable", f"{type(exc).__name__}: {exc}")
    if data is None:
        return Skipped(doc_id, source, "oversize", f"decompresses to more than max_bytes={limit}")
    if len(data) > limit:  # the file grew after stat()
        return Skipped(doc_id, source, "oversize", f"{len(data)} bytes > max_bytes={limit}")
    if not data:
        return Skipped(doc_id, source, "empty", "0 bytes")
    if looks_binary(data):
        return Skipped(doc_id, source, "binary", "NUL or control bytes in the first 8 KiB")
    try:
        text = decode(data, source=source)
    except DecodeError as exc:
        return Skipped(doc_id, source, "undecodable", str(exc))
    if "\x00" in text:  # NUL past the sniffed head, or decoded from a multi-byte codec
        return Skipped(doc_id, source, "binary", "NUL characters in the decoded text")
    return _make_document(doc_id, source, text, path.name, len(data), options)


def _read_gzip(path: Path, limit: int) -> bytes | None:
    """Decompressed bytes of ``path``, or ``None`` past ``limit`` (a gzip bomb stops there)."""
    with gzip.open(path, "rb") as f:
        data = f.read(limit + 1)
    return None if len(data) > limit else data


def _make_document(
    doc_id: str, source: str, text: str, name: str, raw_bytes: int, options: _Options
) -> Document | Skipped:
    """Content type, extraction and the empty/no-text checks shared by every input kind."""
    if not text.strip():
        return Skipped(doc_id, source, "empty", "only whitespace")
    ctype: ContentType
    if options.content_type == "auto":
        ctype = sniff_content_type(text, name=name)
    else:
        ctype = options.content_type  # type: ignore[assignment]
    clean = scrub(extract(text, ctype))  # no extractor may hand on a lone surrogate
    if not clean.strip():
        return Skipped(doc_id, source, "no-text", f"no text left after {ctype} extraction")
    return Document(doc_id, clean, source, ctype, raw_bytes)


def _record(doc_id: str, source: str, text: object, options: _Options) -> Document | Skipped:
    """A JSONL/CSV record's text field to a document (type by content only)."""
    if not isinstance(text, str):
        what = "missing" if text is None else f"a {type(text).__name__}, not a string"
        return Skipped(doc_id, source, "unreadable", f"field {options.text_field!r} is {what}")
    text = scrub(text)
    raw = len(text.encode("utf-8", errors="surrogatepass"))
    if raw > options.max_bytes:
        return Skipped(doc_id, source, "oversize", f"{raw} bytes > max_bytes={options.max_bytes}")
    if "\x00" in text or looks_binary(text[:8192].encode("utf-8", errors="surrogatepass")):
        return Skipped(doc_id, source, "binary", "NUL or control characters in the text")
    return _make_document(doc_id, source, text, "", raw, options)


# -- JSONL --------------------------------------------------------------------------------
def _read_jsonl(path: Path, base: str, options: _Options) -> Iterator[Document | Skipped]:
    source = scrub(str(path))
    try:
        opener = gzip.open if path.name.lower().endswith(".gz") else open
        with opener(path, "rb") as f:
            yield from _jsonl_records(f, path, base, options)  # type: ignore[arg-type]
    except _GZIP_ERRORS as exc:
        yield Skipped(base, source, "unreadable", f"{type(exc).__name__}: {exc}")


def _jsonl_records(
    f: IO[bytes], path: Path, base: str, options: _Options
) -> Iterator[Document | Skipped]:
    lineno = 0
    where = scrub(str(path))
    while True:
        line = f.readline(options.max_bytes + 2)  # a line, its "\n" and one byte more
        if not line:
            return
        lineno += 1
        fallback_id, source = f"{base}:{lineno}", f"{where}:{lineno}"
        if len(line.rstrip(b"\r\n")) > options.max_bytes:
            if not line.endswith(b"\n"):
                _skip_rest_of_line(f)
            yield Skipped(
                fallback_id, source, "oversize", f"line over max_bytes={options.max_bytes}"
            )
            continue
        if not line.strip():
            continue
        yield _jsonl_record(line, fallback_id, source, options)


def _skip_rest_of_line(f: IO[bytes]) -> None:
    while True:
        chunk = f.readline(_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return


def _jsonl_record(
    line: bytes, fallback_id: str, source: str, options: _Options
) -> Document | Skipped:
    try:
        obj = json.loads(line.removeprefix(codecs.BOM_UTF8))
    except UnicodeDecodeError as exc:
        return Skipped(fallback_id, source, "undecodable", f"not UTF-8: {exc}")
    except ValueError as exc:
        return Skipped(fallback_id, source, "unreadable", f"malformed JSON: {exc}")
    if not isinstance(obj, dict):
        return Skipped(fallback_id, source, "unreadable", "not a JSON object")
    doc_id = _record_id(obj.get(options.id_field), fallback_id)
    return _record(doc_id, source, obj.get(options.text_field), options)


def _record_id(value: object, fallback: str) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        return fallback
    return scrub(value) if isinstance(value, str) else scrub(json.dumps(value, ensure_ascii=False))


def scrub(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD.

    JSON escapes (``"\\ud800"``) and undecodable file-name bytes (``os.walk``'s
    ``surrogateescape``) give strings no UTF-8 writer or database accepts; a document keeps
    its text with U+FFFD in their place, as a decoder with ``errors="replace"`` would.
    """
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


# -- CSV ------------------------------------------------------------------------------------
def _read_csv(path: Path, base: str, options: _Options) -> Iterator[Document | Skipped]:
    source = scrub(str(path))
    _raise_field_size_limit(options.max_bytes)
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            yield from _csv_records(f, path, base, options)
    except UnicodeDecodeError as exc:
        yield Skipped(base, source, "undecodable", f"not UTF-8 from byte {exc.start} on: {exc}")
    except OSError as exc:
        yield Skipped(base, source, "unreadable", f"{type(exc).__name__}: {exc}")


def _raise_field_size_limit(max_bytes: int) -> None:
    """Let the csv module read fields up to ``max_bytes`` (+1, to tell oversize apart)."""
    wanted = min(max_bytes + 1, sys.maxsize, 2**31 - 1)
    if csv.field_size_limit() < wanted:
        csv.field_size_limit(wanted)


def _csv_records(
    f: IO[str], path: Path, base: str, options: _Options
) -> Iterator[Document | Skipped]:
    reader = csv.DictReader(f)
    where = scrub(str(path))
    try:
        fields = reader.fieldnames
    except csv.Error as exc:
        yield Skipped(base, scrub(str(path)), "unreadable", f"bad CSV header: {exc}")
        return
    if fields is None:
        return
    if options.text_field not in fields:
        detail = f"no column {options.text_field!r} in the header {fields!r}"
        yield Skipped(base, scrub(str(path)), "unreadable", detail)
        return
    while True:
        lineno = reader.line_num + 1
        fallback_id, source = f"{base}:{lineno}", f"{where}:{lineno}"
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            reason: SkipReason = "oversize" if "field larger" in str(exc) else "unreadable"
            yield Skipped(fallback_id, source, reason, f"bad CSV record: {exc}")
            continue
        doc_id = _record_id(row.get(options.id_field), fallback_id)
        yield _record(doc_id, source, row.get(options.text_field), options)
