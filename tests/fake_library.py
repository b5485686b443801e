"""A fake digital library served on 127.0.0.1, for crawler and web-UI tests (issue 6).

``serve_library()`` starts a threaded stdlib HTTP server in a background thread and yields a
:class:`Site` describing what it serves. The pages hold real text: Russian prose from
``../shared/data/ruslit`` (Chekhov for the first library, Tolstoy for the second), read
through ``tests/shared_data.py`` so a missing data folder fails loudly in CI.

Layout of ``kind="first"`` (clarification ``post``, address pattern ``/post/{n}``)::

    /                      home: nav, the 5 newest articles, news, a redirect, a robots-blocked
                           link, an external link, a mailto: link
    /archive?page=K        listing pages, 20 articles each, newest first, prev/next links
    /news/, /news/I        news (real text, not articles)
    /profile/, /profile/X  author profiles (not articles)
    /about                 about page (not an article)
    /private/...           disallowed by robots.txt (linked from the home page)
    /post/N                articles 1..n_articles, except: a few holes (404), one blocked by
                           robots.txt (``Disallow: /post/B$``), one broken page (always 500), one
                           flaky page (503 the first time, then 200), one slow page
                           (``slow_seconds`` before answering) and one PDF article
    /go/N                  301 redirect to /post/N
    /redirect?to=URL       302 redirect to any URL (for the SSRF test)
    /robots.txt

``kind="second"`` is another library (clarification ``article``, pattern
``/article?id={n}``, listing ``/catalog?page=K``, news ``/events/I``, profiles ``/authors/X``,
``/admin/`` disallowed) whose every 8th article is a light edit of an article of the first
library; ``Site.planted`` maps such second-library URLs to their first-library source URL.

Every request is logged (``Site.requests()``), so tests can check robots.txt obedience and
that a resumed crawl fetched no finished page twice.
"""

from __future__ import annotations

import re
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from random import Random
from typing import Literal
from urllib.parse import parse_qs, quote, urlsplit

from shared_data import data_path

__all__ = ["Layout", "Site", "make_pdf", "serve_library"]

PER_PAGE = 20
MIN_PARAGRAPH_CHARS = 300
MAX_PARAGRAPH_CHARS = 1500
PARAGRAPHS_PER_ARTICLE = 3


@dataclass(frozen=True)
class Layout:
    """Addresses of one fake library."""

    clarification: str
    article: str  # format with n
    listing: str  # format with k
    news_index: str
    news: str  # format with i
    profile_index: str
    profile: str  # format with slug
    private: str  # a prefix disallowed by robots.txt
    author: str  # ruslit prose folder the text comes from
    name: str


LAYOUTS: dict[str, Layout] = {
    "first": Layout(
        clarification="post",
        article="/post/{n}",
        listing="/archive?page={k}",
        news_index="/news/",
        news="/news/{i}",
        profile_index="/profile/",
        profile="/profile/{slug}",
        private="/private/",
        author="Chekhov",
        name="Вестник словесности",
    ),
    "second": Layout(
        clarification="article",
        article="/article?id={n}",
        listing="/catalog?page={k}",
        news_index="/events/",
        news="/events/{i}",
        profile_index="/authors/",
        profile="/authors/{slug}",
        private="/admin/",
        author="Tolstoy",
        name="Научное обозрение",
    ),
}


