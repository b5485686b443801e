"""sniff_content_type(): extension first, then content; AsciiDoc and rST stay text."""

from __future__ import annotations

import json

import pytest

from neardup.text.sniff import sniff_content_type
from shared_data import data_path

WIKI = """{{Infobox settlement
| name = Moscow
}}
'''Moscow''' is the capital and largest city of [[Russia]].
== History ==
The city was first mentioned in 1147.<ref>Chronicle</ref>
[[Category:Cities in Russia]]
"""
ASCIIDOC = """[[_setting_up_server]]
=== Настраиваем сервер

Давайте рассмотрим настройку доступа по SSH на стороне сервера.

[[r_github_flow]]
==== Рабочий процесс

Смотрите <<_remote_repos>> и ``их'' версию.
"""
RST = """High Speed Synchronous Serial Interface (HSI)
=============================================

Introduction
---------------

See [[https://msdn.microsoft.com/en-us/library/ee484414.aspx]] and
[[mailto:mina86@mina86.com]].

.. code-block:: html

   <div><p>an example</p></div>
"""
HTML_PAGE = "<!DOCTYPE html>\n<html><head><title>T</title></head><body><p>Hi</p></body></html>"


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("page.html", "just words", "html"),
        ("PAGE.HTM.gz", "just words", "html"),
        ("dir/article.wiki", "just words", "wiki"),
        ("x.mediawiki", "just words", "wiki"),
        ("notes.txt", WIKI, "text"),
        ("notes.txt", HTML_PAGE, "html"),  # a text extension with a clearly HTML body
        ("README.md", "Use <b>bold</b> and <i>italic</i> and <br> breaks.\n" * 3, "text"),
        ("index.rst.gz", RST, "text"),
        ("book.asc", ASCIIDOC, "text"),
        ("noext", WIKI, "wiki"),
        ("data.bin", HTML_PAGE, "html"),
    ],
)
def test_by_extension(name: str, text: str, expected: str) -> None:
    assert sniff_content_type(text, name=name) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (HTML_PAGE, "html"),
        ('<?xml version="1.0"?>\n<!-- c -->\n<html xmlns="x"><body>x</body></html>', "html"),
        ("\ufeff  <!doctype HTML><p>x", "html"),
        ("<div>\n<p>Первый абзац.</p>\n<p>Второй абзац.</p>\n</div>", "html"),  # fragment
        ("Use the <b> tag for bold text, then close it.", "text"),
        (WIKI, "wiki"),
        ("'''Moscow''' is the capital of [[Russia]].", "wiki"),
        ("== History ==\nText with a [[Kremlin|fortress]] link.", "wiki"),
        ("[[Category:Cities]]\n== See also ==\n", "wiki"),
        ("'''Bold''' alone is one kind of markup only.", "text"),
        ("See [[Russia]] and [[Moscow]].", "text"),  # links alone: one kind
        (ASCIIDOC, "text"),
        (ASCIIDOC + "\n'''\n", "text"),  # AsciiDoc thematic break, not bold
        (RST, "text"),
        ("Plain words.\n\nMore plain words.", "text"),
        ("", "text"),
    ],
)
def test_by_content(text: str, expected: str) -> None:
    assert sniff_content_type(text) == expected


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.parametrize("corpus", ["progit-ru-revisions", "linux-doc-revisions"])
def test_real_asciidoc_and_rst_docs_are_text(corpus: str) -> None:
    path = data_path(corpus, "docs.jsonl")
    not_text = []
    count = 0
    with path.open(encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            count += 1
            for name in ("", doc["id"]):
                if sniff_content_type(doc["text"], name=name) != "text":
                    not_text.append((doc["id"], name))
    assert count > 200
    assert not_text == []
