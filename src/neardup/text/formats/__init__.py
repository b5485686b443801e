"""Input formats: one module a format, and the registry that tells a file's format.

Formats by file name (a trailing ``.gz``, ``.zst``, ``.bz2`` or ``.xz`` is looked through,
except for a ``seekable`` format):

=========== ====================================================== ======================
format      names                                                  read as
=========== ====================================================== ======================
jsonl       ``.jsonl``, ``.ndjson``, ``.json`` (one object a line) records
parquet     ``.parquet``, ``.pq``                                  records
csv         ``.csv``                                               records
arrow       ``.arrow``, ``.feather``, ``.ipc`` (IPC file/stream)   records
pdf         ``.pdf`` (text layer, pypdf)                           one document a file
docx        ``.docx`` (paragraphs and tables, python-docx)         one document a file
text        ``.txt``, ``.md``, ``.rst``, ``.adoc``...              one document a file
html        ``.html``, ``.htm``, ``.xhtml``                        one document a file
wiki        ``.wiki``, ``.mediawiki``                              one document a file
=========== ====================================================== ======================

A file of no format (:func:`format_of` gives None) named on the command line is read as
one document; met in a directory walk too, when it decodes as text (else a ``binary``
skip row). A Hugging Face ``datasets`` folder is read as the records of its Arrow files
(:mod:`.datasets`).

The content type of a record's text (``--content-type auto``) is sniffed per record
(:func:`neardup.text.sniff.sniff_content_type`), after a check that costs a few substring
searches: a text holding none of ``<``, ``[[``, ``{{``, ``==``, ``\'\'\'``, ``{|`` cannot be
HTML or wiki by the sniffing rules, so plain text pays nothing for the regular expressions.

A new format is a module here exporting ``FORMAT`` (:class:`~.format.Format`), listed in
:data:`FORMATS`, and its tests (``docs/contributing.md``, "New input format").
"""

from __future__ import annotations

from neardup.errors import ParameterError
from neardup.text.formats import arrow, csv, docx, html, jsonl, parquet, pdf, plain, wiki
from neardup.text.formats.format import (
    COMPRESSION_SUFFIXES,
    Format,
    strip_compression,
)
from neardup.text.types import ContentType

__all__ = [
    "COMPRESSION_SUFFIXES",
    "FORMATS",
    "Format",
    "content_type_of",
    "format_named",
    "format_of",
    "opening_format",
]

#: Every format, in the order their names are listed.
FORMATS: tuple[Format, ...] = (
    jsonl.FORMAT,
    parquet.FORMAT,
    csv.FORMAT,
    arrow.FORMAT,
    pdf.FORMAT,
    docx.FORMAT,
    plain.FORMAT,
    html.FORMAT,
    wiki.FORMAT,
)


def _by_suffix(formats: tuple[Format, ...]) -> dict[str, Format]:
    """``{suffix: format}``; a suffix or name claimed twice is a programming error."""
    out: dict[str, Format] = {}
    names: set[str] = set()
    for fmt in formats:
        if fmt.name in names:
            raise ValueError(f"two input formats are named {fmt.name!r}")
        names.add(fmt.name)
        for suffix in fmt.suffixes:
            if suffix in out:
                raise ValueError(f"{suffix!r} is claimed by {out[suffix].name} and {fmt.name}")
            out[suffix] = fmt
    return out


_SUFFIXES = _by_suffix(FORMATS)
_NAMED = {fmt.name: fmt for fmt in FORMATS}


def format_of(name: str) -> Format | None:
    """The format of the file called ``name`` (a path or a name), by its suffix after one
    compression suffix; None: no format (read as one document when it decodes as text), or
    a ``seekable`` format behind a compression suffix."""
    base = strip_compression(name)
    suffix = base[base.rfind(".") :] if "." in base else ""
    fmt = _SUFFIXES.get(suffix)
    if fmt is not None and fmt.seekable and base != name.lower():
        return None
    return fmt


def format_named(name: str) -> Format:
    """The format called ``name`` (``jsonl``, ``csv``...).

    Raises:
        ParameterError: no format has that name (the names are listed).
    """
    if name not in _NAMED:
        raise ParameterError("format", name, "one of " + ", ".join(_NAMED))
    return _NAMED[name]


def opening_format(data: bytes) -> Format | None:
    """The binary document format whose signature ``data`` opens with (PDF, DOCX), or None."""
    return next((fmt for fmt in FORMATS if fmt.opens(data)), None)


def content_type_of(suffix: str) -> ContentType | None:
    """The content type a document suffix (lower case, ``.html``) fixes, or None."""
    fmt = _SUFFIXES.get(suffix)
    return None if fmt is None else fmt.content_type
