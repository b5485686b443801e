"""Guess whether a text is HTML, MediaWiki markup or plain text.

By file extension when the name has one a document format fixes
(:attr:`neardup.text.formats.Format.content_type`), else by content:

* HTML: the text opens (after blanks, comments and an XML declaration) with
  ``<!DOCTYPE html``, ``<html``, ``<head`` or ``<body``; or it is a fragment dense in HTML
  tags (at least :data:`MIN_TAGS` known tags, on at least 30% of the non-blank lines).
  reStructuredText and AsciiDoc with HTML code samples stay far below (at most 6% of the
  lines in the Linux and Pro Git documentation).
* MediaWiki: at least two *kinds* of wiki markup among balanced ``== Heading ==`` lines,
  inline ``[[Page|text]]`` links (not URLs, not AsciiDoc ``[[anchor]]`` lines),
  ``{{Template...}}`` calls, ``'''bold'''``, ``{|`` tables and ``<ref>`` tags. AsciiDoc
  (``[[anchor]]`` lines, ``=== Heading`` without closing ``=``) and reStructuredText
  (``=====`` rules) show at most one kind.
* Anything else is text.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from neardup.text.formats import content_type_of
from neardup.text.types import ContentType

#: A fragment needs at least this many known HTML tags to be called HTML.
MIN_TAGS = 3
_HEAD_CHARS = 4096

#: What opens an HTML document once blanks, comments and an XML declaration are skipped.
_HTML_OPENING = re.compile(r"<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]", re.IGNORECASE)
_XML_DECLARATION = re.compile(r"<\?xml", re.IGNORECASE)
_BLANKS = re.compile(r"\s*")
_TAG = re.compile(
    r"</?(?:html|head|body|title|meta|link|script|style|div|span|p|a|br|hr|img|table|thead"
    r"|tbody|tr|td|th|ul|ol|li|dl|dt|dd|h[1-6]|b|i|u|em|strong|pre|code|blockquote|section"
    r"|article|nav|header|footer|main|aside|form|input|button|iframe|noscript|figure"
    r"|figcaption|sup|sub|small|font|center)\b[^<>]*>",
    re.IGNORECASE,
)
#: A line that may be a ``== Heading ==``: the opening and closing ``=`` runs and the text
#: between (no ``=`` in it); :func:`_has_wiki_heading` checks the runs' lengths and the text.
#: Linear: ``[^=\n]*`` stops where ``=+`` starts, and the anchor allows five starts a line.
_WIKI_HEADING = re.compile(r"^(={2,6})([^=\n]*)(=+)[ \t]*$", re.MULTILINE)
_WORD_CHAR = re.compile(r"\w")
_ANY_LINK = re.compile(r"(?<!\[)\[\[([^\[\]\n|]+)(\|[^\[\]\n]*)?\]\](?!\])")
_NOT_PAGE = re.compile(r"(?:https?|ftp|mailto|file):", re.IGNORECASE)
_WIKI_OTHER: tuple[re.Pattern[str], ...] = (
    re.compile(r"\{\{[ \t]*[^\W\d_][^{}|\n]*[|}\n]"),  # {{Template}}, {{Name|arg}}, {{Infobox
    re.compile(r"'''[^'\n]+'''"),  # '''bold'''
    re.compile(r"^\{\|", re.MULTILINE),  # {| table
    re.compile(r"<ref[\s>/]", re.IGNORECASE),  # <ref>, <ref name=...>
)


def sniff_content_type(text: str, *, name: str = "") -> ContentType:
    """The content type of ``text``: ``"html"``, ``"wiki"`` or ``"text"``.

    Args:
        text: the decoded document (markup included).
        name: its file name or path (``""`` when unknown); a trailing ``.gz`` is ignored.

    Returns:
        The type given by a known extension of ``name`` (a text extension still yields
        ``"html"`` for a body that opens like an HTML document), else the type the content
        suggests (see the module docstring).
    """
    by_name = _type_from_name(name)
    if by_name == "text":
        return "html" if is_html_document(text) else "text"
    if by_name is not None:
        return by_name
    if is_html_document(text) or _dense_html(text):
        return "html"
    if looks_wiki(text):
        return "wiki"
    return "text"


def _type_from_name(name: str) -> ContentType | None:
    if not name:
        return None
    path = PurePath(name.lower())
    if path.suffix == ".gz":
        path = path.with_suffix("")
    return content_type_of(path.suffix)


def is_html_document(text: str) -> bool:
    """Whether ``text`` opens like an HTML document: doctype, ``<html>``, ``<head>``, ``<body>``.

    Within the first 4,096 characters, after a byte-order mark, blanks, ``<!-- -->``
    comments (each ending at its first ``-->``) and one ``<?xml ...>`` declaration among
    them. One forward scan (a regular expression with nested ``<!--.*?-->`` loops
    backtracked exponentially on a declaration followed by many comments, issue 41).
    """
    head = text[:_HEAD_CHARS]
    pos = 1 if head.startswith("\ufeff") else 0
    declared = False
    while True:
        pos = _BLANKS.match(head, pos).end()  # type: ignore[union-attr]  # \s* always matches
        if head.startswith("<!--", pos):
            end = head.find("-->", pos + 4)
            if end < 0:
                return False
            pos = end + 3
        elif not declared and _XML_DECLARATION.match(head, pos):
            end = head.find(">", pos)
            if end < 0:
                return False
            pos, declared = end + 1, True
        else:
            return _HTML_OPENING.match(head, pos) is not None


def _dense_html(text: str) -> bool:
    tags = _TAG.findall(text)
    if len(tags) < MIN_TAGS:
        return False
    lines = [line for line in text.splitlines() if line.strip()]
    tagged = sum(1 for line in lines if _TAG.search(line))
    return tagged >= 0.3 * len(lines)


def looks_wiki(text: str) -> bool:
    """Whether ``text`` shows at least two kinds of MediaWiki markup (module docstring)."""
    kinds = int(_has_wiki_heading(text)) + int(_has_wiki_link(text))
    for pattern in _WIKI_OTHER:
        if kinds >= 2:
            break
        kinds += pattern.search(text) is not None
    return kinds >= 2


def _has_wiki_heading(text: str) -> bool:
    """A balanced ``== Heading ==`` line: 2-6 ``=`` on both sides (the same number, the whole
    runs), a word character and no ``=`` between, only blanks after."""
    for m in _WIKI_HEADING.finditer(text):
        if len(m.group(1)) == len(m.group(3)) and _WORD_CHAR.search(m.group(2)):
            return True
    return False


def _has_wiki_link(text: str) -> bool:
    """A ``[[Page]]`` link: not a URL/mailto/file target, not an AsciiDoc ``[[anchor]]`` line.

    A ``[[...]]`` alone on its line counts only with a piped text or a namespace
    (``[[Category:Cities]]``); AsciiDoc anchors are bare identifiers (``[[_remote_repos]]``).
    """
    for m in _ANY_LINK.finditer(text):
        target, piped = m.group(1), m.group(2)
        if target[:1].isspace() or _NOT_PAGE.match(target):
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        line = text[line_start : len(text) if line_end < 0 else line_end]
        if line.strip() != m.group(0) or piped or ":" in target:
            return True
    return False
