"""Checking a text against a collection: look its index keys up, verify each candidate on
the exact shingle sets (Broder 1997) or by the method's own rule, decide and score.

:func:`check` is :meth:`neardup.store.Store.check` (its docstring gives the rules). The
collection row and built method are reused between checks (:mod:`neardup.store.cache`);
lexical methods are fitted on the current word statistics first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Connection

from neardup._array import sorted_unique
from neardup.decide import Decision, decide
from neardup.errors import IncompatibleSignatureError, InputError, NeardupError, check_int
from neardup.methods.base import Method, Prepared, Signature
from neardup.methods.measures import overlap
from neardup.methods.sets import ShingleSets
from neardup.store.cache import MethodCache
from neardup.store.codec import decode_set, fingerprint_shift, shown_title, verification_set
from neardup.store.collections import collection_info, marker, valid_name
from neardup.store.database import Database
from neardup.store.errors import CollectionNotFound
from neardup.store.ingest import term_key
from neardup.store.lookup import candidates, collection_row
from neardup.store.methods import (
    build_method,
    signs_at_add,
    signs_from_sets,
)
from neardup.store.results import CheckResult, CollectionInfo, Match
from neardup.store.stats import load_stats


def check(
    db: Database,
    cache: MethodCache,
    name: str,
    text_: str,
    *,
    limit: int,
    recompute: Callable[[str], object],
) -> CheckResult:
    """Which stored documents does ``text_`` duplicate? (:meth:`neardup.store.Store.check`;
    ``recompute(name)`` brings a ``stats_dirty`` collection's statistics up to date).

    Raises:
        CollectionNotFound: no such collection.
        InputError: the text has fewer canonical tokens than the collection's
            ``min_tokens``.
    """
    check_int("limit", limit, low=1, high=100_000)
    t0 = time.perf_counter()
    with db.check_reads() as conn:  # one pooled connection per check
        info, meth = _checked_collection(cache, conn, name)
        if not meth.needs_fit:
            query = _Query.of(info, meth, text_)
            hits, rows = _lookup(conn, info, query.keys)
    if meth.needs_fit:  # lexical: fitted on current statistics (may recompute them first)
        meth = query_method(db, cache, info, recompute)
        query = _Query.of(info, meth, text_)
        with db.read() as conn:
            hits, rows = _lookup(conn, info, query.keys)
    matches = _verify(info, meth, query.set, query.signature, hits, len(query.keys), rows)
    return CheckResult(
        info.name,
        info.method,
        info.measure,
        info.threshold,
        query.tokens,
        len(hits),
        tuple(matches[:limit]),
        time.perf_counter() - t0,
    )


def query_method(
    db: Database, cache: MethodCache, info: CollectionInfo, recompute: Callable[[str], object]
) -> Method:
    """The collection's method, fitted on current statistics for lexical methods."""
    meth = cache.method(info)
    if not meth.needs_fit:
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
    return {int(r[0]): int(r[6]) for r in rows}, rows


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


@dataclass(frozen=True, slots=True)
class _Query:
    """A checked text made ready for lookup: its shingle set, signature and index keys."""

    tokens: int
    set: np.ndarray
    signature: Signature
    keys: np.ndarray

    @classmethod
    def of(cls, info: CollectionInfo, meth: Method, text_: str) -> _Query:
        """Raises:
        InputError: fewer canonical tokens than the collection's ``min_tokens``."""
        tokens = meth.canonical.tokens(text_)
        if len(tokens) < info.min_tokens:
            raise InputError(
                f"document too short to check: {len(tokens)} canonical tokens "
                f"< min_tokens={info.min_tokens}"
            )
        sets = meth.shingling.batch([tokens])
        if signs_from_sets(meth):
            sigs = meth.from_sets(sets)
        else:  # lexical methods read the statistics' form of a term; the others sign as add
            terms = tokens if signs_at_add(meth) else [term_key(t) for t in tokens]
            sigs = meth.sign([Prepared("query", text_, terms)])
        keys = meth.index_keys(sigs).for_row(0)
        shift = fingerprint_shift(meth.shingling.fingerprint)
        stored = verification_set(sets.get(0), shift=shift)
        return cls(len(tokens), stored, meth.signature(sigs, 0), keys)


def _verify(
    info: CollectionInfo,
    meth: Method,
    query: np.ndarray,
    query_sig: Signature,
    hits: dict[int, int],
    nkeys: int,
    rows: Sequence[Any],
) -> list[Match]:
    """The stored documents the query duplicates: the candidates decided by
    :func:`neardup.decide.decide` as a batch of one query (document 0) against them."""
    stored = [decode_set(r[4]) for r in rows]
    sets = ShingleSets.from_arrays([a.astype(np.uint64) for a in (query, *stored)])
    cand = np.column_stack([np.zeros(len(rows), np.int64), np.arange(1, len(rows) + 1)])
    decision = Decision(
        measure=info.measure,  # type: ignore[arg-type]  # validated when stored
        threshold=info.threshold,
        mode=info.decision,  # type: ignore[arg-type]
    )
    own = None
    if decision.mode == "own":
        own = _own_scores(meth, info.measure, query, query_sig, stored, [r[5] for r in rows])
    decided = decide(sets, cand, decision=decision, method=meth, own_scores=own)
    out: list[Match] = []
    for (_, i), score, code in zip(
        decided.pairs.tolist(), decided.score.tolist(), decided.codes.tolist(), strict=True
    ):
        pk, doc_id, source, title, _blob, _payload, _hits, body = rows[i - 1]
        ov = overlap(query, stored[i - 1])
        rule = decided.rules[code]
        evidence: dict[str, Any] = {
            "index_hits": hits[int(pk)],
            "index_keys": nkeys,
            "score": round(float(score), 6),
            "decision": rule.decision,
            "rule": rule.label,
        }
        out.append(
            Match(
                doc_id,
                source,
                shown_title(title, body),
                ov.resemblance,
                ov.containment_ab,
                ov.containment_ba,
                ov.shared,
                ov.size_a,
                ov.size_b,
                evidence,
            )
        )
    out.sort(key=_rank)
    return out


def _rank(m: Match) -> tuple[float, float, str]:
    return (-m.resemblance, -max(m.containment_query, m.containment_doc), m.doc_id)


def _own_scores(
    meth: Method,
    measure: str,
    query: np.ndarray,
    query_sig: Signature,
    stored: list[np.ndarray],
    payloads: list[bytes | None],
) -> Callable[[np.ndarray], np.ndarray]:
    """The method's own score of the query (document 0) against each stored document
    (document ``i``: ``stored[i - 1]``): from the stored signature, or, for documents that
    keep none (methods signing from the shingle set), from signatures made alike from the
    stored sets and the query's. Under containment, the larger containment of the two
    samples (the mod-m sample, formula 2). NaN where not comparable (never accepted)."""
    unsigned = [i for i, payload in enumerate(payloads) if payload is None]
    made = _signatures_from_sets(meth, query, [stored[i] for i in unsigned]) if unsigned else None
    sig_of: dict[int, tuple[Signature, Signature | None]] = {}
    for i, payload in enumerate(payloads):
        if payload is not None:
            sig_of[i + 1] = (query_sig, _stored_signature(payload))
        elif made is not None:
            sig_of[i + 1] = (made[0], made[1 + unsigned.index(i)])
        else:
            sig_of[i + 1] = (query_sig, None)

    def score(i: int) -> float:
        q, d = sig_of[i]
        if d is None:
            return float("nan")
        if measure == "containment":
            ov = overlap(q.payload, d.payload)
            return max(ov.containment_ab, ov.containment_ba)
        try:
            return float(meth.compare(q, d))
        except (IncompatibleSignatureError, NeardupError, ValueError):
            return float("nan")

    return lambda pairs: np.array([score(int(b)) for b in pairs[:, 1]], dtype=float)


def _stored_signature(payload: bytes) -> Signature | None:
    """A stored signature row, or None when it cannot be read."""
    try:
        return Signature.from_bytes(bytes(payload))
    except (NeardupError, ValueError):
        return None


def _signatures_from_sets(
    meth: Method, query: np.ndarray, stored: list[np.ndarray]
) -> list[Signature] | None:
    """Signatures of the query's set and of each stored set, made alike from their stored
    form (:mod:`~neardup.store.codec`); ``None`` for a method that does not sign from sets."""
    try:
        sets = ShingleSets.from_arrays([a.astype(np.uint64) for a in (query, *stored)])
        sigs = meth.from_sets(sets)
        return [meth.signature(sigs, i) for i in range(len(stored) + 1)]
    except (AttributeError, IncompatibleSignatureError, NeardupError, ValueError):
        return None
