"""Markup to clean text: HTML main text (trafilatura) and MediaWiki text (mwparserfromhell).

HTML follows the premise of SpotSigs (Theobald et al., SIGIR 2008): near-duplicate web pages
should be compared on their main content, not on navigation, ads and boilerplate. trafilatura
(https://trafilatura.readthedocs.io) extracts the main text; when it finds nothing (a page
that is all navigation, a fragment, broken markup), the fallback is all visible text
(libxml2's HTML parser through lxml, without ``script``/``style``/``head`` content).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import re
import threading
import time
from collections.abc import Iterator
from typing import Protocol

from neardup.errors import NeardupError, ParameterError
from neardup.options import OPTIONS
from neardup.text.types import ContentType

#: Tags whose content is never visible text.
_INVISIBLE = frozenset(
    {"script", "style", "noscript", "template", "head", "title", "svg", "math", "iframe"}
)
#: Tags that break a line (block-level and line-breaking elements).
_BLOCK = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5",
        "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table",
        "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    }
)  # fmt: skip
#: Block elements without content or end tag.
_VOID = frozenset({"br", "hr"})
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")
#: mwparserfromhell link namespaces dropped with their text (media and categories).
_DROP_LINK_PREFIXES = ("file:", "image:", "media:", "category:", "файл:", "изображение:",
                       "категория:")  # fmt: skip
_DROP_WIKI_TAGS = frozenset({"ref", "references", "gallery", "math", "timeline", "score"})


#: CPU seconds an HTML page's main-text extraction may use (plus :data:`HTML_BUDGET_S_PER_MB`
#: per MB of markup); past it the page's visible text is taken instead (linear, stdlib).
HTML_BUDGET_S = 5.0
HTML_BUDGET_S_PER_MB = 5.0


class CPUBudgetError(NeardupError):
    """Work on one document used more CPU time than its budget (see :func:`cpu_budget`)."""

    def __init__(self, what: str, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"{what} used more than its CPU budget of {seconds:g} s")


class _Overrun(BaseException):
    """Raised inside the watched thread (a BaseException: ``except Exception`` in a
    third-party library does not swallow it)."""


class _Watchdog:
    """One daemon thread polling the CPU clocks of the threads under a budget."""

    POLL_S = 0.02
    #: CPU seconds between two overruns raised in a thread that is still in its block (an
    #: exception raised while the thread runs a ``gc`` callback or a ``__del__`` is
    #: swallowed by the interpreter, so one alone may never reach the block).
    REFIRE_S = 0.25

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watched: dict[int, tuple[int, float]] = {}  # thread id -> (clock, deadline)
        self.fired: set[int] = set()
        self._thread: threading.Thread | None = None

    def watch(self, tid: int, clock: int, deadline: float) -> None:
        with self._lock:
            self._watched[tid] = (clock, deadline)
            self.fired.discard(tid)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="cpu-budget", daemon=True)
                self._thread.start()

    def release(self, tid: int) -> bool:
        """Stop watching ``tid``; True when its budget ran out (a pending overrun of the
        thread is cleared, so it cannot surface after the watched block)."""
        with self._lock:
            self._watched.pop(tid, None)
            fired = tid in self.fired
            if fired:
                self.fired.discard(tid)
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), None)
            return fired

    def _run(self) -> None:
        while True:
            time.sleep(self.POLL_S)
            with self._lock:
                if not self._watched:
                    self._thread = None
                    return
                for tid, (clock, deadline) in list(self._watched.items()):
                    try:
                        used = time.clock_gettime(clock)
                    except OSError:  # the thread is gone: its clock with it
                        del self._watched[tid]
                        continue
                    if used > deadline:
                        self.fired.add(tid)
                        self._watched[tid] = (clock, used + self.REFIRE_S)
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(
                            ctypes.c_ulong(tid), ctypes.py_object(_Overrun)
                        )


_WATCHDOG = _Watchdog()


def _release(tid: int) -> bool:
    """:meth:`_Watchdog.release`, taking an overrun raised again before it ran."""
    overran = False
    while True:
        try:
            return _WATCHDOG.release(tid) or overran
        except _Overrun:
            overran = True


@contextlib.contextmanager
def cpu_budget(seconds: float, what: str = "extraction") -> Iterator[None]:
    """Stop the calling thread's work once it has used ``seconds`` of CPU time.

    A watchdog thread reads the thread's own CPU clock (``pthread_getcpuclockid``) every
    20 ms and, past the budget, raises an exception in it at its next Python instruction
    (again every 0.25 s of CPU while the block runs on, in case one was swallowed);
    it leaves the block as :class:`CPUBudgetError`. Work inside a single C call (lxml,
    zlib, Resiliparse) is stopped when the call returns. Nested budgets are not supported
    (the inner one replaces the outer).

    Args:
        seconds: CPU seconds allowed (> 0).
        what: named in the error.

    Raises:
        ParameterError: ``seconds`` is not positive.
        CPUBudgetError: the block used more than ``seconds`` of CPU.
    """
    if not seconds > 0:
        raise ParameterError("seconds", seconds, "a positive number of CPU seconds")
    tid = threading.get_ident()
    clock = time.pthread_getcpuclockid(tid)
    _WATCHDOG.watch(tid, clock, time.clock_gettime(clock) + seconds)
    overrun = False
    try:
        yield
    except _Overrun:
        overrun = True
    finally:
        overrun = _release(tid) or overrun
    if overrun:
        raise CPUBudgetError(what, seconds)


def extract(
    text: str, content_type: ContentType, *, extractor: str = OPTIONS["extractor"].default
) -> str:
    """Clean text of a document whose markup is ``content_type``.

    Args:
        text: the decoded document.
        content_type: ``"html"`` (:func:`html_to_text`), ``"wiki"`` (:func:`wiki_to_text`)
            or ``"text"`` (returned unchanged).
        extractor: the HTML main-text extractor, one of :data:`neardup.options.EXTRACTORS`.

    Returns:
        The clean text (may be ``""``).

    Raises:
        ParameterError: ``content_type`` is none of the three, or a bad ``extractor``.
    """
    if content_type == "html":
        return html_to_text(text, extractor=extractor)
    if content_type == "wiki":
        return wiki_to_text(text)
    if content_type == "text":
        return text
    raise ParameterError("content_type", content_type, "one of text, html, wiki")


def html_to_text(html: str, *, extractor: str = OPTIONS["extractor"].default) -> str:
    """Main text of an HTML page, boilerplate removed.

    ``extractor="resiliparse"`` (the default): Resiliparse's
    ``extract_plain_text(main_content=True)`` (Bevendorff et al., "Elastic ChatNoir", ECIR
    2018; the Resiliparse toolkit), block formatting kept; list bullets, alt texts, comment
    sections and post metadata off.
    On the article-extraction benchmark (``benchmarks/bench_extraction.py``, 181 pages) it
    scores about the same token F1 as trafilatura at tens of times its speed (the README
    has the table). When it finds nothing, trafilatura's path below runs.

    ``extractor="trafilatura"``:

    trafilatura ``extract(favor_precision=True, include_comments=False,
    include_tables=True)``, plain-text output, paragraphs on their own lines, no network
    access; when that finds nothing, the same with ``favor_recall=True``; when that finds
    nothing either, all visible text of the page (see :func:`visible_text`). Precision first
    because boilerplate shared by the pages of a site makes them look alike; on the
    article-extraction benchmark (``benchmarks/bench_extraction.py``, 181 pages) it scores
    mean token F1 0.965 against 0.959 for ``favor_recall``.

    Args:
        html: an HTML document or fragment, possibly malformed.

    Returns:
        The text; ``""`` when the page has no visible text. Never raises on bad markup.
        Main-text extraction has a CPU budget (:data:`HTML_BUDGET_S` plus
        :data:`HTML_BUDGET_S_PER_MB` a MB, :func:`cpu_budget`); past it, the visible text.
    """
    OPTIONS["extractor"].check(extractor)
    if not html or not html.strip():
        return ""
    budget = HTML_BUDGET_S + HTML_BUDGET_S_PER_MB * len(html) / 1e6
    try:
        with cpu_budget(budget, "HTML main-text extraction"):
            return _main_text(html, extractor)
    except CPUBudgetError:
        return visible_text(html)


def _main_text(html: str, extractor: str) -> str:
    if extractor == "resiliparse":
        main = _resiliparse(html)
        if main:
            return main
    main = _trafilatura(html, precision=True) or _trafilatura(html, precision=False)
    return main or visible_text(html)


def _resiliparse(html: str) -> str:
    from resiliparse.extract.html2text import extract_plain_text

    try:
        out = extract_plain_text(
            html,
            preserve_formatting=True,
            main_content=True,
            comments=False,
            post_meta=False,
            list_bullets=False,
            alt_texts=False,
            links=False,
            form_fields=False,
            noscript=False,
        )
    except Exception:  # a third-party parser on hostile input; fall back
        return ""
    # one paragraph a line, as trafilatura gives it
    return "\n".join(line for line in _tidy(out).split("\n") if line)


def _trafilatura(html: str, *, precision: bool) -> str:
    import trafilatura

    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    try:
        out = trafilatura.extract(
            html,
            favor_precision=precision,
            favor_recall=not precision,
            include_comments=False,
            include_tables=True,
            include_images=False,
            include_links=False,
            with_metadata=False,
            deduplicate=False,
        )
    except Exception:  # a third-party parser on hostile input; fall back
        return ""
    return (out or "").strip()


class HTMLEvents(Protocol):
    """What :func:`feed_html` calls: a start tag (lower-case name, attributes), an end tag
    and a piece of text (character references decoded)."""

    def start(self, tag: str, attrib: dict[str, str]) -> None: ...

    def end(self, tag: str) -> None: ...

    def data(self, data: str) -> None: ...


def feed_html(html: str, target: HTMLEvents) -> None:
    """Parse ``html`` with libxml2's HTML parser (lxml, recovering from any markup), calling
    ``target`` for each tag and text (comments, doctypes and processing instructions are
    skipped; every element gets its end, implied ones included).

    Linear in the length of the markup, where the stdlib :class:`html.parser.HTMLParser`
    rescans an unclosed ``<!--`` from every later ``<`` (600 KB of ``<!--``: minutes).
    Lone surrogates (not encodable) are read as U+FFFD. Never raises on bad markup: what
    was parsed before a failure stays reported.
    """
    from lxml import etree

    parser = etree.HTMLParser(
        target=_Close(target), recover=True, no_network=True, remove_comments=True
    )
    try:
        parser.feed(_SURROGATE.sub("\ufffd", html))
        parser.close()
    except Exception:  # keep what was parsed before the failure
        pass


class _Close:
    """An lxml parser target: ``target``'s callbacks, and the ``close`` lxml requires."""

    def __init__(self, target: HTMLEvents) -> None:
        self.start = target.start
        self.end = target.end
        self.data = target.data

    def close(self) -> None:
        return None