class RequestLog:
    """Thread-safe list of served request targets (path + query), in arrival order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[tuple[str, str]] = []

    def add(self, method: str, target: str) -> None:
        with self._lock:
            self._items.append((method, target))

    def items(self) -> list[tuple[str, str]]:
        with self._lock:
            return list(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


@dataclass(frozen=True)
class Site:
    """What a running fake library serves.

    Attributes:
        base_url: ``http://127.0.0.1:PORT`` (no trailing slash).
        articles: article URL -> article text, for every article a polite, correct crawler
            stores (served 200 and allowed by robots.txt; includes the slow, flaky and PDF
            articles; excludes holes, the broken page and the robots-blocked article).
        robots_disallowed: the ``Disallow:`` rules of robots.txt (``$`` anchors the end).
        titles: article URL -> page title (the ``<title>``).
        clarification: the URL substring that marks articles (``post`` / ``article``).
        pattern: the article address pattern, e.g. ``http://127.0.0.1:PORT/post/{n}``.
        numbers: article numbers with an article behind them (incl. broken/blocked ones).
        non_articles: URLs of pages that are not articles (home, listings, news, profiles).
        slow_url, broken_url, flaky_url, pdf_url, blocked_url: the special article pages
            (``""`` for the second library, which has none).
        go_target: the article the home page's ``/go/N`` link redirects to.
        holes: article numbers in the range that answer 404.
        planted: second-library URL -> first-library source URL (``kind="second"``).
    """

    base_url: str
    articles: dict[str, str]
    robots_disallowed: tuple[str, ...]
    titles: dict[str, str]
    clarification: str
    pattern: str
    numbers: tuple[int, ...]
    non_articles: tuple[str, ...]
    slow_url: str = ""
    broken_url: str = ""
    flaky_url: str = ""
    pdf_url: str = ""
    blocked_url: str = ""
    go_target: str = ""
    holes: tuple[int, ...] = ()
    planted: dict[str, str] = field(default_factory=dict)
    log: RequestLog = field(default_factory=RequestLog, repr=False, compare=False)

    def url(self, path: str) -> str:
        """Absolute URL of a path on this site."""
        return self.base_url + path

    def requests(self) -> list[str]:
        """Request targets (path + query) in arrival order, every method."""
        return [target for _, target in self.log.items()]

    def fetch_count(self, url_or_path: str) -> int:
        """How many GET requests reached this URL or path."""
        target = url_or_path.removeprefix(self.base_url) or "/"
        return sum(1 for method, t in self.log.items() if method == "GET" and t == target)

    def redirect_to(self, target: str) -> str:
        """A URL on this site that answers 302 with ``Location: target``."""
        return f"{self.base_url}/redirect?to={quote(target, safe='')}"


# -- text ---------------------------------------------------------------------------------
@lru_cache(maxsize=4)
def _paragraphs(author: str) -> tuple[tuple[str, str], ...]:
    """(work title, paragraph) pairs of an author's prose, deduplicated, in file order."""
    folder = data_path("ruslit", "prose", author)
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for path in sorted(folder.glob("*.txt")):
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            continue
        for line in lines:
            para = " ".join(line.split())
            if MIN_PARAGRAPH_CHARS <= len(para) <= MAX_PARAGRAPH_CHARS and para not in seen:
                seen.add(para)
                out.append((path.stem, para))
    return tuple(out)


