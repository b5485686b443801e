"""Matched passages: where two texts share text, as character offsets in both originals.

This is the "plagiarism detector" view of a near-duplicate pair. Two functions:
:func:`align_passages`, a text-alignment pipeline (seeding, extension, filtering) that finds
passages with words replaced, deleted, inserted or reordered (see its docstring and
``docs/passages.md``); and :func:`matched_passages`, exact token-equal tiles, whose method
follows:

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

import itertools
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from neardup._array import seg_arange
from neardup.errors import ParameterError, check_int
from neardup.methods.shingles import Shingling
from neardup.text.canonical import TOKEN_RE, CanonicalForm

if TYPE_CHECKING:
    from rich.text import Text

#: Matching occurrence pairs considered at most (see the module docstring).
MAX_PAIRS = 1_000_000

_DEFAULT_CANONICAL = CanonicalForm(stop_words=False)
_TOKEN_SPLIT = re.compile(f"({TOKEN_RE.pattern})")  # split() keeps the tokens


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
    values = np.unique(ordered)
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


# == text alignment (issue 19) ================================================================
#: Default ``max_gap`` of :func:`align_passages`, in characters.
ALIGN_MAX_GAP = 250
#: Default ``min_chars`` of :func:`align_passages`: the shortest passage reported, in
#: characters, in each text.
ALIGN_MIN_CHARS = 150

#: A passage needs this many different seeds (a phrase repeated in both texts, such as a
#: line of code, is one seed however often it repeats).
MIN_DISTINCT_SEEDS = 8

_KIND_EXACT = np.uint64(0x9E3779B97F4A7C15)
_KIND_SORTED = np.uint64(0xC2B2AE3D27D4EB4F)


@dataclass(frozen=True, slots=True)
class AlignedPassage(_Spans):
    """A passage of A aligned with a passage of B by :func:`align_passages`.

    The two sides need not have equal tokens (words may be replaced, inserted, deleted or
    reordered); each side runs from its first seed's first token's start to its last seed's
    last token's end, as ``[start, end)`` character offsets in the original strings.

    Attributes:
        a_start, a_end: offsets in A.
        b_start, b_end: offsets in B.
        seeds: matching seed pairs inside the passage (its evidence; >= 1).
    """

    a_start: int
    a_end: int
    b_start: int
    b_end: int
    seeds: int

    def swapped(self) -> AlignedPassage:
        """The same passage seen from the other text (A and B exchanged)."""
        return AlignedPassage(self.b_start, self.b_end, self.a_start, self.a_end, self.seeds)


@dataclass(frozen=True, slots=True)
class _Tokens:
    """One text's tokens as arrays: integer ids, character spans, content-word mask."""

    ids: np.ndarray  # int64 (n,)
    start: np.ndarray  # int64 (n,)
    end: np.ndarray  # int64 (n,)
    content: np.ndarray  # bool (n,)


