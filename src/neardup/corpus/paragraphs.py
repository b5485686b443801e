"""Repeated lines and paragraphs across a corpus, cut (CCNet's and Dolma's paragraph dedup).

Navigation, cookie banners, licence footers and template paragraphs are shared by many
pages of a site; Zagorulko 2013 cleans menus per page, and at corpus scale the repetition
itself finds them (Wenzek et al. 2020, CCNet: lines hashed, those seen before removed).
Two passes over the inputs, each through :func:`neardup.text.read.read_corpus`:

1. every document is split into units (:mod:`.units`), each normalised and hashed (XXH64);
   the distinct keys of each document are counted by :class:`.counts.Occurrences` (memory
   bounded, spilled by partition past ``memory_budget``);
2. every document is read again and each unit whose key is held by at least ``min_docs``
   documents is cut, except its first place (the first document holding it, its first unit
   there) with ``keep="first"``, or everywhere with ``keep="none"`` (boilerplate).

Documents are counted once per key, however often the unit repeats inside one document; a
unit held by one document only is never cut (also not its repeats in that document).

With ``near``, a pass 0 clusters the distinct units that differ by a word (:mod:`.near`:
MinHash and LSH banding over character 5-grams, verified exactly) and both passes count and
cut by cluster instead of by exact key.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

import numpy as np

from neardup.corpus.counts import Occurrences, RepeatedKeys
from neardup.corpus.near import NearClusters, near_clusters
from neardup.corpus.rewrite import Rewrites, write_kept
from neardup.corpus.segments import UNIT_KINDS, Unit, cut, normal_form, split_units
from neardup.errors import ParameterError, check_choice, check_float, check_int
from neardup.progress import NullProgress, Progress
from neardup.text.inputs import Spool, resolve_inputs
from neardup.text.read import read_corpus
from neardup.text.types import Document, Skipped
from neardup.text.units import ReadOptions

KEEPS: tuple[str, ...] = ("first", "none")

#: A text's units (:func:`neardup.corpus.segments.split_units` with the job's parameters).
Split = Callable[[str], list[Unit]]


@dataclass(frozen=True, slots=True)
class RepeatedUnit:
    """A line or paragraph held by at least ``min_docs`` documents.

    Attributes:
        key: XXH64 of its normal form (:func:`neardup.corpus.segments.normal_form`).
        documents: documents holding it (each counted once).
        copies: its occurrences in the corpus (repeats inside a document included).
        first_id: id of the first document (read order) holding it.
        first_unit: index of its first unit there (0-based line or paragraph number).
        first_start: character offset of that unit in that document's text.
        text: that unit's text as it stands there (trailing whitespace stripped).
        variants: distinct units (exact keys) counted as this one: 1, or with ``near`` the
            near-identical units of its cluster (:mod:`.near`; ``key`` is then the key of
            the cluster's first-seen member).
    """

    key: int
    documents: int
    copies: int
    first_id: str
    first_unit: int
    first_start: int
    text: str
    variants: int = 1

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (the key as 16 hex digits)."""
        return {
            "key": f"{self.key:016x}",
            "documents": self.documents,
            "copies": self.copies,
            "first_id": self.first_id,
            "first_unit": self.first_unit,
            "first_start": self.first_start,
            "text": self.text,
            "variants": self.variants,
        }


@dataclass(frozen=True, slots=True)
class ParagraphResult:
    """What :func:`repeated_paragraphs` found and cut.

    Attributes:
        units: the repeated units, most documents first (ties: first seen first).
        ids: document ids in read order (n,).
        chars: int64 array (n,): characters of each document's text.
        cut_units: int64 array (n,): units cut from each document.
        removed_chars: int64 array (n,): characters cut (``len(text) - len(new text)``).
        skipped: the inputs that were not read (reason and detail).
        summary: counts (``documents_emptied``: documents left with no text, which
            ``kept`` leaves out), parameters, seconds, peak memory (MiB), whether rows
            spilled.
    """

    units: tuple[RepeatedUnit, ...]
    ids: tuple[str, ...]
    chars: np.ndarray
    cut_units: np.ndarray
    removed_chars: np.ndarray
    skipped: tuple[Skipped, ...]
    summary: dict[str, Any] = field(default_factory=dict)

    def document_rows(self) -> Iterator[dict[str, Any]]:
        """``{id, chars, cut_units, removed_chars}`` per document, in read order."""
        for i, doc_id in enumerate(self.ids):
            yield {
                "id": doc_id,
                "chars": int(self.chars[i]),
                "cut_units": int(self.cut_units[i]),
                "removed_chars": int(self.removed_chars[i]),
            }


def repeated_paragraphs(
    inputs: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    unit: Literal["line", "paragraph"] = "line",
    min_docs: int = 2,
    keep: Literal["first", "none"] = "first",
    min_chars: int = 1,
    symbols: bool = False,
    near: bool = False,
    threshold: float = 0.8,
    read_options: dict[str, Any] | None = None,
    kept: str | os.PathLike[str] | None = None,
    memory_budget: int | None = 256 << 20,
    spill_dir: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> ParagraphResult:
    """Find the lines or paragraphs repeated across documents, and cut them.

    Args:
        inputs: anything :func:`neardup.read_corpus` reads (files, folders, ``-``).
        unit: ``line`` (CCNet, datatrove) or ``paragraph`` (text between blank lines; Dolma).
        min_docs: a unit is repeated when at least this many documents hold it (>= 2; 2:
            held by any other document).
        keep: ``first`` cuts every copy but the first place; ``none`` cuts them all
            (boilerplate).
        min_chars: units whose normal form is shorter are never counted or cut (>= 1).
        symbols: count and cut units without a letter or a digit too (``};``, ``=====``);
            by default they are never counted or cut (:mod:`neardup.corpus.segments`).
        near: count near-identical units as one (:mod:`neardup.corpus.near`: character
            5-gram sets, MinHash and LSH banding, verified exactly, joined into clusters);
            one more pass over the inputs, and the distinct units held in memory.
        threshold: with ``near``, the Jaccard of two units' 5-gram sets that makes them
            near-identical, in (0, 1].
        read_options: keyword arguments of :func:`neardup.read_corpus` (``id_field``,
            ``text_field``, ``content_type``, ...).
        kept: write the corpus with the units cut here (``.jsonl[.gz|.zst]`` or
            ``.parquet``; :mod:`neardup.corpus.rewrite`).
        memory_budget: bytes of occurrence rows held before they spill to temporary files
            (None: never); 16 bytes per distinct unit of a document.
        spill_dir: directory of those files and of the rewritten texts.
        progress: receives the stages ``near`` (with ``near``), ``count``, ``cut`` and
            ``kept``.

    Returns:
        A :class:`ParagraphResult`.

    Raises:
        ParameterError: a bad parameter (named). InputError: an input does not exist.
    """
    check_choice("unit", unit, UNIT_KINDS)
    check_choice("keep", keep, KEEPS)
    check_int("min_docs", min_docs, low=2)
    check_int("min_chars", min_chars, low=1)
    check_float("threshold", threshold, low=0.0, high=1.0, low_open=True)
    for flag, value in (("near", near), ("symbols", symbols)):
        if not isinstance(value, bool):
            raise ParameterError(flag, value, "True or False")
    if memory_budget is not None:
        check_int("memory_budget", memory_budget, low=0)
    opts = dict(read_options or {})
    if kept is not None:
        from neardup.job.export import output_format

        output_format(kept)
    progress = progress or NullProgress()
    spill = None if spill_dir is None else os.fspath(spill_dir)
    t0 = time.perf_counter()
    spool = Spool()
    try:
        names = [inputs] if isinstance(inputs, str | os.PathLike) else list(inputs)
        paths = [str(p) for p in resolve_inputs([os.fspath(p) for p in names], spool)]
        split = partial(split_units, unit=unit, min_chars=min_chars, symbols=symbols)
        clusters = _near(paths, opts, split, threshold, progress) if near else None
        occ = Occurrences(memory_budget=memory_budget, spill_dir=spill)
        n_docs, skipped = _count(paths, opts, split, clusters, occ, progress)
        repeated = occ.repeated(min_docs=min_docs)
        spilled, rows = occ.spilled, occ.rows
        t1 = time.perf_counter()
        rewrites = Rewrites(spill_dir=spill) if kept is not None else None
        try:
            result = _cut(paths, opts, split, clusters, repeated, keep, n_docs, rewrites, progress)
            t2 = time.perf_counter()
            written = None
            if kept is not None and rewrites is not None:
                progress.start("kept", None)
                emptied = {i for i, e in zip(result[0], result[5], strict=True) if e}
                keep_ids = set(result[0]) - emptied
                written = write_kept(paths, kept, keep_ids, _read_opts(opts), rewrites)
                progress.finish("kept")
        finally:
            if rewrites is not None:
                rewrites.close()
    finally:
        spool.close()
    ids, chars, removed, cuts, units, emptied_docs = result
    summary = {
        "documents": len(ids),
        "skipped": len(skipped),
        "unit": unit,
        "min_docs": min_docs,
        "keep": keep,
        "min_chars": min_chars,
        "symbols": symbols,
        "near_threshold": threshold if near else None,
        "near_merged_units": clusters.merged if clusters is not None else None,
        "distinct_unit_rows": rows,
        "repeated_units": len(units),
        "cut_units": int(cuts.sum()),
        "documents_changed": int(np.count_nonzero(removed)),
        "documents_emptied": int(np.count_nonzero(emptied_docs)),
        "chars": int(chars.sum()),
        "removed_chars": int(removed.sum()),
        "kept_records": written,
        "spilled_to_disk": spilled,
        "seconds": {
            "count": round(t1 - t0, 3),
            "cut": round(t2 - t1, 3),
            "total": round(time.perf_counter() - t0, 3),
        },
        "peak_memory_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    return ParagraphResult(
        units=units,
        ids=tuple(ids),
        chars=chars,
        cut_units=cuts,
        removed_chars=removed,
        skipped=tuple(skipped),
        summary=summary,
    )


def _read_opts(opts: dict[str, Any]) -> ReadOptions:
    from neardup.text.read import read_options

    return read_options(**opts)


def _documents(paths: list[str], opts: dict[str, Any]) -> Iterator[Document | Skipped]:
    try:
        return read_corpus(paths, **opts)
    except TypeError as exc:
        raise ParameterError("read_options", sorted(opts), "read_corpus's keywords") from exc


def _near(
    paths: list[str],
    opts: dict[str, Any],
    split: Split,
    threshold: float,
    progress: Progress,
) -> NearClusters:
    """Pass 0 (``near``): every distinct unit's normal form, first-seen order, clustered."""
    progress.start("near", None)
    seen: set[int] = set()
    keys: list[int] = []
    texts: list[str] = []
    for item in _documents(paths, opts):
        if isinstance(item, Skipped):
            continue
        for u in split(item.text):
            if u.key is not None and u.key not in seen:
                seen.add(u.key)
                keys.append(u.key)
                texts.append(normal_form(item.text[u.start : u.end]))
        progress.advance("near")
    del seen
    clusters = near_clusters(keys, texts, threshold=threshold)
    progress.finish("near")
    return clusters


def _keys(units: list[Unit], clusters: NearClusters | None) -> np.ndarray:
    """The units' keys (their clusters' with ``near``) as uint64; 0 where a unit has none."""
    keys = np.array([u.key if u.key is not None else 0 for u in units], dtype=np.uint64)
    return keys if clusters is None else clusters.map(keys)


def _count(
    paths: list[str],
    opts: dict[str, Any],
    split: Split,
    clusters: NearClusters | None,
    occ: Occurrences,
    progress: Progress,
) -> tuple[int, list[Skipped]]:
    """Pass 1: the distinct keys of every document into ``occ``."""
    progress.start("count", None)
    skipped: list[Skipped] = []
    n = 0
    for item in _documents(paths, opts):
        if isinstance(item, Skipped):
            skipped.append(item)
            continue
        first: dict[int, int] = {}
        units = split(item.text)
        mapped = _keys(units, clusters).tolist() if clusters is not None else None
        for k, u in enumerate(units):
            if u.key is None:
                continue
            key = u.key if mapped is None else mapped[k]
            if key not in first:
                first[key] = k
        occ.add(n, list(first), list(first.values()))
        n += 1
        progress.advance("count")
    progress.finish("count")
    return n, skipped


def _cut(
    paths: list[str],
    opts: dict[str, Any],
    split: Split,
    clusters: NearClusters | None,
    repeated: RepeatedKeys,
    keep: str,
    n_docs: int,
    rewrites: Rewrites | None,
    progress: Progress,
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, tuple[RepeatedUnit, ...], np.ndarray]:
    """Pass 2: cut the repeated units; per-document counts and the units' first places."""
    progress.start("cut", n_docs)
    ids: list[str] = []
    chars = np.zeros(n_docs, dtype=np.int64)
    removed = np.zeros(n_docs, dtype=np.int64)
    cuts = np.zeros(n_docs, dtype=np.int64)
    emptied = np.zeros(n_docs, dtype=bool)
    copies = np.zeros(len(repeated.key), dtype=np.int64)
    firsts: dict[int, tuple[str, int, str]] = {}
    # the documents holding a first place, so pass 2 records it without a lookup per unit
    first_docs = set(repeated.first_doc.tolist())
    n = 0
    for item in _documents(paths, opts):
        if isinstance(item, Skipped):
            continue
        if n >= n_docs:  # the inputs changed between the passes
            raise ParameterError("inputs", "changed while read", "inputs that stay the same")
        text = item.text
        units = split(text)
        at = repeated.find(_keys(units, clusters))
        at[[u.key is None for u in units]] = -1
        drop = (at >= 0).tolist()
        if n in first_docs:
            for k in np.flatnonzero(at >= 0).tolist():
                r = int(at[k])
                if int(repeated.first_doc[r]) == n and int(repeated.first_unit[r]) == k:
                    u = units[k]
                    firsts[r] = (item.id, u.start, text[u.start : u.end])
                    if keep == "first":
                        drop[k] = False
        hit = at[at >= 0]
        np.add.at(copies, hit, 1)
        new = cut(text, units, drop)
        ids.append(item.id)
        chars[n] = len(text)
        removed[n] = len(text) - len(new)
        cuts[n] = sum(drop)
        emptied[n] = bool(removed[n]) and not new.strip()
        if rewrites is not None and removed[n]:
            rewrites.put(item.id, new)
        n += 1
        progress.advance("cut")
    progress.finish("cut")
    if n != n_docs:
        raise ParameterError("inputs", "changed while read", "inputs that stay the same")
    return ids, chars, removed, cuts, _units(repeated, copies, firsts, clusters), emptied


def _units(
    repeated: RepeatedKeys,
    copies: np.ndarray,
    firsts: dict[int, tuple[str, int, str]],
    clusters: NearClusters | None,
) -> tuple[RepeatedUnit, ...]:
    order = np.lexsort((repeated.first_unit, repeated.first_doc, -repeated.documents))
    out = []
    for r in order.tolist():
        doc_id, start, text = firsts[r]
        out.append(
            RepeatedUnit(
                key=int(repeated.key[r]),
                documents=int(repeated.documents[r]),
                copies=int(copies[r]),
                first_id=doc_id,
                first_unit=int(repeated.first_unit[r]),
                first_start=start,
                text=text.strip(),
                variants=1 if clusters is None else clusters.members(int(repeated.key[r])),
            )
        )
    return tuple(out)
