"""Benchmark contamination: documents of a corpus sharing a word n-gram of ``n`` (13) words
with an evaluation set (Brown et al. 2020, GPT-3, appendix C; datatrove's n-gram
decontamination; the 13-gram is both defaults).

Words are the canonical tokens with every word kept (:class:`neardup.text.CanonicalForm`
with ``stop_words=False``: NFKC, lower case, runs of letters and digits; a CJK character is a
word). Every n-gram of every evaluation document is hashed (XXH64 of each word, combined by a
polynomial mod 2^64) into one sorted table with its item and position; each corpus document's
n-grams are looked up in it, and a hit is checked word for word, so a reported match is an
exact shared n-gram. Consecutive hits on one diagonal (the same evaluation item, corpus
position minus item position constant) are one passage (PAN's source/suspicious passage
pair), located by character offsets on both sides. The evaluation set is held in memory
(24 bytes an n-gram); the corpus is streamed.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from neardup.errors import InputError, check_int
from neardup.job.export import export_records
from neardup.progress import NullProgress, Progress
from neardup.text.canonical import CanonicalForm
from neardup.text.inputs import Spool, group_names, resolve_inputs
from neardup.text.read import read_named
from neardup.text.read import read_options as make_read_options
from neardup.text.types import Document, Skipped
from neardup.text.xxh64 import token_fingerprints

_WORDS = CanonicalForm(stop_words=False)
_MULT = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True, slots=True)
class EvalMatch:
    """A passage a corpus document shares with an evaluation item.

    Attributes:
        eval_id: the evaluation item's id.
        start, end: character offsets of the passage in the corpus document.
        eval_start, eval_end: character offsets of the passage in the evaluation item.
        ngrams: shared n-grams in the passage (its words: ``ngrams + n - 1``).
    """

    eval_id: str
    start: int
    end: int
    eval_start: int
    eval_end: int
    ngrams: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "eval_id": self.eval_id,
            "start": self.start,
            "end": self.end,
            "eval_start": self.eval_start,
            "eval_end": self.eval_end,
            "ngrams": self.ngrams,
        }


@dataclass(frozen=True, slots=True)
class Contaminated:
    """A corpus document holding at least one n-gram of the evaluation set.

    Attributes:
        id: the document's id; matches: its passages, by corpus offset.
    """

    id: str
    matches: tuple[EvalMatch, ...]

    @property
    def eval_ids(self) -> tuple[str, ...]:
        """The evaluation items it shares a passage with, in order of first passage."""
        return tuple(dict.fromkeys(m.eval_id for m in self.matches))

    @property
    def ngrams(self) -> int:
        """Shared n-grams in all its passages."""
        return sum(m.ngrams for m in self.matches)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping ``{id, passages, ngrams, eval_ids, matches}`` (``passages``
        the number of matches)."""
        return {
            "id": self.id,
            "passages": len(self.matches),
            "ngrams": self.ngrams,
            "eval_ids": list(self.eval_ids),
            "matches": [m.as_dict() for m in self.matches],
        }


@dataclass(frozen=True, slots=True)
class ContaminationResult:
    """What :func:`contamination` found.

    Attributes:
        documents: the contaminated corpus documents, in read order.
        per_item: evaluation item id -> corpus documents sharing an n-gram with it (every
            item listed, 0 for the clean ones), in evaluation order.
        skipped: corpus and evaluation inputs that were not read.
        summary: counts, parameters, seconds, peak memory (MiB).
    """

    documents: tuple[Contaminated, ...]
    per_item: dict[str, int]
    skipped: tuple[Skipped, ...]
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _EvalSet:
    ids: list[str]
    words: list[list[str]]
    spans: list[list[tuple[int, int]]]
    keys: np.ndarray  # uint64, sorted
    item: np.ndarray  # int64, by key
    pos: np.ndarray  # int64, by key


