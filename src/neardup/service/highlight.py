"""Side-by-side view of a checked document and a stored one, shared passages marked.

The passages come from :func:`neardup.align_passages`, the one aligner of ``check``,
``dedup`` and ``compare`` (copies, paraphrases and summaries, as character offsets in both
texts); this module only cuts both texts into plain and marked segments for the
templates, which escape them. :func:`align_passages` keeps the strongest of passages that
overlap in either text, so the marks never overlap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from neardup.errors import check_int
from neardup.passages import AlignedPassage, align_passages

#: Characters of each text shown and searched for passages at most (longer texts are cut,
#: and say so). Passages are found on the shown parts only: on whole texts, a 0.6 MB check
#: page took 11.3 s (five matches, each tokenized on both sides; issue 27).
MAX_SHOWN = 50_000


@dataclass(frozen=True, slots=True)
class Segment:
    """A piece of a shown text.

    Attributes:
        text: the characters (raw; the template escapes them).
        passage: 1-based number of the shared passage it belongs to, or 0 for plain text.
    """

    text: str
    passage: int = 0


@dataclass(frozen=True, slots=True)
class SideBySide:
    """Both texts of a pair cut into segments, passage ``k`` marked ``k`` on both sides.

    Attributes:
        query: segments of the checked document.
        stored: segments of the stored document.
        passages: number of shared passages.
        shared_chars: characters of the checked document's shown part inside a passage.
        query_cut, stored_cut: the text was longer than :data:`MAX_SHOWN` and is cut.
    """

    query: tuple[Segment, ...]
    stored: tuple[Segment, ...]
    passages: int
    shared_chars: int
    query_cut: bool = False
    stored_cut: bool = False


def side_by_side(query: str, stored: str, *, max_shown: int = MAX_SHOWN) -> SideBySide:
    """The shared passages of ``query`` and ``stored``, marked in both texts.

    Args:
        query: the checked document's text.
        stored: the stored document's text.
        max_shown: characters of each text kept for display and searched for passages,
            >= 1.

    Returns:
        :class:`SideBySide`; passages (:func:`neardup.align_passages` with its defaults)
        are numbered in the checked document's order.

    Raises:
        ParameterError: ``max_shown`` out of range.
    """
    limit = check_int("max_shown", max_shown, low=1)
    found = align_passages(query[:limit], stored[:limit])
    numbered = list(enumerate(found, start=1))
    q_spans = [(p.a_start, p.a_end, k) for k, p in numbered]
    s_spans = sorted((p.b_start, p.b_end, k) for k, p in numbered)
    return SideBySide(
        query=tuple(segments(query[:limit], _clip(q_spans, limit))),
        stored=tuple(segments(stored[:limit], _clip(s_spans, limit))),
        passages=len(found),
        shared_chars=_covered(found),  # of the shown part
        query_cut=len(query) > limit,
        stored_cut=len(stored) > limit,
    )


def segments(text: str, spans: Sequence[tuple[int, int, int]]) -> list[Segment]:
    """``text`` cut at ``spans``: plain segments between marked ones.

    Args:
        text: the text.
        spans: ``(start, end, passage)`` with ``[start, end)`` character offsets, sorted by
            start and not overlapping; ``passage`` >= 1.

    Returns:
        Segments whose texts concatenate to ``text``.
    """
    out: list[Segment] = []
    pos = 0
    for start, end, k in spans:
        if start < pos or end <= start:
            continue
        if start > pos:
            out.append(Segment(text[pos:start]))
        out.append(Segment(text[start:end], k))
        pos = end
    if pos < len(text):
        out.append(Segment(text[pos:]))
    return out


def _clip(spans: list[tuple[int, int, int]], limit: int) -> list[tuple[int, int, int]]:
    return [(s, min(e, limit), k) for s, e, k in spans if s < limit]


def _covered(found: list[AlignedPassage]) -> int:
    return sum(p.a_end - p.a_start for p in found)
