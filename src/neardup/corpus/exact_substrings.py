"""Exact repeated substrings of at least ``min_bytes`` bytes, by suffix array (Lee et al. 2022,
"Deduplicating Training Data Makes Language Models Better", section 4.1: ExactSubstr).

The documents' UTF-8 texts are concatenated, each followed by the byte ``0xFF`` (which no
UTF-8 text holds), into one buffer ``S`` of ``N`` bytes. Its suffix array and LCP array are
built by libdivsufsort (``pydivsufsort``: the ``substrings`` extra). Two suffixes adjacent in
suffix-array order with an LCP of at least ``k = min_bytes`` share their first ``k`` bytes,
and those bytes lie inside one document each when no ``0xFF`` falls among them (a common
prefix crossing a document's end crosses the other's at the same offset, so one check
suffices). Every position starting such a suffix starts a repeated window ``[p, p + k)``;
the union of the windows is exactly the bytes covered by some repeat of >= ``k`` bytes
(a longer repeat ``[p, p + L)`` is the union of its windows), and its runs are the spans.
A span's ends are moved inward to character boundaries (never splitting a multi-byte
character; a span left shorter than ``k`` bytes is dropped) and never cross a document.

Between two corpora (``against``), a window of the inputs counts only when a suffix of the
other corpus shares its ``k`` bytes (the two in one run of the suffix array).

Memory (``N`` bytes of text; arrays of 4-byte integers, 8-byte past 2 GiB): the text, the
suffix array (``4 N``), and while libdivsufsort's Kasai et al. (2001) LCP runs its rank and
LCP arrays (``8 N``): ``13 N`` at the peak. The LCP array is then read in chunks into one flag
a rank (``N``) and freed; the runs of flagged ranks are read in chunks into one count a byte
position (``4 N``), and the suffix array is freed; the spans are read off the counts in
chunks. No array of one entry per repeated byte is built. Time O(N log N) for the suffix
array, O(N) for the rest.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from neardup.corpus.rewrite import Rewrites, write_kept
from neardup.errors import UsageError, check_int
from neardup.progress import NullProgress, Progress
from neardup.text.inputs import Spool, group_names, resolve_inputs
from neardup.text.read import read_named
from neardup.text.read import read_options as make_read_options
from neardup.text.types import Document, Skipped

SEPARATOR = 0xFF
_CHUNK = 1 << 24


@dataclass(frozen=True, slots=True)
class RepeatedSpan:
    """A span of a document whose text occurs elsewhere (every byte in a repeat >= k bytes).

    Attributes:
        id: the document's id.
        start, end: character offsets in the document's text (``text[start:end]``).
        byte_start, byte_end: the same span as byte offsets in its UTF-8 encoding.
        copies: occurrences in the whole buffer of the most repeated ``min_bytes``-byte
            window of the span (>= 2; with ``against``, both corpora counted).
        text: the span's text.
    """

    id: str
    start: int
    end: int
    byte_start: int
    byte_end: int
    copies: int
    text: str

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "id": self.id,
            "start": self.start,
            "end": self.end,
            "byte_start": self.byte_start,
            "byte_end": self.byte_end,
            "bytes": self.byte_end - self.byte_start,
            "copies": self.copies,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class SubstringResult:
    """What :func:`repeated_substrings` found.

    Attributes:
        spans: the repeated spans, by document (read order) then offset.
        ids: the input documents' ids in read order (n,).
        chars: int64 array (n,): characters of each document's text.
        removed_chars: int64 array (n,): characters its spans cover.
        skipped: the inputs that were not read.
        summary: counts, parameters, seconds per stage, peak memory (MiB).
    """

    spans: tuple[RepeatedSpan, ...]
    ids: tuple[str, ...]
    chars: np.ndarray
    removed_chars: np.ndarray
    skipped: tuple[Skipped, ...]
    summary: dict[str, Any] = field(default_factory=dict)


def repeated_substrings(
    inputs: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    against: Sequence[str | os.PathLike[str]] | str | os.PathLike[str] | None = None,
    min_bytes: int = 100,
    read_options: dict[str, Any] | None = None,
    kept: str | os.PathLike[str] | None = None,
    spill_dir: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> SubstringResult:
    """Exact spans of at least ``min_bytes`` bytes repeated within ``inputs`` (or found in
    ``against``), by suffix array (Lee et al. 2022).

    Args:
        inputs: anything :func:`neardup.read_corpus` reads.
        against: a second corpus: report the spans of ``inputs`` that occur in it (repeats
            inside ``inputs`` alone are then not reported). None: repeats within ``inputs``.
        min_bytes: shortest repeat, in UTF-8 bytes (>= 1; Lee et al. take 50 tokens, about
            100 bytes of English).
        read_options: keyword arguments of :func:`neardup.read_corpus` for both corpora.
        kept: write ``inputs`` with every copy of the spans removed, as Lee et al. remove them
            (``.jsonl[.gz|.zst]`` or ``.parquet``; :mod:`neardup.corpus.rewrite`).
        spill_dir: directory of the temporary file of rewritten texts.
        progress: receives the stages ``read``, ``suffix array``, ``spans``, ``kept``.

    Returns:
        A :class:`SubstringResult`.

    Raises:
        ParameterError: a bad parameter. UsageError: ``pydivsufsort`` not installed
            (``pip install 'neardup[substrings]'``). InputError: an input does not exist.
    """
    check_int("min_bytes", min_bytes, low=1)
    ropts = make_read_options(**dict(read_options or {}))
    if kept is not None:
        from neardup.job.export import output_format

        output_format(kept)
    divsufsort, kasai = _library()
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    spool = Spool()
    try:
        paths = _paths(inputs, spool)
        other = _paths(against, spool) if against is not None else []
        # ids relative to the common parent of both, as dedup B --against A names them
        names, other_names = group_names([paths, other])
        progress.start("read", None)
        read = read_named(paths, ropts, names)
        buf, starts, ids, skipped, lengths = _concatenate(read, progress)
        n_inputs = len(ids)
        if other:
            read = read_named(other, ropts, other_names)
            buf, starts, more, more_skipped, _ = _concatenate(read, progress, buf, starts)
            ids += more
            skipped += more_skipped
        progress.finish("read")
        t1 = time.perf_counter()
        s = np.frombuffer(buf, dtype=np.uint8)
        progress.start("suffix array", None)
        bounds = np.asarray(starts, dtype=np.int64)
        boundary = int(starts[n_inputs]) if other else None
        counts = _repeat_counts(s, bounds, min_bytes, boundary, divsufsort, kasai)
        progress.finish("suffix array")
        t2 = time.perf_counter()
        progress.start("spans", None)
        spans = _spans(s, counts, min_bytes, bounds)
        del counts
        spans = [sp for sp in spans if sp[0] < n_inputs]
        chars = np.asarray(lengths, dtype=np.int64)
        written = None
        rewrites = None
        if kept is not None:  # the new texts go to disk as they are made
            rewrites = Rewrites(spill_dir=None if spill_dir is None else os.fspath(spill_dir))
        try:
            result_spans, removed, emptied = _located(s, spans, starts, ids, n_inputs, rewrites)
            del spans
            progress.finish("spans")
            t3 = time.perf_counter()
            if kept is not None and rewrites is not None:
                progress.start("kept", None)
                keep_ids = set(ids[:n_inputs]) - emptied
                written = write_kept(paths, kept, keep_ids, ropts, rewrites, named_with=other)
                progress.finish("kept")
        finally:
            if rewrites is not None:
                rewrites.close()
    finally:
        spool.close()
    summary = {
        "documents": n_inputs,
        "against_documents": len(ids) - n_inputs if other else None,
        "skipped": len(skipped),
        "min_bytes": min_bytes,
        "bytes": len(buf),
        "spans": len(result_spans),
        "documents_with_spans": int(np.count_nonzero(removed)),
        "span_bytes": int(sum(sp.byte_end - sp.byte_start for sp in result_spans)),
        "chars": int(chars.sum()),
        "removed_chars": int(removed.sum()),
        "kept_records": written,
        "seconds": {
            "read": round(t1 - t0, 3),
            "suffix_array": round(t2 - t1, 3),
            "spans": round(t3 - t2, 3),
            "total": round(time.perf_counter() - t0, 3),
        },
        "peak_memory_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    return SubstringResult(
        spans=tuple(result_spans),
        ids=tuple(ids[:n_inputs]),
        chars=chars,
        removed_chars=removed,
        skipped=tuple(skipped),
        summary=summary,
    )


def _library() -> tuple[Any, Any]:
    try:
        from pydivsufsort import divsufsort, kasai
    except ImportError:
        raise UsageError(
            "repeated substrings need pydivsufsort (libdivsufsort): "
            "pip install 'neardup[substrings]'"
        ) from None
    return divsufsort, kasai


def _paths(inputs: Any, spool: Spool) -> list[Path]:
    names = [inputs] if isinstance(inputs, str | os.PathLike) else list(inputs)
    return resolve_inputs([os.fspath(p) for p in names], spool)


def _concatenate(
    read: Iterable[Document | Skipped],
    progress: Progress,
    buf: bytearray | None = None,
    starts: list[int] | None = None,
) -> tuple[bytearray, list[int], list[str], list[Skipped], list[int]]:
    """The documents' UTF-8 texts appended to ``buf``, each followed by ``0xFF``; ``starts``
    gets each document's first byte (and, last, the end of the buffer). Also the ids, the
    skipped inputs and each document's length in characters."""
    buf = bytearray() if buf is None else buf
    starts = [] if starts is None else starts[:-1]
    ids: list[str] = []
    skipped: list[Skipped] = []
    lengths: list[int] = []
    for item in read:
        if isinstance(item, Document):
            starts.append(len(buf))
            lengths.append(len(item.text))
            buf += item.text.encode("utf-8", "surrogatepass")
            buf.append(SEPARATOR)
            ids.append(item.id)
            progress.advance("read")
        else:
            skipped.append(item)
    starts.append(len(buf))
    return buf, starts, ids, skipped, lengths


