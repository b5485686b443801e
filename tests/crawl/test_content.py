"""Pages -> links, titles and text (HTML through the project's text stage, PDF with pypdf)."""

from __future__ import annotations

from fake_library import make_pdf
from neardup.crawl.content import media_type, read_page
from neardup.crawl.links import has_clarification, in_scope, page_links
from shared_data import paragraphs

HOME = "http://lib.example/"


def test_links_title_and_base() -> None:
    html = (
        "<html><head><title> Журнал  «Вестник» </title><base href='/archive/'></head><body>"
        "<a href='post/1#comments'>1</a><a href='post/1'>again</a>"
        "<a href='javascript:void(0)'>js</a><a href='mailto:a@b.c'>mail</a>"
        "<a href='#top'>top</a><a href='https://other.example/post/2'>other</a>"
        "<area href='/map'></body></html>"
    )
    found = page_links(html, HOME)
    assert found.title == "Журнал «Вестник»"
    assert found.links == (
        "http://lib.example/archive/post/1",
        "https://other.example/post/2",
        "http://lib.example/map",
    )


def test_scope_of_links() -> None:
    assert in_scope("http://lib.example/post/1", HOME) == "http://lib.example/post/1"
    assert in_scope("http://www.lib.example/post/1", HOME) == "http://www.lib.example/post/1"
    assert in_scope("https://other.example/post/1", HOME) is None
    assert in_scope("http://lib.example/cover.JPG", HOME) is None
    assert in_scope("http://lib.example/paper.pdf", HOME) == "http://lib.example/paper.pdf"
    assert in_scope("ftp://lib.example/post/1", HOME) is None
    assert in_scope("http://lib.example/" + "x" * 3000, HOME) is None


def test_clarifications_look_at_path_and_query_only() -> None:
    assert has_clarification("http://lib.example/Post/12", ("post",))
    assert has_clarification("http://lib.example/view?type=article&id=3", ("article",))
    assert not has_clarification("http://postgres.example/docs/12", ("post",))
    encoded = "http://lib.example/%D1%81%D1%82%D0%B0%D1%82%D1%8C%D0%B8/5"
    assert has_clarification(encoded, ("статьи",))


def test_html_article_text_comes_from_the_text_stage() -> None:
    body = paragraphs("progit-ru-revisions", 2, min_words=40)
    html = (
        "<html><head><title>Глава 1</title></head><body><nav><a href='/'>Главная</a>"
        "<a href='/news/'>Новости</a></nav><article><h1>Глава 1</h1>"
        + "".join(f"<p>{p}</p>" for p in body)
        + "</article><footer>© Редакция. Все права защищены.</footer></body></html>"
    )
    data = html.encode("cp1251", errors="replace")
    ctype = "text/html; charset=windows-1251"
    page = read_page(HOME + "post/1", data, ctype, want_links=True, want_text=True)
    assert page.kind == "html"
    assert page.title == "Глава 1"
    doc = page.document(HOME + "post/1", len(html))
    assert doc is not None
    assert doc.id == doc.source == HOME + "post/1"
    assert doc.text.split("\n", 1)[0] == "Глава 1"
    first_words = " ".join(body[0].split()[:8])
    assert first_words in " ".join(doc.text.split())
    assert "Все права защищены" not in doc.text  # boilerplate removed
    assert page.links == (HOME, HOME + "news/")


def test_pdf_article() -> None:
    text = (
        "Near-duplicate detection finds documents that are almost the same. "
        "Shingles (w-word windows) and MinHash sketches estimate the resemblance."
    )
    page = read_page(HOME + "p.pdf", make_pdf("A report", text), "application/pdf",
                     want_links=True, want_text=True)  # fmt: skip
    assert page.kind == "pdf"
    assert "Shingles (w-word windows) and MinHash" in " ".join(page.text.split())
    doc = page.document(HOME + "p.pdf", 100)
    assert doc is not None and doc.text.startswith("A report")


def test_broken_and_unknown_content() -> None:
    bad_pdf = read_page(HOME + "x", b"%PDF-1.4 garbage", "application/pdf",
                        want_links=False, want_text=True)  # fmt: skip
    assert bad_pdf.text == ""
    assert bad_pdf.error.startswith("unreadable PDF")
    image = read_page(HOME + "x", b"\x89PNG", "image/png", want_links=True, want_text=True)
    assert (image.kind, image.error) == ("other", "content type image/png is not read")
    plain = read_page(HOME + "x", "Простой текст".encode(), "text/plain", want_links=True,
                      want_text=True)  # fmt: skip
    assert plain.text == "Простой текст"
    assert media_type('text/html; Charset="UTF-8"') == ("text/html", "UTF-8")
