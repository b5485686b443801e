"""Matched passages: where two texts share text, as character offsets in both originals.

This is the "plagiarism detector" view of a near-duplicate pair:

* :func:`align_passages` (:mod:`neardup.passages.align`), text alignment in the manner of
  the PAN systems -- seeds (:mod:`~neardup.passages.seeds`: exact and sorted n-grams,
  similar sentences), extension and filtering, with a summary mode; it finds passages with
  words replaced, deleted, inserted or reordered, sentences paraphrased or translated
  and back, and summaries. It is the one aligner of ``check --passages``,
  ``dedup --passages``, ``compare --passages`` and the web UI.
* :func:`matched_passages` (:mod:`neardup.passages.tiles`), exact token-equal tiles (greedy
  string tiling, Wise 1993), kept as a named option (``compare --passages --tiles``).
"""

from __future__ import annotations

from neardup.passages.align import (
    ALIGN_MAX_GAP,
    ALIGN_MIN_CHARS,
    MIN_DISTINCT_SEEDS,
    AlignedPassage,
    align_passages,
)
from neardup.passages.tiles import MAX_PAIRS, Passage, highlight, matched_passages
from neardup.passages.write import write_pair_passages

__all__ = [
    "ALIGN_MAX_GAP",
    "ALIGN_MIN_CHARS",
    "MAX_PAIRS",
    "MIN_DISTINCT_SEEDS",
    "AlignedPassage",
    "Passage",
    "align_passages",
    "highlight",
    "matched_passages",
    "write_pair_passages",
]
