"""Text alignment: :func:`align_passages` (seeding, extension, filtering).

See :func:`align_passages` and ``docs/passages.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neardup.errors import ParameterError, check_int
from neardup.passages.seeds import Seeds, concat, gram_seeds, sentence_seeds
from neardup.passages.tiles import _Spans
from neardup.passages.tokens import Tokens, token_arrays

#: Default ``max_gap`` of :func:`align_passages`, in characters.
ALIGN_MAX_GAP = 250
#: Default ``min_chars`` of :func:`align_passages`: the shortest passage reported, in
#: characters, in each text.
ALIGN_MIN_CHARS = 150
#: A passage needs this much evidence: different n-gram seeds, a sentence seed counting
#: :data:`SENTENCE_WEIGHT` (a phrase repeated in both texts, such as a line of code, is one
#: seed however often it repeats).
MIN_DISTINCT_SEEDS = 8
#: What a sentence-pair seed counts towards :data:`MIN_DISTINCT_SEEDS`.
SENTENCE_WEIGHT = 3
#: Sentence seeds: tf-idf cosine and Dice above these (Sanchez-Perez et al. 2014: 0.33).
SENTENCE_COSINE = 0.33
SENTENCE_DICE = 0.33
#: Summary mode: a passage whose B side is this many times longer than its A side.
SUMMARY_RATIO = 4.0
#: Summary mode: a summary is kept when ordinary passages cover less of its A side.
SUMMARY_COVERED = 0.35
#: Summary mode: sentence seeds a summary needs.
SUMMARY_MIN_SENTENCES = 3
#: Summary mode: a summary is refused when one ordinary passage covers this much of its A.
SUMMARY_EXPLAINED = 0.9
#: Summary mode: a summary is refused when one near-verbatim copy covers this much of its A.
SUMMARY_COPY = 0.65
#: Summary mode's gaps: in A (the summary) and in B (the summarized text), in characters.
SUMMARY_GAP_A = 400
SUMMARY_GAP_B = 4000
#: A cluster with this many n-gram seeds per token of its longer side is near-verbatim.
VERBATIM_DENSITY = 0.7
#: In a pair with a near-verbatim passage, a passage needs this many n-gram seeds per token.
VERBATIM_FLOOR = 0.4


@dataclass(frozen=True, slots=True)
class AlignedPassage(_Spans):
    """A passage of A aligned with a passage of B by :func:`align_passages`.

    The two sides need not have equal tokens (words may be replaced, inserted, deleted or
    reordered, sentences paraphrased, a long passage summarized); each side runs from its
    first seed's start to its last seed's end, as ``[start, end)`` character offsets in the
    original strings.

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


