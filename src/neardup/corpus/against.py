"""A corpus deduplicated against a collection: ``neardup dedup B --against-collection A``.

The collection form of :func:`neardup.job.pipeline.dedup` with ``against=``: A is a collection
(:class:`neardup.store.Store`), whose index is used as it stands, so A is not read again.
B is deduplicated by the job (``within``: among its own documents, the clusters of the job
without A), each of B's documents is checked against A by :meth:`Store.check` (the
collection's index, the decision of :func:`neardup.job.decide.decide` on its stored shingle
sets), and the keep stage of the job against A (:func:`neardup.job.pipeline.keep_against`) drops
every B document with a match in A, naming the best match (highest score, then the
smallest id) and its score. A's documents are never dropped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from os import PathLike
from typing import Any

import numpy as np

from neardup.errors import InputError, ParameterError
from neardup.job.pipeline import DedupOptions, DedupResult, dedup, keep_against
from neardup.progress import NullProgress, Progress
from neardup.store import Store
from neardup.text.types import Document, Skipped
from neardup.text.units import UniqueIds

__all__ = ["against_collection"]

#: Matches asked of each check (the best is taken; ties to the smallest id).
_LIMIT = 100


def against_collection(
    source: Sequence[str | PathLike[str]] | Iterable[Document],
    store: Store,
    name: str,
    *,
    within: bool = True,
    options: DedupOptions | None = None,
    read_options: dict[str, Any] | None = None,
    progress: Progress | None = None,
    **job: Any,
) -> DedupResult:
    """Deduplicate ``source`` (B) against the collection ``name`` (A) of ``store``.

    Args:
        source: input paths or documents, as :func:`neardup.job.pipeline.dedup` takes them.
        store: the store holding A; name: the collection.
        within: also drop B's duplicates among themselves (default); False: A only.
        options: the job's options; its ``measure`` and ``threshold`` must be the
            collection's (the matches in A are decided by the collection's rule).
        read_options: how paths are read (:func:`neardup.text.read.read_corpus`).
        progress: stage progress receiver.
        **job: the other arguments of :func:`neardup.job.pipeline.dedup` (method, jobs...).

    Returns:
        :class:`~neardup.job.pipeline.DedupResult` of B (``against`` is 0: A's documents are in
        the collection, not in ``ids``; ``summary["against"]`` names the collection).

    Raises:
        CollectionNotFound: no such collection.
        ParameterError: ``options.measure`` or ``threshold`` other than the collection's.
    """
    opts = options or DedupOptions()
    info = store.collection(name)
    for flag, mine, theirs in (
        ("measure", opts.measure, info.measure),
        ("threshold", opts.threshold, info.threshold),
    ):
        if mine != theirs:
            raise ParameterError(
                flag, mine, f"the collection {name!r}'s {flag}, {theirs} (its index decides)"
            )
    # read twice (by the job, for the checks): a stream of documents is listed first
    docs: Any = source if _is_paths(source) else list(source)
    result = dedup(docs, options=opts, read_options=read_options, progress=progress, **job)
    prog = progress or NullProgress()
    matches = _matches(store, name, docs, read_options or {}, result.ids, prog)
    rows = result.pairs.rows if within else np.zeros((0, 6))  # type: ignore[attr-defined]
    lengths = result.lengths if result.lengths is not None else np.zeros(len(result.ids))
    clusters, dropped = keep_against(result.ids, lengths, np.asarray(rows), matches, opts)
    summary = dict(result.summary)
    n = summary["documents"]
    summary.update(clusters=len(clusters), kept=n - len(dropped), dropped=len(dropped))
    summary["removed"] = len(dropped)
    summary["against"] = {
        "collection": info.name,
        "method": info.method,
        "decision": info.decision,
        "checked": n,
        "within": within,
        "matched": len(matches),
    }
    return dataclasses.replace(result, clusters=clusters, dropped=dropped, summary=summary)


def _is_paths(source: object) -> bool:
    return isinstance(source, Sequence) and all(isinstance(s, str | PathLike) for s in source)


def _matches(
    store: Store,
    name: str,
    source: Iterable[Document] | Sequence[str | PathLike[str]],
    read_options: dict[str, Any],
    ids: list[str],
    prog: Progress,
) -> dict[int, tuple[str, float]]:
    """``{document number: (A id, score)}``: each of B's documents with a match in the
    collection, its best one (highest score, then the smallest id). Documents are named
    by the job's id rule (:class:`~neardup.text.units.UniqueIds`); a document the
    collection finds too short has no match."""
    where = {doc_id: k for k, doc_id in enumerate(ids)}
    out: dict[int, tuple[str, float]] = {}
    unique = UniqueIds()
    prog.start("check", len(ids))
    for item in _documents(source, read_options):
        if isinstance(item, Skipped):
            unique.note(item.id)
            continue
        k = where.get(unique.claim(item.id, item.source))
        if k is None:  # skipped by the job (too short, a repeated id)
            continue
        try:
            found = store.check(name, item.text, limit=_LIMIT).matches
        except InputError:  # too short for the collection's min_tokens
            found = ()
        prog.advance("check")
        scored = [(float(m.evidence["score"]), m.doc_id) for m in found]
        if scored:
            score, match = min(scored, key=lambda x: (-x[0], x[1]))
            out[k] = (match, score)
    prog.finish("check")
    return out


def _documents(
    source: Iterable[Document] | Sequence[str | PathLike[str]], read_options: dict[str, Any]
) -> Iterable[Document | Skipped]:
    if _is_paths(source):
        from neardup.text.read import read_corpus

        return read_corpus(list(source), **read_options)  # type: ignore[arg-type]
    return source  # type: ignore[return-value]