def _repeat_counts(
    s: np.ndarray, starts: np.ndarray, k: int, boundary: int | None, divsufsort: Any, kasai: Any
) -> np.ndarray:
    """For each byte position ``p`` of ``s``: how many suffixes share the ``k`` bytes
    ``[p, p + k)`` when that window lies in one document and occurs twice or more (the size
    of its run in the suffix array), else 0. With ``boundary``: only positions before it
    whose run also holds a suffix from ``boundary`` on. An int32 array (int64 past 2 GiB).

    Memory: the suffix array (``4 N``), and while libdivsufsort's Kasai runs its rank and
    LCP arrays (``8 N``); then one flag a rank (``N``) and the counts (``4 N``); everything
    else is done in chunks of ``_CHUNK`` ranks or positions.
    """
    n = len(s)
    index = np.int32 if n < 2**31 else np.int64
    counts = np.zeros(n, dtype=index)
    if n == 0:
        return counts
    sa = divsufsort(s)
    lcp = kasai(s, sa)
    seps = starts[1:] - 1  # each document's separator, ascending
    linked = np.zeros(n, dtype=bool)  # rank i shares k bytes with rank i + 1, in documents
    for lo in range(0, n, _CHUNK):
        cand = np.flatnonzero(lcp[lo : lo + _CHUNK] >= k) + lo
        p = sa[cand].astype(np.int64)
        nxt = seps[np.searchsorted(seps, p)]
        linked[cand[nxt - p >= k]] = True
    del lcp
    for lo, hi in _run_chunks(linked):
        _count_runs(linked, sa, lo, hi, boundary, counts)
    return counts