@lru_cache(maxsize=2)
def _english_paragraphs() -> tuple[str, ...]:
    """ASCII English paragraphs (for the PDF article, whose base-14 font is Latin-1 only)."""
    import json

    out: list[str] = []
    with data_path("linux-doc-revisions", "docs.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            for para in json.loads(line)["text"].split("\n\n"):
                words = para.split()
                flat = " ".join(words)
                if len(words) >= 40 and flat.isascii() and re.fullmatch(r"[\w .,;:()'-]+", flat):
                    out.append(flat)
            if len(out) >= 3:
                return tuple(out[:3])
    return tuple(out)


def _light_edit(text: str, seed: int) -> str:
    """A near-duplicate: a few words dropped or swapped, one sentence rephrased at the end."""
    rng = Random(seed)
    words = text.split()
    for _ in range(max(2, len(words) // 40)):
        i = rng.randrange(len(words))
        if rng.random() < 0.5:
            del words[i]
        else:
            j = min(len(words) - 1, i + 1)
            words[i], words[j] = words[j], words[i]
    return " ".join(words) + " (Перепечатано с сокращениями.)"


# -- PDF ----------------------------------------------------------------------------------
def make_pdf(title: str, text: str, *, width: int = 90) -> bytes:
    """A minimal valid one-page PDF (Helvetica, ASCII text) that pypdf can extract."""
    lines: list[str] = [title, ""]
    current = ""
    for word in text.split():
        if len(current) + len(word) + 1 > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    lines.append(current)

    def pdf_string(s: str) -> str:
        return "(" + s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"

    ops = ["BT", "/F1 10 Tf", "12 TL", "50 800 Td"]
    ops += [f"{pdf_string(line)} Tj T*" for line in lines]
    ops.append("ET")
    stream = zlib.compress("\n".join(ops).encode("latin-1"))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


# -- content model ------------------------------------------------------------------------
@dataclass(frozen=True)
class _Article:
    number: int
    title: str
    author: str
    paragraphs: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n\n".join(self.paragraphs)


@dataclass
class _Content:
    layout: Layout
    articles: dict[int, _Article]  # by number (holes absent)
    news: list[tuple[str, str]]  # (title, text)
    authors: dict[str, str]  # slug -> display name
    slow: int = 0
    broken: int = 0
    flaky: int = 0
    pdf: int = 0
    blocked: int = 0
    holes: tuple[int, ...] = ()
    planted: dict[int, str] = field(default_factory=dict)  # number -> first-library URL/path
    pdf_bytes: bytes = b""
    pdf_text: str = ""
    slow_seconds: float = 1.0
    numbered: bool = True
    flaky_served: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def path(self, n: int | str) -> str:
        """The article path of number ``n`` (numbered or slug addresses)."""
        slug = str(n) if self.numbered else _letters(int(n))
        return self.layout.article.replace("{n}", slug)

    def number_of(self, token: str) -> int | None:
        """The article number a path token (digits or letters) stands for."""
        if self.numbered:
            return int(token) if token.isdigit() else None
        return _from_letters(token)

    def robots_rules(self) -> tuple[str, ...]:
        rules = [self.layout.private]
        if self.blocked:
            rules.append(self.path(self.blocked) + "$")
        return tuple(rules)

    def newest(self, count: int, skip: int = 0) -> list[_Article]:
        ordered = [self.articles[n] for n in sorted(self.articles, reverse=True)]
        return ordered[skip : skip + count]


def _slug(name: str, i: int) -> str:
    return f"author-{'abcde'[i - 1]}"


def _letters(n: int) -> str:
    """A number as lower-case letters (bijective base 26: 1 -> a, 27 -> aa), for slugs."""
    out = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        out = chr(ord("a") + r) + out
    return "article-" + out


def _from_letters(token: str) -> int | None:
    if not re.fullmatch(r"article-[a-z]+", token):
        return None
    n = 0
    for ch in token.removeprefix("article-"):
        n = n * 26 + (ord(ch) - ord("a") + 1)
    return n


def _build(
    kind: str, n_articles: int, slow_seconds: float, first: Site | None, numbered: bool = True
) -> _Content:
    layout = LAYOUTS[kind]
    paras = _paragraphs(layout.author)
    need = n_articles * PARAGRAPHS_PER_ARTICLE + 40
    if len(paras) < need:
        raise ValueError(f"n_articles={n_articles} needs {need} paragraphs, have {len(paras)}")
    holes = (7, 61, 62, 63) if n_articles >= 80 else ()
    author_names = ["И. Петров", "А. Смирнова", "В. Кузнецов", "Е. Соколова", "Д. Попов"]
    authors = {_slug(name, i): name for i, name in enumerate(author_names, start=1)}
    slugs = list(authors)
    articles: dict[int, _Article] = {}
    for n in range(1, n_articles + 1):
        if n in holes:
            continue
        chunk = paras[(n - 1) * PARAGRAPHS_PER_ARTICLE : n * PARAGRAPHS_PER_ARTICLE]
        title = f"{chunk[0][0]}: выпуск {n}"
        articles[n] = _Article(n, title, slugs[n % len(slugs)], tuple(p for _, p in chunk))
    news_paras = paras[n_articles * PARAGRAPHS_PER_ARTICLE :][:12]
    news = [(f"Новость {i}: {w}", p) for i, (w, p) in enumerate(news_paras, start=1)]
    content = _Content(
        layout, articles, news, authors, holes=holes, slow_seconds=slow_seconds, numbered=numbered
    )
    if kind == "first":
        numbers = sorted(articles)
        if len(numbers) < 12:
            raise ValueError(f"n_articles={n_articles}: the first library needs at least 12")
        spots = [numbers[k * len(numbers) // 6] for k in range(1, 6)]
        content.slow, content.broken, content.flaky, content.blocked, content.pdf = spots
        english = _english_paragraphs()
        content.pdf_text = "\n\n".join(english)
        pdf_title = f"Technical report {content.pdf}"
        content.pdf_bytes = make_pdf(pdf_title, content.pdf_text)
        articles[content.pdf] = _Article(content.pdf, pdf_title, slugs[0], tuple(english))
    else:
        _plant(content, first)
    return content


def _plant(content: _Content, first: Site | None) -> None:
    """Every 8th second-library article becomes a light edit of a first-library article."""
    if first is not None:
        sources = [
            (url, text)
            for url, text in sorted(first.articles.items(), key=lambda kv: _number(kv[0]))
            if url != first.pdf_url
        ]
    else:
        base = _build("first", 200, 0.0, None)
        sources = [
            (base.path(n), a.text)
            for n, a in sorted(base.articles.items())
            if n not in (base.pdf, base.broken, base.blocked)
        ]
    for k, n in enumerate(sorted(content.articles)[::8]):
        src_url, src_text = sources[(k * 7 + 3) % len(sources)]
        old = content.articles[n]
        paras = src_text.split("\n\n")
        edited = tuple(_light_edit(p, seed=n * 100 + i) for i, p in enumerate(paras))
        content.articles[n] = _Article(n, old.title, old.author, edited)
        content.planted[n] = src_url


def _number(url: str) -> int:
    found = re.findall(r"\d+", urlsplit(url).path + "?" + urlsplit(url).query)
    return int(found[-1]) if found else 0


# -- HTML ---------------------------------------------------------------------------------
def _page(content: _Content, title: str, body: str) -> str:
    lay = content.layout
    nav = " | ".join(
        f'<a href="{href}">{escape(label)}</a>'
        for href, label in (
            ("/", "Главная"),
            (lay.listing.format(k=1), "Архив"),
            (lay.news_index, "Новости"),
            (lay.profile_index, "Авторы"),
            ("/about", "О журнале"),
        )
    )
    return (
        '<!DOCTYPE html>\n<html lang="ru"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title></head><body>"
        f'<header><p class="logo">{escape(lay.name)}</p><nav>{nav}</nav></header>'
        f"<main>{body}</main>"
        "<footer><p>© Редакция. Все права защищены. Подписка, реклама, контакты.</p>"
        "</footer></body></html>"
    )


def _link_list(items: list[tuple[str, str]]) -> str:
    lis = "".join(f'<li><a href="{escape(h)}">{escape(t)}</a></li>' for h, t in items)
    return f"<ul>{lis}</ul>"


def _home(content: _Content) -> str:
    lay = content.layout
    latest = [(content.path(a.number), a.title) for a in content.newest(5)]
    news = [(lay.news.format(i=i), t) for i, (t, _) in enumerate(content.news[:3], start=1)]
    some = content.newest(1, skip=min(30, len(content.articles) // 2))
    extra = [
        (lay.private + "drafts", "Черновики редакции"),
        ("https://example.org/partner", "Партнёры"),
        ("mailto:editor@example.org", "Написать редактору"),
        ("javascript:void(0)", "Версия для печати"),
    ]
    if some:
        extra.insert(0, (f"/go/{some[0].number}", "Случайная статья"))
    body = (
        f"<h1>{escape(lay.name)}</h1><section><h2>Новые статьи</h2>{_link_list(latest)}</section>"
        f"<section><h2>Новости</h2>{_link_list(news)}</section>"
        f"<section><h2>Ещё</h2>{_link_list(extra)}</section>"
    )
    return _page(content, lay.name, body)


def _listing(content: _Content, k: int) -> str | None:
    lay = content.layout
    pages = max(1, -(-len(content.articles) // PER_PAGE))
    if not 1 <= k <= pages:
        return None
    newest = content.newest(PER_PAGE, (k - 1) * PER_PAGE)
    items = [(content.path(a.number), a.title) for a in newest]
    nav = []
    if k > 1:
        nav.append((lay.listing.format(k=k - 1), "Назад"))
    if k < pages:
        nav.append((lay.listing.format(k=k + 1), "Дальше"))
    body = f"<h1>Архив, страница {k}</h1>{_link_list(items)}<nav>{_link_list(nav)}</nav>"
    return _page(content, f"Архив — {k}", body)


def _article_html(content: _Content, a: _Article) -> str:
    lay = content.layout
    paras = "".join(f"<p>{escape(p)}</p>" for p in a.paragraphs)
    related = [
        (content.path(n), content.articles[n].title)
        for n in (a.number - 1, a.number + 1)
        if n in content.articles
    ]
    author = content.authors[a.author]
    body = (
        f"<article><h1>{escape(a.title)}</h1>"
        f'<p class="byline">Автор: <a href="{lay.profile.format(slug=a.author)}">'
        f"{escape(author)}</a></p>{paras}</article>"
        f"<aside><h2>Читайте также</h2>{_link_list(related)}</aside>"
    )
    return _page(content, a.title, body)


def _news_html(content: _Content, i: int) -> str | None:
    if not 1 <= i <= len(content.news):
        return None
    title, text = content.news[i - 1]
    links = [(content.path(a.number), a.title) for a in content.newest(2, skip=i)]
    body = f"<article><h1>{escape(title)}</h1><p>{escape(text)}</p></article>{_link_list(links)}"
    return _page(content, title, body)


def _profile_html(content: _Content, slug: str) -> str | None:
    if slug not in content.authors:
        return None
    lay = content.layout
    name = content.authors[slug]
    mine = [a for a in content.newest(len(content.articles)) if a.author == slug][:5]
    links = [(content.path(a.number), a.title) for a in mine]
    body = (
        f"<h1>{escape(name)}</h1><p>Профиль автора. Зарегистрирован на сайте, публикует "
        f"статьи в журнале «{escape(lay.name)}».</p>{_link_list(links)}"
    )
    return _page(content, f"Профиль: {name}", body)


# -- server -------------------------------------------------------------------------------
def _handler(content: _Content, log: RequestLog) -> type[BaseHTTPRequestHandler]:
    lay = content.layout
    token = r"(\d+)" if content.numbered else r"(article-[a-z]+)"
    article_re = re.compile("^" + re.escape(lay.article).replace(r"\{n\}", token) + "$")

    class Handler(BaseHTTPRequestHandler):
        server_version = "FakeLibrary/1.0"
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def do_HEAD(self) -> None:
            self._serve(head=True)

        def do_GET(self) -> None:
            self._serve(head=False)

        def _serve(self, *, head: bool) -> None:
            log.add(self.command, self.path)  # on arrival (a slow page is logged at once)
            status, ctype, payload, headers = self._route()
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            if not head:
                self.wfile.write(payload)

        def _route(self) -> tuple[int, str, bytes, dict[str, str]]:
            target = self.path
            split = urlsplit(target)
            path = split.path
            query = parse_qs(split.query)
            html = "text/html; charset=utf-8"
            if path == "/robots.txt":
                rules = "".join(f"Disallow: {r}\n" for r in content.robots_rules())
                return 200, "text/plain", f"User-agent: *\n{rules}".encode(), {}
            if path == "/redirect" and "to" in query:
                return 302, html, b"", {"Location": query["to"][0]}
            match = re.fullmatch(r"/go/(\d+)", path)
            if match:
                return 301, html, b"", {"Location": content.path(match.group(1))}
            match = article_re.match(target)
            number = content.number_of(match.group(1)) if match else None
            if number is not None:
                return self._article(number)
            page = self._page(target, path, query)
            if page is None:
                return 404, html, _page(content, "Не найдено", "<h1>404</h1>").encode(), {}
            return 200, html, page.encode("utf-8"), {}

        def _page(self, target: str, path: str, query: dict[str, list[str]]) -> str | None:
            if path == "/":
                return _home(content)
            listing_path = lay.listing.split("?")[0]
            if path == listing_path:
                try:
                    return _listing(content, int(query.get("page", ["1"])[0]))
                except ValueError:
                    return None
            if path == lay.news_index:
                items = [(lay.news.format(i=i), t) for i, (t, _) in enumerate(content.news, 1)]
                return _page(content, "Новости", f"<h1>Новости</h1>{_link_list(items)}")
            match = re.fullmatch(re.escape(lay.news).replace(r"\{i\}", r"(\d+)"), path)
            if match:
                return _news_html(content, int(match.group(1)))
            if path == lay.profile_index:
                items = [(lay.profile.format(slug=s), n) for s, n in content.authors.items()]
                return _page(content, "Авторы", f"<h1>Авторы</h1>{_link_list(items)}")
            if path.startswith(lay.profile_index):
                return _profile_html(content, path[len(lay.profile_index) :])
            if path == "/about":
                text = "О журнале. Редакция принимает статьи по филологии и истории литературы."
                return _page(content, "О журнале", f"<h1>О журнале</h1><p>{text}</p>")
            if path.startswith(lay.private):
                hidden = content.newest(1)[0].number + 1000
                link = _link_list([(content.path(hidden), "Черновик")])
                return _page(content, "Черновики", f"<h1>Черновики</h1>{link}")
            return None

        def _article(self, n: int) -> tuple[int, str, bytes, dict[str, str]]:
            html = "text/html; charset=utf-8"
            if n == content.broken:
                return 500, "text/plain", b"Internal Server Error", {}
            if n == content.flaky:
                with content.lock:
                    first_time = n not in content.flaky_served
                    content.flaky_served.add(n)
                if first_time:
                    return 503, "text/plain", b"Service Unavailable", {"Retry-After": "0"}
            if n == content.slow:
                time.sleep(content.slow_seconds)
            if n == content.pdf:
                return 200, "application/pdf", content.pdf_bytes, {}
            article = content.articles.get(n)
            if article is None:
                return 404, html, _page(content, "Не найдено", "<h1>404</h1>").encode(), {}
            return 200, html, _article_html(content, article).encode("utf-8"), {}

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def handle_error(self, request: object, client_address: object) -> None:
        """Clients that hang up (timeouts, a killed crawler) are normal here: stay quiet."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextmanager
def serve_library(
    *,
    kind: Literal["first", "second"] = "first",
    n_articles: int = 200,
    port: int = 0,
    slow_seconds: float = 0.3,
    first: Site | None = None,
    numbered: bool = True,
) -> Iterator[Site]:
    """Serve a fake digital library on 127.0.0.1 in a background thread.

    Args:
        kind: ``"first"`` or ``"second"`` (planted near-duplicates of the first's articles).
        n_articles: article numbers 1..n_articles (a few are holes or special pages).
        port: TCP port, 0 for a free one.
        slow_seconds: how long the slow article takes to answer (``kind="first"``).
        first: for ``kind="second"``: the running first library, so ``Site.planted`` maps to
            its absolute URLs; without it the values are first-library paths (``/post/N``).
        numbered: ``False``: articles have slug addresses without numbers
            (``/post/article-bc``), so no range pattern exists (the crawler follows links).

    Yields:
        The :class:`Site`; the server stops when the block exits.
    """
    if kind not in LAYOUTS:
        raise ValueError(f"kind={kind!r}; allowed: first, second")
    content = _build(kind, n_articles, slow_seconds, first, numbered)
    log = RequestLog()
    server = _Server(("127.0.0.1", port), _handler(content, log))
    thread = threading.Thread(target=server.serve_forever, name="fake-library", daemon=True)
    thread.start()
    try:
        yield _site(content, log, f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _site(content: _Content, log: RequestLog, base: str) -> Site:
    lay = content.layout

    def url(n: int) -> str:
        return base + content.path(n)

    skip = {content.broken, content.blocked} - {0}
    articles = {url(n): a.text for n, a in sorted(content.articles.items()) if n not in skip}
    titles = {url(n): a.title for n, a in sorted(content.articles.items())}
    pages = max(1, -(-len(content.articles) // PER_PAGE))
    non_articles = [base + "/", base + "/about", base + lay.news_index, base + lay.profile_index]
    non_articles += [base + lay.listing.format(k=k) for k in range(1, pages + 1)]
    non_articles += [base + lay.news.format(i=i) for i in range(1, len(content.news) + 1)]
    non_articles += [base + lay.profile.format(slug=s) for s in content.authors]
    planted = {url(n): src for n, src in content.planted.items()}

    def special(n: int) -> str:
        return url(n) if n else ""

    return Site(
        base_url=base,
        articles=articles,
        robots_disallowed=content.robots_rules(),
        titles=titles,
        clarification=lay.clarification,
        pattern=base + lay.article if content.numbered else "",
        numbers=tuple(sorted(content.articles)),
        non_articles=tuple(non_articles),
        slow_url=special(content.slow),
        broken_url=special(content.broken),
        flaky_url=special(content.flaky),
        pdf_url=special(content.pdf),
        blocked_url=special(content.blocked),
        go_target=url(content.newest(1, skip=min(30, len(content.articles) // 2))[0].number),
        holes=content.holes,
        planted=planted,
        log=log,
    )
