"""Per-partition work of the Dask engine: ingest, new ids (:mod:`.ids`), keys, candidates, verify.

Every function here runs inside a Dask task on one partition (or one shuffle output) and
takes and returns typed values of numpy arrays (:class:`~neardup.job.prepare.PreparedDocuments`
from the prepare stage, :class:`Partition`) or plain numpy tables, so it is cheap to
serialise and to recompute when a worker is lost. Global document index = partition
offset + position in the partition, the single-process job's input order.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, overload

import numpy as np

from neardup._array import (
    U64,
    equal_groups,
    fmix64,
    group_bounds,
    pair_codes,
    pairs_in_groups,
    pairs_of_codes,
    seg_arange,
    sorted_unique,
    unique_pairs,
)
from neardup.distributed.ids import new_ids
from neardup.distributed.io import Block, as_given, block_items
from neardup.distributed.tables import Table, concat, hash_dest, range_dest, split
from neardup.job.decide import decide, signature_scores, sketch_prefilter
from neardup.job.pairs import pair_lines
from neardup.job.pipeline import decision_of, identical_pairs
from neardup.job.prepare import (
    PreparedDocuments,
    concat_prepared,
    no_repeats,
    prepare_documents,
    prepare_unit,
    screen,
)
from neardup.methods.base import Prepared, Signatures
from neardup.methods.keys import GroupKeys, group_keys
from neardup.methods.lsh import BandKeys, low_bytes
from neardup.methods.plan import PrepareConfig, plan_for
from neardup.methods.sets import ShingleSets
from neardup.output import table_lines, write_table
from neardup.text.read import LineSources
from neardup.text.types import Skipped
from neardup.text.units import ReadOptions


# -- ingest ---------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Partition:
    """One partition's accepted documents, in input order (``n`` documents).

    Attributes:
        ids: object (n,): document ids; lengths: int64 (n,): canonical token counts.
        sets: their shingle sets; sig: their signature data (n, ...) (the
            :class:`~neardup.methods.lsh.BandKeys` of lean rows, :func:`_lean`), or None
            before a fitted method has signed; tokens: their token lists (methods that
            need a fit, until signed; else empty); skipped: the partition's skip rows in
            input order.
        texts: their texts (methods decided over the whole corpus that sign from
            prepared documents, :mod:`.whole`; else empty).
        keys: uint64 (n,): the content keys of ``sets``
            (:meth:`~neardup.methods.sets.ShingleSets.content_keys`, made by the prepare
            stage; empty in a :func:`slim` partition).
    """

    ids: np.ndarray
    lengths: np.ndarray
    sets: ShingleSets
    sig: np.ndarray | ShingleSets | BandKeys | None
    tokens: list[list[str]]
    skipped: list[Skipped]
    read: int = 0
    renamed: int = 0
    texts: list[str] = dataclasses.field(default_factory=list)
    keys: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, U64))

    def __sizeof__(self) -> int:
        """Bytes held, estimated (:func:`neardup._memory.fields_bytes`): what Dask weighs
        the partition by when it places tasks, steals them and spills."""
        from neardup._memory import fields_bytes

        return fields_bytes(self)


def ingest(
    block: Block,
    meth: Any,
    opts: Any,
    read_options: ReadOptions | dict[str, Any],
    whole: bool = False,
) -> PreparedDocuments:
    """Read a block and prepare its documents: its read units one by one
    (:func:`neardup.job.prepare.prepare_unit`, as the local job's workers: the local job's
    planner and reader, or a record file named by URL planned by its format,
    :func:`~neardup.distributed.io.block_items`); sources named as the local job names
    them (:func:`~neardup.distributed.io.as_given`). Positions are the items' positions in
    the block. ``whole``: the job is decided over the whole corpus
    (:mod:`.whole`) whatever the method (``--against``). The worker keeps freed heap, as
    the local job's workers do (:func:`neardup._memory.keep_freed_heap`): a block's
    ingest took 0.6 s without, 0.46-0.5 s with, at 25,000 documents. It holds what it
    makes, so numpy's huge page advice is off there for the rest of its life
    (:func:`neardup._memory.no_huge_page_advice`)."""
    from neardup._memory import keep_freed_heap, no_huge_page_advice

    keep_freed_heap()
    no_huge_page_advice()
    config = ingest_config(meth, opts, read_options, whole=whole)
    assert config.read is not None
    parts = [
        prepare_documents([], config, skipped=[(0, item)])
        if isinstance(item, Skipped)
        else prepare_unit(item, config)
        for item in block_items(block, config.read)
    ]
    prepared = concat_prepared(parts) if parts else prepare_documents([], config)
    return _named_as_given(prepared, block)


def ingest_config(
    meth: Any, opts: Any, read_options: ReadOptions | dict[str, Any], *, whole: bool
) -> PrepareConfig:
    """How :func:`ingest` prepares a block (also the job summary's ``kernel``,
    :func:`neardup.job.prepare.kernel_of`): the method's plan
    (:func:`neardup.methods.plan.plan_for`)."""
    from neardup.text.read import as_read_options

    plan = plan_for(meth, opts)
    by_key = plan.runs_by_key and not whole
    # by key: signed in the partitions (lean rows where only the low bytes prefilter);
    # else Method.sign of whole-corpus Prepared
    read = as_read_options(read_options)
    return plan.prepare_config(rows=by_key, texts=not by_key, read=read, lean=True)


def _named_as_given(prepared: PreparedDocuments, block: Block) -> PreparedDocuments:
    """``prepared`` with its sources (and skip rows) naming the block's file as it was
    given (:func:`~neardup.distributed.io.as_given`), so that a renamed id, the place of a
    repeated one, is the local job's; the sources are renamed as they are read
    (:class:`_GivenSources`)."""
    rename = as_given(block)
    if rename is None:
        return prepared
    skipped = [
        (p, replace(s, source=rename(s.source), detail=rename(s.detail)))
        for p, s in prepared.skipped
    ]
    sources = _GivenSources(prepared.sources, block, rename)
    return replace(prepared, sources=sources, skipped=skipped)


class _GivenSources(Sequence[str]):
    """A block's document sources (``FILE:LINE``) named as the block's file was given,
    each renamed when it is read (:func:`~neardup.distributed.io.as_given`, a regular
    expression): the job reads only those it reports, a repeated id's place and a skip
    row's source, not one a document (20 ms of CPU a block of 25,000 documents, 3 % of its
    ingest; 0.85 s of the workers' CPU at a million documents given by a relative path)."""

    __slots__ = ("_block", "_read", "_rename")

    def __init__(
        self, read: Sequence[str], block: Block, rename: Callable[[str], str] | None = None
    ) -> None:
        self._read, self._block, self._rename = read, block, rename

    def __len__(self) -> int:
        return len(self._read)

    @overload
    def __getitem__(self, k: int) -> str: ...

    @overload
    def __getitem__(self, k: slice) -> list[str]: ...

    def __getitem__(self, k: int | slice) -> str | list[str]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if self._rename is None:  # unpickled: the function is made again
            self._rename = as_given(self._block)
        text = self._read[k]
        return text if self._rename is None else self._rename(text)

    def __reduce__(self) -> tuple[Any, ...]:
        # not the function; a line range stays three values (a spilled or moved partition)
        read = self._read if isinstance(self._read, (list, LineSources)) else list(self._read)
        return (_GivenSources, (read, self._block))


