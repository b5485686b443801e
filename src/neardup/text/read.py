"""Read a corpus: files, directory trees, JSONL, Parquet, CSV, Arrow, ``datasets`` folders,
PDF, DOCX and standard input into documents (or skips).

:func:`read_corpus` is the one reader of neardup: the local dedup job, collections, ``check``
and the upload forms go through it (the dedup job through its two halves,
:func:`neardup.text.inputs.plan_units` and :func:`read_unit`, so that workers can share the
costly half). Every document goes through the same steps: size limit, empty check, binary
check (:func:`.encoding.looks_binary`), decoding (:func:`.encoding.decode`; a record field is
strict UTF-8, a bad byte costing that record only), content type (forced, or per record:
:mod:`.formats`), markup removal (:func:`.extract.extract`). A document that fails a step is
a :class:`Skipped` value with a reason; only a missing input path or a bad parameter raises.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from itertools import islice
from pathlib import Path
from typing import Any

from neardup.errors import DecodeError, ParameterError, check_int
from neardup.options import OPTIONS, check_options
from neardup.text.encoding import SNIFF_BYTES, decode, looks_binary
from neardup.text.extract import extract
from neardup.text.formats import FORMATS, Format, format_of
from neardup.text.formats.format import is_compressed
from neardup.text.formats.jsonl import loads_record, parse_block, scanner
from neardup.text.inputs import Spool, plan_units, planned_bytes, resolve_inputs
from neardup.text.scrub import scrub
from neardup.text.sniff import sniff_content_type
from neardup.text.title import titled
from neardup.text.types import ContentType, Document, Skipped
from neardup.text.units import LinesUnit, ReadOptions, RecordsUnit, Unit, open_stream, record_id

__all__ = [
    "ReadOptions",
    "as_read_options",
    "document_from_bytes",
    "read_corpus",
    "read_named",
    "read_options",
    "read_unit",
]

#: Substrings without which a text cannot be HTML or wiki under the sniffing rules.
_MARKUP_HINTS: tuple[str, ...] = ("<", "[[", "{{", "==", "'''", "{|")


def read_options(
    *,
    id_field: str = OPTIONS["id_field"].default,
    text_field: str = OPTIONS["text_field"].default,
    content_type: str = OPTIONS["content_type"].default,
    max_bytes: int = OPTIONS["max_bytes"].default,
    glob: str | None = None,
    extractor: str = OPTIONS["extractor"].default,
    follow_symlinks: bool = False,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    recursive: bool = True,
    limit: int | None = None,
) -> ReadOptions:
    """Validated :class:`ReadOptions` (the parameters of :func:`read_corpus`).

    Raises:
        ParameterError: a bad value, naming the parameter and what is allowed.
    """
    patterns = {"include": _patterns("include", include), "exclude": _patterns("exclude", exclude)}
    if limit is not None:
        check_int("limit", limit, low=1)
    check_options(
        content_type=content_type,
        extractor=extractor,
        max_bytes=max_bytes,
        id_field=id_field,
        text_field=text_field,
    )
    if glob is not None and (not isinstance(glob, str) or not glob):
        raise ParameterError("glob", glob, "a non-empty pattern string or None")
    return ReadOptions(
        id_field,
        text_field,
        content_type,
        max_bytes,
        extractor,
        glob,
        bool(follow_symlinks),
        patterns["include"],
        patterns["exclude"],
        bool(recursive),
        limit,
    )


def as_read_options(value: ReadOptions | Mapping[str, Any] | None) -> ReadOptions:
    """``value`` as :class:`ReadOptions`: given as such, or the keyword arguments of
    :func:`read_options` (validated there), or ``None`` for the defaults.

    Raises:
        ParameterError: a bad value, or a key that is not a parameter of
            :func:`read_corpus` (named with the allowed ones).
    """
    if isinstance(value, ReadOptions):
        return value
    given = dict(value or {})
    known = inspect.signature(read_options).parameters
    unknown = sorted(k for k in given if k not in known)
    if unknown:
        raise ParameterError("read_options", unknown, "keys among " + ", ".join(known))
    return read_options(**given)


def _patterns(name: str, value: Sequence[str]) -> tuple[str, ...]:
    """``value`` as a tuple of non-empty pattern strings (a single string is one pattern).

    Raises:
        ParameterError: not a list of non-empty strings.
    """
    items = (value,) if isinstance(value, str) else tuple(value)
    for item in items:
        if not isinstance(item, str) or not item:
            raise ParameterError(name, value, "a list of non-empty glob patterns")
    return items


def read_corpus(
    inputs: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    id_field: str = OPTIONS["id_field"].default,
    text_field: str = OPTIONS["text_field"].default,
    content_type: str = OPTIONS["content_type"].default,
    max_bytes: int = OPTIONS["max_bytes"].default,
    glob: str | None = None,
    extractor: str = OPTIONS["extractor"].default,
    follow_symlinks: bool = False,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    recursive: bool = True,
    limit: int | None = None,
) -> Iterator[Document | Skipped]:
    """Documents of ``inputs``, in input order, each directory walked in sorted order.

    Inputs (kinds by file name, :mod:`neardup.text.formats`; ``.gz``, ``.zst``, ``.bz2``
    and ``.xz`` are decompressed for the line- and document-oriented kinds):

    * a directory: every file below it, sorted by path components. Document files
      (``.txt``, ``.md``, ``.html``, ``.wiki``, ``.pdf``, ``.docx``...) are one document each
      with the relative POSIX path as id; record files (JSONL, Parquet, CSV, Arrow) are read
      as records. Every other entry is a skip row: a file of a kind neardup does not read
      (``unsupported``), a hidden entry, a symbolic link leaving the tree (unless
      ``follow_symlinks``), an unreadable directory (``unreadable``). With ``glob``, only the
      files whose relative POSIX path matches it (:func:`fnmatch.fnmatchcase`, ``*`` also
      matching ``/``; a pattern without ``/`` is matched against the file name) are read,
      and the others pass without a row; ``include`` patterns are more such patterns (a
      file matching any is read), ``exclude`` patterns name files that are not read (no
      row), and without ``recursive`` only the files directly in the directory are read.
      A file of no known kind (``README``, ``.yaml``, an extensionless text) is one
      document when it decodes as text (no NUL or control bytes in its first 8 KiB, a
      plausible encoding: :func:`.encoding.decode`), else a ``binary`` or
      ``undecodable`` skip row.
    * a ``datasets`` folder (``save_to_disk``): the records of its Arrow files.
    * JSONL: one JSON object a line; id from ``id_field`` (``FILE:LINE`` when absent or
      null), text from ``text_field``; blank lines are passed over; a malformed line, or one
      that is not UTF-8, is skipped alone (with its line number).
    * Parquet, Arrow: the same fields by column (fallback id ``FILE:ROW``).
    * CSV (UTF-8, header row): the same fields by column name; a bad byte or a field over
      ``max_bytes`` costs its record only (fallback id ``FILE:LINE``).
    * ``-``: standard input, JSONL when its first line is a JSON object, else one document.
    * any other file: one document, id = the file name (PDF and DOCX by their text).

    Skip reasons: ``empty``, ``binary``, ``undecodable``, ``oversize`` (raw payload over
    ``max_bytes``; never read past ``max_bytes`` into memory), ``unreadable`` (I/O error,
    malformed record, missing text field, unreadable PDF/DOCX), ``unsupported`` (an entry of
    a tree that is not read), ``no-text`` (nothing left after markup removal).

    Args:
        inputs: file and directory paths and ``-`` (a single path is accepted too).
        id_field: record field holding the document id.
        text_field: record field holding the document text.
        content_type: ``auto`` (per document: file name and content) or force ``text``,
            ``html`` or ``wiki``.
        max_bytes: largest raw payload read, in bytes (>= 1).
        glob: pattern selecting the files of directory inputs (see above), or ``None``.
        extractor: HTML main-text extractor, ``resiliparse`` (default) or ``trafilatura``.
        follow_symlinks: read symbolic links that leave a walked tree.
        include: glob patterns selecting files of directory inputs.
        exclude: glob patterns leaving out files of directory inputs.
        recursive: walk the subdirectories of directory inputs (default) or not.
        limit: stop after this many items (documents and skip rows, >= 1), or None.

    Returns:
        An iterator of :class:`Document` (text = clean extracted text, raw_bytes = payload
        size before decoding) and :class:`Skipped` values.

    Raises:
        ParameterError: a bad option (raised by this call, before iteration).
        InputError: an input does not exist or is neither a file nor a directory (raised
            when iteration starts, before anything is yielded).
    """
    opts = read_options(
        id_field=id_field,
        text_field=text_field,
        content_type=content_type,
        max_bytes=max_bytes,
        glob=glob,
        extractor=extractor,
        follow_symlinks=follow_symlinks,
        include=include,
        exclude=exclude,
        recursive=recursive,
        limit=limit,
    )
    names = [inputs] if isinstance(inputs, str | os.PathLike) else list(inputs)
    spool = Spool()
    paths = resolve_inputs([os.fspath(p) for p in names], spool)
    return _iterate(paths, opts, spool)


def read_named(
    paths: list[Path], options: ReadOptions, names: list[str]
) -> Iterator[Document | Skipped]:
    """The documents of resolved ``paths`` (:func:`neardup.text.inputs.resolve_inputs`) as
    :func:`read_corpus` reads them, each path named ``names[k]`` in ids (one group of a
    job's inputs: :func:`neardup.text.inputs.group_names`)."""
    yield from read_units(plan_units(paths, options, names=names), options)


def _iterate(
    paths: list[Path], opts: ReadOptions, spool: Spool, on_unit: Any = None
) -> Iterator[Document | Skipped]:
    try:
        items = read_units(plan_units(paths, opts), opts, on_unit)
        yield from items if opts.limit is None else islice(items, opts.limit)
    finally:
        spool.close()


def read_counted(
    inputs: Sequence[str | os.PathLike[str]], options: ReadOptions, on_bytes: Any
) -> tuple[int | None, Iterator[Document | Skipped]]:
    """:func:`read_corpus` with the progress of the read in bytes: the planned total (the
    inputs' files on disk, :func:`neardup.text.inputs.planned_bytes`; None with a
    ``limit``), and the items, ``on_bytes(n)`` called as each read unit's ``n`` bytes are
    handed out.

    Raises:
        InputError: an input does not exist.
    """
    spool = Spool()
    paths = resolve_inputs([os.fspath(p) for p in inputs], spool)
    total = None if options.limit is not None else planned_bytes(paths, options)

    def on_unit(unit: Unit | Skipped) -> None:
        if not isinstance(unit, Skipped) and unit.weight:
            on_bytes(unit.weight)

    return total, _iterate(paths, options, spool, on_unit)


def read_units(
    units: Iterable[Unit | Skipped], options: ReadOptions, on_unit: Any = None
) -> Iterator[Document | Skipped]:
    """The documents and skips of planned ``units``, in order; ``on_unit(unit)`` (if given)
    is called when a unit's items have all been handed out (the progress of the read)."""
    for unit in units:
        if isinstance(unit, Skipped):
            yield unit
        else:
            yield from read_unit(unit, options)
        if on_unit is not None:
            on_unit(unit)


def read_unit(unit: Unit, options: ReadOptions) -> list[Document | Skipped]:
    """The documents and skips of one unit, in order (the costly half of reading)."""
    if isinstance(unit, LinesUnit):
        try:
            return _lines_documents(unit.loaded(), options)
        except OSError as exc:
            return [_unloaded(unit, exc)]
    if isinstance(unit, RecordsUnit):
        return [
            record_document(i, w, t, options, trusted=False)
            for i, w, t in zip(unit.ids, unit.where, unit.texts, strict=True)
        ]
    return [_file_document(Path(p), doc_id, options) for p, doc_id in unit.files]


# -- one document a file ---------------------------------------------------------------------
def _file_document(path: Path, doc_id: str, options: ReadOptions) -> Document | Skipped:
    source = "-" if doc_id == "-" else scrub(str(path))
    limit = options.max_bytes
    try:
        before = path.stat()
        size = before.st_size
        compressed = is_compressed(path.name)
        if size > limit and not compressed:
            return Skipped(doc_id, source, "oversize", f"{size} bytes > max_bytes={limit}")
        with open_stream(path) as f:
            data = f.read(min(limit + 1, SNIFF_BYTES))
            if _binary_head(data, path.name if doc_id != "-" else ""):
                why = "NUL or control bytes in the first 8 KiB (not read further)"
                return Skipped(doc_id, source, "binary", why)
            if len(data) == SNIFF_BYTES:
                data += f.read(limit + 1 - len(data))
        after = path.stat()
        if _version(after) != _version(before):
            why = (
                f"the file changed while it was read (size {before.st_size} ->"
                f" {after.st_size} bytes, modified): read it again when it no longer changes"
            )
            return Skipped(doc_id, source, "unreadable", why)
    except (OSError, EOFError, ValueError) as exc:
        return Skipped(doc_id, source, "unreadable", f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # zlib/lzma/zstandard errors on a corrupt compressed file
        return Skipped(doc_id, source, "unreadable", f"{type(exc).__name__}: {exc}")
    if len(data) > limit:
        what = "decompresses to more than" if compressed else "grew past"
        return Skipped(doc_id, source, "oversize", f"{what} max_bytes={limit}")
    name = "" if doc_id == "-" else path.name
    return document_from_bytes(data, doc_id=doc_id, source=source, name=name, options=options)


def _version(st: os.stat_result) -> tuple[int, int, int, int]:
    """What tells two versions of a file apart: device, inode, size, modification time."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _binary_head(head: bytes, name: str) -> bool:
    """Whether a file of no known kind is binary by its first bytes (a PDF or DOCX by its
    signature is not: it is read by its text)."""
    if not name or format_of(name) is not None:
        return False
    if any(fmt.signature and head.startswith(fmt.signature) for fmt in FORMATS):
        return False
    return looks_binary(head)


def document_from_bytes(
    data: bytes, *, doc_id: str, source: str, name: str, options: ReadOptions
) -> Document | Skipped:
    """One document from a file's bytes: PDF and DOCX by name or signature, else decoded
    text (HTML, wiki or plain, by ``name`` and content). Used for files and uploads.

    Args:
        data: the payload (at most ``options.max_bytes``, not checked here).
        doc_id, source: the document's id and where it came from.
        name: the file name (decides the kind and helps the content type), or ``""``.
        options: read options (content type, extractor).

    Returns:
        :class:`Document` or :class:`Skipped` (``empty``, ``binary``, ``undecodable``,
        ``unreadable``, ``no-text``).
    """
    if not data:
        return Skipped(doc_id, source, "empty", "0 bytes")
    named = format_of(name) if name else None
    for fmt in FORMATS:  # a binary document format, by name or signature, in their order
        if fmt.text is not None and (fmt is named or fmt.opens(data)):
            meta = None if fmt.title is None else partial(fmt.title, data)
            return titled(_binary_document(data, doc_id, source, fmt), name=name, meta=meta)
    if looks_binary(data):
        return Skipped(doc_id, source, "binary", "NUL or control bytes in the first 8 KiB")
    try:
        text = decode(data, source=source)
    except DecodeError as exc:
        return Skipped(doc_id, source, "undecodable", str(exc))
    if "\x00" in text:  # NUL past the sniffed head, or decoded from a multi-byte codec
        return Skipped(doc_id, source, "binary", "NUL characters in the decoded text")
    return titled(
        _make_document(doc_id, source, text, name, len(data), options), name=name, raw=text
    )


def _binary_document(data: bytes, doc_id: str, source: str, fmt: Format) -> Document | Skipped:
    """The document of a binary format's file (PDF, DOCX) by its :attr:`~.Format.text`."""
    from neardup.text.office import OfficeError

    assert fmt.text is not None
    try:
        text = fmt.text(data)
    except OfficeError as exc:
        return Skipped(doc_id, source, "unreadable", str(exc))
    text = scrub(text)
    if not text.strip():
        return Skipped(doc_id, source, "no-text", f"no text layer in the {fmt.name.upper()}")
    return Document(doc_id, text, source, "text", len(data))


def _make_document(
    doc_id: str, source: str, text: str, name: str, raw_bytes: int, options: ReadOptions
) -> Document | Skipped:
    """Content type, extraction and the empty/no-text checks shared by every input kind."""
    if not text or text.isspace():  # = not text.strip(), without a copy
        return Skipped(doc_id, source, "empty", "only whitespace")
    ctype: ContentType
    if options.content_type != "auto":
        ctype = options.content_type  # type: ignore[assignment]
    elif not name and not any(h in text for h in _MARKUP_HINTS):
        ctype = "text"  # no markup the sniffing rules could see (formats module docstring)
    else:
        ctype = sniff_content_type(text, name=name)
    if ctype == "text":
        return Document(doc_id, text, source, ctype, raw_bytes)
    clean = scrub(extract(text, ctype, extractor=options.extractor))
    if not clean.strip():
        return Skipped(doc_id, source, "no-text", f"no text left after {ctype} extraction")
    return Document(doc_id, clean, source, ctype, raw_bytes)


# -- records ---------------------------------------------------------------------------------
def record_document(
    doc_id: str, source: str, value: Any, options: ReadOptions, *, trusted: bool
) -> Document | Skipped:
    """A record's text field to a document (content type by content only).

    Args:
        value: the field's value: ``str``, UTF-8 ``bytes`` (decoded strictly: a bad byte
            skips the record as ``undecodable``), or anything else (``unreadable``).
        trusted: the string came from a valid UTF-8 buffer (Arrow), so it holds no lone
            surrogate and needs no scrubbing.
    """
    if isinstance(value, bytes | bytearray | memoryview):
        raw_bytes = bytes(value)
        if len(raw_bytes) > options.max_bytes:
            detail = f"{len(raw_bytes)} bytes > max_bytes={options.max_bytes}"
            return Skipped(doc_id, source, "oversize", detail)
        try:
            value = raw_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            detail = f"not UTF-8 at byte {exc.start} of the field: {exc.reason}"
            return Skipped(doc_id, source, "undecodable", detail)
        trusted = True
    if not isinstance(value, str):
        what = "missing" if value is None else f"a {type(value).__name__}, not a string"
        return Skipped(doc_id, source, "unreadable", f"field {options.text_field!r} is {what}")
    text = value if trusted else scrub(value)
    if text.isascii():
        raw, head = len(text), text[:8192].encode("ascii")
    else:  # one encoding serves the size and the binary check
        encoded = text.encode("utf-8", "surrogatepass")
        raw, head = len(encoded), encoded[:8192]
    if raw > options.max_bytes:
        return Skipped(doc_id, source, "oversize", f"{raw} bytes > max_bytes={options.max_bytes}")
    if "\x00" in text or looks_binary(head):
        return Skipped(doc_id, source, "binary", "NUL or control characters in the text")
    return _make_document(doc_id, source, text, "", raw, options)


def _lines_documents(unit: LinesUnit, options: ReadOptions) -> list[Document | Skipped]:
    """Documents of a block of JSONL lines: the whole block decoded at once when it is clean
    (:func:`~.formats.jsonl.parse_block`), else one ``json.loads`` a line."""
    fast = _block_lines(unit, options)
    if fast is not None:
        return fast
    out: list[Document | Skipped] = []
    lines = unit.data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    for k, line in enumerate(lines):
        lineno = unit.first_line + k
        fallback_id, source = f"{unit.base}:{lineno}", f"{unit.path}:{lineno}"
        if len(line.rstrip(b"\r")) > options.max_bytes:
            detail = f"line over max_bytes={options.max_bytes}"
            out.append(Skipped(fallback_id, source, "oversize", detail))
        elif line.strip():
            out.append(jsonl_record(line, fallback_id, source, options))
    return out


def _block_lines(unit: LinesUnit, options: ReadOptions) -> list[Document | Skipped] | None:
    parsed = parse_block(unit, options)
    if parsed is None:
        return None
    return _block_documents(unit, options, *parsed)


class JsonTexts(Sequence[str]):
    """The texts of a JSONL block, each kept as read: its raw JSON string (``msgspec.Raw``,
    quotes and escapes included) or a ``str`` (a record that went through
    :func:`record_document`). The compiled prepare kernel tokenizes the raw ones from their
    bytes (:func:`neardup.methods.kernel.prepare_texts`), which spares making a ``str`` of
    every text (msgspec decodes the block at 3 GB/s so, 0.6 GB/s with the strings); an
    item asked for is decoded then.

    Attributes:
        items: the texts as kept, in order.
    """

    __slots__ = ("items",)

    def __init__(self, items: list[Any]) -> None:
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, k: Any) -> Any:
        """The ``str`` of text ``k`` (a list for a slice).

        Raises:
            DecodeError: its JSON is not a string of valid UTF-8 (the block is then read
                the typed way, :func:`neardup.job.prepare.prepare_unit`).
        """
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self.items)))]
        item = self.items[k]
        return item if isinstance(item, str) else _json_value(item)


