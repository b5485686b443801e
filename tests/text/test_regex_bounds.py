"""Every regular expression and parser that sees input text, on its worst input, in time.

One case per row of ``docs/regex-audit.md``: the adversarial input of the pattern (the one
that made a backtracking pattern exponential, cubic or quadratic, or the longest runs its
character classes can be fed) through the public function that applies it, under a
deadline of :data:`BOUND_S` CPU seconds (``fuzz.guard.deadline``: CPU time, so a loaded
machine does not fail a linear pass; the wall-clock deadline is ten times longer). A
linear pass takes milliseconds; the patterns replaced in issue 41 took from tens of
seconds to hours on the inputs marked ``was``. The result is checked too, so a case
cannot pass by giving up.
"""

from __future__ import annotations

import importlib
import io
import random
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console

from fuzz.guard import deadline
from neardup.cli.pairview import print_passages
from neardup.corpus.segments import split_units
from neardup.crawl.links import page_links
from neardup.crawl.pattern import detect_pattern
from neardup.crawl.safety import UnsafeURLError, check_url
from neardup.errors import ParameterError
from neardup.evaluate.planted import _host_breaks, obfuscate
from neardup.index.codec import scrub as codec_scrub
from neardup.job.keep import _as_datetime
from neardup.methods.slst import cjk_word_delta
from neardup.passages.tokens import token_arrays
from neardup.text.canonical import CanonicalForm
from neardup.text.encoding import _russian_score
from neardup.text.scrub import scrub
from neardup.text.sentences import split_sentences
from neardup.text.sniff import is_html_document, looks_wiki, sniff_content_type
from neardup.text.title import title_of

extract = importlib.import_module("neardup.text.extract")  # the module, not the function

#: CPU seconds a case may take (generous for a slow CI machine; linear passes take ms).
BOUND_S = 2.0
MB = 1_000_000

XML_COMMENTS = '<?xml version="1.0" encoding="UTF-8"?>\n' + "<!-- Generated -->\n" * 40
WIKI_BLANKS = "==" + " " * 3000 + "a" + " " * 3000


def _expect(value: Any) -> Callable[[Any], bool]:
    return lambda got: got == value


def _planted_breaks() -> object:
    try:
        return _host_breaks("a" + "\n" * 60_000, 1, random.Random(0))
    except ParameterError as exc:
        return exc.name


def _print_passages(a: str, b: str) -> str:
    """What ``compare --passages`` prints for one passage: all of ``a`` against all of ``b``."""
    out = io.StringIO()
    passage = SimpleNamespace(a_start=0, a_end=len(a), b_start=0, b_end=len(b))
    print_passages(Console(file=out, width=100), [passage], a, b, name_a="A", name_b="B")
    return out.getvalue()


def _collection_name(name: str) -> str:
    from pydantic import ValidationError

    from neardup.service.api import CollectionIn

    try:
        return CollectionIn(name=name).name
    except ValidationError as exc:
        return str(exc.errors()[0]["type"])


def _url(url: str) -> str:
    try:
        return check_url(url, allow_private=True)
    except UnsafeURLError:
        return "refused"


