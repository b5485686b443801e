"""Text of PDF and DOCX documents, within bounds on memory and CPU time.

PDF: the text layer of every page (pypdf ``extract_text``), pages joined by a blank line; a
scanned PDF without a text layer gives ``""`` (the reader skips it as ``no-text``; no OCR).
DOCX: the paragraphs of the body and of its tables, in document order (python-docx).

Hostile files (issue 27) cost a bounded amount:

* a DOCX (any zip) is refused before parsing when its members would inflate to more than
  :data:`MAX_INFLATED_BYTES` in all, or it has more than :data:`MAX_MEMBERS` members (the
  sizes are the ones the zip declares; :mod:`zipfile` never inflates a member past its
  declared size): a 1 MB zip bomb made python-docx take 2 GiB;
* text extraction has a CPU budget per document (:func:`~neardup.text.extract.cpu_budget`):
  :data:`PDF_BUDGET_S` plus :data:`PDF_BUDGET_S_PER_PAGE` a page for a PDF (a 19 KB PDF
  took 23-28 s a page), :data:`DOCX_BUDGET_S` for a DOCX. Past it the document is
  :class:`OfficeError` (the reader skips it as ``unreadable`` with the reason).
"""

from __future__ import annotations

import io
import logging
import zipfile

from neardup.errors import NeardupError
from neardup.text.extract import CPUBudgetError, cpu_budget

#: Largest total inflated size of a zip-based document's members, bytes.
MAX_INFLATED_BYTES = 64 * 1024 * 1024
#: Most members of a zip-based document.
MAX_MEMBERS = 10_000
#: CPU seconds a PDF's text extraction may use: this much plus the next per page.
PDF_BUDGET_S = 5.0
PDF_BUDGET_S_PER_PAGE = 0.25
#: CPU seconds a DOCX's text extraction may use.
DOCX_BUDGET_S = 20.0


class OfficeError(NeardupError):
    """A PDF or DOCX that cannot be read (corrupt, encrypted, not of that kind, over a
    memory or CPU bound)."""


def pdf_text(data: bytes, *, cpu_seconds: float | None = None) -> str:
    """The text layer of a PDF, pages joined by ``"\\n\\n"``.

    Args:
        data: the PDF's bytes.
        cpu_seconds: the CPU budget (``None``: :data:`PDF_BUDGET_S` plus
            :data:`PDF_BUDGET_S_PER_PAGE` per page).

    Raises:
        OfficeError: pypdf cannot open or read it (corrupt, encrypted without a password),
            or extraction used more than the CPU budget.
    """
    try:
        from pypdf import PdfReader

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        with cpu_budget(cpu_seconds or PDF_BUDGET_S, "opening the PDF"):
            reader = PdfReader(io.BytesIO(data))
            count = len(reader.pages)
        budget = cpu_seconds or PDF_BUDGET_S + PDF_BUDGET_S_PER_PAGE * count
        with cpu_budget(budget, f"PDF text extraction ({count} pages)"):
            pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except CPUBudgetError as exc:
        raise OfficeError(f"unreadable PDF: {exc}") from None
    except Exception as exc:  # pypdf raises many types on hostile files
        raise OfficeError(f"unreadable PDF: {type(exc).__name__}: {exc}") from None
    return "\n\n".join(p for p in pages if p)


def check_archive(data: bytes, *, kind: str = "zip", max_bytes: int = MAX_INFLATED_BYTES) -> None:
    """Refuse a zip whose members would inflate past ``max_bytes`` in all (or that has more
    than :data:`MAX_MEMBERS` members), before any member is inflated.

    Raises:
        OfficeError: not a zip, too many members, or too large once inflated (names the
            largest member).
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise OfficeError(f"unreadable {kind}: not a zip archive ({exc})") from None
    if len(members) > MAX_MEMBERS:
        raise OfficeError(f"unreadable {kind}: {len(members)} members > {MAX_MEMBERS}")
    total = sum(m.file_size for m in members)
    if total > max_bytes:
        big = max(members, key=lambda m: m.file_size)
        raise OfficeError(
            f"unreadable {kind}: its members inflate to {total} bytes > {max_bytes} "
            f"(largest: {big.filename!r}, {big.file_size} bytes from {big.compress_size})"
        )


def docx_text(data: bytes, *, cpu_seconds: float = DOCX_BUDGET_S) -> str:
    """The paragraphs of a DOCX body and its tables, one a line, in document order.

    Raises:
        OfficeError: python-docx cannot open it (corrupt, not a Word document), its
            members inflate past :data:`MAX_INFLATED_BYTES` (:func:`check_archive`), or
            extraction used more than ``cpu_seconds`` of CPU.
    """
    check_archive(data, kind="DOCX")
    try:
        import docx

        with cpu_budget(cpu_seconds, "DOCX text extraction"):
            document = docx.Document(io.BytesIO(data))
            lines = []
            for block in document.iter_inner_content():
                if isinstance(block, docx.table.Table):
                    for row in block.rows:
                        cells = [c.text.strip() for c in row.cells]
                        lines.append("\t".join(c for c in cells if c))
                else:
                    lines.append(block.text)
    except CPUBudgetError as exc:
        raise OfficeError(f"unreadable DOCX: {exc}") from None
    except Exception as exc:  # python-docx raises many types on hostile files
        raise OfficeError(f"unreadable DOCX: {type(exc).__name__}: {exc}") from None
    return "\n".join(line for line in lines if line.strip())