def _json_value(raw: Any) -> Any:
    """The ``str`` (or None for ``null``) a raw JSON text stands for.

    Raises:
        DecodeError: not a string or ``null``, or not valid UTF-8 or JSON.
    """
    import msgspec

    try:
        value = msgspec.json.decode(raw, type=str | None)
    except (msgspec.MsgspecError, UnicodeDecodeError) as exc:
        raise DecodeError(f"a text is not a JSON string: {exc}") from None
    return value


def _block_documents(
    unit: LinesUnit, options: ReadOptions, raw_ids: list[Any], values: list[Any], ends: Any
) -> list[Document | Skipped]:
    plain = _plain_lines(unit.data, ends, len(values), options)
    out: list[Document | Skipped] = []
    for k, (raw_id, text) in enumerate(zip(raw_ids, values, strict=True)):
        lineno = unit.first_line + k
        doc_id = record_id(raw_id, f"{unit.base}:{lineno}")
        source = f"{unit.path}:{lineno}"
        if plain[k] and text is not None and text and not text.isspace():
            size = len(text.encode("utf-8", "surrogatepass"))
            out.append(Document(doc_id, text, source, "text", size))
        else:  # the full per-record rules (same outcome for the plain ones)
            out.append(record_document(doc_id, source, text, options, trusted=True))
    return out