def _run_chunks(linked: np.ndarray) -> Iterator[tuple[int, int]]:
    """Consecutive rank ranges ``[lo, hi)`` of about ``_CHUNK`` ranks, none cutting a run
    (``linked[hi - 1]`` is False or ``hi`` is the end)."""
    n, lo = len(linked), 0
    while lo < n:
        hi = min(lo + _CHUNK, n)
        while hi < n and linked[hi - 1]:
            free = np.flatnonzero(~linked[hi : hi + _CHUNK])
            hi = hi + int(free[0]) + 1 if len(free) else min(hi + _CHUNK, n)
        yield lo, hi
        lo = hi


def _count_runs(
    linked: np.ndarray, sa: np.ndarray, lo: int, hi: int, boundary: int | None, counts: np.ndarray
) -> None:
    """The runs of ranks ``lo..hi`` (ranks ``a..b`` with ``linked[a:b]`` all True): each
    position of a run gets the run's size in ``counts``."""
    t = np.flatnonzero(linked[lo:hi]) + lo
    if len(t) == 0:
        return
    new_run = np.r_[True, t[1:] != t[:-1] + 1]
    firsts = t[new_run]
    sizes = t[np.r_[new_run[1:], True]] + 2 - firsts  # run ranks: firsts .. last link + 1
    ranks = np.repeat(firsts, sizes) + _ramp(sizes)
    size = np.repeat(sizes, sizes)
    pos = sa[ranks].astype(np.int64)
    del ranks
    if boundary is not None:
        in_a = pos < boundary
        run = np.repeat(np.arange(len(sizes)), sizes)
        has_a = np.bincount(run, weights=in_a, minlength=len(sizes)) > 0
        has_b = np.bincount(run, weights=~in_a, minlength=len(sizes)) > 0
        mixed = (has_a & has_b)[run] & in_a
        pos, size = pos[mixed], size[mixed]
    counts[pos] = size