def align_passages(
    text_a: str,
    text_b: str,
    *,
    seed_size: int = 4,
    sorted_size: int = 3,
    sentences: bool = True,
    summary: bool = True,
    max_gap: int = ALIGN_MAX_GAP,
    min_chars: int = ALIGN_MIN_CHARS,
) -> list[AlignedPassage]:
    """Text alignment of ``text_a`` and ``text_b``: seeding, extension, filtering.

    The steps of the text-alignment systems of PAN (Potthast et al. 2013, "Overview of
    the 5th International Competition on Plagiarism Detection"), with the defaults measured
    on the PAN 2013 text-alignment corpora (``benchmarks/results/passages_pan13.md``):

    1. **Seeding** (:mod:`neardup.passages.seeds`) -- pairs of matching pieces of A and B:
       exact word ``seed_size``-grams over every token (Broder 1997's shingles); *sorted*
       ``sorted_size``-grams of consecutive content-word stems (stop words dropped, Snowball
       stems sorted; Torrejon & Ramos 2013), which survive stop-word changes, inflection and
       reordering inside the n-gram; and, with ``sentences``, *sentence* pairs whose bags of
       content-word stems have a tf-idf cosine above :data:`SENTENCE_COSINE` and a Dice
       coefficient above :data:`SENTENCE_DICE` (Sanchez-Perez, Sidorov & Gelbukh 2014),
       which survive paraphrase and translation; a sentence seed spans the shared words of
       its two sentences. A seed repeated in a text keeps only its pairings in the largest
       first-stage cluster, nearest that cluster's diagonal (see ``_unambiguous``).
    2. **Extension** -- seeds are clustered so that inside a cluster no gap of more than
       ``max_gap`` characters separates consecutive seeds, in A, in B and along the diagonal
       (the coarsest such partition, which does not depend on the order of the splits).
       Clusters with fewer than 3 seeds or shorter than ``min_chars / 2`` characters on a
       side are chance matches and dropped; the rest are clustered again with gaps up to
       ``2 * max_gap``, which joins a passage across a heavily edited stretch (the two
       stages of Sanchez-Perez et al.). The gaps adapt to the seeds' density: a cluster
       with :data:`VERBATIM_DENSITY` n-gram seeds per token is a near-verbatim copy and is
       cut to its n-gram seeds (a similar sentence next to a copy is a neighbour on the
       same topic, not part of it), and in a pair with such a copy a passage needs
       :data:`VERBATIM_FLOOR` n-gram seeds per token.
    3. **Summary mode** (``summary``, with ``sentences``) -- the seeds are clustered again
       with gaps of :data:`SUMMARY_GAP_A` characters in A and :data:`SUMMARY_GAP_B` in B and
       no diagonal condition; a cluster whose B side is :data:`SUMMARY_RATIO` times longer
       than its A side, with :data:`SUMMARY_MIN_SENTENCES` sentence seeds, is a summary of B
       in A, unless one ordinary passage covers :data:`SUMMARY_EXPLAINED` of its A side,
       one near-verbatim copy covers :data:`SUMMARY_COPY` of it, or the ordinary passages
       cover :data:`SUMMARY_COVERED` of its B side (the summary/verbatim decision: a copy
       that picked up chance seeds far away in B is not a summary). A summary is one
       passage (granularity 1).
    4. **Filtering** -- passages shorter than ``min_chars`` characters in A or in B, or with
       less evidence than :data:`MIN_DISTINCT_SEEDS` (different n-gram seeds, a sentence
       seed counting :data:`SENTENCE_WEIGHT`), are dropped; of passages that overlap in A or
       in B only the one with the most seeds is kept (ties: longer, then nearer the texts'
       starts), so each passage of A has one place in B.

    Deterministic; swapping A and B swaps the offsets, except for summaries (a short A, a
    long B: the mode looks one way) and the last tie-break between mirror-image passages.

    Args:
        text_a: the first original text (offsets refer to these strings); in plagiarism
            detection the suspicious document.
        text_b: the second original text; the source.
        seed_size: words per exact seed, 2-16.
        sorted_size: content words per sorted seed, 2-16; ``0`` turns sorted seeds off.
        sentences: use the sentence seeds (``False``: the n-gram seeds only).
        summary: use the summary mode (needs ``sentences``).
        max_gap: the largest gap, in characters, bridged inside a passage in the first
            stage (twice this in the second), 0-100,000.
        min_chars: the shortest passage reported, in characters, in each text, 1-100,000.

    Returns:
        :class:`AlignedPassage` values ordered by position in A; ``[]`` when nothing is
        shared.

    Raises:
        ParameterError: a text is not a ``str``, a flag not a ``bool``, or a parameter out
            of range.

    Cost: ``O((n + m) log(n + m) + P log P + Q log Q)`` for ``n``, ``m`` tokens, ``P`` seed
    pairs and ``Q`` (sentence, sentence) pairs sharing a content stem, vectorised with
    numpy; a pair of 5,000-word documents takes tens of milliseconds.
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
    for name, flag in (("sentences", sentences), ("summary", summary)):
        if not isinstance(flag, bool):
            raise ParameterError(name, flag, "True or False")
    ta, tb = token_arrays(text_a, text_b)
    if ta.ids.size == 0 or tb.ids.size == 0:
        return []
    seeds = _all_seeds(ta, tb, n, k, sentences)
    if len(seeds) == 0:
        return []
    seeds = seeds.take(_unambiguous(seeds, _cluster(seeds.boxes, gap)))
    boxes, verbatim = _extend(seeds, gap, shortest, ta, tb)
    if summary and sentences:
        found = _unexplained(_summaries(seeds, shortest), boxes)
        found = _apart(found, boxes[verbatim])
        boxes = np.concatenate([boxes, found])
    return _one_place(boxes)


def _all_seeds(ta: Tokens, tb: Tokens, n: int, k: int, sentences: bool) -> Seeds:
    grams = gram_seeds(ta, tb, n, k)
    if not sentences:
        return grams
    occ_a = int(grams.occ_a.max()) + 1 if len(grams) else 0
    occ_b = int(grams.occ_b.max()) + 1 if len(grams) else 0
    sent = sentence_seeds(
        ta, tb, cos_min=SENTENCE_COSINE, dice_min=SENTENCE_DICE, occ_a=occ_a, occ_b=occ_b
    )
    return concat([grams, sent])


def _evidence(seeds: Seeds, label: np.ndarray) -> np.ndarray:
    """Per cluster: distinct n-gram seeds + :data:`SENTENCE_WEIGHT` per sentence seed."""
    grams = ~seeds.sentence
    out = np.zeros(int(label.max()) + 1, dtype=np.int64)
    if grams.any():
        d = _distinct(label[grams], seeds.hashes[grams])
        out[: d.size] += d
    out += SENTENCE_WEIGHT * np.bincount(label[seeds.sentence], minlength=out.size)
    return out


def _verbatim_trim(
    seeds: Seeds, label: np.ndarray, boxes: np.ndarray, ta: Tokens, tb: Tokens
) -> tuple[np.ndarray, np.ndarray]:
    """Boxes of verbatim-like clusters cut to their n-gram seeds.

    A cluster whose n-gram seeds number :data:`VERBATIM_DENSITY` per token of its longer side
    or more is a near-verbatim copy: its passage is where its n-gram seeds are, and a sentence
    seed beyond them is a chance neighbour (a sentence on the same topic). Returns the
    boxes and the verbatim mask, bool (c,).
    """
    grams = ~seeds.sentence
    if not grams.any():
        return boxes, np.zeros(boxes.shape[0], dtype=bool)
    lab = label[grams]
    count = np.bincount(lab, minlength=boxes.shape[0])
    gram_boxes = np.zeros_like(boxes)
    have = np.flatnonzero(count)
    gram_boxes[have] = _boxes(seeds.boxes[grams], lab)[:, :5]
    tokens = np.maximum(
        np.searchsorted(ta.start, boxes[:, 1]) - np.searchsorted(ta.start, boxes[:, 0]),
        np.searchsorted(tb.start, boxes[:, 3]) - np.searchsorted(tb.start, boxes[:, 2]),
    )
    verbatim = count >= VERBATIM_DENSITY * np.maximum(tokens, 1)
    out = boxes.copy()
    out[verbatim, :4] = gram_boxes[verbatim, :4]
    if verbatim.any():  # a pair with a verbatim copy: its other passages must be copies too
        weak = count < VERBATIM_FLOOR * np.maximum(tokens, 1)
        out[weak, 4] = -1
    return out, verbatim


def _extend(
    seeds: Seeds, gap: int, shortest: int, ta: Tokens, tb: Tokens
) -> tuple[np.ndarray, np.ndarray]:
    """Passages of the seeds: boxes ``a_start, a_end, b_start, b_end, seeds``, int64 (c, 5),
    and which are near-verbatim copies, bool (c,)."""
    label = _cluster(seeds.boxes, gap)
    keep = _dense_clusters(seeds.boxes, label, min_seeds=3, min_chars=max(1, shortest // 2))
    seeds = seeds.take(keep)
    if len(seeds) == 0:
        return np.zeros((0, 5), np.int64), np.zeros(0, dtype=bool)
    label = _cluster(seeds.boxes, 2 * gap)
    boxes, verbatim = _verbatim_trim(seeds, label, _boxes(seeds.boxes, label), ta, tb)
    long_enough = (
        (boxes[:, 1] - boxes[:, 0] >= shortest)
        & (boxes[:, 3] - boxes[:, 2] >= shortest)
        & (_evidence(seeds, label) >= MIN_DISTINCT_SEEDS)
        & (boxes[:, 4] >= 0)
    )
    return boxes[long_enough], verbatim[long_enough]


def _apart(summaries: np.ndarray, copies: np.ndarray) -> np.ndarray:
    """The summaries of which no near-verbatim copy covers :data:`SUMMARY_COPY` of the A
    side (a summary does not grow out of a copy)."""
    if summaries.shape[0] == 0 or copies.shape[0] == 0:
        return summaries
    lo = np.maximum(summaries[:, None, 0], copies[None, :, 0])
    hi = np.minimum(summaries[:, None, 1], copies[None, :, 1])
    share = np.clip(hi - lo, 0, None).max(axis=1)
    return summaries[share < SUMMARY_COPY * (summaries[:, 1] - summaries[:, 0])]


def _unexplained(summaries: np.ndarray, passages: np.ndarray) -> np.ndarray:
    """The summaries the ordinary passages do not explain.

    The summary/verbatim decision: a summary is refused when one ordinary passage (a copy,
    paraphrase or translation, found with the ordinary gaps) covers
    :data:`SUMMARY_EXPLAINED` of its A side -- the summary is then that passage with
    chance seeds far away in B -- or when the ordinary passages cover
    :data:`SUMMARY_COVERED` of its B side.
    """
    if summaries.shape[0] == 0 or passages.shape[0] == 0:
        return summaries
    overlap = []
    for c in (0, 2):  # A, B
        lo = np.maximum(summaries[:, None, c], passages[None, :, c])
        hi = np.minimum(summaries[:, None, c + 1], passages[None, :, c + 1])
        overlap.append(np.clip(hi - lo, 0, None))
    a_len = summaries[:, 1] - summaries[:, 0]
    b_len = summaries[:, 3] - summaries[:, 2]
    explained = overlap[0].max(axis=1) >= SUMMARY_EXPLAINED * a_len
    covered = overlap[1].sum(axis=1) >= SUMMARY_COVERED * b_len
    return summaries[~explained & ~covered]


def _summaries(seeds: Seeds, shortest: int) -> np.ndarray:
    """Summary mode: a short stretch of A aligned with a long stretch of B.

    The seeds are clustered with gaps up to :data:`SUMMARY_GAP_A` in A and
    :data:`SUMMARY_GAP_B` in B (no diagonal condition: a summary keeps the order of
    neither its sentences nor their distances); a cluster is a summary when its B side is
    :data:`SUMMARY_RATIO` times longer than its A side and it has the evidence of a
    passage with :data:`SUMMARY_MIN_SENTENCES` sentence seeds. Returns boxes as
    :func:`_extend`.
    """
    label = np.zeros(len(seeds), dtype=np.int64)
    b = seeds.boxes
    count = 1
    while True:
        label = _split(label, b[:, 0], b[:, 1], SUMMARY_GAP_A)
        label = _split(label, b[:, 2], b[:, 3], SUMMARY_GAP_B)
        new_count = int(label.max()) + 1
        if new_count == count:
            break
        count = new_count
    boxes = _boxes(b, label)
    a_len, b_len = boxes[:, 1] - boxes[:, 0], boxes[:, 3] - boxes[:, 2]
    sentence_seeds = np.bincount(label[seeds.sentence], minlength=boxes.shape[0])
    good = (
        (a_len >= shortest)
        & (b_len >= SUMMARY_RATIO * a_len)
        & (sentence_seeds >= SUMMARY_MIN_SENTENCES)
        & (_evidence(seeds, label) >= MIN_DISTINCT_SEEDS)
    )
    return boxes[good]


def _distinct(label: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """Distinct seeds (hash values) per cluster: int64 (c,)."""
    order = np.lexsort((hashes, label))
    lab, h = label[order], hashes[order]
    new = np.ones(lab.size, dtype=bool)
    new[1:] = (lab[1:] != lab[:-1]) | (h[1:] != h[:-1])
    return np.bincount(lab[new], minlength=int(label.max()) + 1)


def _unambiguous(seeds_: Seeds, label: np.ndarray) -> np.ndarray:
    """Mask of the seed pairs that are the best pairing of their A and of their B occurrence.

    A seed occurring several times in one text is paired with every equal seed of the
    other; of those pairs only the ones in the largest cluster are kept, and in one
    cluster the ones nearest its median diagonal ``b_start - a_start`` (exact ties all
    kept). A passage copied from B into A repeats every phrase of B's passage, so a phrase
    it shares with B's surroundings is always ambiguous and goes to the copied passage.
    """
    seeds, occ_a, occ_b = seeds_.boxes, seeds_.occ_a, seeds_.occ_b
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