@dataclass(frozen=True, slots=True, eq=False)
class UnitColumns:
    """One unit's documents column by column (what the dedup workers need), and its skips.

    Attributes:
        ids, texts, sources: the documents', in order.
        positions: each document's position among the unit's items.
        skipped: ``(position, Skipped)`` of the unit's reading skips.
        items: documents plus skips.
    """

    ids: list[str]
    texts: Sequence[str]
    sources: Sequence[str]
    positions: Sequence[int]
    skipped: list[tuple[int, Skipped]]
    items: int


def read_unit_columns(unit: Unit, options: ReadOptions, *, raw_texts: bool = False) -> UnitColumns:
    """:func:`read_unit` column by column: equal to it item for item, without a
    :class:`Document` a record for the plain-text records of a JSONL block.

    Args:
        raw_texts: give a clean JSONL block's texts as :class:`JsonTexts` (their raw JSON,
            for the compiled kernel; only where :mod:`neardup.text._scan` is built). Its
            items decode to what they would have been; one that does not decode raises
            :class:`DecodeError` when asked for, and the caller reads the unit again
            without ``raw_texts``.
    """
    if isinstance(unit, LinesUnit):
        try:
            unit = unit.loaded()
        except OSError as exc:
            return _columns([_unloaded(unit, exc)])
        if raw_texts and scanner() is not None:
            parsed = parse_block(unit, options, raw=True)
            got = None if parsed is None else _raw_block_columns(unit, options, *parsed)
            if got is not None:
                return got
        parsed = parse_block(unit, options)
        if parsed is not None:
            return _block_columns(unit, options, *parsed)
    return _columns(read_unit(unit, options))