def align_passages(
    text_a: str,
    text_b: str,
    *,
    seed_size: int = 4,
    sorted_size: int = 3,
    max_gap: int = ALIGN_MAX_GAP,
    min_chars: int = ALIGN_MIN_CHARS,
) -> list[AlignedPassage]:
    """Text alignment of ``text_a`` and ``text_b``: seeding, extension, filtering.

    The three steps of the text-alignment systems of PAN (Potthast et al. 2013, "Overview of
    the 5th International Competition on Plagiarism Detection"):

    1. **Seeding** -- pairs of equal seeds, each a token range in A and in B:
       exact word ``seed_size``-grams over every token (Broder 1997's shingles), and
       *sorted* ``sorted_size``-grams of consecutive content words (stop words dropped, the
       words sorted), after Torrejon & Ramos 2013, which survive stop-word changes and
       reordering inside the n-gram. Seeds repeated too often are capped (:data:`MAX_PAIRS`).
    2. **Extension** -- seeds are clustered so that inside a cluster no gap of more than
       ``max_gap`` characters separates consecutive seeds, in A *and* in B (split by A
       gaps, then by B gaps, until nothing splits: the coarsest such partition, which
       does not depend on the order of the splits). Clusters with fewer than 3 seeds or
       shorter than ``min_chars / 2`` characters on a side are chance matches and dropped;
       the rest are clustered again with gaps up to ``2 * max_gap``, which joins a passage
       across a heavily edited stretch (Sanchez-Perez, Sidorov & Gelbukh 2014 extend in
       the same two stages).
    3. **Filtering** -- passages shorter than ``min_chars`` characters in A or in B, or
       with fewer than :data:`MIN_DISTINCT_SEEDS` different seeds, are dropped; of
       passages that overlap in A or in B only the one with the most seeds is kept (ties:
       longer, then nearer the texts' starts), so each passage of A has one place in B.
       Before the extension, a seed repeated in a text keeps only its pairings in the
       largest cluster, nearest that cluster's diagonal (see ``_unambiguous``).

    Deterministic; swapping A and B swaps the offsets (every step treats A and B alike,
    except for the last tie-break between mirror-image passages).

    Args:
        text_a: the first original text (offsets refer to these strings).
        text_b: the second original text.
        seed_size: words per exact seed, 2-16.
        sorted_size: content words per sorted seed, 2-16; ``0`` turns sorted seeds off.
        max_gap: the largest gap, in characters, bridged inside a passage in the first
            stage (twice this in the second), 0-100,000.
        min_chars: the shortest passage reported, in characters, in each text, 1-100,000.

    Returns:
        :class:`AlignedPassage` values ordered by position in A; ``[]`` when nothing is
        shared.

    Raises:
        ParameterError: a text is not a ``str`` or a parameter is out of range.

    Cost: ``O((n + m) log(n + m) + P log P)`` for ``n``, ``m`` tokens and ``P`` seed pairs,
    vectorised with numpy; a pair of 5,000-word documents takes milliseconds.
    """
    for name, value in (("text_a", text_a), ("text_b", text_b)):
        if not isinstance(value, str):
            raise ParameterError(name, type(value).__name__, "a str")
    n = check_int("seed_size", seed_size, low=2, high=16)
    k = sorted_size
    if k != 0:
        k = check_int("sorted_size", sorted_size, low=2, high=16)
    gap = check_int("max_gap", max_gap, low=0, high=100_000)
    shortest = check_int("min_chars", min_chars, low=1, high=100_000)
    ta, tb = _token_arrays(text_a, text_b)
    if ta.ids.size == 0 or tb.ids.size == 0:
        return []
    seeds, occ_a, occ_b, hashes = _seed_pairs(ta, tb, n, k)
    if seeds.shape[0] == 0:
        return []
    keep = _unambiguous(seeds, occ_a, occ_b, _cluster(seeds, gap))
    seeds, hashes = seeds[keep], hashes[keep]
    label = _cluster(seeds, gap)
    keep = _dense_clusters(seeds, label, min_seeds=3, min_chars=max(1, shortest // 2))
    seeds, hashes = seeds[keep], hashes[keep]
    if seeds.shape[0] == 0:
        return []
    label = _cluster(seeds, 2 * gap)
    boxes = _boxes(seeds, label)
    long_enough = (
        (boxes[:, 1] - boxes[:, 0] >= shortest)
        & (boxes[:, 3] - boxes[:, 2] >= shortest)
        & (_distinct(label, hashes) >= MIN_DISTINCT_SEEDS)
    )
    return _one_place(boxes[long_enough])


def _token_arrays(text_a: str, text_b: str) -> tuple[_Tokens, _Tokens]:
    """Tokens of both texts (every word kept) as arrays, with ids shared by the two texts."""
    (tok_a, start_a, end_a), (tok_b, start_b, end_b) = _spans(text_a), _spans(text_b)
    if not tok_a or not tok_b:
        empty = np.zeros(0, np.int64)
        return (_Tokens(empty, empty, empty, empty.astype(bool)),) * 2
    tokens = tok_a + tok_b
    vocab: dict[str, int] = {}  # a word's id: the index of its first occurrence
    ids = np.fromiter(map(vocab.setdefault, tokens, itertools.count()), np.int64, len(tokens))
    stop = _stop_words()
    content = ~np.fromiter(map(stop.__contains__, tokens), bool, len(tokens))
    n = len(tok_a)
    return (
        _Tokens(ids[:n], start_a, end_a, content[:n]),
        _Tokens(ids[n:], start_b, end_b, content[n:]),
    )


def _spans(text: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """:meth:`CanonicalForm.tokens_with_spans` (every word kept), spans as int64 arrays.

    When normalization maps the whole text character for character (the usual case) the
    tokens and the text between them come from one C-speed regular-expression split of
    the normalized text, and the spans from their cumulated lengths.
    """
    from neardup.text.canonical import normalize

    plain = text.replace("\xa0", " ")  # NFKC maps it to one space: same length
    if unicodedata.is_normalized("NFKC", plain) and len(plain.lower()) == len(plain):
        pieces = _TOKEN_SPLIT.split(normalize(plain))  # text, token, text, ..., token, text
        tokens = pieces[1::2]
        ends = np.cumsum(np.fromiter(map(len, pieces), np.int64, len(pieces)))
        return tokens, ends[0:-1:2].copy(), ends[1::2].copy()
    tokens, spans = _DEFAULT_CANONICAL.tokens_with_spans(text)
    pos = np.array(spans, dtype=np.int64).reshape(-1, 2)
    return tokens, pos[:, 0].copy(), pos[:, 1].copy()


def _stop_words() -> frozenset[str]:
    from neardup.text.stopwords import stop_words

    return stop_words()


def _gram_hashes(ids: np.ndarray, size: int, salt: np.uint64, *, sort: bool) -> np.ndarray:
    """uint64 hash of every window of ``size`` consecutive ids (sorted first if ``sort``)."""
    from numpy.lib.stride_tricks import sliding_window_view

    from neardup._array import fmix64

    windows = sliding_window_view(ids, size)
    if sort:
        windows = np.sort(windows, axis=1)
    h = np.full(windows.shape[0], salt, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for col in range(size):
            h = fmix64(h * np.uint64(31) + windows[:, col].astype(np.uint64))
    return h


def _seeds_of(t: _Tokens, n: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seeds of one text: ``(hash, first token, last token)``, three arrays of shape (s,)."""
    hashes, first, last = [], [], []
    if t.ids.size >= n:
        hashes.append(_gram_hashes(t.ids, n, _KIND_EXACT, sort=False))
        starts = np.arange(t.ids.size - n + 1, dtype=np.int64)
        first.append(starts)
        last.append(starts + n - 1)
    where = np.flatnonzero(t.content)
    if k and where.size >= k:
        hashes.append(_gram_hashes(t.ids[where], k, _KIND_SORTED, sort=True))
        first.append(where[: where.size - k + 1])
        last.append(where[k - 1 :])
    if not hashes:
        empty = np.zeros(0, np.int64)
        return np.zeros(0, np.uint64), empty, empty
    return np.concatenate(hashes), np.concatenate(first), np.concatenate(last)


def _seed_pairs(
    ta: _Tokens, tb: _Tokens, n: int, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of equal seeds as character boxes, with the seed occurrences paired.

    Returns:
        ``(boxes, occ_a, occ_b, hashes)``: int64 arrays of shapes (p, 4) (``a_start, a_end,
        b_start, b_end``), (p,) and (p,) (the index of the pair's seed occurrence in A's and
        in B's seed list), and the seeds' uint64 hashes (p,).
    """
    ha, fa, la = _seeds_of(ta, n, k)
    hb, fb, lb = _seeds_of(tb, n, k)
    order = np.argsort(hb, kind="stable")
    hb_sorted = hb[order]
    lo = np.searchsorted(hb_sorted, ha, side="left")
    count = _cap_pairs(np.searchsorted(hb_sorted, ha, side="right") - lo)
    pick_b = order[seg_arange(lo, count)]
    pick_a = np.repeat(np.arange(ha.size), count)
    boxes = np.stack(
        [ta.start[fa[pick_a]], ta.end[la[pick_a]], tb.start[fb[pick_b]], tb.end[lb[pick_b]]],
        axis=1,
    )
    return boxes, pick_a, pick_b, ha[pick_a]


def _distinct(label: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """Distinct seeds (hash values) per cluster: int64 (c,)."""
    order = np.lexsort((hashes, label))
    lab, h = label[order], hashes[order]
    new = np.ones(lab.size, dtype=bool)
    new[1:] = (lab[1:] != lab[:-1]) | (h[1:] != h[:-1])
    return np.bincount(lab[new], minlength=int(label.max()) + 1)


def _unambiguous(
    seeds: np.ndarray, occ_a: np.ndarray, occ_b: np.ndarray, label: np.ndarray
) -> np.ndarray:
    """Mask of the seed pairs that are the best pairing of their A and of their B occurrence.

    A seed occurring several times in one text is paired with every equal seed of the
    other; of those pairs only the ones in the largest cluster are kept, and in one
    cluster the ones nearest its median diagonal ``b_start - a_start`` (exact ties all
    kept). A passage copied from B into A repeats every phrase of B's passage, so a phrase
    it shares with B's surroundings is always ambiguous and goes to the copied passage.
    """
    diagonal = seeds[:, 2] - seeds[:, 0]
    order = np.lexsort((diagonal, label))
    lab = label[order]
    first = np.flatnonzero(np.concatenate(([True], lab[1:] != lab[:-1])))
    count = np.diff(np.append(first, lab.size))
    ordered = diagonal[order]
    twice_median = ordered[first + (count - 1) // 2] + ordered[first + count // 2]
    deviation = np.abs(2 * diagonal - twice_median[label])  # twice the distance
    span = int(deviation.max()) + 1
    size = np.bincount(label)[label] * span - deviation
    best_a = np.zeros(int(occ_a.max()) + 1, dtype=np.int64)
    np.maximum.at(best_a, occ_a, size)
    best_b = np.zeros(int(occ_b.max()) + 1, dtype=np.int64)
    np.maximum.at(best_b, occ_b, size)
    return (size == best_a[occ_a]) & (size == best_b[occ_b])


def _split(label: np.ndarray, start: np.ndarray, end: np.ndarray, gap: int) -> np.ndarray:
    """Split each cluster where its seeds' union on one axis has a hole wider than ``gap``.

    Returns:
        New labels 0..c-1, int64 of shape (p,).
    """
    order = np.lexsort((start, label))
    lab, s, e = label[order], start[order], end[order]
    big = int(end.max()) - int(start.min()) + gap + 2
    reach = (
        np.maximum.accumulate(e - start.min() + lab * big) - lab * big + start.min()
    )  # running max of end per cluster
    new = np.ones(lab.size, dtype=bool)
    new[1:] = (lab[1:] != lab[:-1]) | (s[1:] - reach[:-1] > gap)
    out = np.empty(lab.size, dtype=np.int64)
    out[order] = np.cumsum(new) - 1
    return out


def _cluster(seeds: np.ndarray, gap: int) -> np.ndarray:
    """Cluster labels: the coarsest partition with no gap over ``gap`` in A or in B."""
    label = np.zeros(seeds.shape[0], dtype=np.int64)
    diagonal = seeds[:, 2] - seeds[:, 0]
    count = 1
    while True:
        label = _split(label, seeds[:, 0], seeds[:, 1], gap)
        label = _split(label, seeds[:, 2], seeds[:, 3], gap)
        label = _split(label, diagonal, diagonal, gap)
        new_count = int(label.max()) + 1
        if new_count == count:
            return label
        count = new_count


def _boxes(seeds: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Per cluster ``a_start, a_end, b_start, b_end, seeds``: int64 (c, 5)."""
    order = np.argsort(label, kind="stable")
    lab, s = label[order], seeds[order]
    first = np.flatnonzero(np.concatenate(([True], lab[1:] != lab[:-1])))
    return np.stack(
        [
            np.minimum.reduceat(s[:, 0], first),
            np.maximum.reduceat(s[:, 1], first),
            np.minimum.reduceat(s[:, 2], first),
            np.maximum.reduceat(s[:, 3], first),
            np.diff(np.append(first, lab.size)),
        ],
        axis=1,
    )


def _dense_clusters(
    seeds: np.ndarray, label: np.ndarray, *, min_seeds: int, min_chars: int
) -> np.ndarray:
    """Mask of the seeds whose cluster has ``min_seeds`` seeds and ``min_chars`` per side."""
    boxes = _boxes(seeds, label)
    good = (
        (boxes[:, 4] >= min_seeds)
        & (boxes[:, 1] - boxes[:, 0] >= min_chars)
        & (boxes[:, 3] - boxes[:, 2] >= min_chars)
    )
    return good[label]


def _one_place(boxes: np.ndarray) -> list[AlignedPassage]:
    """Of boxes overlapping in A or in B keep the strongest; sorted by A position."""
    a0, a1, b0, b1, n = (boxes[:, c] for c in range(5))
    size = (a1 - a0) + (b1 - b0)
    order = np.lexsort((np.abs(a0 - b0), a0 + b0, -size, -n))
    kept: list[AlignedPassage] = []
    for row in boxes[order].tolist():
        p = AlignedPassage(*row)
        if all(p.a_end <= q.a_start or q.a_end <= p.a_start for q in kept) and all(
            p.b_end <= q.b_start or q.b_end <= p.b_start for q in kept
        ):
            kept.append(p)
    return sorted(kept, key=lambda p: (p.a_start, p.b_start))


def write_pair_passages(
    pairs: Iterable[Any],
    inputs: Sequence[str],
    read_options: dict[str, Any],
    out_dir: str | os.PathLike[str],
) -> Path:
    """Write ``passages.jsonl``: the :func:`align_passages` passages of each pair.

    One row a passage, ``{"a", "b", "a_start", "a_end", "b_start", "b_end", "seeds"}``,
    offsets in the documents' texts as read (``read_options`` as given to the job); pairs
    in their order, passages by position in ``a``. The corpus is read again, keeping only
    the documents of a pair. The file is written to a temporary name and renamed.

    Args:
        pairs: objects with ``a`` and ``b`` document ids (e.g. a job's verified pairs).
        inputs: the corpus paths the job read.
        read_options: keyword arguments of :func:`neardup.text.read.read_corpus`.
        out_dir: an existing or new directory.

    Returns:
        The path of ``passages.jsonl``.

    Raises:
        OSError: the file cannot be written.
    """
    import json
    import tempfile

    from neardup.text.read import read_corpus
    from neardup.text.types import Document

    wanted = [(p.a, p.b) for p in pairs]
    needed = {i for pair in wanted for i in pair}
    texts = {
        d.id: d.text
        for d in read_corpus(list(inputs), **read_options)
        if isinstance(d, Document) and d.id in needed
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "passages.jsonl"
    fd, tmp = tempfile.mkstemp(prefix=".passages.jsonl.", dir=out)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for a, b in wanted:
                if a not in texts or b not in texts:
                    continue
                for p in align_passages(texts[a], texts[b]):
                    row = {"a": a, "b": b, "a_start": p.a_start, "a_end": p.a_end}
                    row |= {"b_start": p.b_start, "b_end": p.b_end, "seeds": p.seeds}
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
