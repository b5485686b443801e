"""A document's title, taken from the document itself (issue 30, the librarian's journey).

:func:`title_of` looks, by the file's kind, for: an HTML ``<title>`` (else the first
``<h1>``); the first heading of Markdown (``# Title`` or a setext underline), AsciiDoc
(``= Title``), reStructuredText (a line over- or underlined with ``= - ~ * # ^ "``) and
MediaWiki (``= Title =``). :func:`pdf_title` reads a PDF's metadata title. Without one,
the caller falls back to the file name; a document without a file name (a record, a
pasted text) gets ``""`` (the store then shows the text's first line).
"""

from __future__ import annotations

import dataclasses
import html
import io
import logging
import re

from neardup.text.formats import strip_compression
from neardup.text.types import Document, Skipped

#: Longest title kept, characters (a runaway <title> is cut).
MAX_TITLE = 300
#: Characters of the text searched for a title.
_HEAD = 65_536
_HTML_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.I | re.S)
_HTML_H1 = re.compile(r"<h1\b[^>]*>(.*?)</h1\s*>", re.I | re.S)
_TAGS = re.compile(r"<[^>]+>")
_ATX = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$")
_ADOC = re.compile(r"^={1,2}[ \t]+(\S.*)$")
_WIKI = re.compile(r"^(={1,6})[ \t]*(.+?)[ \t]*\1[ \t]*$")
_RST_ADORN = re.compile(r"^([=\-~*#^\"'`:.+_])\1{2,}[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")


def _clean(raw: str) -> str:
    text = " ".join(html.unescape(_TAGS.sub(" ", raw)).split())
    return text[:MAX_TITLE]


def _suffix(name: str) -> str:
    base = strip_compression(name.lower())
    return base[base.rfind(".") :] if "." in base else ""


def title_of(text: str, *, name: str) -> str:
    """The title a document's raw text gives, by the kind its file name says.

    Args:
        text: the decoded file, markup included (before extraction).
        name: the file name (``.html``, ``.md``, ``.adoc``, ``.rst``, ``.wiki``... decide
            where to look), or ``""``.

    Returns:
        The title, whitespace collapsed, at most :data:`MAX_TITLE` characters; ``""`` when
        the document names none.
    """
    head = text[:_HEAD]
    suffix = _suffix(name)
    if suffix in (".html", ".htm", ".xhtml") or (not suffix and "<title" in head.lower()):
        for pattern in (_HTML_TITLE, _HTML_H1):
            m = pattern.search(head)
            if m and _clean(m.group(1)):
                return _clean(m.group(1))
        return ""
    lines = head.splitlines()[:200]
    if suffix in (".md", ".markdown"):
        return _markdown(lines)
    if suffix in (".adoc", ".asciidoc", ".asc"):
        return _first(lines, _ADOC, 1)
    if suffix == ".rst":
        return _rst(lines)
    if suffix in (".wiki", ".mediawiki"):
        return _first(lines, _WIKI, 2)
    return ""


def _first(lines: list[str], pattern: re.Pattern[str], group: int) -> str:
    for line in lines:
        m = pattern.match(line)
        if m:
            return _clean(m.group(group))
    return ""


def _markdown(lines: list[str]) -> str:
    for i, line in enumerate(lines):
        m = _ATX.match(line)
        if m:
            return _clean(m.group(1))
        if line.strip() and i + 1 < len(lines) and _SETEXT.match(lines[i + 1]):
            return _clean(line)
    return ""


def _rst(lines: list[str]) -> str:
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and not _RST_ADORN.match(line) and _RST_ADORN.match(nxt):
            return _clean(line)
    return ""


def pdf_title(data: bytes) -> str:
    """The title in a PDF's document information (``/Title``), or ``""`` (none, or the
    file cannot be read)."""
    try:
        from pypdf import PdfReader

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        meta = PdfReader(io.BytesIO(data)).metadata
        return _clean(str(meta.title)) if meta is not None and meta.title else ""
    except Exception:  # pypdf raises many types on hostile files
        return ""


def docx_title(data: bytes) -> str:
    """The title in a DOCX's core properties, or ``""``."""
    try:
        import docx

        return _clean(docx.Document(io.BytesIO(data)).core_properties.title or "")
    except Exception:
        return ""


def file_title(name: str) -> str:
    """The fallback title: the file name (its last path component)."""
    return name.replace("\\", "/").rsplit("/", 1)[-1][:MAX_TITLE]


def titled(
    doc: Document | Skipped,
    *,
    name: str,
    raw: str = "",
    pdf: bytes | None = None,
    docx: bytes | None = None,
) -> Document | Skipped:
    """``doc`` with the title its file gives (``raw``: the decoded file before extraction;
    ``pdf``/``docx``: the file's bytes for their metadata), else the file ``name``; ``doc``
    unchanged when it is a skip or has no file name."""
    if isinstance(doc, Skipped) or not name:
        return doc
    if pdf is not None:
        found = pdf_title(pdf)
    elif docx is not None:
        found = docx_title(docx)
    else:
        found = title_of(raw, name=name)
    return dataclasses.replace(doc, title=found or file_title(name))
