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
from collections.abc import Callable

from neardup.text.formats.format import strip_compression
from neardup.text.types import Document, Skipped

#: Longest title kept, characters (a runaway <title> is cut).
MAX_TITLE = 300
#: Characters of the text searched for a title.
_HEAD = 65_536
#: HTML elements searched for a title, in order: (opening tag start, closing tag).
_HTML_ELEMENTS = tuple(
    (re.compile(rf"<{name}\b", re.I), re.compile(rf"</{name}\s*>", re.I))
    for name in ("title", "h1")
)
_TAGS = re.compile(r"<[^>]+>")
_ATX_OPENING = re.compile(r" {0,3}#{1,6}[ \t]+")
_ADOC = re.compile(r"^={1,2}[ \t]+(\S.*)$")
_WIKI_OPENING = re.compile(r"={1,6}")
_RST_ADORN = re.compile(r"^([=\-~*#^\"'`:.+_])\1{2,}[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")


def _clean(raw: str) -> str:
    # a "<" after the last ">" opens no tag: leaving that tail out of the substitution
    # keeps it linear (each such "<" would otherwise scan to the end)
    cut = raw.rfind(">") + 1
    text = " ".join(html.unescape(_TAGS.sub(" ", raw[:cut]) + raw[cut:]).split())
    return text[:MAX_TITLE]


def _element_text(head: str, opening: re.Pattern[str], closing: re.Pattern[str]) -> str | None:
    """The content of the first element of ``head`` that ``opening`` starts (its tag ends at
    the next ``>``) and ``closing`` ends, or ``None``. Only the first opening tag can match:
    a later one has no closing tag the first lacks. Linear, where ``<title\\b[^>]*>(.*?)
    </title\\s*>`` rescanned the text from every opening tag."""
    start = opening.search(head)
    if start is None:
        return None
    body = head.find(">", start.end()) + 1
    if body == 0:
        return None
    end = closing.search(head, body)
    return None if end is None else head[body : end.start()]


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
        for opening, closing in _HTML_ELEMENTS:
            found = _element_text(head, opening, closing)
            if found is not None and _clean(found):
                return _clean(found)
        return ""
    lines = head.splitlines()[:200]
    if suffix in (".md", ".markdown"):
        return _markdown(lines)
    if suffix in (".adoc", ".asciidoc", ".asc"):
        return _first(lines, _ADOC, 1)
    if suffix == ".rst":
        return _rst(lines)
    if suffix in (".wiki", ".mediawiki"):
        for line in lines:
            found = _wiki_heading(line)
            if found is not None:
                return _clean(found)
        return ""
    return ""


def _first(lines: list[str], pattern: re.Pattern[str], group: int) -> str:
    for line in lines:
        m = pattern.match(line)
        if m:
            return _clean(m.group(group))
    return ""


def _wiki_heading(line: str) -> str | None:
    """The text of a MediaWiki heading line ``== Text ==`` (1-6 ``=`` on both sides, the
    same number), or ``None``: what ``^(={1,6})[ \\t]*(.+?)[ \\t]*\\1[ \\t]*$`` captured,
    without its cubic backtracking on blanks. As that pattern, the opening run is tried from
    its longest (at most 6) down, the text is the shortest that leaves a closing run of the
    same length, and it takes an opening blank only when it would be empty otherwise."""
    opening = _WIKI_OPENING.match(line)
    if opening is None:
        return None
    tail = line.rstrip(" \t")
    for n in range(len(opening.group()), 0, -1):
        if len(tail) < 2 * n + 1 or not tail.endswith("=" * n):
            continue
        inner = tail[n : len(tail) - n]  # blanks, the text, blanks
        text = inner.strip(" \t")
        if text:
            return text
        if inner:  # only blanks: the pattern's text is one of them
            return inner[-1]
    return None


def _atx_heading(line: str) -> str | None:
    """The text of a Markdown ATX heading ``# Text #``, or ``None``: what
    ``^ {0,3}#{1,6}[ \\t]+(.+?)[ \\t#]*$`` captured (the shortest text, at least one
    character, before a closing run of blanks and ``#``), in linear time."""
    opening = _ATX_OPENING.match(line)
    if opening is None:
        return None
    if opening.end() == len(line):  # only blanks after the "#": the last one is the text
        blanks = len(line) - len(line.rstrip(" \t"))
        return line[-1] if blanks > 1 else None
    rest = line[opening.end() :]
    return rest[: max(1, len(rest.rstrip(" \t#")))]


def _markdown(lines: list[str]) -> str:
    for i, line in enumerate(lines):
        found = _atx_heading(line)
        if found is not None:
            return _clean(found)
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
    meta: Callable[[], str] | None = None,
) -> Document | Skipped:
    """``doc`` with the title its file gives (``raw``: the decoded file before extraction;
    ``meta``: the title of a binary file's metadata, :attr:`neardup.text.formats.Format.title`),
    else the file ``name``; ``doc`` unchanged when it is a skip or has no file name."""
    if isinstance(doc, Skipped) or not name:
        return doc
    found = meta() if meta is not None else title_of(raw, name=name)
    return dataclasses.replace(doc, title=found or file_title(name))
