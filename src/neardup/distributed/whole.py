"""Candidates and decisions over the whole corpus in one Dask task, for the methods whose
index needs the whole corpus.

Methods without keys (``shingles-dice``: prefix filtering at its Dice bar; ``simhash``,
``sl-st``, ``spotsigs``, ``anchor-words``: their own indexes; see
:attr:`neardup.methods.plan.MethodPlan.runs_by_key`) and ``measure="containment"`` (the
containment prefix index over frequency ranks, any method) run the local job's own code
(:func:`neardup.job.pipeline.find_pairs`) on the partitions' prepared documents, gathered into
one task on one worker. Collection statistics of fitted methods come before, by a tree
reduction over the partitions (:func:`neardup.distributed.partition.merge_stats`). The
stages around it (reading, preparing, repeated ids, clusters, keep decisions, writing)
stay distributed; that one task's worker must hold the corpus' shingle sets (and, for
methods that sign from tokens or text, those), as the local job's process does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from neardup.distributed.tables import range_dest
from neardup.job.pairs import pair_lines
from neardup.methods.base import Prepared
from neardup.methods.plan import plan_for
from neardup.methods.sets import ShingleSets
from neardup.output import table_lines, write_table

if TYPE_CHECKING:
    from neardup.distributed.partition import Partition
    from neardup.job.cluster import Cluster
    from neardup.job.pipeline import Dropped


def decide_whole(
    meth: Any,
    opts: Any,
    offsets: np.ndarray,
    out_dir: str,
    *parts: Partition,
    against: tuple[int, bool] | None = None,
) -> tuple[list[dict[str, Any]], dict[int, int], tuple[int, int, int] | None]:
    """Sign, find candidates and decide the pairs of the whole corpus (``parts`` in order,
    global index = offset + position), as the local job does; write every partition's
    ``pairs.jsonl`` part (pairs go to their earlier document's partition).

    Args:
        meth: the method (fitted when it needs a fit); opts: resolved
            :class:`~neardup.job.pipeline.DedupOptions`; offsets: int64 (P + 1,) partition offsets;
            out_dir: the output directory; parts: the P partitions.
        against: ``(first, within)`` for ``dedup B --against A`` (the documents ``<
            first`` are A's): only the pairs :func:`neardup.job.pipeline.against_pairs` keeps are
            decided, and the keep stage is the local job's (:func:`neardup.job.pipeline.
            keep_against`), its ``clusters.jsonl`` and ``dropped.jsonl`` written as part 0
            (the other parts empty).

    Returns:
        ``(verified, contained, kept)``: per partition ``{rows: {a, b, res, cab, cba, score,
        code}, candidates: int, verified: int}`` (as :func:`neardup.distributed.partition.
        verify` returns; the pairs compared exactly are all counted in the first),
        ``{doc: container}`` by global index (empty for resemblance), and with ``against``
        the counts ``(clusters, dropped, matched in A)`` (else None).
    """
    from functools import partial

    from neardup.job.pipeline import against_pairs, find_pairs

    sets = ShingleSets.concat([p.sets for p in parts])
    ids = np.concatenate([p.ids for p in parts]) if parts else np.zeros(0, dtype=object)
    from_sets = plan_for(meth, opts).signs_from_sets
    sigs = meth.from_sets(sets) if from_sets else meth.sign(_prepared(parts))
    restrict = None
    if against is not None:
        restrict = partial(against_pairs, first=against[0], within=against[1])
    cand, decided, contained = find_pairs(
        meth, sigs, sets, sets.content_keys(), opts, restrict=restrict
    )
    n_parts = offsets.shape[0] - 1
    cand_part = range_dest(cand[:, 0], offsets) if cand.size else np.zeros(0, np.int64)
    n_cand = np.bincount(cand_part, minlength=n_parts)
    pairs = decided.pairs
    dest = range_dest(pairs[:, 0], offsets) if pairs.size else np.zeros(0, np.int64)
    values = decided.values()
    out: list[dict[str, Any]] = []
    for p in range(n_parts):
        at = np.flatnonzero(dest == p)
        rows = {
            "a": pairs[at, 0],
            "b": pairs[at, 1],
            "res": decided.resemblance[at],
            "cab": decided.containment_ab[at],
            "cba": decided.containment_ba[at],
            "score": decided.score[at],
            "code": decided.codes[at],
        }
        lines = pair_lines(
            ids,
            rows["a"],
            rows["b"],
            values[at],
            meth.name,
            decisions=rows["code"],
            rules=decided.labels,
        )
        write_table(out_dir, "pairs.jsonl", lines, part=p)
        # the pairs compared exactly (after the sketch prefilter) are counted over the
        # whole corpus (find_pairs): the count is the first partition's
        verified = decided.candidates if p == 0 else 0
        out.append({"rows": rows, "candidates": int(n_cand[p]), "verified": int(verified)})
    kept = None
    if against is not None:
        lengths = np.concatenate([p.lengths for p in parts]) if parts else np.zeros(0, np.int64)
        kept = _keep_against(ids, lengths, decided.rows(), against[0], opts, out_dir, n_parts)
    return out, contained, kept


def _keep_against(
    ids: np.ndarray,
    lengths: np.ndarray,
    rows: np.ndarray,
    first: int,
    opts: Any,
    out_dir: str,
    n_parts: int,
) -> tuple[int, int, int]:
    """The local job's keep stage against A (:func:`neardup.job.pipeline.best_matches`,
    :func:`neardup.job.pipeline.keep_against`): ``clusters.jsonl`` and ``dropped.jsonl`` as part 0
    (the other parts empty); returns ``(clusters, dropped, matched in A)``."""
    from neardup.job.pipeline import best_matches, keep_against

    names = [str(i) for i in ids.tolist()]
    matches = best_matches(rows, names, first)
    b_rows = rows[rows[:, :2].min(axis=1) >= first] if rows.shape[0] else rows
    clusters, dropped = keep_against(names, lengths, b_rows, matches, opts)
    _write_first_part(out_dir, n_parts, clusters, dropped)
    return len(clusters), len(dropped), len(matches)


def _write_first_part(out_dir: str, n_parts: int, clusters: list[Any], dropped: list[Any]) -> None:
    """``clusters.jsonl`` and ``dropped.jsonl`` of a keep stage run in one task: every row
    in part 0, the other ``n_parts - 1`` parts empty (the merge concatenates them)."""
    for p in range(n_parts):
        cluster_rows = table_lines(c.as_dict() for c in clusters) if p == 0 else ()
        write_table(out_dir, "clusters.jsonl", cluster_rows, part=p)
        dropped_rows = table_lines(d.as_dict() for d in dropped) if p == 0 else ()
        write_table(out_dir, "dropped.jsonl", dropped_rows, part=p)


def keep_whole(
    opts: Any,
    contained: dict[int, int],
    out_dir: str,
    verified: list[dict[str, Any]],
    *parts: Partition,
) -> tuple[list[Cluster], list[Dropped]]:
    """The local job's cluster and keep stages in one task, on the gathered decided pairs:
    :func:`neardup.job.cluster.make_clusters` over every pair, then the dropped documents
    and their reasons as the local job gives them
    (:func:`neardup.job.pipeline.dropped_members`); ``clusters.jsonl`` and ``dropped.jsonl``
    written as part 0 (the other parts empty).

    For jobs whose decided pairs fit one worker
    (:data:`neardup.distributed.stages.WHOLE_KEEP_PAIRS`): the distributed stages (rounds of
    label propagation, three shuffles) cost Dask one task per piece, which at a million
    documents is most of the job's time; this is one task.

    Args:
        opts: the resolved :class:`~neardup.job.pipeline.DedupOptions`; contained: ``{doc:
            container}`` by global index (empty for resemblance); out_dir: the output
            directory; verified: the P verified partitions (``{rows: {a, b, res, cab, cba,
            score, code}}``), in order, as one list (:func:`~.partition.verify_all` makes
            it in one task); parts: the P partitions (ids and lengths; slim ones do).

    Returns:
        ``(clusters, dropped)``: the local job's :class:`~neardup.job.cluster.Cluster` and
        :class:`~neardup.job.pipeline.Dropped` values (the driver's result takes them as
        they are, not read back from the files: 0.5 s at a million documents).
    """
    from neardup.distributed.partition import stacked_rows
    from neardup.job.cluster import make_clusters
    from neardup.job.pipeline import dropped_members

    ids = [str(i) for p in parts for i in p.ids.tolist()]
    lengths = np.concatenate([p.lengths for p in parts]) if parts else np.zeros(0, np.int64)
    rows = stacked_rows([v["rows"] for v in verified])
    edges = rows[:, :2].astype(np.int64)
    clusters = make_clusters(ids, edges, lengths, keep=opts.keep, contained_in=contained)
    dropped = dropped_members(clusters, ids, rows, contained, opts.threshold)
    _write_first_part(out_dir, len(parts), clusters, dropped)
    return clusters, dropped


def _prepared(parts: tuple[Partition, ...]) -> list[Prepared]:
    """The accepted documents as the local job keeps them for ``Method.sign``: id, text
    and canonical tokens (empty for a method that signs from the text alone)."""
    out: list[Prepared] = []
    for part in parts:
        n = part.ids.shape[0]
        tokens: list[Any] = part.tokens if part.tokens else [()] * n
        texts = part.texts if part.texts else [""] * n
        out.extend(
            Prepared(str(i), t, k) for i, t, k in zip(part.ids.tolist(), texts, tokens, strict=True)
        )
    return out
