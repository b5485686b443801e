"""The crawl queue of digital libraries (Romanov 2019 sections 3.3 and 4.2), kept in the database.

A user adds a library (home page + clarifications); it waits in stage ``queued`` until the
:class:`~neardup.crawl.Dispatcher` runs it. The queue is persistent (``nd_crawl_libraries``
in the store's database), so a restarted service, or ``neardup crawl`` in another process,
sees the same queue and resumes unfinished crawls.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from neardup.crawl.db import CrawlDB, now
from neardup.crawl.safety import check_url
from neardup.crawl.settings import CrawlSettings
from neardup.crawl.status import FINISHED, RUNNING, LibraryStatus, PageInfo
from neardup.errors import CollectionExists, CollectionNotFound, ParameterError
from neardup.options import OPTIONS
from neardup.store import Store
from neardup.store.catalog import check_name
from neardup.text.canonical import MORPHOLOGIES

MAX_CLARIFICATIONS = 20
MAX_CLARIFICATION_CHARS = 200
#: How the queue page and the collection pages name the methods that can back a
#: collection (the paper each follows); other methods are shown by their registry name.
METHOD_LABELS: dict[str, str] = {
    "tf-ridf": "TF-RIDF signature, Romanov 2019",
    "minhash-lsh": "MinHash-LSH, Broder 1997",
    "shingles-full": "all shingles, Broder 1997",
    "shingles-mod": "shingles mod m, Broder 1997 (Zagorulko 2013)",
    "shingles-min": "n smallest shingles, Broder 1997 (Zagorulko 2013)",
    "shingles-dice": "percent similarity (Dice), Rodnenko 2009",
    "megashingles": "mega-shingles, Fetterly et al. 2003 (Zagorulko 2013)",
    "imatch": "I-Match, Chowdhury et al. 2002",
    "imatch-random": "I-Match with random lexicons, Kołcz et al. 2004",
    "anchor-words": "anchor words, Ilyinsky et al. 2002",
    "sl-st": "SL+ST sentence lengths, Feng 2015",
    "spotsigs": "SpotSigs, Theobald et al. 2008",
}


def collection_methods() -> tuple[str, ...]:
    """The registered methods that can back a collection (they have index keys), the
    default (:data:`~neardup.options.OPTIONS` ``collection_method``) first, the others in
    registry order."""
    from neardup.index.methods import collection_methods as indexable

    return tuple(sorted(indexable(), key=lambda n: n != OPTIONS["collection_method"].default))


def method_label(method: str) -> str:
    """``method`` as the pages name it, e.g. ``TF-RIDF signature, Romanov 2019``."""
    return METHOD_LABELS.get(method, method)


def check_collection_method(method: object) -> str:
    """Validate the method of a library's collection.

    Raises:
        ParameterError: not a method that can back a collection (the message lists them).
    """
    allowed = collection_methods()
    if not isinstance(method, str) or method not in allowed:
        raise ParameterError("method", method, "one of " + ", ".join(allowed))
    return method


class CrawlQueue:
    """The persistent queue of libraries to crawl (tables ``nd_crawl_*``).

    Args:
        store: the store whose database holds the queue and the collections.
        settings: the crawler settings (address rules for :meth:`add`; the dispatcher and
            the crawler read the rest from here).

    Raises:
        StoreError: the database cannot be opened.
    """

    def __init__(self, store: Store, settings: CrawlSettings | None = None) -> None:
        self.store = store
        self.settings = settings if settings is not None else CrawlSettings()
        self.db = CrawlDB(store.url)
        self._stop_requests: set[int] = set()
        self._listeners: list[Callable[[int], None]] = []
        self._lock = threading.Lock()

    def close(self) -> None:
        """Release the queue's database connections (the store stays open)."""
        self.db.close()

    # -- the queue ----------------------------------------------------------------------------
    def add(
        self,
        url: str,
        clarifications: Sequence[str],
        *,
        collection: str | None = None,
        method: str = OPTIONS["collection_method"].default,
        threshold: float = OPTIONS["threshold"].default,
        morphology: str | None = None,
    ) -> LibraryStatus:
        """Queue a library.

        Args:
            url: the library's home page (http/https, a public address unless the settings
                allow private ones).
            clarifications: URL substrings that mark article pages (Romanov 2019), 1-20
                non-empty strings, e.g. ``["post"]``.
            collection: the collection the documents go to; created with ``method`` and
                ``threshold`` when missing; default: derived from the host
                (``example.org``, ``127.0.0.1-8080``).
            method, threshold: for a collection created here; the method is one of
                :func:`collection_methods`, by default TF-RIDF (``collection_method``) as in
                Romanov 2019. Ignored for an existing collection (it keeps its method).
            morphology: the canonical form's word forms for a collection created here:
                ``none``, ``stem`` or ``lemma`` (pymorphy3, Russian; Romanov 2019 lemmatizes);
                ``None``: the method's own (TF-RIDF: stems).

        Returns:
            The new library (stage ``queued``).

        Raises:
            UnsafeURLError: the URL is refused (scheme, private address).
            ParameterError: bad clarifications, collection name, method, threshold or
                morphology.
            StoreError: the database failed.
        """
        s = self.settings
        home = check_url(url, allow_private=s.allow_private, allow_hosts=s.allow_hosts)
        clar = clean_clarifications(clarifications)
        check_collection_method(method)
        params = None if morphology is None else {"canonical": {"morphology": morphology}}
        if morphology is not None and morphology not in MORPHOLOGIES:
            raise ParameterError("morphology", morphology, f"one of {', '.join(MORPHOLOGIES)}")
        name = collection if collection is not None else collection_name(home)
        check_name(name)
        try:
            self.store.collection(name)
        except CollectionNotFound:
            with contextlib.suppress(CollectionExists):  # created meanwhile elsewhere
                self.store.create_collection(name, method, params, threshold=threshold)
        library_id = self.db.insert_library(home, clar, name)
        return self.db.status(library_id)

    def libraries(self) -> list[LibraryStatus]:
        """Every library, in queue order (oldest first)."""
        return self.db.statuses()

    def library(self, library_id: int) -> LibraryStatus:
        """One library.

        Raises:
            LibraryNotFound: no such id.
        """
        return self.db.status(library_id)

    def find(self, url: str, collection: str) -> LibraryStatus | None:
        """The newest library with this home page (normalised here) and collection."""
        s = self.settings
        home = check_url(url, allow_private=s.allow_private, allow_hosts=s.allow_hosts)
        return self.db.find(home, collection)

    def pages(self, library_id: int, status: str | None = None) -> list[PageInfo]:
        """The pages of a library's crawl (optionally of one status, e.g. ``failed``).

        Raises:
            LibraryNotFound: no such id.
        """
        self.db.row(library_id)
        return self.db.pages(library_id, status)

    def remove(self, library_id: int) -> None:
        """Remove a library from the queue (stopped first if running); the collection stays.

        Raises:
            LibraryNotFound: no such id.
        """
        self.db.row(library_id)
        self._request_stop(library_id)
        self.db.delete_library(library_id)

    def stop(self, library_id: int) -> LibraryStatus:
        """Stop a queued or running crawl (stage ``stopped``; a running crawl ends soon).

        Finished libraries are returned unchanged.

        Raises:
            LibraryNotFound: no such id.
        """
        row = self.db.row(library_id)
        if row.stage not in FINISHED:
            self.db.update(
                library_id, when=("queued", *RUNNING), stage="stopped", finished_at=now()
            )
            self._request_stop(library_id)
        return self.db.status(library_id)

    def resume(self, library_id: int) -> LibraryStatus:
        """Queue a stopped, failed or done library again; its crawl goes on where it ended.

        A ``done`` library is crawled again for new pages (the missing numbers past the end
        of its range, the pages that link to articles; Romanov's (2019) re-indexing).
        Queued or running libraries are returned unchanged.

        Raises:
            LibraryNotFound: no such id.
        """
        row = self.db.row(library_id)
        if row.stage in FINISHED:
            with self._lock:
                self._stop_requests.discard(library_id)
            again = row.stage == "done"
            self.db.update(library_id, when=FINISHED, stage="queued", error=None)
            if again:
                from neardup.crawl.crawler import prepare_recrawl

                prepare_recrawl(self.db, library_id)
        return self.db.status(library_id)

    # -- signals to a running crawl in this process ----------------------------------------
    def stop_requested(self, library_id: int) -> bool:
        """Was :meth:`stop`/:meth:`remove` called for this library in this process?"""
        with self._lock:
            return library_id in self._stop_requests

    def clear_stop(self, library_id: int) -> None:
        """Forget a stop request (the crawl has ended)."""
        with self._lock:
            self._stop_requests.discard(library_id)

    def on_stop(self, listener: Callable[[int], None]) -> None:
        """Call ``listener(library_id)`` when a library is stopped or removed (any thread)."""
        with self._lock:
            self._listeners.append(listener)

    def _request_stop(self, library_id: int) -> None:
        with self._lock:
            self._stop_requests.add(library_id)
            listeners = list(self._listeners)
        for listener in listeners:
            listener(library_id)


def clean_clarifications(values: Sequence[str]) -> tuple[str, ...]:
    """Validate clarifications: 1-20 non-empty strings (stripped, duplicates dropped).

    Raises:
        ParameterError: none given, not strings, too long or too many.
    """
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise ParameterError("clarifications", values, "a list of URL substrings, e.g. ['post']")
    out: dict[str, None] = {}
    for value in values:
        if not isinstance(value, str) or not value.strip():
            raise ParameterError("clarifications", list(values), "non-empty strings")
        item = value.strip()
        if len(item) > MAX_CLARIFICATION_CHARS or not item.isprintable():
            raise ParameterError(
                "clarifications", item, f"printable, at most {MAX_CLARIFICATION_CHARS} characters"
            )
        out.setdefault(item, None)
    if not out or len(out) > MAX_CLARIFICATIONS:
        raise ParameterError(
            "clarifications", list(values), f"1-{MAX_CLARIFICATIONS} URL substrings, e.g. post"
        )
    return tuple(out)


def collection_name(home: str) -> str:
    """The default collection name of a library: its host (``-PORT`` when not default)."""
    parts = urlsplit(home)
    host = parts.hostname or "library"
    return f"{host}-{parts.port}" if parts.port else host
