"""Stages of a library's crawl, its status as shown to users, and the page statuses."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neardup.errors import InputError

#: A library's stages: waiting, the seed's three working stages, and the three ends.
STAGES = ("queued", "link search", "pattern detection", "in work", "done", "stopped", "failed")
#: Stages in which a crawl is running.
RUNNING = ("link search", "pattern detection", "in work")
#: Stages a crawl ended in.
FINISHED = ("done", "stopped", "failed")

#: Page statuses (Romanov 2019 section 4.2): new -> reserved -> fetched ("checked") ->
#: [storing (its document being added)] -> collected (links collected; for an article: its
#: document stored); or the page ended
#: missing (404/410, no text), blocked (robots.txt), failed (errors after retries), or
#: skipped (not needed: a link-search page outside the address pattern).
PAGE_STATUSES = (
    "new", "reserved", "fetched", "storing", "collected", "missing", "blocked", "failed",
    "skipped",
)  # fmt: skip
#: Statuses a page keeps (it is not fetched again when the crawl resumes).
PAGE_DONE = ("collected", "missing", "blocked", "failed", "skipped")


class LibraryNotFound(InputError):
    """No library with that id in the crawl queue (HTTP 404)."""

    def __init__(self, library_id: int) -> None:
        self.library_id = library_id
        super().__init__(f"no library with id {library_id} in the crawl queue")


@dataclass(frozen=True, slots=True)
class LibraryStatus:
    """A library in the crawl queue, with its progress.

    Attributes:
        id: the queue id.
        url: the home page (normalised).
        clarifications: URL substrings that mark articles (Romanov 2019 "уточнения").
        collection: the neardup collection the documents go to.
        stage: one of :data:`STAGES`.
        pattern: the article address pattern, e.g. ``http://h/post/{n}``, once detected
            (``None`` before the detection or when the library has none).
        range: the article numbers found so far, ``(low, high)`` (pattern mode).
        pages_found: pages known (links found, range numbers scheduled).
        pages_fetched: pages fetched and finished (links collected).
        documents_added: documents this library added to the collection.
        error: why the crawl failed (stage ``failed``), else ``None``.
        created_at, updated_at: when it was added and last changed (UTC).
        finished_at: when it last reached ``done``/``stopped``/``failed``.
        pages_failed: pages given up on (errors after retries, refused addresses).
        mode: ``pattern`` (range walk), ``links`` (recursive crawl) or ``""`` (undecided).
    """

    id: int
    url: str
    clarifications: tuple[str, ...]
    collection: str
    stage: str
    pattern: str | None
    range: tuple[int, int] | None
    pages_found: int
    pages_fetched: int
    documents_added: int
    error: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    pages_failed: int = 0
    mode: str = ""

    @property
    def running(self) -> bool:
        """Is a crawl of this library under way?"""
        return self.stage in RUNNING

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (datetimes as ISO 8601 strings, the range as a list)."""
        return {
            "id": self.id,
            "url": self.url,
            "clarifications": list(self.clarifications),
            "collection": self.collection,
            "stage": self.stage,
            "pattern": self.pattern,
            "range": None if self.range is None else list(self.range),
            "pages_found": self.pages_found,
            "pages_fetched": self.pages_fetched,
            "pages_failed": self.pages_failed,
            "documents_added": self.documents_added,
            "error": self.error,
            "mode": self.mode,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "finished_at": None if self.finished_at is None else self.finished_at.isoformat(),
        }


@dataclass(frozen=True, slots=True)
class PageInfo:
    """One page of a library's crawl (``CrawlQueue.pages``).

    Attributes:
        url: the page URL.
        status: one of :data:`PAGE_STATUSES`.
        number: its number in the address range (pattern mode), else ``None``.
        document: whether a document was stored from it.
        http_status: the last HTTP status, ``None`` if none came.
        error: what went wrong, ``None`` if nothing.
    """

    url: str
    status: str
    number: int | None
    document: bool
    http_status: int | None
    error: str | None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "url": self.url,
            "status": self.status,
            "number": self.number,
            "document": self.document,
            "http_status": self.http_status,
            "error": self.error,
        }