def ngram_keys(words: list[str], n: int) -> np.ndarray:
    """The hash of every n-gram of ``words`` (uint64 array of ``max(len(words) - n + 1, 0)``):
    ``sum(h(w[i + j]) * M^(n - 1 - j)) mod 2^64``, ``h`` XXH64 of the word."""
    if len(words) < n:
        return np.empty(0, dtype=np.uint64)
    h = token_fingerprints(words)
    m = len(words) - n + 1
    out = np.zeros(m, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(n):
            out = out * _MULT + h[j : j + m]
    return out


def contamination(
    inputs: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    eval_set: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    ngram: int = 13,
    read_options: dict[str, Any] | None = None,
    kept: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> ContaminationResult:
    """Documents of ``inputs`` sharing a word ``ngram``-gram with a document of ``eval_set``.

    Args:
        inputs: the corpus (anything :func:`neardup.read_corpus` reads).
        eval_set: the evaluation set (the same kinds; one document an item).
        ngram: words per n-gram (>= 1; 13 as GPT-3 and datatrove).
        read_options: keyword arguments of :func:`neardup.read_corpus`, for both.
        kept: write the corpus without the contaminated documents here (``.jsonl[.gz|.zst]``
            or ``.parquet``, all fields, :func:`neardup.job.export.export_records`).
        progress: receives the stages ``eval``, ``corpus``, ``kept``.

    Returns:
        A :class:`ContaminationResult`.

    Raises:
        ParameterError: a bad parameter. InputError: an input does not exist; the
            evaluation set holds no n-gram (empty, an empty folder, unreadable, or every
            item shorter than ``ngram`` words: a check against it would find nothing).
    """
    check_int("ngram", ngram, low=1)
    opts = dict(read_options or {})
    ropts = make_read_options(**opts)
    if kept is not None:
        from neardup.job.export import output_format

        output_format(kept)
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    spool = Spool()
    try:
        paths, eval_paths = _paths(inputs, spool), _paths(eval_set, spool)
        # ids relative to the common parent of both, as dedup B --against A names them
        names, eval_names = group_names([paths, eval_paths])
        skipped: list[Skipped] = []
        progress.start("eval", None)
        ev = _eval_set(read_named(eval_paths, ropts, eval_names), ngram, skipped, progress)
        progress.finish("eval")
        if len(ev.keys) == 0:
            raise InputError(_nothing_to_check(eval_set, ev, ngram, skipped))
        progress.start("corpus", None)
        found: list[Contaminated] = []
        items = dict.fromkeys(ev.ids, 0)
        ids: list[str] = []
        for item in read_named(paths, ropts, names):
            if isinstance(item, Skipped):
                skipped.append(item)
                continue
            ids.append(item.id)
            hit = _matches(item, ev, ngram)
            if hit:
                found.append(Contaminated(item.id, tuple(hit)))
                for e in {m.eval_id for m in hit}:
                    items[e] += 1
            progress.advance("corpus")
        progress.finish("corpus")
        written = None
        if kept is not None:
            progress.start("kept", None)
            bad = {c.id for c in found}
            written = export_records(
                paths, kept, {i for i in ids if i not in bad}, ropts, named_with=eval_paths
            )
            progress.finish("kept")
    finally:
        spool.close()
    summary = {
        "documents": len(ids),
        "eval_items": len(ev.ids),
        "eval_ngrams": len(ev.keys),
        "ngram": ngram,
        "skipped": len(skipped),
        "contaminated": len(found),
        "eval_items_found": sum(1 for v in items.values() if v),
        "eval_items_too_short": sum(1 for w in ev.words if len(w) < ngram),
        "kept_records": written,
        "seconds": {"total": round(time.perf_counter() - t0, 3)},
        "peak_memory_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    return ContaminationResult(tuple(found), items, tuple(skipped), summary)


def _nothing_to_check(eval_set: Any, ev: _EvalSet, n: int, skipped: list[Skipped]) -> str:
    """Why an evaluation set without one n-gram cannot be checked against (a gate that
    passes on nothing must not pass)."""
    names = [eval_set] if isinstance(eval_set, str | os.PathLike) else list(eval_set)
    shown = ", ".join(repr(os.fspath(x)) for x in names)
    if ev.ids:
        found = f"every item read ({len(ev.ids)}) is shorter than {n} words"
    else:
        found = "no item could be read from it"
    if skipped:
        reasons: dict[str, int] = {}
        for s in skipped:
            reasons[s.reason] = reasons.get(s.reason, 0) + 1
        parts = ", ".join(f"{k}: {v}" for k, v in sorted(reasons.items()))
        found += f" ({len(skipped)} skipped: {parts}; e.g. {skipped[0].source})"
    return (
        f"the evaluation set {shown} holds no {n}-gram to look for: {found}; "
        "a check against it would pass on nothing"
    )


def _paths(inputs: Any, spool: Spool) -> list[Path]:
    names = [inputs] if isinstance(inputs, str | os.PathLike) else list(inputs)
    return resolve_inputs([os.fspath(p) for p in names], spool)


def _eval_set(
    read: Iterable[Document | Skipped], n: int, skipped: list[Skipped], progress: Progress
) -> _EvalSet:
    ids: list[str] = []
    words: list[list[str]] = []
    spans: list[list[tuple[int, int]]] = []
    keys, items, pos = [], [], []
    for item in read:
        if isinstance(item, Skipped):
            skipped.append(item)
            continue
        w, s = _WORDS.tokens_with_spans(item.text)
        k = ngram_keys(w, n)
        keys.append(k)
        items.append(np.full(len(k), len(ids), dtype=np.int64))
        pos.append(np.arange(len(k), dtype=np.int64))
        ids.append(item.id)
        words.append(w)
        spans.append(s)
        progress.advance("eval")
    if not keys:
        empty = np.empty(0, dtype=np.int64)
        return _EvalSet(ids, words, spans, np.empty(0, dtype=np.uint64), empty, empty)
    all_keys = np.concatenate(keys)
    order = np.argsort(all_keys, kind="stable")
    return _EvalSet(
        ids, words, spans, all_keys[order], np.concatenate(items)[order], np.concatenate(pos)[order]
    )


def _matches(doc: Document, ev: _EvalSet, n: int) -> list[EvalMatch]:
    """The passages ``doc`` shares with evaluation items (exact n-grams, word for word)."""
    if len(ev.keys) == 0:
        return []
    words, spans = _WORDS.tokens_with_spans(doc.text)
    keys = ngram_keys(words, n)
    if len(keys) == 0:
        return []
    lo = np.searchsorted(ev.keys, keys, side="left")
    hi = np.searchsorted(ev.keys, keys, side="right")
    where = np.flatnonzero(hi > lo)
    if len(where) == 0:
        return []
    hits: list[tuple[int, int, int]] = []  # (item, diagonal, corpus position)
    for i in where.tolist():
        for r in range(int(lo[i]), int(hi[i])):
            e, q = int(ev.item[r]), int(ev.pos[r])
            if ev.words[e][q : q + n] == words[i : i + n]:
                hits.append((e, q - i, i))
    hits.sort()
    out: list[EvalMatch] = []
    k = 0
    while k < len(hits):
        e, diag, first = hits[k]
        last = first
        while k + 1 < len(hits) and hits[k + 1][:2] == (e, diag) and hits[k + 1][2] == last + 1:
            k += 1
            last = hits[k][2]
        k += 1
        ev_spans = ev.spans[e]
        out.append(
            EvalMatch(
                eval_id=ev.ids[e],
                start=spans[first][0],
                end=spans[last + n - 1][1],
                eval_start=ev_spans[first + diag][0],
                eval_end=ev_spans[last + diag + n - 1][1],
                ngrams=last - first + 1,
            )
        )
    out.sort(key=lambda m: (m.start, m.eval_id))
    return out
