"""Exact token-equal tiles: :func:`matched_passages`, greedy string tiling on word shingles.

Kept as a named option beside :func:`neardup.passages.align_passages` (the default
aligner). The method:

1. canonical tokens of each text with their ``[start, end)`` character spans
   (:meth:`CanonicalForm.tokens_with_spans`);
2. the fingerprint of every word shingle occurrence (``shingle_size`` consecutive tokens,
   Broder 1997, "On the resemblance and containment of documents"), with its first token's
   index (:meth:`Shingling.occurrences`);
3. every pair of occurrences ``(i in A, j in B)`` with equal fingerprints, found with one
   sort and a binary search (numpy);
4. *runs*: maximal chains ``(i, j), (i+1, j+1), ...`` on one diagonal ``i - j``. A run of
   shingle starts ``i..i+L-1`` in A and ``j..j+L-1`` in B covers tokens ``i..i+L+w-2``
   (``w`` the shingle width);
5. *tiles*, greedy longest run first, the idea of Greedy String Tiling (Wise 1993,
   "Running Karp-Rabin matching and greedy string tiling"; the matcher of YAP3/JPlag):
   runs are taken in order of decreasing length (ties: smaller ``i + j``, then smaller
   ``|i - j|``, then smaller ``i``), and each keeps only its shingles whose tokens are not
   yet in a tile in A *or* in B. So every token belongs to at most one tile, a passage of A
   is paired with one place in B (the longest match wins: when a shingle occurs several
   times, its occurrences are paired so that the longest runs survive), and short chance
   matches inside a long quotation are absorbed by it;
6. tiles that touch in both texts (the next tile starts at the token right after the
   previous one ends, in A and in B) are merged; passages are ordered by position in A.

A passage's offsets run from its first token's start to its last token's end in the
original strings, so punctuation before the first or after the last word is outside it.

Cost: ``O((n + m) log(n + m) + P log P)`` for ``n``, ``m`` tokens and ``P`` matching
occurrence pairs (``P`` is about the number of shared shingles for ordinary text); a
shingle repeated ``r`` times in A and ``s`` times in B gives ``r * s`` pairs, so pairs of the
most repeated shingles are dropped beyond :data:`MAX_PAIRS` (a safety valve for degenerate
inputs such as a line repeated thousands of times in both texts).

Symmetry: swapping A and B swaps every passage's A and B offsets, except when two runs of
equal length mirror each other (``(i, j)`` and ``(j, i)``) and overlap, where the tie is
broken by A's position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from neardup._array import seg_arange, sorted_unique
from neardup.errors import ParameterError, check_int
from neardup.methods.shingles import Shingling
from neardup.text.canonical import CanonicalForm

if TYPE_CHECKING:
    from rich.text import Text

#: Matching occurrence pairs considered at most (see the module docstring).
MAX_PAIRS = 1_000_000

_DEFAULT_CANONICAL = CanonicalForm(stop_words=False)


class _Spans:
    """Character spans of a passage in A and B (``a_start``... are the subclass's fields)."""

    __slots__ = ()
    a_start: int
    a_end: int
    b_start: int
    b_end: int

    @property
    def a_span(self) -> tuple[int, int]:
        """``(a_start, a_end)``."""
        return self.a_start, self.a_end

    @property
    def b_span(self) -> tuple[int, int]:
        """``(b_start, b_end)``."""
        return self.b_start, self.b_end

    def text_a(self, text: str) -> str:
        """The passage's text in A (``text``: the A the passage was found in)."""
        return text[self.a_start : self.a_end]

    def text_b(self, text: str) -> str:
        """The passage's text in B (``text``: the B the passage was found in)."""
        return text[self.b_start : self.b_end]


@dataclass(frozen=True, slots=True)
class Passage(_Spans):
    """A passage two texts share.

    Attributes:
        a_start, a_end: ``[start, end)`` character offsets in text A, from the first shared
            token's start to the last shared token's end.
        b_start, b_end: the same in text B.
        tokens: canonical tokens in the passage (equal in A and in B).
        a_token, b_token: index of the passage's first token in A's and B's canonical token
            sequence.
    """

    a_start: int
    a_end: int
    b_start: int
    b_end: int
    tokens: int
    a_token: int = 0
    b_token: int = 0

    def swapped(self) -> Passage:
        """The same passage seen from the other text (A and B exchanged)."""
        return Passage(
            self.b_start,
            self.b_end,
            self.a_start,
            self.a_end,
            self.tokens,
            self.b_token,
            self.a_token,
        )


def matched_passages(
    text_a: str,
    text_b: str,
    *,
    canonical: CanonicalForm | None = None,
    shingle_size: int = 5,
) -> list[Passage]:
    """The passages ``text_a`` and ``text_b`` share, ordered by position in A.

    Args:
        text_a: the first original text (offsets refer to these strings).
        text_b: the second original text.
        canonical: how texts become tokens; default ``CanonicalForm(stop_words=False)``, which
            keeps every word so that a passage starts and ends exactly on the quoted text's
            first and last word (with stop words dropped, it starts and ends on content
            words).
        shingle_size: ``w``, tokens per shingle, 1-64: the shortest passage reported has
            ``w`` tokens (texts shorter than ``w`` tokens match only if their tokens are equal).

    Returns:
        One :class:`Passage` per shared passage; ``[]`` when nothing is shared.

    Raises:
        ParameterError: a text is not a ``str``, or ``shingle_size`` is out of range.
    """
    for name, value in (("text_a", text_a), ("text_b", text_b)):
        if not isinstance(value, str):
            raise ParameterError(name, type(value).__name__, "a str")
    w = check_int("shingle_size", shingle_size, low=1, high=64)
    form = canonical if canonical is not None else _DEFAULT_CANONICAL
    tok_a, spans_a = form.tokens_with_spans(text_a)
    tok_b, spans_b = form.tokens_with_spans(text_b)
    if not tok_a or not tok_b:
        return []
    width = min(w, len(tok_a), len(tok_b))
    shingling = Shingling(size=w)
    i, j = _matching_pairs(shingling.occurrences(tok_a), shingling.occurrences(tok_b))
    runs = _runs(i, j)
    tiles = _tiles(runs, width, len(tok_a), len(tok_b))
    return [_to_passage(t, spans_a, spans_b) for t in _merge(tiles)]


def highlight(text: str, spans: Sequence[tuple[int, int]], style: str = "bold yellow") -> Text:
    """``text`` as a :class:`rich.text.Text` with ``spans`` styled, for terminal display.

    Args:
        text: the text to show.
        spans: ``[start, end)`` character offsets in ``text``, e.g.
            ``[p.a_span for p in matched_passages(a, b)]``.
        style: a Rich style string.

    Returns:
        A new ``rich.text.Text``.

    Raises:
        ParameterError: a span is not within ``0 <= start <= end <= len(text)``.
    """
    from rich.text import Text

    out = Text(text)
    for start, end in spans:
        if not 0 <= start <= end <= len(text):
            raise ParameterError("spans", (start, end), f"0 <= start <= end <= {len(text)}")
        out.stylize(style, start, end)
    return out


# -- steps ------------------------------------------------------------------------------------
def _matching_pairs(
    occ_a: tuple[np.ndarray, np.ndarray], occ_b: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Token starts ``(i, j)`` of every pair of occurrences with equal fingerprints.

    Returns:
        Two int64 arrays of shape (p,).
    """
    (fa, sa), (fb, sb) = occ_a, occ_b
    order = np.argsort(fb, kind="stable")
    fb_sorted = fb[order]
    lo = np.searchsorted(fb_sorted, fa, side="left")
    count = np.searchsorted(fb_sorted, fa, side="right") - lo
    count = _cap_pairs(count)
    i = np.repeat(sa.astype(np.int64), count)
    j = sb.astype(np.int64)[order[seg_arange(lo, count)]]
    return i, j


def _cap_pairs(count: np.ndarray, limit: int = MAX_PAIRS) -> np.ndarray:
    """Zero the counts of the most repeated shingles so that ``count.sum() <= limit``.

    ``count[k]`` is the number of B occurrences paired with A occurrence ``k``; all
    occurrences with a count above the largest admissible cap are dropped together.
    """
    if int(count.sum()) <= limit:
        return count
    ordered = np.sort(count)
    cum = np.cumsum(ordered)
    values = sorted_unique(ordered)
    total = cum[np.searchsorted(ordered, values, side="right") - 1]
    fits = values[total <= limit]
    cap = int(fits.max()) if fits.size else -1
    return np.where(count <= cap, count, 0)


def _runs(i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Maximal diagonal runs of matching shingle starts.

    Returns:
        int64 array of shape (r, 3): ``(i0, j0, length)`` with ``length`` in shingles.
    """
    if i.size == 0:
        return np.zeros((0, 3), np.int64)
    diag = i - j
    order = np.lexsort((i, diag))
    i, j, diag = i[order], j[order], diag[order]
    start = np.ones(i.size, dtype=bool)
    start[1:] = (diag[1:] != diag[:-1]) | (i[1:] != i[:-1] + 1)
    first = np.flatnonzero(start)
    length = np.diff(np.append(first, i.size))
    return np.stack([i[first], j[first], length], axis=1)


def _tiles(runs: np.ndarray, width: int, n_a: int, n_b: int) -> list[tuple[int, int, int]]:
    """Greedy longest-run-first tiling: token-disjoint ``(a_token, b_token, tokens)`` tiles."""
    i0, j0, length = runs[:, 0], runs[:, 1], runs[:, 2]
    order = np.lexsort((i0, np.abs(i0 - j0), i0 + j0, -length))
    used_a = np.zeros(n_a + 1, dtype=bool)
    used_b = np.zeros(n_b + 1, dtype=bool)
    tiles: list[tuple[int, int, int]] = []
    for a, b, n in runs[order].tolist():
        span = n + width - 1
        if not (used_a[a : a + span].any() or used_b[b : b + span].any()):
            pieces = [(0, n)]
        else:
            free = _free_windows(used_a[a : a + span], width) & _free_windows(
                used_b[b : b + span], width
            )
            pieces = _true_segments(free)
        for lo, hi in pieces:
            tokens = hi - lo + width - 1
            used_a[a + lo : a + lo + tokens] = True
            used_b[b + lo : b + lo + tokens] = True
            tiles.append((a + lo, b + lo, tokens))
    return tiles


def _free_windows(used: np.ndarray, width: int) -> np.ndarray:
    """``free[t]``: no token of ``used[t : t + width]`` is used; shape (len(used) - width + 1,)."""
    cum = np.concatenate(([0], np.cumsum(used, dtype=np.int64)))
    return (cum[width:] - cum[:-width]) == 0


def _true_segments(mask: np.ndarray) -> list[tuple[int, int]]:
    """``[lo, hi)`` index ranges of the maximal runs of ``True`` in ``mask``."""
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def _merge(tiles: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Merge tiles that touch in both texts; sorted by A position."""
    merged: list[tuple[int, int, int]] = []
    for a, b, n in sorted(tiles):
        if merged:
            pa, pb, pn = merged[-1]
            if a == pa + pn and b == pb + pn:
                merged[-1] = (pa, pb, pn + n)
                continue
        merged.append((a, b, n))
    return merged


def _to_passage(
    tile: tuple[int, int, int],
    spans_a: list[tuple[int, int]],
    spans_b: list[tuple[int, int]],
) -> Passage:
    a, b, n = tile
    return Passage(
        a_start=spans_a[a][0],
        a_end=spans_a[a + n - 1][1],
        b_start=spans_b[b][0],
        b_end=spans_b[b + n - 1][1],
        tokens=n,
        a_token=a,
        b_token=b,
    )
