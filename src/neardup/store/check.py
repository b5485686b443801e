"""Checking a text against a collection: look its index keys up, verify each candidate on
the exact shingle sets (Broder 1997) or by the method's own rule, decide and score.

:func:`check` is :meth:`neardup.store.Store.check` (its docstring gives the rules). The
collection row and built method are reused between checks (:mod:`neardup.store.cache`);
lexical methods are fitted on the current word statistics first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from sqlalchemy import Connection

from neardup._array import sorted_unique
from neardup.decide import Decision
from neardup.errors import check_int
from neardup.index.methods import build_method
from neardup.index.results import CheckResult, CollectionInfo
from neardup.index.verify import Candidate, Query, check_k, select, verify
from neardup.methods.base import Method
from neardup.methods.plan import plan_for
from neardup.store.cache import MethodCache
from neardup.store.catalog import collection_info, marker, valid_name
from neardup.store.codec import decode_set, shown_title
from neardup.store.database import Database
from neardup.store.errors import CollectionNotFound
from neardup.store.lookup import candidates, collection_row
from neardup.store.recompute import load_stats


def check(
    db: Database,
    cache: MethodCache,
    name: str,
    text_: str,
    *,
    limit: int,
    recompute: Callable[[str], object],
    k: int | None = None,
) -> CheckResult:
    """Which stored documents does ``text_`` duplicate? (:meth:`neardup.store.Store.check`;
    ``recompute(name)`` brings a ``stats_dirty`` collection's statistics up to date).

    Raises:
        CollectionNotFound: no such collection.
        InputError: the text has fewer canonical tokens than the collection's
            ``min_tokens``.
    """
    check_int("limit", limit, low=1, high=100_000)
    k = check_k(k)
    t0 = time.perf_counter()
    with db.check_reads() as conn:  # one pooled connection per check
        info, meth = _checked_collection(cache, conn, name)
        lexical = plan_for(meth, info).needs_fit
        if not lexical:
            query = Query.of(meth, text_, min_tokens=info.min_tokens)
            hits, rows = _lookup(conn, info, query.keys)
    if lexical:  # fitted on current statistics (may recompute them first)
        meth = query_method(db, cache, info, recompute)
        query = Query.of(meth, text_, min_tokens=info.min_tokens)
        with db.read() as conn:
            hits, rows = _lookup(conn, info, query.keys)
    verified = verify(meth, _decision(info), query, _candidates(rows, hits))
    return CheckResult(
        info.name,
        info.method,
        info.measure,
        info.threshold,
        query.tokens,
        len(hits),
        select(verified, limit=limit, k=k),
        time.perf_counter() - t0,
    )


def query_method(
    db: Database, cache: MethodCache, info: CollectionInfo, recompute: Callable[[str], object]
) -> Method:
    """The collection's method, fitted on current statistics for lexical methods."""
    meth = cache.method(info)
    if not plan_for(meth, info).needs_fit:
        return meth
    if info.stats_dirty:
        recompute(info.name)
    with db.read() as conn:
        mark = marker(conn, info.id)
        cached = cache.fitted(info.id, mark)
        if cached is not None:
            return cached
        stats, _ = load_stats(conn, info.id)
    fitted = build_method(info.method, info.params, info.canonical)
    fitted.fit(stats)
    cache.keep_fitted(info.id, mark, fitted)
    return fitted


def _lookup(
    conn: Connection, info: CollectionInfo, keys: np.ndarray
) -> tuple[dict[int, int], list[Any]]:
    """Candidates (``{document pk: shared keys}``) and their stored rows, in one
    statement (one round trip): the most-shared-keys candidates joined to their
    documents, shingle sets and (when stored) signatures."""
    if keys.size == 0:
        return {}, []
    rows = candidates(conn, info.id, sorted_unique(keys).tolist())
    return {r[0]: int(r[6]) for r in rows}, rows


def _checked_collection(
    cache: MethodCache, conn: Connection, name: str
) -> tuple[CollectionInfo, Method]:
    """The collection and its method for a check: one raw query for the row; the
    parsed info and built method are reused while the row stays the same (a collection
    deleted and created again under the same name has another row).

    Raises:
        CollectionNotFound: no such collection.
    """
    if not valid_name(name):  # never stored; and PostgreSQL refuses NUL in a query
        raise CollectionNotFound(name)
    raw = collection_row(conn, name)
    if raw is None:
        raise CollectionNotFound(name)
    cached = cache.checked(name, raw)
    if cached is not None:
        return cached
    info = collection_info(conn, name)
    meth = cache.method(info)
    cache.keep_checked(name, raw, info, meth)
    return info, meth


def _candidates(rows: list[Any], hits: dict[int, int]) -> list[Candidate]:
    """The candidate rows of :func:`~neardup.store.lookup.candidates` as :class:`Candidate`
    values (sets decoded, titles shown)."""
    return [
        Candidate(
            doc_id, source, shown_title(title, body), decode_set(blob), payload, hits[int(pk)]
        )
        for pk, doc_id, source, title, blob, payload, _hits, body in rows
    ]


def _decision(info: CollectionInfo) -> Decision:
    return Decision(
        measure=info.measure,  # type: ignore[arg-type]  # validated when stored
        threshold=info.threshold,
        mode=info.decision,  # type: ignore[arg-type]
    )
