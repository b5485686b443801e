"""The check step of a collection, the same on every backend (memory, SQLite, PostgreSQL): a
text made ready for lookup (:class:`Query`), then the candidates its index keys found decided
by :func:`neardup.job.decide.decide` as a batch of one query against them (:func:`verify`), and
the matches ranked (:func:`select`).

A candidate is verified on the exact verification sets (Broder 1997;
:func:`neardup.index.codec.verification_set`) under ``verified``, or by the method's own
rule on its signatures under ``own``; identical documents (resemblance 1) always match. The
backends differ only in where the candidates and their sets come from
(:mod:`neardup.index.memory`, :mod:`neardup.store.checking`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from neardup.errors import IncompatibleSignatureError, InputError, NeardupError
from neardup.index.codec import fingerprint_shift, term_key, verification_set
from neardup.index.methods import collection_keys
from neardup.index.results import Match
from neardup.job.decide import Decision, decide
from neardup.methods.base import Method, Prepared, Signature
from neardup.methods.measures import overlap
from neardup.methods.plan import MethodPlan, plan_for, too_short_detail
from neardup.methods.sets import ShingleSets

#: Most candidates a check verifies (the documents sharing the most index keys).
MAX_CANDIDATES = 1000


@dataclass(frozen=True, slots=True)
class Query:
    """A checked text made ready for lookup: its token count, verification set, signature
    and index keys.

    Attributes:
        tokens: canonical tokens; set: uint32 (t,) verification set, sorted, unique;
        signature: the method's signature of the text; keys: int64 index keys (any order,
        repeats possible).
    """

    tokens: int
    set: np.ndarray
    signature: Signature
    keys: np.ndarray

    @classmethod
    def of(
        cls, meth: Method, text_: str, *, min_tokens: int, plan: MethodPlan | None = None
    ) -> Query:
        """The query of ``text_`` under ``meth`` (fitted first when ``needs_fit``); ``plan``:
        its :func:`~neardup.methods.plan.plan_for` when the caller has it (a check reuses
        its collection's), else made here.

        Methods signing from the shingle sets alone (``streams``), in a process that has
        loaded the compiled kernel (the service loads it when it starts; ``add`` does),
        prepare and sign the text as ``add`` does (:func:`neardup.job.prepare.shingle_texts`:
        the kernel's tokens, set and, for MinHash-LSH, sketch in one pass; 0.27 ms of CPU a
        text of the planted corpus against 0.73 ms by the Python tokenizer, shingling and
        hasher). A one-file ``neardup check`` keeps the Python path: importing the kernel
        and its reader costs more than one text saves. Both give the same set and sketch
        (the kernel is bit-exact with the numpy reference).

        Raises:
            InputError: fewer canonical tokens than ``min_tokens``.
        """
        plan = plan_for(meth) if plan is None else plan
        if plan.streams and "neardup.methods.kernel" in sys.modules:
            from neardup.job.prepare import shingle_texts

            config = plan.prepare_config(rows=True)
            done = shingle_texts([text_], replace(config, min_tokens=min_tokens))
            count = int(done.counts[0])
            _long_enough(count, min_tokens)
            sets = done.sets
            sigs = meth.from_sets(sets) if done.rows is None else meth.from_rows(done.rows)
        else:  # lexical methods read the statistics' form of a term; the others sign as add
            tokens = meth.canonical.tokens(text_)
            count = len(tokens)
            _long_enough(count, min_tokens)
            sets = meth.shingling.batch([tokens])
            terms = tokens if plan.signs_at_add else [term_key(t) for t in tokens]
            sigs = meth.sign([Prepared("query", text_, terms)])
        keys = collection_keys(meth, sigs, sets, plan=plan).for_row(0)
        shift = fingerprint_shift(meth.shingling.fingerprint)
        stored = verification_set(sets.get(0), shift=shift)
        return cls(count, stored, meth.signature(sigs, 0), keys)


def _long_enough(count: int, min_tokens: int) -> None:
    """Raises InputError: ``count`` canonical tokens are fewer than ``min_tokens``."""
    if count < min_tokens:
        raise InputError(f"document too short to check: {too_short_detail(count, min_tokens)}")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A stored document the index proposed for a query.

    Attributes:
        doc_id, source, title: the stored document (the title as shown).
        set: uint32 (t,) its verification set.
        signature: its stored signature (a :class:`Signature` or its bytes; lexical
            methods), or ``None`` when the method signs from the shingle set (the own rule
            then compares signatures made alike from both verification sets).
        hits: index keys it shares with the query.
    """

    doc_id: str
    source: str
    title: str
    set: np.ndarray
    signature: Signature | bytes | None
    hits: int


@dataclass(frozen=True, slots=True)
class Verified:
    """A match and the unrounded value that decided it (``Match.evidence["score"]`` is
    rounded to 6 decimals)."""

    match: Match
    score: float


def verify(
    meth: Method,
    decision: Decision,
    query: Query,
    candidates: Sequence[Candidate],
) -> list[Verified]:
    """The candidates the query duplicates, decided by :func:`neardup.job.decide.decide` (the
    query is document 0, candidate ``i`` document ``i + 1``), in candidate order.

    Each match's ``evidence``: ``index_hits``, ``index_keys`` (keys of the query),
    ``score`` (rounded), ``decision`` (``own``, ``verified``, ``identical``) and ``rule``.
    """
    stored = [c.set for c in candidates]
    sets = ShingleSets.from_arrays([a.astype(np.uint64) for a in (query.set, *stored)])
    n = len(candidates)
    cand = np.column_stack([np.zeros(n, np.int64), np.arange(1, n + 1)])
    own = None
    if decision.mode == "own":
        payloads = [c.signature for c in candidates]
        own = _own_scores(meth, decision.measure, query.set, query.signature, stored, payloads)
    decided = decide(sets, cand, decision=decision, method=meth, own_scores=own)
    nkeys = int(query.keys.shape[0])
    out: list[Verified] = []
    for (_, i), score, code in zip(
        decided.pairs.tolist(), decided.score.tolist(), decided.codes.tolist(), strict=True
    ):
        c = candidates[i - 1]
        ov = overlap(query.set, c.set)
        rule = decided.rules[code]
        evidence: dict[str, Any] = {
            "index_hits": c.hits,
            "index_keys": nkeys,
            "score": round(float(score), 6),
            "decision": rule.decision,
            "rule": rule.label,
        }
        match = Match(
            c.doc_id,
            c.source,
            c.title,
            ov.resemblance,
            ov.containment_ab,
            ov.containment_ba,
            ov.shared,
            ov.size_a,
            ov.size_b,
            evidence,
        )
        out.append(Verified(match, float(score)))
    return out


def select(verified: Sequence[Verified], *, limit: int, k: int | None) -> tuple[Match, ...]:
    """The matches a check returns.

    Args:
        verified: every decided match.
        limit: without ``k``: at most this many, best first by resemblance, then the larger
            containment, then id.
        k: top-k: the ``k`` matches with the highest decided score (the value the rule
            decided on: the exact measure, the method's own score, 1 for identical
            documents), ties by id; replaces ``limit``.
    """
    if k is not None:
        ranked = sorted(verified, key=lambda v: (-v.score, v.match.doc_id))
        return tuple(v.match for v in ranked[:k])
    return tuple(sorted((v.match for v in verified), key=_rank)[:limit])


def _rank(m: Match) -> tuple[float, float, str]:
    return (-m.resemblance, -max(m.containment_query, m.containment_doc), m.doc_id)


def _own_scores(
    meth: Method,
    measure: str,
    query: np.ndarray,
    query_sig: Signature,
    stored: list[np.ndarray],
    payloads: Sequence[Signature | bytes | None],
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


def _stored_signature(payload: Signature | bytes) -> Signature | None:
    """A stored signature, or None when its bytes cannot be read."""
    if isinstance(payload, Signature):
        return payload
    try:
        return Signature.from_bytes(bytes(payload))
    except (NeardupError, ValueError):
        return None


def _signatures_from_sets(
    meth: Method, query: np.ndarray, stored: list[np.ndarray]
) -> list[Signature] | None:
    """Signatures of the query's set and of each stored set, made alike from their
    verification sets; ``None`` for a method that does not sign from sets."""
    try:
        sets = ShingleSets.from_arrays([a.astype(np.uint64) for a in (query, *stored)])
        sigs = meth.from_sets(sets)
        return [meth.signature(sigs, i) for i in range(len(stored) + 1)]
    except (AttributeError, IncompatibleSignatureError, NeardupError, ValueError):
        return None
