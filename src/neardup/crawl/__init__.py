"""Crawling digital libraries into collections (Romanov 2019 section 3.1, issue 6).

A library (home page + "clarifications", URL substrings that mark articles) is queued in
a :class:`CrawlQueue` (persistent, in the store's database); a :class:`Dispatcher` crawls
the head of the queue: link search -> pattern detection -> in work -> done. Articles become
documents of a neardup collection (id and source: the page URL). See ``docs/crawl.md``.
"""

from neardup.crawl.dispatcher import Dispatcher, crawl
from neardup.crawl.pattern import AddressPattern, detect_pattern
from neardup.crawl.queue import CrawlQueue
from neardup.crawl.safety import UnsafeURLError, check_url
from neardup.crawl.settings import CrawlSettings
from neardup.crawl.status import (
    PAGE_STATUSES,
    STAGES,
    LibraryNotFound,
    LibraryStatus,
    PageInfo,
)

__all__ = [
    "PAGE_STATUSES",
    "STAGES",
    "AddressPattern",
    "CrawlQueue",
    "CrawlSettings",
    "Dispatcher",
    "LibraryNotFound",
    "LibraryStatus",
    "PageInfo",
    "UnsafeURLError",
    "check_url",
    "crawl",
    "detect_pattern",
]
