"""Checking a text against a collection of a :class:`neardup.Store`: the collection core's
check (:func:`neardup.index.core.check`: look the text's index keys up, verify each
candidate on the exact shingle sets, Broder 1997, or by the method's own rule, decide and
score) over the database storage (:mod:`neardup.store.storage`).

:func:`check` is :meth:`neardup.store.Store.check` (its docstring gives the rules). The
collection row and built method are reused between checks (:mod:`neardup.store.cache`);
lexical methods are fitted on the current word statistics first.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection

from neardup.errors import CollectionNotFound
from neardup.index import core
from neardup.index.methods import build_method
from neardup.index.results import CheckResult, CollectionInfo
from neardup.methods.base import Method
from neardup.methods.plan import plan_for
from neardup.options import check_options
from neardup.store.cache import Checked, MethodCache
from neardup.store.catalog import collection_info, marker, valid_name
from neardup.store.database import Database
from neardup.store.lookup import collection_row
from neardup.store.recompute import load_stats
from neardup.store.storage import DatabaseStorage


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
    ``recompute(name)`` brings a ``stats_dirty`` collection's statistics up to date). The
    collection core's check (:func:`neardup.index.core.check`) over the database storage.

    Raises:
        CollectionNotFound: no such collection.
        InputError: the text has fewer canonical tokens than the collection's
            ``min_tokens``.
    """
    check_options(limit=limit, k=k)
    with db.check_reads() as conn:  # one pooled connection per check
        info, meth, plan = _checked_collection(cache, conn, name)
        if not plan.needs_fit:
            storage = DatabaseStorage(db, info, meth, conn)
            return core.check(storage, meth, info, text_, limit=limit, k=k, plan=plan)
    # lexical: fitted on current statistics (may recompute them first)
    meth = query_method(db, cache, info, recompute)
    return core.check(DatabaseStorage(db, info, meth), meth, info, text_, limit=limit, k=k)


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


def _checked_collection(cache: MethodCache, conn: Connection, name: str) -> Checked:
    """The collection, its method and the method's plan for a check: one raw query for the
    row; the parsed info, built method and plan are reused while the row stays the same (a
    collection deleted and created again under the same name has another row).

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
    return cache.keep_checked(name, raw, info, cache.method(info))
