"""Links and the title of an HTML page, and which links belong to the library.

The seed's crawler collects "all links" of a page and follows those inside the library;
here a link is followed when it is ``http(s)``, on the library's host (or a subdomain of
it), not obviously a binary asset (images, archives, media, styles, scripts; PDF is kept,
PDF articles are read), and no longer than :data:`~neardup.crawl.safety.MAX_URL_CHARS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urljoin, urlsplit

from neardup.crawl.safety import MAX_URL_CHARS, UnsafeURLError, check_url
from neardup.text.extract import feed_html

#: file endings never followed (assets and binaries; ``.pdf`` is followed)
SKIPPED_SUFFIXES = (
    ".jpg", ".jpeg", ".png", ".gif", ".webp", ".svg", ".ico", ".bmp", ".tif", ".tiff",
    ".css", ".js", ".mjs", ".map", ".woff", ".woff2", ".ttf", ".eot", ".otf",
    ".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar", ".exe", ".dmg", ".iso",
    ".mp3", ".mp4", ".m4a", ".avi", ".mov", ".mkv", ".webm", ".ogg", ".wav", ".flac",
    ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".rtf", ".epub",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class PageLinks:
    """What an HTML page offers the crawler.

    Attributes:
        title: the ``<title>`` text (whitespace collapsed), ``""`` when none.
        links: absolute ``href`` targets of ``<a>``/``<area>`` in page order, fragments
            removed, duplicates removed (not yet filtered by scope).
    """

    title: str
    links: tuple[str, ...]


class _LinkParser:
    """The ``<base>``, ``<a>``/``<area>`` targets and the title, from :func:`feed_html`."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.hrefs: list[str] = []
        self.title_parts: list[str] = []
        self._in_title = False
        self._title_done = False

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        values = attrib
        if tag == "base" and values.get("href"):
            self.base = urljoin(self.base, values["href"] or "")
        elif tag in ("a", "area") and values.get("href"):
            self.hrefs.append((values["href"] or "").strip())
        elif tag == "title" and not self._title_done:
            self._in_title = True

    def end(self, tag: str) -> None:
        if tag == "title" and self._in_title:
            self._in_title = False
            self._title_done = True

    def data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)


def page_links(html: str, url: str) -> PageLinks:
    """The title and the absolute link targets of an HTML page at ``url`` (libxml2's HTML
    parser, :func:`~neardup.text.extract.feed_html`: linear in the page's length)."""
    parser = _LinkParser(url)
    feed_html(html, parser)
    seen: dict[str, None] = {}
    for href in parser.hrefs:
        if href.lower().startswith(("javascript:", "mailto:", "tel:", "data:", "#")):
            continue
        absolute = urljoin(parser.base, href).split("#", 1)[0]
        if absolute:
            seen.setdefault(absolute, None)
    title = " ".join("".join(parser.title_parts).split())  # lxml splits text at references
    return PageLinks(title[:500], tuple(seen))


def in_scope(link: str, home: str) -> str | None:
    """The normalised ``link`` when the crawler should follow it from library ``home``.

    Args:
        link: an absolute URL found on a page.
        home: the library's normalised home URL.

    Returns:
        The normalised URL, or ``None``: another scheme or host, an asset, too long or
        malformed. (Address safety is checked again when the page is fetched.)
    """
    if len(link) > MAX_URL_CHARS:
        return None
    try:
        url = check_url(link, allow_private=True)
    except UnsafeURLError:
        return None
    host = urlsplit(url).hostname or ""
    home_host = urlsplit(home).hostname or ""
    if host != home_host and not host.endswith("." + home_host):
        return None
    if urlsplit(url).path.lower().endswith(SKIPPED_SUFFIXES):
        return None
    return url


def has_clarification(url: str, clarifications: tuple[str, ...]) -> bool:
    """Does ``url``'s path or query contain a clarification (Romanov 2019)?

    Case-insensitive; the host is not looked at (``post`` must not match
    ``postgres.org``); percent-encoded addresses are compared decoded too.
    """
    parts = urlsplit(url)
    rest = parts.path + ("?" + parts.query if parts.query else "")
    forms = {rest.lower(), unquote(rest).lower()}
    return any(c.lower() in form for c in clarifications for form in forms)
