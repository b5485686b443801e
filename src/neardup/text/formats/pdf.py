"""PDF documents: one document a file, the text of its text layer (pypdf, under a time
budget: :func:`neardup.text.office.pdf_text`); found by the ``%PDF-`` signature too."""

from neardup.text.formats.format import Format


def text(data: bytes) -> str:
    """The text layer of a PDF (raises :class:`neardup.text.office.OfficeError`)."""
    from neardup.text.office import pdf_text

    return pdf_text(data)


def title(data: bytes) -> str:
    """The title of the PDF's metadata, ``""`` when it has none."""
    from neardup.text.title import pdf_title

    return pdf_title(data)


FORMAT = Format("pdf", (".pdf",), seekable=True, signature=b"%PDF-", text=text, title=title)
