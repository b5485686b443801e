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
from neardup.errors import IncompatibleSignatureError, InputError, NeardupError, check_int
from neardup.methods.base import Method, Prepared, Signature
from neardup.methods.decision import own_accepts
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
        sigs = (
            meth.from_sets(sets)
            if signs_from_sets(meth)
            else meth.sign([Prepared("query", text_, [term_key(t) for t in tokens])])
        )
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
    out: list[Match] = []
    cands = []
    bodies: dict[int, Any] = {}
    for pk, doc_id, source, title, blob, payload, _hits, body in rows:
        stored = decode_set(blob)
        cands.append((pk, doc_id, source, title, stored, payload, overlap(query, stored)))
        bodies[pk] = body
    # Documents of methods that sign from the shingle set keep no signature row: their
    # signatures are made from the stored sets, with the query's from its set the same way.
    own = info.decision == "own"
    unsigned = [i for i, c in enumerate(cands) if c[5] is None]
    if own and unsigned:
        made = _signatures_from_sets(meth, query, [cands[i][4] for i in unsigned])
    else:
        made = None
    for i, (pk, doc_id, source, title, stored, payload, ov) in enumerate(cands):
        q_sig, stored_sig = query_sig, payload
        if payload is None and made is not None:
            q_sig, stored_sig = made[0], made[1 + unsigned.index(i)]
        score = _score(meth, q_sig, stored_sig) if own else None
        rule = _decide(info, meth, ov, q_sig, stored_sig, score)
        if rule is None:
            continue
        if not own and payload is not None:
            score = _score(meth, query_sig, payload)
        evidence: dict[str, Any] = {
            "index_hits": hits[int(pk)],
            "index_keys": nkeys,
            "score": score,
            "decision": rule,
        }
        if score is None and payload is None:
            evidence["_set"] = stored
        out.append(
            Match(
                doc_id,
                source,
                shown_title(title, bodies[pk]),
                ov.resemblance,
                ov.containment_ab,
                ov.containment_ba,
                ov.shared,
                ov.size_a,
                ov.size_b,
                evidence,
            )
        )
    pending = [(k, m.evidence.pop("_set")) for k, m in enumerate(out) if "_set" in m.evidence]
    if pending:
        scores = _scores_from_sets(meth, query, [st for _, st in pending])
        for (k, _), score in zip(pending, scores, strict=True):
            out[k].evidence["score"] = score
    out.sort(key=_rank)
    return out


def _rank(m: Match) -> tuple[float, float, str]:
    return (-m.resemblance, -max(m.containment_query, m.containment_doc), m.doc_id)


def _decide(
    info: CollectionInfo,
    meth: Method,
    ov: Any,
    query: Signature,
    payload: bytes | Signature | None,
    score: float | None,
) -> str | None:
    """The rule that accepts a stored document for a check (``own``, ``verified``,
    ``identical``), or None: the collection's decision, then identical content."""
    if info.decision == "own":
        value = _own_value(info, meth, query, payload, score)
        if value is not None and bool(own_accepts(meth, np.array([value]), info.threshold)[0]):
            return "own"
    else:
        value = ov.resemblance
        if info.measure == "containment":
            value = max(ov.containment_ab, ov.containment_ba)
        if value >= info.threshold:
            return "verified"
    return "identical" if ov.size_a and ov.shared == ov.size_a == ov.size_b else None


def _own_value(
    info: CollectionInfo,
    meth: Method,
    query: Signature,
    payload: bytes | Signature | None,
    score: float | None,
) -> float | None:
    """The method's own score; for containment (the mod-m sample, formula 2) the larger
    containment of the stored sample and the query's."""
    if info.measure != "containment" or payload is None:
        return score
    try:
        stored = payload if isinstance(payload, Signature) else Signature.from_bytes(bytes(payload))
    except (NeardupError, ValueError):
        return None
    ov = overlap(query.payload, stored.payload)
    return max(ov.containment_ab, ov.containment_ba)


def _score(meth: Method, query: Signature, payload: bytes | Signature | None) -> float | None:
    if payload is None:
        return None
    try:
        stored = payload if isinstance(payload, Signature) else Signature.from_bytes(bytes(payload))
        return round(float(meth.compare(query, stored)), 6)
    except (IncompatibleSignatureError, NeardupError, ValueError):
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


def _scores_from_sets(meth: Method, query: np.ndarray, stored: list[np.ndarray]) -> list[Any]:
    """The method's score of the query against each stored set, all signed from their
    stored form (:mod:`~neardup.store.codec`) in one batch: for documents that keep no
    signature row (methods signing from the shingle set). ``None`` where not comparable."""
    try:
        sets = ShingleSets.from_arrays([a.astype(np.uint64) for a in (query, *stored)])
        sigs = meth.from_sets(sets)
        first = meth.signature(sigs, 0)
        return [
            round(float(meth.compare(first, meth.signature(sigs, i))), 6)
            for i in range(1, len(stored) + 1)
        ]
    except (AttributeError, IncompatibleSignatureError, NeardupError, ValueError):
        return [None] * len(stored)
