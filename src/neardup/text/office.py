"""Text of PDF and DOCX documents.

PDF: the text layer of every page (pypdf ``extract_text``), pages joined by a blank line; a
scanned PDF without a text layer gives ``""`` (the reader skips it as ``no-text``; no OCR).
DOCX: the paragraphs of the body and of its tables, in document order (python-docx).
"""

from __future__ import annotations

import io
import logging

from neardup.errors import NeardupError


class OfficeError(NeardupError):
    """A PDF or DOCX that cannot be read (corrupt, encrypted, not of that kind)."""


def pdf_text(data: bytes) -> str:
    """The text layer of a PDF, pages joined by ``"\\n\\n"``.

    Raises:
        OfficeError: pypdf cannot open or read it (corrupt, encrypted without a password).
    """
    try:
        from pypdf import PdfReader

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        reader = PdfReader(io.BytesIO(data))
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except Exception as exc:  # pypdf raises many types on hostile files
        raise OfficeError(f"unreadable PDF: {type(exc).__name__}: {exc}") from None
    return "\n\n".join(p for p in pages if p)


def docx_text(data: bytes) -> str:
    """The paragraphs of a DOCX body and its tables, one a line, in document order.

    Raises:
        OfficeError: python-docx cannot open it (corrupt, not a Word document).
    """
    try:
        import docx

        document = docx.Document(io.BytesIO(data))
        lines = []
        for block in document.iter_inner_content():
            if isinstance(block, docx.table.Table):
                for row in block.rows:
                    cells = [c.text.strip() for c in row.cells]
                    lines.append("\t".join(c for c in cells if c))
            else:
                lines.append(block.text)
    except Exception as exc:  # python-docx raises many types on hostile files
        raise OfficeError(f"unreadable DOCX: {type(exc).__name__}: {exc}") from None
    return "\n".join(line for line in lines if line.strip())