def _unloaded(unit: LinesUnit, exc: OSError) -> Skipped:
    """The skip row of a block whose file could not be read again."""
    where = f"{unit.path}:{unit.first_line}"
    return Skipped(f"{unit.base}:{unit.first_line}", where, "unreadable", f"OSError: {exc}")


def _block_columns(
    unit: LinesUnit, options: ReadOptions, raw_ids: list[Any], values: list[Any], ends: Any
) -> UnitColumns:
    """What :func:`_block_documents` makes of a block, column by column: records with a
    non-blank id and a plain, non-blank text are taken as they are; the others (few, in
    real data) go through :func:`record_document` one by one."""

    n = len(values)
    good = _plain_lines(unit.data, ends, n, options)
    first, path = unit.first_line, unit.path
    if _bare_records(raw_ids, values, good):
        return UnitColumns(raw_ids, values, LineSources(path, first, n), range(n), [], n)
    return _mixed_columns(unit, options, raw_ids, values, good)


def _raw_block_columns(
    unit: LinesUnit, options: ReadOptions, raw_ids: list[Any], raws: list[Any], ends: Any
) -> UnitColumns | None:
    """:func:`_block_columns` of a block whose texts are raw JSON (:class:`JsonTexts`), or
    None when one of them is neither a string nor ``null``, or a text the slow path needs
    does not decode (the block is then decoded the typed way)."""
    import numpy as np

    n = len(raws)
    good = _plain_lines(unit.data, ends, n, options)
    every = scanner().bare_raw_records(raw_ids, raws, good.view(np.uint8))
    if every < 0:
        return None
    if every:
        sources = LineSources(unit.path, unit.first_line, n)
        return UnitColumns(raw_ids, JsonTexts(raws), sources, range(n), [], n)
    values = list(raws)
    try:
        for k in np.flatnonzero(~good).tolist():
            values[k] = _json_value(raws[k])
    except DecodeError:
        return None
    got = _mixed_columns(unit, options, raw_ids, values, good)
    return replace(got, texts=JsonTexts(list(got.texts)))


