"""Clean text of one uploaded file (the service's ``/check`` upload and the web UI's form).

The bytes go through the same steps as :func:`neardup.text.read.read_corpus`
(:func:`neardup.text.read.document_from_bytes`: text, HTML, wiki, PDF, DOCX), so an upload is
read exactly like the same file on disk.
"""

from __future__ import annotations

from neardup.errors import InputError

#: Messages for the reasons :func:`document_from_bytes` skips a file.
_MESSAGES = {
    "binary": "uploaded file looks binary",
    "no-text": "no text left after markup removal",
    "empty": "uploaded file is empty",
}


def upload_text(data: bytes, filename: str | None) -> str:
    """Clean text of an uploaded file.

    Args:
        data: the file's bytes, as uploaded.
        filename: the client's file name (its suffix picks the reader), or ``None``.

    Returns:
        The document's clean text (str).

    Raises:
        InputError: the file is empty, binary, undecodable, unreadable or has no text.
    """
    from neardup.text.read import document_from_bytes, read_options
    from neardup.text.types import Skipped

    if not data.strip():
        raise InputError("uploaded file is empty")
    name = filename or "upload"
    doc = document_from_bytes(
        data, doc_id=name, source=name, name=filename or "", options=read_options()
    )
    if isinstance(doc, Skipped):
        raise InputError(_MESSAGES.get(doc.reason, doc.detail or doc.reason))
    return doc.text
