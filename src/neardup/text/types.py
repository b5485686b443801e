"""Values that flow out of the text stage: raw documents, prepared documents, skips."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ContentType = Literal["text", "html", "wiki"]

SkipReason = Literal[
    "empty",
    "binary",
    "undecodable",
    "oversize",
    "unreadable",
    "unsupported",
    "too-short",
    "no-text",
]


@dataclass(frozen=True, slots=True)
class Document:
    """A document ready for canonicalization.

    Attributes:
        id: identifier unique within a corpus (a relative path, a JSONL/CSV id field).
        text: clean text, markup already removed (HTML main text, wiki text).
        source: where it came from (file path, ``file.jsonl:LINE``, URL).
        content_type: the type the raw payload was read as: ``text``, ``html`` or ``wiki``.
        raw_bytes: size of the raw payload in bytes (before decoding and extraction).
        title: the title the document gives (HTML ``<title>``, first heading, PDF
            metadata; :mod:`neardup.text.title`), else its file name; ``""`` for records
            and texts without a file (the store shows the first line). Not compared:
            two documents are equal by id, text, source, content type and size.
    """

    id: str
    text: str
    source: str = ""
    content_type: ContentType = "text"
    raw_bytes: int = 0
    title: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A document that was not processed, and why (an expected outcome, not an error).

    Attributes:
        id: identifier of the document (or of the file, when no id could be read).
        source: where it came from.
        reason: a short code, one of :data:`SkipReason`.
        detail: a human-readable explanation naming the limit or the problem.
    """

    id: str
    source: str
    reason: SkipReason
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        """JSON-ready mapping ``{id, source, reason, detail}``."""
        return {"id": self.id, "source": self.source, "reason": self.reason, "detail": self.detail}