def _mixed_columns(
    unit: LinesUnit, options: ReadOptions, raw_ids: list[Any], values: list[Any], good: Any
) -> UnitColumns:
    """The columns of a block where the records ``~good`` go through
    :func:`record_document` one by one (their ``values`` decoded)."""
    import numpy as np

    first, path, n = unit.first_line, unit.path, len(values)
    made: dict[int, Document] = {}
    skipped: list[tuple[int, Skipped]] = []
    for k in np.flatnonzero(~good).tolist():
        line = first + k
        doc_id = record_id(raw_ids[k], f"{unit.base}:{line}")
        item = record_document(doc_id, f"{path}:{line}", values[k], options, trusted=True)
        if isinstance(item, Skipped):
            skipped.append((k, item))
        else:
            made[k] = item
    at = sorted([*np.flatnonzero(good).tolist(), *made])
    ids = [made[k].id if k in made else raw_ids[k] for k in at]
    kept = [made[k].text if k in made else values[k] for k in at]
    if len(at) == n:  # nothing skipped: the lines' sources made when asked for
        return UnitColumns(ids, kept, LineSources(path, first, n), range(n), skipped, n)
    sources = [f"{path}:{first + k}" for k in at]
    return UnitColumns(ids, kept, sources, at, skipped, n)


