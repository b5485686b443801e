"""Hostile PDF and DOCX files (issue 27): slow to extract, or zip bombs."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path


def slow_pdf(ops: int, pages: int = 1) -> bytes:
    """A valid PDF of ``pages`` pages sharing one Flate content stream of ``ops`` text
    operators: small on disk (3 KB per 100k operators), pypdf takes ~37 µs an operator."""
    import zlib

    content = b"BT /F1 12 Tf 10 10 Td " + b"(a) Tj 1 0 Td " * ops + b"ET"
    stream = zlib.compress(content, 9)
    kids = " ".join(f"{4 + i} 0 R" for i in range(pages))
    font = b"<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources "
    objs += [page + font + b" >>"] * pages
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objs, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % i + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    )
    return out.getvalue()


def docx_bomb(path: Path, paragraphs: list[str], mib: int) -> bytes:
    """A real DOCX (python-docx) whose ``word/document.xml`` carries ``mib`` MiB of spaces
    after its XML declaration (about 1 KB a MiB once deflated): python-docx reads that
    part whole and parses it. Its bytes."""
    from text.test_read_inputs import make_docx

    plain = path.with_suffix(".plain.docx")
    make_docx(plain, paragraphs)
    block = b" " * (1 << 20)
    with (
        zipfile.ZipFile(plain) as src,
        zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z,
    ):
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename != "word/document.xml":
                z.writestr(info.filename, data)
                continue
            head, _, rest = data.partition(b"?>")
            with z.open(info.filename, "w", force_zip64=True) as member:
                member.write(head + b"?>")
                for _ in range(mib):
                    member.write(block)
                member.write(rest)
    return path.read_bytes()
