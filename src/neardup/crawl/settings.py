"""Crawler settings (one frozen, validated value shared by the queue, dispatcher and CLI)."""

from __future__ import annotations

from dataclasses import dataclass

from neardup._version import __version__
from neardup.errors import ParameterError, check_float, check_int

DEFAULT_USER_AGENT = f"neardup/{__version__} (+https://github.com/neardup/neardup)"


@dataclass(frozen=True, slots=True, kw_only=True)
class CrawlSettings:
    """How the crawler behaves (Romanov 2019 section 3.1, with the usual politeness rules).

    Attributes:
        user_agent: the ``User-Agent`` header and the robots.txt agent name.
        delay: seconds between the starts of two requests to one host, >= 0 (a larger
            ``Crawl-delay`` in robots.txt wins, up to 60 s).
        concurrency: requests in flight per host, 1-64.
        parallel: libraries the :class:`~neardup.crawl.Dispatcher` crawls at once, 1-64.
        timeout: seconds per request attempt (connect, each read, and the whole attempt).
        retries: further attempts after a 5xx/429 answer, a timeout or a connection error,
            0-10, with exponential back-off ``backoff * 2**attempt`` seconds.
        backoff: the first back-off in seconds, >= 0.
        max_page_bytes: a page larger than this is not read further and fails (bytes).
        allow_private: allow private, loopback, link-local and reserved addresses (tests).
        allow_hosts: host names or IP networks allowed even when ``allow_private`` is off
            (e.g. ``("127.0.0.1",)`` for a test site; anything else is still checked).
        link_search_target: URLs containing a clarification to collect in the link search
            before the pattern detection (Romanov 2019: ten), 1-10,000.
        max_pages: at most this many pages per library, >= 1.
        max_missing: a range walk stops after this many consecutive missing numbers past
            the last article found (both directions), 1-100,000.
        handshake: new links to find before already indexed pages are skipped again, when a
            library is partly indexed (Romanov's (2019) "handshakes"), 0-100,000.
        max_depth: link depth limit of the recursive crawl (home page = 0), >= 1.

    Raises:
        ParameterError: a value out of range (the message names it).
    """

    user_agent: str = DEFAULT_USER_AGENT
    delay: float = 1.0
    concurrency: int = 2
    parallel: int = 1
    timeout: float = 10.0
    retries: int = 3
    backoff: float = 0.5
    max_page_bytes: int = 5 * 1024 * 1024
    allow_private: bool = False
    allow_hosts: tuple[str, ...] = ()
    link_search_target: int = 10
    max_pages: int = 100_000
    max_missing: int = 50
    handshake: int = 10
    max_depth: int = 50

    def __post_init__(self) -> None:
        if not isinstance(self.user_agent, str) or not self.user_agent.strip():
            raise ParameterError("user_agent", self.user_agent, "a non-empty string")
        if not self.user_agent.isprintable():
            raise ParameterError("user_agent", self.user_agent, "printable characters only")
        check_float("delay", self.delay, low=0.0, high=3600.0)
        check_int("concurrency", self.concurrency, low=1, high=64)
        check_int("parallel", self.parallel, low=1, high=64)
        check_float("timeout", self.timeout, low=0.0, high=3600.0, low_open=True)
        check_int("retries", self.retries, low=0, high=10)
        check_float("backoff", self.backoff, low=0.0, high=600.0)
        check_int("max_page_bytes", self.max_page_bytes, low=1024, high=1 << 31)
        if not isinstance(self.allow_private, bool):
            raise ParameterError("allow_private", self.allow_private, "True or False")
        hosts = self.allow_hosts
        if not isinstance(hosts, tuple) or not all(isinstance(h, str) and h for h in hosts):
            raise ParameterError("allow_hosts", hosts, "a tuple of host names or IP networks")
        check_int("link_search_target", self.link_search_target, low=1, high=10_000)
        check_int("max_pages", self.max_pages, low=1, high=100_000_000)
        check_int("max_missing", self.max_missing, low=1, high=100_000)
        check_int("handshake", self.handshake, low=0, high=100_000)
        check_int("max_depth", self.max_depth, low=1, high=10_000)