def finalize(
    raw: PreparedDocuments,
    meth: Any,
    opts: Any,
    renamed: Table | None = None,
    *,
    whole: bool = False,
    signed: Partition | None = None,
) -> Partition:
    """Give the partition's repeated ids their new ids (``renamed``: its table from
    :func:`neardup.distributed.ids.rename`, the local job's renamer; None: none), the too-short
    rule of :func:`neardup.job.prepare.screen`, and the signatures (unless a fit is needed,
    or the method is decided over the whole corpus, :mod:`.whole`, as with ``whole``).

    ``signed``: this partition finalized before its ids were renamed; then ``raw`` may be
    :func:`bare` (ids, sources and skips only): renaming never drops a document, so the
    sets, signatures and keys are ``signed``'s and only the ids and skip rows are made."""
    plan = plan_for(meth, opts)
    raw, n_renamed = (raw, 0) if renamed is None else new_ids(raw, renamed)
    out = screen(raw, no_repeats(raw))
    if signed is not None:
        ids = np.array([raw.ids[k] for k in out.accepted.tolist()], dtype=object)
        return replace(signed, ids=ids, skipped=out.skip_rows(raw), renamed=n_renamed)
    every = out.is_everything(raw)  # then the arrays as they are: no copy (1 GB at 1M)
    sets = raw.sets if every else raw.sets.take(out.take)
    sig = None
    if not plan.needs_fit and plan.runs_by_key and not whole:
        rows = raw.rows
        if rows is not None and not every:
            rows = rows[out.take]
        if rows is None:
            sig = meth.from_sets(sets).data
        elif _lean(meth, opts):  # as ingest_config made them
            sig = meth.from_lean_rows(rows).data
        else:
            sig = meth.from_rows(rows).data
    keys = raw.keys if every else raw.keys[out.take]
    return Partition(
        np.array([raw.ids[k] for k in out.accepted.tolist()], dtype=object),
        raw.counts[out.accepted],
        sets,
        sig,
        [] if raw.tokens is None else [raw.tokens[t] for t in out.take.tolist()],
        out.skip_rows(raw),
        read=len(raw.ids) + len(raw.skipped),
        renamed=n_renamed,
        texts=[] if raw.texts is None else [raw.texts[t] for t in out.take.tolist()],
        keys=keys,
    )


def bare(raw: PreparedDocuments) -> PreparedDocuments:
    """``raw`` without its sets, signature rows, tokens and texts: what the repeated-id
    rules read (:mod:`.ids`: ids, positions, sources, skips, token counts), kept in place
    of the raw partition once it is finalized (:func:`finalize` with ``signed``), so that
    its arrays go as soon as they are read (at a million documents, the larger worker's
    peak 1,333 against 1,516 MiB)."""
    return replace(raw, sets=_no_sets(), rows=None, tokens=None, texts=None)


