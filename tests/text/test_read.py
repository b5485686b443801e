"""read_corpus() on a built tree: ids, skip reasons and texts, JSONL, CSV, limits, errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from neardup.errors import InputError, ParameterError
from neardup.text.read import read_corpus
from neardup.text.types import Document, Skipped

MAX = 1000
HTML = """<!DOCTYPE html><html><head><title>T</title><script>var x = 1;</script></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Заголовок</h1>
<p>Первый абзац статьи о погоде в Москве, где сегодня идёт снег и дует ветер.</p>
<p>Second paragraph of the article, long enough to count as main content.</p></article>
<footer>Copyright 2024</footer></body></html>"""
HTML_TEXT = (
    "Заголовок\nПервый абзац статьи о погоде в Москве, где сегодня идёт снег и дует ветер.\n"
    "Second paragraph of the article, long enough to count as main content."
)
CP1251 = "Привет, мир! Это проверка старой кодировки Windows."


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "a.txt").write_text("Hello world.\n", encoding="utf-8")
    (root / "sub" / "deep" / "b.txt.gz").write_bytes(gzip.compress("Вложенный текст.".encode()))
    (root / "sub" / "c.md").write_text("# Title\n\nSome *markdown*.", encoding="utf-8")
    (root / "page.html").write_text(HTML, encoding="utf-8")
    (root / "empty.txt").write_bytes(b"")
    (root / "blank.rst").write_text(" \n\t\n", encoding="utf-8")
    (root / "bin.txt").write_bytes(bytes(range(256)) * 2)
    (root / "cp1251.txt").write_bytes(CP1251.encode("cp1251"))
    (root / "noise.txt").write_bytes(bytes(range(128, 256)) * 3)  # no encoding fits
    (root / "big.txt").write_bytes(b"x" * (MAX + 1))
    (root / "exact.txt").write_bytes(b"y" * MAX)
    (root / "bomb.txt.gz").write_bytes(gzip.compress(b"a" * 200_000))  # 230 bytes on disk
    (root / "notgz.txt.gz").write_bytes(b"not gzip at all")
    (root / "truncated.txt.gz").write_bytes(gzip.compress(b"some text " * 50)[:30])
    (root / "broken.html").write_text("<p>Broken <b>markup</p></span><td>cell", encoding="utf-8")
    (root / "scripts.htm").write_text("<html><script>x()</script></html>", encoding="utf-8")
    (root / "article.wiki").write_text("'''Moscow''' is in [[Russia]].", encoding="utf-8")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4")
    (root / "records.jsonl").write_text('{"id": "x", "text": "y"}\n', encoding="utf-8")
    (root / "README").write_text("no suffix", encoding="utf-8")
    return root


def _summary(items: list[Document | Skipped]) -> list[tuple[str, str]]:
    return [(x.id, x.reason if isinstance(x, Skipped) else x.content_type) for x in items]


def test_directory_tree(tree: Path) -> None:
    items = list(read_corpus([tree], max_bytes=MAX))
    assert _summary(items) == [
        ("README", "text"),  # no known kind: read as text, since it decodes as text
        ("a.txt", "text"),
        ("article.wiki", "wiki"),
        ("big.txt", "oversize"),
        ("bin.txt", "binary"),
        ("blank.rst", "empty"),
        ("bomb.txt.gz", "oversize"),
        ("broken.html", "html"),
        ("broken.pdf", "unreadable"),  # a PDF header and nothing else
        ("cp1251.txt", "text"),
        ("empty.txt", "empty"),
        ("exact.txt", "text"),
        ("noise.txt", "undecodable"),
        ("notgz.txt.gz", "unreadable"),
        ("page.html", "html"),
        ("x", "text"),  # records.jsonl: a record file in a tree is read as records
        ("scripts.htm", "no-text"),
        ("sub/c.md", "text"),
        ("sub/deep/b.txt.gz", "text"),
        ("truncated.txt.gz", "unreadable"),
    ]
    docs = {x.id: x for x in items if isinstance(x, Document)}
    assert docs["a.txt"] == Document("a.txt", "Hello world.\n", str(tree / "a.txt"), "text", 13)
    assert docs["cp1251.txt"].text == CP1251
    assert docs["cp1251.txt"].raw_bytes == len(CP1251)
    assert docs["sub/deep/b.txt.gz"].text == "Вложенный текст."
    assert docs["sub/deep/b.txt.gz"].raw_bytes == len("Вложенный текст.".encode())
    assert docs["page.html"].text == HTML_TEXT
    assert docs["broken.html"].text == "Broken markup\ncell"  # resiliparse keeps the stray <td>
    assert docs["article.wiki"].text == "Moscow is in Russia."
    assert docs["sub/c.md"].text == "# Title\n\nSome *markdown*."
    skips = {x.id: x for x in items if isinstance(x, Skipped)}
    assert skips["big.txt"].detail == "1001 bytes > max_bytes=1000"
    assert skips["bomb.txt.gz"].detail == "decompresses to more than max_bytes=1000"
    assert skips["noise.txt"].detail.startswith(str(tree / "noise.txt") + ": cannot decode")
    assert skips["empty.txt"].source == str(tree / "empty.txt")


def test_file_ids_are_paths_from_the_common_parent_of_the_inputs(tree: Path) -> None:
    inputs: list[str | Path] = [
        tree / "sub" / "deep" / "b.txt.gz",
        str(tree / "page.html"),
        tree / "README",
    ]
    assert _summary(list(read_corpus(inputs))) == [
        ("sub/deep/b.txt.gz", "text"),
        ("page.html", "html"),
        ("README", "text"),
    ]
    (one,) = read_corpus([tree / "sub" / "deep" / "b.txt.gz"])
    assert one.id == "b.txt.gz"  # a file alone: its name, as before


def test_forced_content_type(tree: Path) -> None:
    (doc,) = read_corpus([tree / "page.html"], content_type="text")
    assert isinstance(doc, Document)
    assert (doc.content_type, doc.text) == ("text", HTML)
    (wiki,) = read_corpus([tree / "a.txt"], content_type="wiki")
    assert isinstance(wiki, Document)
    assert (wiki.content_type, wiki.text) == ("wiki", "Hello world.")


def test_glob_selects_directory_files(tree: Path) -> None:
    assert _summary(list(read_corpus([tree], glob="*.jsonl"))) == [("x", "text")]
    assert [x.id for x in read_corpus([tree], glob="sub/*")] == ["sub/c.md", "sub/deep/b.txt.gz"]
    assert [x.id for x in read_corpus([tree], glob="sub/*.md")] == ["sub/c.md"]
    assert [x.id for x in read_corpus([tree], glob="*.md")] == ["sub/c.md"]


def test_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    lines = [
        '{"id": "d1", "text": "Первый документ."}',
        '{"text": "Без идентификатора."}',
        '{"id": "d3", "text": "broken json',
        "",
        '["not", "an", "object"]',
        '{"id": "d6", "body": "no text field"}',
        '{"id": 7, "text": "<!DOCTYPE html><html><body><p>Из HTML.</p></body></html>"}',
        '{"id": "d8", "text": "   "}',
        '{"id": "d9", "text": 42}',
        '{"id": "d10", "text": "' + "z" * (MAX + 101) + '"}',
        '{"id": "d11", "text": "Последний."}',
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = list(read_corpus([path], max_bytes=MAX + 100))
    assert [(x.id, x.reason if isinstance(x, Skipped) else x.text) for x in items] == [
        ("d1", "Первый документ."),
        ("docs.jsonl:2", "Без идентификатора."),
        ("docs.jsonl:3", "unreadable"),
        ("docs.jsonl:5", "unreadable"),
        ("d6", "unreadable"),
        ("7", "Из HTML."),
        ("d8", "empty"),
        ("d9", "unreadable"),
        ("docs.jsonl:10", "oversize"),  # the line is over the limit: not parsed
        ("d11", "Последний."),
    ]
    assert items[0] == Document("d1", "Первый документ.", f"{path}:1", "text", 30)
    assert items[5].content_type == "html"  # type: ignore[union-attr]
    assert items[2].source == f"{path}:3"
    assert items[4].detail == "field 'text' is missing"  # type: ignore[union-attr]


def test_jsonl_gz_fields_and_line_limit(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl.gz"
    lines = ['{"key": "a", "body": "Alpha."}', '{"key": "b", "body": "' + "x" * 5000 + '"}']
    lines.append('{"key": "c", "body": "Gamma."}')
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    items = list(read_corpus([path], id_field="key", text_field="body", max_bytes=100))
    assert [(x.id, x.reason if isinstance(x, Skipped) else x.text) for x in items] == [
        ("a", "Alpha."),
        ("docs.jsonl.gz:2", "oversize"),  # the line is too long to parse at all
        ("c", "Gamma."),
    ]


def test_csv(tmp_path: Path) -> None:
    path = tmp_path / "docs.csv"
    big = "w" * 200_000  # over csv's default 131072-character field limit
    path.write_text(
        "id,text,extra\n"
        'r1,"Простой текст.",x\n'
        '"r2","Многострочный,\nтекст с ""кавычками"".",y\n'
        ",Без идентификатора.,z\n"
        f"r4,{big},w\n"
        "r5,,v\n"
        "r6\n",
        encoding="utf-8",
    )
    items = list(read_corpus([path], max_bytes=300_000))
    assert [(x.id, x.reason if isinstance(x, Skipped) else x.text) for x in items] == [
        ("r1", "Простой текст."),
        ("r2", 'Многострочный,\nтекст с "кавычками".'),
        ("docs.csv:5", "Без идентификатора."),
        ("r4", big),
        ("r5", "empty"),
        ("r6", "unreadable"),
    ]
    assert items[2].source == f"{path}:5"
    small = list(read_corpus([path], max_bytes=1000))
    assert [x.reason for x in small if isinstance(x, Skipped)] == [
        "oversize",
        "empty",
        "unreadable",
    ]


def test_csv_without_text_column(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("id,body\n1,x\n", encoding="utf-8")
    (skip,) = read_corpus([path])
    assert skip == Skipped(
        "t.csv", str(path), "unreadable", "no column 'text' in the header ['id', 'body']"
    )


def test_missing_input_raises_before_anything_is_yielded(tree: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        read_corpus([tree / "a.txt", tree / "nope.txt"])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"content_type": "pdf"},
        {"max_bytes": 0},
        {"max_bytes": 1.5},
        {"id_field": ""},
        {"glob": ""},
    ],
)
def test_bad_parameters_raise(tree: Path, kwargs: dict[str, object]) -> None:
    with pytest.raises(ParameterError):
        read_corpus([tree], **kwargs)  # type: ignore[arg-type]


def test_single_path_and_empty_inputs(tree: Path) -> None:
    assert [x.id for x in read_corpus(tree / "a.txt")] == ["a.txt"]
    assert list(read_corpus([])) == []


def test_jsonl_line_not_utf8_is_undecodable(tmp_path: Path) -> None:
    path = tmp_path / "x.ndjson"
    path.write_bytes(b'{"id": "a", "text": "ok"}\n{"id": "b", "text": "\xcf\xf0\xe8"}\n')
    assert [(x.id, getattr(x, "reason", "doc")) for x in read_corpus([path])] == [
        ("a", "doc"),
        ("x.ndjson:2", "undecodable"),
    ]