@dataclass(frozen=True, slots=True)
class LineSources(Sequence[str]):
    """The sources ``path:LINE`` of ``lines`` consecutive lines from ``first``, made when
    asked for (a worker sends three values, not a string a document)."""

    path: str
    first: int
    lines: int

    def __len__(self) -> int:
        return self.lines

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(self.lines))]
        if not -self.lines <= k < self.lines:
            raise IndexError(k)
        return f"{self.path}:{self.first + k % self.lines}"


def joined_sources(parts: Sequence[Sequence[str]]) -> Sequence[str]:
    """The sources of ``parts`` one after another: one :class:`LineSources` where every part
    is one and each starts at the line after the last of the one before, in one file (a
    block's units), else a list. A list made a string a document (under cProfile, 0.2 s of
    a Dask ingest's 2.6 s at 100,000 documents, 2026-12-03)."""
    first = parts[0] if parts else None
    if isinstance(first, LineSources):
        at = first.first
        for part in parts:
            if not isinstance(part, LineSources) or part.path != first.path or part.first != at:
                break
            at += part.lines
        else:
            return LineSources(first.path, first.first, at - first.first)
    return [s for part in parts for s in part]


def _bare_records(ids: list[Any], texts: list[Any], good: Any) -> bool:
    """Clear ``good[k]`` (bool (n,), writable) where ``ids[k]`` or ``texts[k]`` is not
    :func:`_bare`; returns whether every flag is left set."""
    import numpy as np

    scan = scanner()
    if scan is not None:
        return bool(scan.bare_records(ids, texts, good.view(np.uint8)))
    pairs = zip(ids, texts, strict=True)
    good &= np.fromiter((_bare(i) and _bare(v) for i, v in pairs), dtype=bool, count=len(ids))
    return bool(good.all())


