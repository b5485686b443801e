"""DOCX documents: one document a file, its paragraphs and tables (python-docx, the
archive checked first: :func:`neardup.text.office.docx_text`); found by its ZIP signature
and a ``word/`` entry too."""

from neardup.text.formats.format import Format


def text(data: bytes) -> str:
    """The text of a DOCX (raises :class:`neardup.text.office.OfficeError`)."""
    from neardup.text.office import docx_text

    return docx_text(data)


def title(data: bytes) -> str:
    """The title of the DOCX's metadata, ``""`` when it has none."""
    from neardup.text.title import docx_title

    return docx_title(data)


FORMAT = Format(
    "docx",
    (".docx",),
    seekable=True,
    signature=b"PK\x03\x04",
    marker=b"word/",
    text=text,
    title=title,
)