class _VisibleText:
    """Collects text outside invisible elements, with line breaks at block elements."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self._hidden: list[str] = []

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if tag in _INVISIBLE:
            self._hidden.append(tag)
        elif tag in _BLOCK:
            self.parts.append("\n")

    def end(self, tag: str) -> None:
        if tag in self._hidden:
            while self._hidden and self._hidden.pop() != tag:
                pass
        elif tag in _BLOCK and tag not in _VOID:  # <br> breaks one line, not two
            self.parts.append("\n")

    def data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    """All visible text of an HTML document (no ``script``/``style``/``head`` content).

    Block elements (``p``, ``div``, ``li``, ``br``, ...) end a line; runs of spaces collapse
    to one, blank-line runs to one blank line. Parsed by :func:`feed_html` (linear time).

    Returns:
        The text, stripped; ``""`` at worst (never raises).
    """
    parser = _VisibleText()
    feed_html(html, parser)
    return _tidy("".join(parser.parts))


def _tidy(text: str) -> str:
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def wiki_to_text(text: str) -> str:
    """Plain text of MediaWiki markup.

    mwparserfromhell: templates, ``<ref>``/``<gallery>``/``<math>`` tags and file, image and
    category links are removed; then ``strip_code()`` keeps link texts (or titles),
    external link titles, heading and table cell text, and drops comments and formatting.

    mwparserfromhell's tokenizer is quadratic on unclosed constructs (``<div class="``,
    ``{{a|``, ``[http://x y`` repeated: 36 KB of them take 12 s), so a text longer than
    :data:`WIKI_BLOCK` characters is parsed in blocks of at most that size, cut at the last
    blank line (else line break) where ``{{``/``}}`` and ``{|``/``|}`` are balanced, else
    hard; and once the parsing budget of the text (:data:`WIKI_BUDGET_S` plus
    :data:`WIKI_BUDGET_S_PER_MB` per million characters, CPU seconds) is spent, the rest
    is reduced by :func:`_plain_wiki` (linear regular expressions). Texts of ordinary pages
    (balanced markup) parse well inside the budget, so only hostile input is affected.

    Args:
        text: wikitext.

    Returns:
        The text, blank-line runs collapsed, character references to surrogates as U+FFFD;
        ``""`` at worst (never raises).
    """
    import mwparserfromhell

    parts: list[str] = []
    spent = 0.0
    budget = WIKI_BUDGET_S + WIKI_BUDGET_S_PER_MB * len(text) / 1e6
    for block, sep in _wiki_blocks(text, WIKI_BLOCK):
        if spent > budget:
            parts.append(_plain_wiki(block) + sep)
            continue
        t0 = time.thread_time()
        try:
            code = mwparserfromhell.parse(block)
            _drop_wiki_nodes(code)
            stripped = code.strip_code(normalize=True, collapse=True, keep_template_params=False)
        except Exception:  # the parser is lenient; this is a last resort
            stripped = ""
        spent += time.thread_time() - t0
        parts.append(stripped + sep)
    # mwparserfromhell decodes "&#xD800;" to a lone surrogate; HTML5 (and html.unescape)
    # give U+FFFD for a surrogate character reference, and so does this.
    return _SURROGATE.sub("\ufffd", _tidy("".join(parts)))


#: Largest block of wikitext parsed at once, characters (see :func:`wiki_to_text`).
WIKI_BLOCK = 8_000
#: Parsing time per text after which the rest is reduced by regular expressions:
#: ``WIKI_BUDGET_S + WIKI_BUDGET_S_PER_MB * characters / 1e6`` CPU seconds of the calling
#: thread (ordinary wikitext parses at about 6 MB/s, a sixth of that allowance; CPU time, so
#: a loaded machine does not change the output).
WIKI_BUDGET_S = 1.0
WIKI_BUDGET_S_PER_MB = 1.0
_BLOCK_BREAK = re.compile(r"\n[ \t]*\n")
_LINE_BREAK = re.compile(r"\n")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Possessive quantifiers (*+): no backtracking, linear time on unclosed constructs.
_WIKI_TEMPLATE = re.compile(r"\{\{[^{}]*+\}\}")
_WIKI_LINK = re.compile(r"\[\[(?:[^\[\]|]*+\|)?([^\[\]]*+)\]\]")
_WIKI_EXTERNAL = re.compile(r"\[(?:https?|ftp|mailto):[^\s\]]*+\s*+([^\]]*+)\]")
_WIKI_TAG = re.compile(r"<[^<>]*+>")
_WIKI_FORMAT = re.compile(r"'{2,}|^=+|=+$|\{\||\|\}|^\|-?|^!|\{\{|\}\}|\[\[|\]\]", re.M)


def _wiki_blocks(text: str, size: int) -> Iterator[tuple[str, str]]:
    """Consecutive blocks of ``text`` of at most ``size`` characters with their separators:
    ``(block, separator)``, ``"".join`` of both giving ``text`` back (see :func:`wiki_to_text`).
    """
    pos, n = 0, len(text)
    while pos < n:
        if n - pos <= size:
            yield text[pos:], ""
            return
        cut, end = _wiki_cut(text, pos, pos + size)
        yield text[pos:cut], text[cut:end]
        pos = end


def _wiki_cut(text: str, start: int, stop: int) -> tuple[int, int]:
    """``(cut, resume)``: the block ``text[start:cut]`` ends at the last balanced blank line
    (else line break, else ``stop``) before ``stop``; the separator ``text[cut:resume]``."""
    window = text[start:stop]
    for pattern in (_BLOCK_BREAK, _LINE_BREAK):
        best: tuple[int, int] | None = None
        done = 0
        balance = [0, 0]
        for m in pattern.finditer(window):
            piece = window[done : m.start()]
            balance[0] += piece.count("{{") - piece.count("}}")
            balance[1] += piece.count("{|") - piece.count("|}")
            done = m.start()
            if m.start() > 0 and balance == [0, 0]:
                best = (start + m.start(), start + m.end())
        if best is not None:
            return best
    return stop, stop


def _plain_wiki(block: str) -> str:
    """Cheap wikitext reduction (linear regexes) for text past the parsing budget."""
    for _ in range(3):  # innermost templates first, a few levels deep
        block = _WIKI_TEMPLATE.sub("", block)
    block = _WIKI_LINK.sub(r"\1", block)
    # an external link ends at a "]": none starts after the last one, and leaving that tail
    # out keeps the pattern linear (each "[http:" would scan to the end for a "]")
    cut = block.rfind("]") + 1
    block = _WIKI_EXTERNAL.sub(r"\1", block[:cut]) + block[cut:]
    block = _WIKI_TAG.sub("", block)
    return _WIKI_FORMAT.sub("", block)


def _drop_wiki_nodes(code) -> None:  # type: ignore[no-untyped-def]
    for template in code.filter_templates(recursive=False):
        _remove(code, template)
    for tag in code.filter_tags(recursive=True):
        if str(tag.tag).strip().lower() in _DROP_WIKI_TAGS:
            _remove(code, tag)
    for link in code.filter_wikilinks(recursive=True):
        title = str(link.title).strip().lower().lstrip(":")
        if title.startswith(_DROP_LINK_PREFIXES):
            _remove(code, link)


def _remove(code, node) -> None:  # type: ignore[no-untyped-def]
    with contextlib.suppress(ValueError):  # already removed with an enclosing node
        code.remove(node)
