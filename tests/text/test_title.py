"""Titles taken from the documents (issue 30, item 11): HTML <title>, the first heading of
Markdown/AsciiDoc/reST/wiki, PDF metadata, else the file name; and the stored title that
`neardup add` and the check results show."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fake_library import make_pdf
from neardup.cli.main import app
from neardup.store import Store
from neardup.text.read import document_from_bytes, read_options
from neardup.text.title import title_of
from neardup.text.types import Document

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
BODY = "Ванька Жуков, девятилетний мальчик, отданный три месяца тому назад в ученье."


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "a.html",
            "<html><head><title> А. П. Чехов. &laquo;Ванька&raquo; </title>",
            "А. П. Чехов. «Ванька»",
        ),
        ("a.htm", "<body><h1>Ванька <em>Жуков</em></h1><p>x</p>", "Ванька Жуков"),
        ("a.md", "Антон Чехов\n\n# Ванька\n\nтекст", "Ванька"),
        ("a.md", "Ванька\n======\n\nтекст", "Ванька"),
        ("a.adoc", ":author: Чехов\n\n= Ванька\n\nтекст", "Ванька"),
        ("a.rst", "======\nВанька\n======\n\nтекст", "Ванька"),
        ("a.rst", "Ванька\n------\nтекст", "Ванька"),
        ("a.wiki", "Антон Чехов\n== Ванька ==\nтекст", "Ванька"),
        ("a.txt", "Антон Чехов\nВАНЬКА\nтекст", ""),
        ("a.md", "no heading here", ""),
    ],
)
def test_title_of(name: str, text: str, expected: str) -> None:
    assert title_of(text, name=name) == expected


def _read(data: bytes, name: str) -> Document:
    doc = document_from_bytes(data, doc_id=name, source=name, name=name, options=read_options())
    assert isinstance(doc, Document), doc
    return doc


def test_files_get_their_own_titles() -> None:
    html = (CORPUS / "web" / "vanka.html").read_bytes()
    assert _read(html, "vanka.html").title == "А. П. Чехов. Ванька"
    txt = (CORPUS / "chekhov" / "Ванька.txt").read_bytes()
    assert _read(txt, "Ванька.txt").title == "Ванька.txt"  # no title in a text file
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf("Vanka", BODY.encode().hex()))))
    writer.add_metadata({"/Title": "Vanka (1886)"})
    out = io.BytesIO()
    writer.write(out)
    assert _read(out.getvalue(), "scan.pdf").title == "Vanka (1886)"
    assert _read(make_pdf("Vanka", "abc def ghi"), "plain.pdf").title == "plain.pdf"


def test_add_stores_titles_not_the_first_line(tmp_path: Path) -> None:
    """Every Chekhov story starts "Антон Чехов": the stored titles are the file names."""
    url = f"sqlite:///{tmp_path / 'nd.db'}"
    runner = CliRunner()
    assert runner.invoke(app, ["collection", "create", "stories", "--db", url]).exit_code == 0
    res = runner.invoke(
        app, ["add", "stories", str(CORPUS / "chekhov"), str(CORPUS / "web"), "--db", url, "-q"]
    )
    assert res.exit_code == 0, res.output
    with Store(url) as st:
        titles = {d.doc_id: d.title for d in st.documents("stories", limit=100).documents}
        # two inputs: ids are paths from their common parent (examples/corpus)
        assert st.document("stories", "web/vanka.html").title == "А. П. Чехов. Ванька"
    assert titles["chekhov/Ванька.txt"] == "Ванька.txt"
    assert "Антон Чехов" not in titles.values()