def _no_sets() -> ShingleSets:
    """The sets of no document (what :func:`bare` and :func:`slim` keep in place of theirs)."""
    return ShingleSets(np.zeros(0, U64), np.zeros(1, np.int64))


def _lean(meth: Any, opts: Any) -> bool:
    """Whether the partitions of a job run by key hold their method's lean rows
    (:func:`ingest_config`: with the sketches' low bytes prefiltering candidates that are
    verified exactly, MinHash-LSH's band keys and low bytes,
    :class:`~neardup.methods.lsh.BandKeys`, 448 bytes a document against 1,024 for the
    sketch), so that :func:`fetch` gives the low bytes."""
    return plan_for(meth, opts).prepare_config(rows=True, lean=True).lean


def part_count(part: Partition) -> tuple[int, dict[str, int], int, int]:
    """Documents, skips by reason, records read and documents renamed (a repeated id) of a
    partition (small, sent to the client)."""
    reasons: dict[str, int] = dict(Counter(s.reason for s in part.skipped))
    return int(part.ids.shape[0]), reasons, part.read, part.renamed


def part_stats(part: Partition) -> Any:
    """Collection statistics of a partition's documents (for methods that need a fit)."""
    from neardup.methods.corpus_stats import CorpusStatistics

    return CorpusStatistics.from_token_lists(part.tokens)


def merge_stats(*stats: Any) -> Any:
    """Sum of collection statistics (document counts, df and cf)."""
    from neardup.methods.corpus_stats import CorpusStatistics

    out = CorpusStatistics()
    for s in stats:
        out._n += s._n
        out._df.update(s._df)
        out._cf.update(s._cf)
    return out


def sign_fitted(part: Partition, meth: Any) -> Partition:
    """Signatures of a partition with a fitted method; token lists are dropped."""
    prepared = [Prepared(i, "", t) for i, t in zip(part.ids.tolist(), part.tokens, strict=True)]
    return replace(part, sig=meth.sign(prepared).data, tokens=[])


def write_skipped(part: Partition, out_dir: str, p: int) -> int:
    """Write partition ``p``'s ``skipped.jsonl`` part; returns the row count."""
    return write_table(
        out_dir, "skipped.jsonl", table_lines(s.as_dict() for s in part.skipped), part=p
    )


# -- candidates -------------------------------------------------------------------------------
#: Slot of the content keys: documents with equal full shingle sets are always candidates
#: (and paired whatever the rule, as in the local job).
CONTENT_SLOT = -1


def split_values(part: Partition, n_out: int) -> list[Table]:
    """Distinct fingerprints of a partition's signature sets with their document counts
    ``{v, c}``, by hash of the fingerprint (the document-frequency pass)."""
    assert isinstance(part.sig, ShingleSets)
    v, c = np.unique(part.sig.values, return_counts=True)
    return split({"v": v, "c": c.astype(np.int64)}, hash_dest(v, n_out), n_out)


def sum_df(j: int, *pieces: Table) -> Table:
    """Corpus document frequency ``{v, df}`` of one hash bucket's fingerprints (sorted)."""
    t = concat(pieces)
    if not t or t["v"].size == 0:
        return {"v": np.zeros(0, U64), "df": np.zeros(0, np.int64)}
    order = np.argsort(t["v"], kind="stable")
    v, c = t["v"][order], t["c"][order]
    starts, _ = group_bounds(v)
    return {"v": v[starts], "df": np.add.reduceat(c, starts)}


def lookup_df(df: Table, own: Table) -> Table:
    """The document frequencies ``{v, df}`` of a partition's fingerprints in one hash bucket.

    Args:
        df: the bucket's corpus frequencies (:func:`sum_df`, ``v`` ascending).
        own: the partition's piece of that bucket (:func:`split_values`, ``v`` ascending),
            so the lookup is one search of sorted keys and moves no partition.
    """
    v = own["v"]
    return {"v": v, "df": df["df"][np.searchsorted(df["v"], v)]}