def _ramp(sizes: np.ndarray) -> np.ndarray:
    """0..size-1 for each size, concatenated."""
    total = int(sizes.sum())
    offsets = np.repeat(np.cumsum(sizes) - sizes, sizes)
    return np.arange(total, dtype=np.int64) - offsets


def _spans(
    s: np.ndarray, counts: np.ndarray, k: int, starts: np.ndarray
) -> list[tuple[int, int, int, int]]:
    """``(document, byte start, byte end, copies)`` of the unions of the windows
    ``[p, p + k)`` with ``counts[p] > 0`` (``copies``: the largest count among them), moved
    inward to character boundaries; shorter than ``k`` bytes after that: dropped. Read in
    chunks of ``_CHUNK`` positions; a span open at a chunk's end is carried on."""
    out: list[tuple[int, int, int, int]] = []
    open_span: tuple[int, int, int] | None = None  # first window, last window, copies
    for lo in range(0, len(counts), _CHUNK):
        pos = np.flatnonzero(counts[lo : lo + _CHUNK]) + lo
        if len(pos) == 0:
            continue
        cop = counts[pos].astype(np.int64)
        first = np.flatnonzero(np.r_[True, pos[1:] > pos[:-1] + k])
        a = pos[first]
        last = pos[np.r_[first[1:], len(pos)] - 1]
        c = np.maximum.reduceat(cop, first)
        if open_span is not None:
            if a[0] <= open_span[1] + k:  # the open span goes on into this chunk
                a[0] = open_span[0]
                c[0] = max(int(c[0]), open_span[2])
            else:
                out.extend(_closed(s, k, starts, *(np.array([v]) for v in open_span)))
        open_span = (int(a[-1]), int(last[-1]), int(c[-1]))
        out.extend(_closed(s, k, starts, a[:-1], last[:-1], c[:-1]))
    if open_span is not None:
        out.extend(_closed(s, k, starts, *(np.array([v]) for v in open_span)))
    return out


def _closed(
    s: np.ndarray,
    k: int,
    starts: np.ndarray,
    first: np.ndarray,
    last: np.ndarray,
    span_copies: np.ndarray,
) -> list[tuple[int, int, int, int]]:
    """Spans given by their first and last windows' positions and copies (int64 arrays) as
    ``(document, byte start, byte end, copies)``, their ends moved inward to character
    boundaries (too short then: dropped)."""
    a, b = first.astype(np.int64), last.astype(np.int64) + k
    for _ in range(3):  # a UTF-8 character has at most 3 continuation bytes
        a += (a < b) & (s[np.minimum(a, len(s) - 1)] & 0xC0 == 0x80)
        b -= (b > a) & (b < len(s)) & (s[np.minimum(b, len(s) - 1)] & 0xC0 == 0x80)
    ok = b - a >= k
    a, b, span_copies = a[ok], b[ok], span_copies[ok]
    doc = np.searchsorted(starts, a, side="right") - 1
    return list(zip(doc.tolist(), a.tolist(), b.tolist(), span_copies.tolist(), strict=True))


def _located(
    s: np.ndarray,
    spans: list[tuple[int, int, int, int]],
    starts: list[int],
    ids: list[str],
    n_docs: int,
    rewrites: Rewrites | None,
) -> tuple[list[RepeatedSpan], np.ndarray, set[str]]:
    """The spans with character offsets and text, and the characters they remove from each
    document; with ``rewrites``, each changed document's text without its spans goes there
    (those left with no text are returned, by id, instead)."""
    removed = np.zeros(n_docs, dtype=np.int64)
    by_doc: dict[int, list[tuple[int, int, int]]] = {}
    for d, a, b, c in spans:
        by_doc.setdefault(d, []).append((a, b, c))
    out: list[RepeatedSpan] = []
    emptied: set[str] = set()
    for d in sorted(by_doc):
        seg = s[starts[d] : starts[d + 1] - 1]
        lead = (seg & 0xC0) != 0x80
        char_at = np.r_[0, np.cumsum(lead)]
        pieces, last = [], 0
        for a, b, c in by_doc[d]:
            ba, bb = a - starts[d], b - starts[d]
            text = seg[ba:bb].tobytes().decode("utf-8", "surrogatepass")
            out.append(RepeatedSpan(ids[d], int(char_at[ba]), int(char_at[bb]), ba, bb, c, text))
            removed[d] += int(char_at[bb] - char_at[ba])
            pieces.append(seg[last:ba].tobytes())
            last = bb
        if rewrites is not None:
            pieces.append(seg[last:].tobytes())
            new = b"".join(pieces).decode("utf-8", "surrogatepass")
            if new.strip():
                rewrites.put(ids[d], new)
            else:
                emptied.add(ids[d])
    return out, removed, emptied
