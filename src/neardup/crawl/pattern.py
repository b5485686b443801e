"""Article address patterns with a numeric range (Romanov 2019, section 3.1).

After the link search has found a handful of URLs containing a clarification, the seed
looks for "a regularity in the distribution of article addresses" so that the articles can
be walked as a range instead of by following links: ``/post/181 ... /post/200`` gives the
pattern ``/post/{n}`` with the range 181-200, ``/view?id=7&lang=ru`` gives
``/view?id={n}&lang=ru``. :func:`detect_pattern` is a pure function of the URL list.

Method: each URL's path and query (the host and port are kept as they are) is cut at its
digit runs; URLs with the same skeleton form a group; in a group, the digit runs that
differ between URLs are the variables. A group with exactly one variable and at least
``min_support`` URLs is a candidate; the largest candidate wins (ties: more distinct
numbers, then the earlier URL). No candidate -> ``None`` (the library uses its own scheme
for addresses and is crawled by links).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from neardup.errors import check_int

_DIGITS = re.compile(r"\d+")
#: digit runs longer than this are identifiers (hashes, timestamps), not walkable numbers
MAX_DIGITS = 12


@dataclass(frozen=True, slots=True)
class AddressPattern:
    """An address template with one number and the range of numbers seen.

    Attributes:
        template: the URL with ``{n}`` (or ``{n:0Wd}`` for zero-padded numbers) in place of
            the number, other braces doubled, e.g. ``http://h/post/{n}``.
        low, high: the smallest and largest number seen.
    """

    template: str
    low: int
    high: int

    def url(self, n: int) -> str:
        """The address of number ``n``."""
        return self.template.format(n=n)

    def number(self, url: str) -> int | None:
        """The number of ``url`` when it fits the template, else ``None``."""
        match = _regex(self.template).fullmatch(url)
        return int(match.group(1)) if match else None


def detect_pattern(urls: Sequence[str], *, min_support: int = 3) -> AddressPattern | None:
    """Find the address pattern with a numeric range that most of ``urls`` follow.

    Args:
        urls: absolute URLs (those containing a clarification), in the order found.
        min_support: at least this many distinct URLs must follow the pattern, >= 2.

    Returns:
        The :class:`AddressPattern`, or ``None`` when no pattern has the support.

    Raises:
        ParameterError: ``min_support`` < 2.
    """
    check_int("min_support", min_support, low=2)
    groups: dict[tuple[str, tuple[str, ...]], list[tuple[int, list[str]]]] = {}
    for order, url in enumerate(dict.fromkeys(urls)):
        prefix, skeleton, numbers = _split(url)
        if numbers:
            groups.setdefault((prefix, skeleton), []).append((order, numbers))
    best: tuple[tuple[int, int, int], AddressPattern] | None = None
    for (prefix, skeleton), members in groups.items():
        found = _group_pattern(prefix, skeleton, [nums for _, nums in members])
        if found is None or len(members) < min_support:
            continue
        pattern, distinct = found
        rank = (len(members), distinct, -members[0][0])
        if best is None or rank > best[0]:
            best = (rank, pattern)
    return None if best is None else best[1]


def _split(url: str) -> tuple[str, tuple[str, ...], list[str]]:
    """(scheme://host part, the literal pieces between digit runs, the digit runs)."""
    parts = urlsplit(url)
    prefix = f"{parts.scheme}://{parts.netloc}"
    rest = url[len(prefix) :]
    if "#" in rest:
        rest = rest.split("#", 1)[0]
    return prefix, tuple(_DIGITS.split(rest)), _DIGITS.findall(rest)


def _group_pattern(
    prefix: str, skeleton: tuple[str, ...], rows: list[list[str]]
) -> tuple[AddressPattern, int] | None:
    """The pattern of one skeleton group: exactly one varying digit run, or ``None``."""
    varying = [i for i in range(len(rows[0])) if len({r[i] for r in rows}) > 1]
    if len(varying) != 1:
        return None
    slot = varying[0]
    values = [r[slot] for r in rows]
    if any(len(v) > MAX_DIGITS for v in values):
        return None
    padded = any(len(v) > 1 and v.startswith("0") for v in values)
    if padded and len({len(v) for v in values}) != 1:
        return None
    field = f"{{n:0{len(values[0])}d}}" if padded else "{n}"
    pieces: list[str] = [_escape(prefix)]
    for i, literal in enumerate(skeleton):
        pieces.append(_escape(literal))
        if i < len(rows[0]):
            pieces.append(field if i == slot else rows[0][i])
    numbers = [int(v) for v in values]
    pattern = AddressPattern("".join(pieces), min(numbers), max(numbers))
    return pattern, len(set(numbers))


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _regex(template: str) -> re.Pattern[str]:
    """A regex matching the URLs of ``template`` (group 1: the number)."""
    match = re.search(r"\{n(?::0(\d+)d)?\}", template)
    if match is None:  # pragma: no cover - templates always hold {n}
        raise ValueError(f"not an address template: {template!r}")
    before = template[: match.start()].replace("{{", "{").replace("}}", "}")
    after = template[match.end() :].replace("{{", "{").replace("}}", "}")
    digits = rf"(\d{{{match.group(1)}}})" if match.group(1) else r"(0|[1-9]\d*)"
    return re.compile(re.escape(before) + digits + re.escape(after))
