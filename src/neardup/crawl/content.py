"""A fetched page -> text for the collection (HTML through the project's text stage, PDF).

HTML pages go through :func:`neardup.text.extract.html_to_text` (its default extractor:
Resiliparse's main content, trafilatura when that finds nothing; boilerplate removed; the
same step :func:`neardup.text.read_corpus` applies to HTML files),
their title is the ``<title>``. PDF articles (the seed's "other formats" future work) are
read with pypdf. The document's first line is the title (the store shows the first line as
the title), the id and the source are the page URL.
"""

from __future__ import annotations

import codecs
import io
import logging
from dataclasses import dataclass

from neardup.crawl.links import PageLinks, page_links
from neardup.errors import DecodeError
from neardup.text.encoding import decode
from neardup.text.extract import html_to_text
from neardup.text.types import ContentType, Document

HTML_TYPES = ("text/html", "application/xhtml+xml")
PDF_TYPES = ("application/pdf", "application/x-pdf")
TEXT_TYPES = ("text/plain",)


@dataclass(frozen=True, slots=True)
class PageContent:
    """What a fetched page gives: links to follow and, maybe, a document.

    Attributes:
        kind: ``html``, ``pdf``, ``text`` or ``other`` (not read).
        links: the page's link targets (HTML only).
        title: the page title (``<title>``, PDF metadata or first line).
        text: the clean text, ``""`` when none.
        error: why there is no text (undecodable, unreadable PDF), ``""`` otherwise.
    """

    kind: str
    links: tuple[str, ...]
    title: str
    text: str
    error: str = ""

    def document(self, url: str, raw_bytes: int) -> Document | None:
        """The page as a :class:`~neardup.text.types.Document` (``None`` without text)."""
        body = self.text.strip()
        if not body:
            return None
        title = self.title.strip()
        first = body.split("\n", 1)[0].strip()
        text = body if not title or first == title else f"{title}\n\n{body}"
        ctype: ContentType = "html" if self.kind == "html" else "text"
        return Document(url, text, url, ctype, raw_bytes)


def media_type(header: str | None) -> tuple[str, str | None]:
    """``(media type, charset)`` of a ``Content-Type`` header (lower-cased type)."""
    if not header:
        return "", None
    parts = [p.strip() for p in header.split(";")]
    charset = None
    for p in parts[1:]:
        key, _, value = p.partition("=")
        if key.strip().lower() == "charset" and value:
            charset = value.strip().strip("\"'")
    return parts[0].lower(), charset


def read_page(
    url: str, data: bytes, content_type: str | None, *, want_links: bool, want_text: bool
) -> PageContent:
    """Links and text of a fetched body.

    Args:
        url: the final URL (links are resolved against it).
        data: the body bytes.
        content_type: the ``Content-Type`` header.
        want_links: collect links (HTML).
        want_text: extract the text (costly: trafilatura, pypdf).

    Never raises on bad input: problems end up in :attr:`PageContent.error`.
    """
    mtype, charset = media_type(content_type)
    if mtype in PDF_TYPES or (not mtype and data.startswith(b"%PDF-")):
        return _pdf(data) if want_text else PageContent("pdf", (), "", "")
    if mtype in HTML_TYPES or (not mtype and data.lstrip()[:1] == b"<"):
        try:
            html = _decode(data, charset, url)
        except DecodeError as exc:
            return PageContent("html", (), "", "", str(exc))
        found = page_links(html, url) if want_links else PageLinks("", ())
        title = found.title or (page_links(html, url).title if want_text else "")
        text = html_to_text(html) if want_text else ""
        return PageContent("html", found.links, title, text)
    if mtype in TEXT_TYPES:
        try:
            text = _decode(data, charset, url) if want_text else ""
        except DecodeError as exc:
            return PageContent("text", (), "", "", str(exc))
        return PageContent("text", (), "", text)
    return PageContent("other", (), "", "", f"content type {mtype or 'unknown'} is not read")


def _decode(data: bytes, charset: str | None, url: str) -> str:
    if charset:
        try:
            codecs.lookup(charset)
            return data.decode(charset)
        except (LookupError, UnicodeDecodeError):
            pass
    return decode(data, source=url)


def _pdf(data: bytes) -> PageContent:
    try:
        from pypdf import PdfReader

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        reader = PdfReader(io.BytesIO(data))
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
        meta = reader.metadata
        title = str(meta.title or "").strip() if meta is not None else ""
    except Exception as exc:
        return PageContent("pdf", (), "", "", f"unreadable PDF: {type(exc).__name__}: {exc}")
    text = "\n\n".join(p for p in pages if p)
    return PageContent("pdf", (), title, text)