def _bare(value: object) -> bool:
    """A string with a character that is not white space (an id or text taken as it is)."""
    return isinstance(value, str) and bool(value) and not value.isspace()


def _columns(items: list[Document | Skipped]) -> UnitColumns:
    ids: list[str] = []
    texts: list[str] = []
    sources: list[str] = []
    positions: list[int] = []
    skipped: list[tuple[int, Skipped]] = []
    for pos, item in enumerate(items):
        if isinstance(item, Skipped):
            skipped.append((pos, item))
        else:
            ids.append(item.id)
            texts.append(item.text)
            sources.append(item.source)
            positions.append(pos)
    return UnitColumns(ids, texts, sources, positions, skipped, len(items))


def _plain_lines(data: bytes, ends: Any, n: int, options: ReadOptions) -> Any:
    """Which of the ``n`` lines of a clean JSONL block (``ends``: int64 positions of its
    ``\\n`` bytes, :func:`~.formats.jsonl._clean_lines`) hold a record that
    :func:`record_document` would take as plain text without looking further, decided on
    the raw bytes of the block at once: no control byte, no escape that can stand for one
    or for a markup character (``\\b``, ``\\u0000``-``\\u007f``) and, unless the content
    type is forced to ``text``, none of the characters markup needs (the sniffing shortcut of
    :func:`_make_document`). The test is on the whole line, so a hint in another field
    flags its record too: a flagged record goes through :func:`record_document` itself,
    which decides it the same way, only slower. Size needs no test: a clean block has no
    line over ``max_bytes`` (:func:`~.formats.jsonl._clean_lines`) and a text is never
    longer than its line. One loop in C over the block where :mod:`neardup.text._scan` is
    built (:func:`~.formats.jsonl.scanner`), else numpy over its hint bytes; the same
    flags. Returns bool (n,), writable."""
    import numpy as np

    if options.content_type not in ("auto", "text"):
        return np.zeros(n, dtype=bool)  # a forced markup: the full path
    scan = scanner()
    if scan is not None:
        flags = scan.plain_lines(data, n, _hint_table(options.content_type))
        return np.frombuffer(flags, dtype=np.uint8).view(bool)
    buf = np.frombuffer(data, dtype=np.uint8)
    codes = np.frombuffer(data.translate(_hint_table(options.content_type)), dtype=np.uint8)
    at = _nonzero_bytes(codes)  # the few bytes that can be part of a hint
    code = codes[at]
    hit = code == 1  # a control byte, or "<"
    escape = np.flatnonzero(code == 7)
    if escape.size:  # a backslash: "\b" and "\u0000"-"\u007f" stand for ASCII controls
        hit[escape] = _ascii_escape(buf, at[escape])  # and markup, "\u0430" does not
    if at.shape[0] > 1:
        nxt = at[1:] == at[:-1] + 1
        first, second = code[:-1], code[1:]
        doubled = (first == second) & (first >= 2) & (first <= 4)  # "[[", "{{", "=="
        hit[:-1] |= nxt & (doubled | ((first == 3) & (second == 6)))  # or "{|"
        hit[:-2] |= nxt[:-1] & nxt[1:] & (code[:-2] == 5) & (code[1:-1] == 5) & (code[2:] == 5)
    flagged = np.zeros(n, dtype=bool)
    flagged[np.minimum(np.searchsorted(ends, at[hit]), n - 1)] = True
    return ~flagged