# (case id, call, check of the result); "was" marks the inputs that hung the old code
CASES: list[tuple[str, Callable[[], Any], Callable[[Any], bool]]] = [
    # text/sniff.py
    ("sniff-html-start-xml-comments-was-exponential",
     lambda: is_html_document(XML_COMMENTS + "<svg>"), _expect(False)),
    ("sniff-html-start-xml-comments-html",
     lambda: is_html_document(XML_COMMENTS + "<html><body>x"), _expect(True)),
    ("sniff-notes-txt-40-comments-was-exponential",
     lambda: sniff_content_type("<!-- a -->\n" * 40 + "notes", name="notes.txt"),
     _expect("text")),
    ("sniff-html-start-unclosed-comment",
     lambda: is_html_document("<!--" * MB), _expect(False)),
    ("sniff-wiki-heading-blanks-was-cubic", lambda: looks_wiki(WIKI_BLANKS), _expect(False)),
    ("sniff-wiki-heading-many-lines",
     lambda: looks_wiki(("== " + " " * 50 + "a" + " " * 50 + "=\n") * 5000), _expect(False)),
    ("sniff-dense-tags-unclosed",
     lambda: sniff_content_type("<p " * 300_000), _expect("text")),
    ("sniff-dense-tags-long-attribute",
     lambda: sniff_content_type("<div " + "a" * MB), _expect("text")),
    ("sniff-wiki-links-unclosed", lambda: looks_wiki("[[a" * MB), _expect(False)),
    ("sniff-wiki-links-urls-one-line",
     lambda: looks_wiki("[[http://x]] " * 100_000), _expect(False)),
    ("sniff-wiki-templates-bold-unclosed",
     lambda: looks_wiki("{{a" * 300_000 + "'''a" * 300_000), _expect(False)),
    # text/title.py
    ("title-wiki-blanks-was-cubic",
     lambda: title_of(WIKI_BLANKS + "\n= T =", name="a.wiki"), _expect("T")),
    ("title-atx-closing-run-was-quadratic",
     lambda: title_of("# a" + " #" * 32_000 + "x", name="a.md"),
     _expect(("a" + " #" * 32_000)[:300])),
    ("title-h1-repeated-was-quadratic",
     lambda: title_of("<h1>" * 16_000, name="a.html"), _expect("")),
    ("title-title-repeated-was-quadratic",
     lambda: title_of("<title>" * 9_000, name="a.html"), _expect("")),
    ("title-unclosed-tags-in-title-was-quadratic",
     lambda: title_of("<title>T" + "<" * 60_000 + "</title>", name="a.html"),
     _expect("T" + "<" * 299)),
    ("title-open-tag-without-end", lambda: title_of("<title" * 10_000, name="a.htm"), _expect("")),
    ("title-setext-rst-adoc-long-lines",
     lambda: [title_of(("=" * 30_000 + "x\n") * 2 + "Title\n=====\n", name=n)
              for n in ("a.md", "a.rst", "a.adoc")],
     _expect(["Title", "Title", ""])),
    # text/extract.py
    ("visible-text-unclosed-comments-was-quadratic",
     lambda: extract.visible_text("<p>a</p>" + "<!--" * 150_000), _expect("a")),
    ("visible-text-unclosed-tags", lambda: extract.visible_text("<a " * 300_000), _expect("")),
    ("visible-text-lt-runs", lambda: extract.visible_text("<" * MB), _expect("<" * MB)),
    ("visible-text-blank-runs",
     lambda: extract.visible_text("<p>a" + " \t\n" * 300_000 + "b</p>"), _expect("a\n\nb")),
    ("plain-wiki-external-links-was-quadratic",
     lambda: len(extract._plain_wiki("[http:a " * 40_000)), _expect(8 * 40_000)),
    ("plain-wiki-templates-links-tags",
     lambda: len(extract._plain_wiki("{{a" * 100_000 + "[[a|" * 100_000 + "<a" * 100_000)),
     _expect(3 * 100_000 + 4 * 100_000 + 2 * 100_000 - 4 * 100_000)),
    # crawl/links.py, crawl/pattern.py, crawl/safety.py
    ("page-links-unclosed-comments-was-quadratic",
     lambda: page_links("<a href='/x'>x</a>" + "<!--" * 150_000, "http://h/").links,
     _expect(("http://h/x",))),
    ("page-links-unclosed-attributes",
     lambda: page_links('<a href="' * 200_000, "http://h/").links, _expect(())),
    ("crawl-pattern-digit-runs",
     lambda: detect_pattern([f"http://h/{'1/' * 900}{i}" for i in range(50)]),
     lambda got: got is not None and got.high == 49),
    ("crawl-safety-ipv4-forms", lambda: _url("http://" + "0." * 999 + "1/"), _expect("refused")),
    # text/sentences.py
    ("sentences-list-number-long-indent-was-quadratic",
     lambda: len(split_sentences(" " * 40_000 + "(. A" * 10_000)), _expect(10_001)),
    ("sentences-point-runs-and-blanks",
     lambda: len(split_sentences("a" + "." * 300_000 + " " * 300_000 + "\n" * 300_000 + "x")),
     _expect(2)),
    ("sentences-openers-after-points",
     lambda: len(split_sentences(("a. " + "«" * 1000 + "b ") * 300)), _expect(1)),
    # passages/tokens.py
    ("passages-sentence-end-point-run-was-quadratic",
     lambda: token_arrays("one two three" + "." * 45_000 + "x", "one two")[0].sentences,
     _expect(1)),
    ("passages-sentence-end-blank-runs",
     lambda: token_arrays("a\n" + " \t" * 300_000 + "b" + "!" * 300_000, "a")[0].sentences,
     _expect(1)),
    # text/canonical.py, text/vectorized.py, text/scrub.py, text/encoding.py, index/codec.py
    ("canonical-tokens-long-runs",
     lambda: len(CanonicalForm().tokens("a" * MB + " " * MB + "中" * 100_000)), _expect(100_001)),
    ("scrub-surrogates", lambda: len(scrub("\ud800" * MB)), _expect(MB)),
    ("codec-scrub-nul-surrogates", lambda: len(codec_scrub("\x00\udc00" * MB)), _expect(2 * MB)),
    ("encoding-russian-score-long-word",
     lambda: _russian_score("я" * MB + "!" * MB) > 0, _expect(True)),
    # corpus/units.py, methods/slst.py
    ("corpus-paragraph-separator-blank-runs",
     lambda: len(split_units("a\n" + " " * MB + "b\n\n" + "\n \t" * 300_000 + "c", "paragraph")),
     _expect(2)),
    ("slst-cjk-runs-none", lambda: cjk_word_delta("a" * MB + "!"), _expect(0)),
    # cli/pairview.py
    ("pairview-unclosed-markers-was-quadratic",
     lambda: _print_passages("x", "[-a " * 40_000).count("[-a"), _expect(40_000)),
    # evaluate/planted.py
    ("planted-line-break-run-was-quadratic", _planted_breaks, _expect("host")),
    ("planted-obfuscate-blank-runs",
     lambda: len(obfuscate("a" + " " * MB + "b", "none", random.Random(0), ["w"])) > 0,
     _expect(True)),
    # service/api.py (pydantic-core's Rust regex engine)
    ("service-collection-name-pattern",
     lambda: [_collection_name(n) for n in ("a" * MB + "/", " " * 199 + "\x00", "docs")],
     _expect(["string_too_long", "string_pattern_mismatch", "docs"])),
    # job/keep.py
    ("keep-iso-date-long-digits", lambda: _as_datetime("1" * MB + "x"), _expect(None)),
]  # fmt: skip


@pytest.mark.parametrize(("call", "check"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pattern_is_bounded_on_its_worst_input(
    call: Callable[[], Any], check: Callable[[Any], bool]
) -> None:
    with deadline(BOUND_S):
        got = call()
    assert check(got), repr(got)[:300]