def _set_keys(part: Partition, meth: Any, lookups: tuple[Table, ...]) -> tuple[np.ndarray, ...]:
    """``(key, doc)`` of a :attr:`~neardup.methods.plan.MethodPlan.set_keys` method: every
    fingerprint of the signature sets (``postings``) or of their prefixes, fingerprints
    ordered by (corpus document frequency, value) (``prefix``, as
    :func:`neardup.methods.prefix.rank_by_frequency` orders them).

    The prefix order is one sort of ``doc << 32 | rank`` (rank: a distinct fingerprint's
    place by (frequency, value) in the partition), the order of
    ``lexsort((value, df, doc))`` without searching the unsorted values.
    """
    from neardup.methods.prefix import prefix_lengths

    sets = part.sig
    assert isinstance(sets, ShingleSets)
    vals, doc = sets.values.astype(U64), sets.doc_ids()
    if plan_for(meth).set_keys == "postings":
        return vals, doc
    order = np.argsort(vals)  # equal values share a rank: no stable sort needed
    ordered = vals[order]
    new = np.empty(ordered.shape[0], dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    uid = np.cumsum(new) - 1
    distinct = ordered[new]  # ascending
    freq = np.zeros(distinct.shape[0], np.int64)
    found = 0
    for t in lookups:  # each piece ascending: a search of sorted keys
        freq[np.searchsorted(distinct, t["v"])] = t["df"]
        found += t["v"].shape[0]
    if found != distinct.shape[0] or distinct.shape[0] >= 2**32:  # pragma: no cover
        raise AssertionError("document frequencies do not cover the partition's fingerprints")
    by_df = np.argsort(freq, kind="stable")  # distinct values ascend: ties go by value
    rank_of = np.empty(distinct.shape[0], np.int64)
    rank_of[by_df] = np.arange(distinct.shape[0], dtype=np.int64)
    rank = np.empty(vals.shape[0], np.int64)
    rank[order] = rank_of[uid]
    key = np.sort((doc.astype(np.int64) << 32) | rank)  # each document's ranks ascending
    p = prefix_lengths(sets.sizes, float(meth.threshold))
    at = key[seg_arange(sets.offsets[:-1], p)]
    return distinct[by_df][at & 0xFFFFFFFF], at >> 32


def split_keys(part: Partition, offset: int, meth: Any, n_out: int, *lookups: Table) -> list[Table]:
    """``(slot, key, gidx)`` rows of a partition's grouping keys, by hash of (slot, key).

    The keys: the method's (its :meth:`~neardup.methods.base.MethodBase.keys`, form
    ``groups``), or those of its signature sets in one slot
    (:attr:`~neardup.methods.plan.MethodPlan.set_keys`; ``lookups``: the document frequencies of
    the partition's fingerprints, for prefix filtering). Besides, slot
    :data:`CONTENT_SLOT` holds each non-empty document's content key
    (:meth:`ShingleSets.content_keys`), so identical documents meet whatever the method.
    """
    if plan_for(meth).set_keys is not None:
        key, doc = _set_keys(part, meth, lookups)
        slot, gidx = np.zeros(key.shape[0], np.int64), doc.astype(np.int64) + offset
    else:
        grouped = _grouped(part, meth)
        keys, valid = grouped.keys, grouped.valid
        n, slots = keys.shape
        slot = np.broadcast_to(np.arange(slots, dtype=np.int64), (n, slots))[valid]
        gidx = np.broadcast_to(np.arange(n, dtype=np.int64)[:, None] + offset, (n, slots))[valid]
        key = keys[valid]
    sets = part.sets
    live = np.flatnonzero(sets.sizes > 0)
    slot = np.concatenate([slot, np.full(live.shape[0], CONTENT_SLOT, dtype=np.int64)])
    gidx = np.concatenate([gidx, live.astype(np.int64) + offset])
    key = np.concatenate([key.astype(U64), part.keys[live]])
    route = _route(slot, key)
    return split({"slot": slot, "key": key, "gidx": gidx}, hash_dest(route, n_out), n_out)


def bucket_pairs(j: int, max_group: int | None, offsets: np.ndarray, *pieces: Table) -> list[Table]:
    """Pairs of documents sharing a (slot, key) bucket, routed to the earlier one's partition.

    Members of a bucket are ordered by global index, so an oversized bucket's star is
    centred on its earliest document, as in the single-process index. A content-key bucket
    (identical documents) is always a star, as in the local job.
    """
    n_parts = offsets.shape[0] - 1
    t = concat(pieces)
    if not t or t["gidx"].size == 0:
        pairs = np.zeros((0, 2), np.int64)
    else:
        rows, starts, sizes = _buckets(t["slot"], t["key"])
        gidx = t["gidx"][rows]
        content = t["slot"][rows[starts]] == CONTENT_SLOT
        found = [
            pairs_in_groups(gidx, starts[~content], sizes[~content], max_group=max_group),
            pairs_in_groups(gidx, starts[content], sizes[content], max_group=2),
        ]
        pairs = unique_pairs(np.concatenate(found), int(offsets[-1]))
    table = {"a": pairs[:, 0], "b": pairs[:, 1]}
    return split(table, range_dest(table["a"], offsets), n_parts)


def _grouped(part: Partition, meth: Any) -> GroupKeys:
    """The method's grouping keys of a partition's signatures (form ``groups``)."""
    # the key is never read by keys() (the signatures were made here, by meth)
    sigs = Signatures(None, part.sig, len(part.sets))  # type: ignore[arg-type]
    return group_keys(meth.keys(sigs))


def part_keys(part: Partition, meth: Any, opts: Any = None) -> dict[str, np.ndarray]:
    """A partition's keys for :func:`group_candidates` (a method with grouping keys):
    ``keys`` uint64 (slots, n) and ``valid`` bool (slots, n), each slot's row contiguous
    (its :meth:`~neardup.methods.base.MethodBase.keys`, transposed here, on the
    partition's worker; ``valid`` one row (1, n) when every slot's is the same, as a
    document's LSH bands are all valid or none), ``content`` uint64 (n,) (its documents'
    content keys) and ``live`` bool (n,) (a non-empty set); where the sketches prefilter
    the candidates of ``opts``'s decision (the plan's
    :attr:`~neardup.methods.plan.MethodPlan.prefilter_slots`),
    also ``low`` uint64 (n, slots / 8), the sketches' low bytes
    (:func:`neardup.methods.lsh.low_bytes`: 128 bytes a document at 128 slots, against
    1,024 for the sketches), and ``sizes`` uint16 (n,), the shingles of each set up to
    the slots (what the prefilter's floors read).

    Slot-major, so that :func:`group_candidates` joins one slot's keys of every partition
    at a time: the transpose of the whole corpus' (n, slots) keys there (one thread, a
    strided read of 320 MB at a million documents and 40 bands) took 2.3-2.7 s of CPU in
    a loaded A/B of 34 partitions of 30,000 x 40, against 0.15-0.27 s for the 34
    partitions' own transposes."""
    grouped = _grouped(part, meth)
    valid = grouped.valid
    if valid.shape[1] and (valid == valid[:, :1]).all():
        valid = valid[:, :1]  # one row for every slot
    out = {
        "keys": np.ascontiguousarray(grouped.keys.astype(U64, copy=False).T),
        "valid": np.ascontiguousarray(valid.T),
        "content": part.keys,
        "live": part.sets.sizes > 0,
    }
    slots = None if opts is None else plan_for(meth, opts).prefilter_slots
    if slots is not None:
        sig = part.sig
        assert isinstance(sig, BandKeys | np.ndarray)  # lean rows or sketches
        out["low"] = sig.low if isinstance(sig, BandKeys) else low_bytes(sig)
        out["sizes"] = np.minimum(part.sets.sizes, slots).astype(np.uint16)
    return out


def collected_candidates(
    max_group: int | None, keyed: list[Any], meth: Any = None, opts: Any = None
) -> tuple[list[Table], np.ndarray]:
    """:func:`group_candidates` of the partitions' keys, collected in order on one worker
    (:func:`~neardup.distributed.tables.collect`; the offsets made from them)."""
    return group_candidates(max_group, None, *keyed, meth=meth, opts=opts)


def group_candidates(
    max_group: int | None,
    offsets: np.ndarray | None,
    *keyed: Any,
    meth: Any = None,
    opts: Any = None,
) -> tuple[list[Table], np.ndarray]:
    """The candidate pairs of every partition in one task, from the keys of all of them
    (:func:`part_keys`, in partition order): the pairs :func:`split_keys`,
    :func:`bucket_pairs` and :func:`unique_candidates` give, found as the local job finds
    them (:func:`_slot_pairs`: the keys of a slot that can repeat sorted at a time, runs
    of slots on threads) rather than by one sort of every ``(slot, key)`` row.

    Where the keys hold the sketches' low bytes (:func:`part_keys` of ``meth`` and
    ``opts``), the pairs are screened by the sketch prefilter on them
    (:func:`neardup.job.decide.sketch_prefilter`, ``low=True``): the pairs the local job
    keeps, which count the same bytes, and the documents of the others are never fetched
    (at a million documents of the planted corpus, 40 x 3 bands at 0.5: 584,073
    candidates, 58,299 kept, 2026-12-05).

    ``offsets``: int64 (P + 1,), the partitions' document offsets; None: made here from
    the keys' document counts (the same: the keys are the accepted documents').

    Returns:
        One table ``{a, b}`` a partition: its sorted unique pairs (``a`` in it, ``a <
        b``) that passed the screen; and int64 (P,): each partition's candidates that did
        not (all 0 without a screen).
    """
    if offsets is None:
        offsets = np.zeros(len(keyed) + 1, np.int64)
        np.cumsum([t["content"].shape[0] for t in keyed], out=offsets[1:])
    n = int(offsets[-1])
    n_parts = offsets.shape[0] - 1
    if not keyed:
        return [], np.zeros(0, np.int64)
    live = np.concatenate([t["live"] for t in keyed])
    same = identical_pairs(np.concatenate([t["content"] for t in keyed]), live)
    shared = _slot_pairs(keyed, n, max_group)  # sorted: a run timsort merges `same` into
    pairs = unique_pairs(np.concatenate([shared, same]), n, runs=True)
    dropped = np.zeros(n_parts, np.int64)
    if "low" in keyed[0] and pairs.size:
        del shared
        low = np.concatenate([t["low"] for t in keyed])
        sigs = Signatures(None, low, n)  # type: ignore[arg-type]
        sizes = np.concatenate([t["sizes"] for t in keyed])
        kept = sketch_prefilter(plan_for(meth, opts), sigs, pairs, sizes, low=True)
        first = range_dest(pairs[:, 0], offsets)
        dropped = np.bincount(first, minlength=n_parts) - np.bincount(
            range_dest(kept[:, 0], offsets), minlength=n_parts
        )
        pairs = kept
    table = {"a": pairs[:, 0], "b": pairs[:, 1]}
    return split(table, range_dest(table["a"], offsets), n_parts), dropped


def _slot_pairs(keyed: Sequence[Table], n: int, max_group: int | None) -> np.ndarray:
    """int64 (p, 2): the pairs that share a key in some slot, sorted and unique, from the
    partitions' :func:`part_keys`, by the local job's code
    (:func:`neardup.methods.lsh.band_pairs`: runs of slots on threads, each run's pairs
    made unique on its thread) where each document's keys are valid in every slot or in
    none (MinHash-LSH's bands); else one slot at a time, on threads."""
    from neardup.methods.lsh import band_pairs, repeated_groups, thread_map

    # a partition without documents (a block of skip rows) may have keys of no slots
    held = [t for t in keyed if t["keys"].shape[1]] or list(keyed[:1])
    slots = held[0]["keys"].shape[0]

    def columns(lo: int, hi: int) -> np.ndarray:
        out = np.empty((hi - lo, n), dtype=U64)  # slots lo..hi of every partition
        for j in range(lo, hi):
            np.concatenate([t["keys"][j] for t in held], out=out[j - lo])
        return out

    if all(t["valid"].shape[0] == 1 for t in held):  # a document's keys: all valid or none
        empty = np.flatnonzero(~np.concatenate([t["valid"][0] for t in held]))
        return band_pairs(columns, n, slots, empty, max_group)
    docs = np.arange(n, dtype=np.int64)

    def slot(j: int) -> np.ndarray:
        valid = np.concatenate([t["valid"][min(j, t["valid"].shape[0] - 1)] for t in held])
        members, starts, sizes = repeated_groups(columns(j, j + 1)[0][valid], docs[valid])
        return pair_codes(pairs_in_groups(members, starts, sizes, max_group=max_group), n)

    found = thread_map(slot, range(slots))
    return pairs_of_codes(sorted_unique(np.concatenate([np.zeros(0, np.int64), *found])), n)


def _route(slot: np.ndarray, key: np.ndarray) -> np.ndarray:
    """uint64 routing hash of (slot, key) rows: one key a slot, salted by the slot."""
    with np.errstate(over="ignore"):
        return key.astype(U64) ^ fmix64(slot.astype(U64) + U64(1))


def _buckets(slot: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (slot, key) buckets of two or more rows: ``(rows, starts, sizes)`` in the layout
    of :func:`neardup._array.pairs_in_groups`, each bucket's rows in input order.

    One sort of the rows' routing hashes (:func:`neardup._array.equal_groups`); a run of
    equal hashes is one bucket unless its slots differ (two (slot, key) pairs with one hash;
    then the rows are sorted by (slot, key, row), the exact order)."""
    m = slot.shape[0]
    rows, starts, sizes = equal_groups(_route(slot, key), np.arange(m, dtype=np.int64))
    at = slot[rows]
    same = at == np.repeat(at[starts], sizes)
    if same.all():
        return rows, starts, sizes
    order = np.lexsort((np.arange(m), key, slot))  # pragma: no cover - a 64-bit collision
    change = np.ones(m, dtype=bool)
    change[1:] = (slot[order][1:] != slot[order][:-1]) | (key[order][1:] != key[order][:-1])
    b_starts = np.flatnonzero(change).astype(np.int64)
    b_sizes = np.diff(np.append(b_starts, m))
    multi = b_sizes >= 2
    return order, b_starts[multi], b_sizes[multi]


def passthrough(x: list[Table], n_out: int) -> list[Table]:
    """Splitter for inputs that are already split."""
    return x


def unique_candidates(j: int, n_docs: int, *pieces: Table) -> Table:
    """Sorted unique candidate pairs ``{a, b}`` of one partition (``a`` in it, ``a < b``)."""
    t = concat(pieces)
    if not t or t["a"].size == 0:
        return {"a": np.zeros(0, np.int64), "b": np.zeros(0, np.int64)}
    pairs = unique_pairs(np.stack([t["a"], t["b"]], axis=1), n_docs)
    return {"a": pairs[:, 0], "b": pairs[:, 1]}


# -- verification -----------------------------------------------------------------------------
def fetch(part: Partition, cand: Table, offset: int, signatures: bool = True) -> dict[str, Any]:
    """The documents of this partition that ``cand`` (another partition's pairs) needs.

    Args:
        signatures: copy their signatures too (:func:`uses_signatures`; of a partition
            of lean rows, :func:`_lean`, their low bytes, uint64 (k, words)); else ``sig``
            is None.

    Returns:
        ``{gidx, sets, sig, ids, keys}`` of the needed documents (``keys``: their content
        keys), ascending global index.
    """
    n = part.ids.shape[0]
    b = sorted_unique(cand["b"])
    b = b[(b >= offset) & (b < offset + n)]
    local = b - offset
    assert part.sig is not None  # signed by finalize or sign_fitted
    sig = None
    if isinstance(part.sig, BandKeys):  # the low bytes, all the prefilter reads
        sig = part.sig.low[local] if signatures else None
    elif signatures:
        sig = part.sig.take(local) if isinstance(part.sig, ShingleSets) else part.sig[local]
    return {
        "gidx": b,
        "sets": part.sets.take(local),
        "sig": sig,
        "ids": part.ids[local],
        "keys": part.keys[local],
    }


@dataclass(frozen=True)
class Found:
    """Decided candidate pairs over some documents (:func:`decide_pairs`).

    Attributes:
        decided: the decision (:class:`neardup.job.decide.Decided`; its ``pairs`` index ``ids``);
        gidx: int64 (d,): global numbers of the documents; ids: object (d,): their ids;
        checked: int64 (c, 2): the candidate pairs decided (global numbers; for prefix keys
            those whose key matched); compared: int64 (q,): the earlier document (global
            number) of each of them compared exactly (after the sketch prefilter,
            :func:`neardup.job.decide.sketch_prefilter`).
    """

    decided: Any
    gidx: np.ndarray
    ids: np.ndarray
    checked: np.ndarray
    compared: np.ndarray

    def rows(self, at: np.ndarray) -> dict[str, np.ndarray]:
        """``{a, b, res, cab, cba, score, code}`` of the decided pairs ``at`` (global
        numbers; ``code``: the rule that decided, index into
        :data:`neardup.job.decide.DECIDED`)."""
        d = self.decided
        kept = self.gidx[d.pairs[at]]
        return {
            "a": kept[:, 0],
            "b": kept[:, 1],
            "res": d.resemblance[at],
            "cab": d.containment_ab[at],
            "cba": d.containment_ba[at],
            "score": d.score[at],
            "code": d.codes[at],
        }

    def write(self, out_dir: str, p: int, at: np.ndarray, name: str) -> None:
        """Write the decided pairs ``at`` as ``pairs.jsonl`` part ``p``."""
        d = self.decided
        lines = pair_lines(
            self.ids,
            d.pairs[at, 0],
            d.pairs[at, 1],
            d.values()[at],
            name,
            decisions=d.codes[at],
            rules=d.labels,
        )
        write_table(out_dir, "pairs.jsonl", lines, part=p)


def uses_signatures(meth: Any, opts: Any) -> bool:
    """Whether :func:`decide_pairs` reads the documents' signatures: the method's own rule
    decides (``decision="own"``), its grouping keys are prefixes of signatures whose
    true matches are kept (``exact_key``), or its sketches prefilter the candidates
    (:func:`neardup.job.decide.sketch_prefilter`); else the verified rule reads the shingle
    sets only."""
    plan = plan_for(meth, opts)
    return plan.exact_key or plan.decision == "own" or plan.prefilter_slots is not None


def decide_pairs(meth: Any, opts: Any, pairs: np.ndarray, docs: list[dict[str, Any]]) -> Found:
    """The pair decision (:func:`neardup.job.decide.decide`) of candidate pairs ``pairs``
    (int64 (c, 2), global numbers) over the documents they name (:func:`fetch` tables,
    disjoint, together holding every document of ``pairs``, with their signatures when
    :func:`uses_signatures`)."""
    docs = [f for f in docs if f["gidx"].size] or docs[:1]
    gidx = np.concatenate([f["gidx"] for f in docs])
    order = np.argsort(gidx, kind="stable")
    sets = ShingleSets.concat([f["sets"] for f in docs])
    ids = np.concatenate([f["ids"] for f in docs])
    local = order[np.searchsorted(gidx[order], pairs)] if pairs.size else pairs
    decision = decision_of(opts)
    own = None
    if uses_signatures(meth, opts):
        sigs = _signatures([f["sig"] for f in docs], len(sets))
        if plan_for(meth, opts).exact_key and pairs.size:
            # grouping keys are prefixes: keep true key matches
            content = np.concatenate([f["keys"] for f in docs])
            same = content[local[:, 0]] == content[local[:, 1]]
            real = (signature_scores(meth, sigs, "resemblance")(local) > 0) | same
            pairs, local = pairs[real], local[real]
        if decision.mode == "own":
            own = signature_scores(meth, sigs, opts.measure)
        plan = plan_for(meth, opts)  # as the local job; fetched low bytes of lean partitions
        local = sketch_prefilter(plan, sigs, local, sets.sizes, low=_lean(meth, opts))
    decided = decide(sets, local, decision=decision, method=meth, own_scores=own)
    return Found(decided, gidx, ids, pairs, gidx[local[:, 0]] if local.size else pairs[:0, 0])


def _signatures(pieces: list[Any], n: int) -> Signatures:
    """The fetched signatures of ``n`` documents, one piece a :func:`fetch` table."""
    concat = ShingleSets.concat if isinstance(pieces[0], ShingleSets) else np.concatenate
    sig = concat(pieces)
    # The key is never read by similarity() (the signatures were made here, by meth).
    return Signatures(None, sig, n)  # type: ignore[arg-type]


def verify(
    part: Partition,
    cand: Table,
    offset: int,
    p: int,
    meth: Any,
    opts: Any,
    out_dir: str,
    *fetched: dict[str, Any],
) -> dict[str, Any]:
    """Exact resemblance of a partition's candidate pairs; writes its ``pairs.jsonl`` part.

    Returns:
        ``{rows: {a, b, res, cab, cba, score, code}, candidates: int, verified: int}``: the
        matched pairs (:meth:`Found.rows`), the candidate pairs decided and those compared
        exactly (after the sketch prefilter).
    """
    # this partition's documents that the pairs name (not the whole partition: a copy of
    # every set and signature row would cost more than the pairs' decision)
    named = {"b": np.concatenate([cand["a"], cand["b"]])}
    mine = fetch(part, named, offset, uses_signatures(meth, opts))
    pairs = np.stack([cand["a"], cand["b"]], axis=1).astype(np.int64)
    found = decide_pairs(meth, opts, pairs, [mine, *fetched])
    every = np.arange(found.decided.pairs.shape[0])
    found.write(out_dir, p, every, meth.name)
    return {
        "rows": found.rows(every),
        "candidates": int(found.checked.shape[0]),
        "verified": int(found.compared.shape[0]),
    }


def table_rows(t: Table) -> int:
    """Rows of a table (its first column's length; 0 for an empty table)."""
    return int(next(iter(t.values())).shape[0]) if t else 0


def table_sizes(tables: list[Table]) -> list[int]:
    """:func:`table_rows` of each table."""
    return [table_rows(t) for t in tables]


def named_documents(cands: list[Table]) -> Table:
    """``{b}``: the sorted distinct documents that the candidate tables name (either end),
    as :func:`fetch` takes them."""
    ends = [c[k] for c in cands for k in ("a", "b")]
    return {"b": sorted_unique(np.concatenate(ends)) if ends else np.zeros(0, np.int64)}


def verify_all(
    meth: Any, opts: Any, out_dir: str, offsets: np.ndarray, cands: list[Table], *docs: Any
) -> list[dict[str, Any]]:
    """:func:`verify` of every partition in one task: the candidate tables of the P
    partitions, then the documents they name from each partition (:func:`fetch` of
    :func:`named_documents`). Writes every ``pairs.jsonl`` part; returns each partition's
    ``{rows, candidates, verified}`` as :func:`verify` does (a pair belongs to its earlier
    document's partition, as its candidate table does)."""
    n_parts = offsets.shape[0] - 1
    stacks = [np.stack([c["a"], c["b"]], axis=1).astype(np.int64) for c in cands]
    pairs = np.concatenate(stacks) if stacks else np.zeros((0, 2), np.int64)
    found = decide_pairs(meth, opts, pairs, list(docs))
    kept = found.gidx[found.decided.pairs[:, 0]] if found.decided.pairs.size else pairs[:0, 0]
    dest = range_dest(kept, offsets)
    checked = np.bincount(range_dest(found.checked[:, 0], offsets), minlength=n_parts)
    compared = np.bincount(range_dest(found.compared, offsets), minlength=n_parts)
    out: list[dict[str, Any]] = []
    for p in range(n_parts):
        at = np.flatnonzero(dest == p)
        found.write(out_dir, p, at, meth.name)
        out.append({
            "rows": found.rows(at), "candidates": int(checked[p]), "verified": int(compared[p])
        })  # fmt: skip
    return out


def slim(part: Partition) -> Partition:
    """A partition without its shingle sets, signatures and skip rows (ids and lengths)."""
    return Partition(part.ids, part.lengths, _no_sets(), None, [], [])  # texts: empty too


def part_ids(part: Partition) -> np.ndarray:
    """The ids of a partition's documents, in input order: object (n,) of ``str``.

    An array, not a list: Dask sends a task's list result element by element (about 70 us
    an element here: 1.8 s for 25,000 ids), an array as one pickled buffer."""
    return np.array([str(i) for i in part.ids.tolist()], dtype=object)


#: The columns of a decided pair row, as :func:`stacked_rows` lays them out.
ROW_COLUMNS = ("a", "b", "res", "cab", "cba", "score")


def stacked_rows(tables: list[dict[str, np.ndarray]]) -> np.ndarray:
    """Verified partitions' pair columns (their ``rows``), in order, as one float64
    (p, 6) array of :data:`ROW_COLUMNS` (the local job's decided rows)."""
    rows = [np.column_stack([t[c] for c in ROW_COLUMNS]) for t in tables if t["a"].size]
    return np.concatenate(rows) if rows else np.zeros((0, len(ROW_COLUMNS)))


def edges_of(verified: dict[str, Any]) -> Table:
    """The edge table ``{u, v}`` of a partition's matched pairs."""
    return {"u": verified["rows"]["a"], "v": verified["rows"]["b"]}


def verified_counts(verified: dict[str, Any]) -> tuple[int, int, int]:
    """``(candidates, verified, pairs)`` of a verified partition: its candidate pairs
    decided, those compared exactly (after the sketch prefilter) and the pairs found."""
    return verified["candidates"], verified["verified"], int(verified["rows"]["a"].shape[0])