def _ascii_escape(buf: Any, at: Any) -> Any:
    """bool (k,): whether the JSON escape starting with the backslash at each of ``at``
    (int64 (k,) positions in the uint8 buffer ``buf``) can stand for an ASCII control or
    markup character: ``\\b``, or ``\\u00`` followed by a digit 0-7."""
    import numpy as np

    last = buf.shape[0] - 1  # an escape cut short by the block's end reads its last byte
    nxt, z1, z2, digit = (buf[np.minimum(at + k, last)] for k in (1, 2, 3, 4))
    zeros = (z1 == ord("0")) & (z2 == ord("0"))
    low = (digit >= ord("0")) & (digit <= ord("7"))
    return (nxt == ord("b")) | ((nxt == ord("u")) & zeros & low)


def _nonzero_bytes(codes: Any) -> Any:
    """``numpy.flatnonzero(codes)`` for a uint8 array that is nearly all zeros: the
    non-zero 8-byte words first (an eighth of the elements), then their bytes."""
    import numpy as np

    whole = codes.shape[0] - codes.shape[0] % 8
    words = np.flatnonzero(codes[:whole].view(np.uint64))
    near = (words[:, None] * 8 + np.arange(8)).reshape(-1)
    near = np.concatenate([near, np.arange(whole, codes.shape[0])])
    return near[codes[near] != 0]


@lru_cache(maxsize=2)
def _hint_table(content_type: str) -> bytes:
    """``bytes.translate`` table for :func:`_plain_lines`: 1 for a control byte (as
    :func:`.encoding.looks_binary` counts them), 7 for a backslash, and unless the content
    type is forced to ``text``: 1 for ``<``; 2, 3, 4, 5, 6 for ``[``, ``{``, ``=``, ``'``,
    ``|`` (the bytes of the markup pairs and triples); 0 for every other byte."""
    from neardup.text.encoding import _CONTROL

    table = bytearray(256)
    for b in _CONTROL:
        table[b] = 1
    table[ord("\\")] = 7
    if content_type == "auto":
        for code, char in enumerate(b"<[{='|", start=1):
            table[char] = code
        table[ord("<")] = 1
    return bytes(table)


def jsonl_record(line: bytes, fallback_id: str, source: str, options: Any) -> Document | Skipped:
    """One JSONL line to a document: a malformed line, a line that is not UTF-8 or not a JSON
    object is skipped alone; a record nested deeper than the parser recurses, or holding an
    integer of thousands of digits, is read by its id and text fields all the same."""
    try:
        obj = loads_record(line, (options.id_field, options.text_field))
    except UnicodeDecodeError as exc:
        return Skipped(fallback_id, source, "undecodable", f"not UTF-8: {exc}")
    except ValueError as exc:
        return Skipped(fallback_id, source, "unreadable", f"malformed JSON: {exc}")
    if not isinstance(obj, dict):
        return Skipped(fallback_id, source, "unreadable", "not a JSON object")
    doc_id = record_id(obj.get(options.id_field), fallback_id)
    return record_document(doc_id, source, obj.get(options.text_field), options, trusted=False)
