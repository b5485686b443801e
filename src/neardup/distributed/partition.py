"""Per-partition work of the Dask engine: ingest, duplicate ids, keys, candidates, verify.

Every function here runs inside a Dask task on one partition (or one shuffle output) and
takes and returns plain numpy tables, so it is cheap to serialise and to recompute when a
worker is lost. Global document index = partition offset + position in the partition,
the single-process job's input order.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import xxhash

from neardup._array import U64, fmix64, group_bounds, pairs_in_groups, unique_pairs
from neardup.distributed.io import Block, read_block, write_part, write_part_lines
from neardup.distributed.shuffle import Table, concat, hash_dest, range_dest, split
from neardup.methods.base import Prepared, Signatures
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling
from neardup.pairs import pair_lines
from neardup.text.types import Document, Skipped

_BATCH = 2048


# -- ingest ---------------------------------------------------------------------------------
def ingest(block: Block, meth: Any, opts: Any, read_options: dict[str, Any]) -> dict[str, Any]:
    """Read a block, canonical tokens and shingle sets of every readable document.

    Returns:
        Raw partition ``{ids, pos, ntok, sources, long, sets, tokens, skipped}``: ids (list),
        item positions int64, token counts int64, sources (list), ``long`` bool (>=
        ``min_tokens``), ``sets`` (:class:`ShingleSets` of the long documents, in order),
        ``tokens`` (token lists of the long documents, only when the method needs a fit),
        ``skipped`` list of ``(position, Skipped)`` from reading.
    """
    from neardup.text.canonical import CanonicalForm

    canonical: CanonicalForm = meth.canonical
    shingling: Shingling = meth.shingling
    keep_tokens = bool(meth.needs_fit)
    ids: list[str] = []
    sources: list[str] = []
    pos: list[int] = []
    ntok: list[int] = []
    skipped: list[tuple[int, Skipped]] = []
    parts: list[ShingleSets] = []
    tokens_kept: list[list[str]] = []
    batch: list[list[str]] = []
    for i, item in enumerate(read_block(block, read_options)):
        if isinstance(item, Skipped):
            skipped.append((i, item))
            continue
        doc: Document = item
        tokens = canonical.tokens(doc.text)
        ids.append(doc.id)
        sources.append(doc.source)
        pos.append(i)
        ntok.append(len(tokens))
        if len(tokens) >= opts.min_tokens:
            batch.append(tokens)
            if keep_tokens:
                tokens_kept.append(tokens)
            if len(batch) >= _BATCH:
                parts.append(shingling.batch(batch))
                batch = []
    if batch:
        parts.append(shingling.batch(batch))
    ntok_arr = np.array(ntok, dtype=np.int64)
    return {
        "ids": ids,
        "sources": sources,
        "pos": np.array(pos, dtype=np.int64),
        "ntok": ntok_arr,
        "long": ntok_arr >= opts.min_tokens,
        "sets": ShingleSets.concat(parts),
        "tokens": tokens_kept,
        "skipped": skipped,
    }


# -- duplicate ids ----------------------------------------------------------------------------
def split_ids(raw: dict[str, Any], part: int, n_out: int) -> list[Table]:
    """Ids of a raw partition keyed by their hash, for the duplicate-id shuffle: its
    documents' and its reading skips' (a skipped record keeps its id too, as in the local
    job's :class:`neardup.text.units.UniqueIds`)."""
    skip_pos = np.array([p for p, _ in raw["skipped"]], dtype=np.int64)
    ids = np.array([*raw["ids"], *(s.id for _, s in raw["skipped"])], dtype=object)
    pos = np.concatenate([raw["pos"], skip_pos])
    h = np.fromiter(
        (xxhash.xxh64_intdigest(s.encode("utf-8", "surrogatepass")) for s in ids),
        dtype=U64,
        count=ids.size,
    )
    table = {"h": h, "part": np.full(ids.size, part, np.int64), "pos": pos, "id": ids}
    return split(table, hash_dest(h, n_out), n_out)


def find_losers(j: int, n_parts: int, *pieces: Table) -> list[Table]:
    """Later occurrences of repeated ids (the earliest in input order wins), by partition."""
    t = concat(pieces)
    empty = {"part": np.zeros(0, np.int64), "pos": np.zeros(0, np.int64)}
    if not t or t["h"].size == 0:
        return [dict(empty) for _ in range(n_parts)]
    order = np.lexsort((t["pos"], t["part"], t["h"]))
    t = {k: v[order] for k, v in t.items()}
    starts, sizes = group_bounds(t["h"])
    lose_part: list[int] = []
    lose_pos: list[int] = []
    for s, z in zip(starts[sizes > 1].tolist(), sizes[sizes > 1].tolist(), strict=True):
        seen: set[str] = set()
        for r in range(s, s + z):  # rows in input order within a hash group
            doc_id = t["id"][r]
            if doc_id in seen:
                lose_part.append(int(t["part"][r]))
                lose_pos.append(int(t["pos"][r]))
            seen.add(doc_id)
    losers = {"part": np.array(lose_part, np.int64), "pos": np.array(lose_pos, np.int64)}
    return split(losers, losers["part"], n_parts)


def finalize(raw: dict[str, Any], meth: Any, opts: Any, *losers: Table) -> dict[str, Any]:
    """Rename duplicate-id losers (their source becomes their id, as in the local job) and
    skip short documents; signatures (unless a fit is needed).

    Returns:
        Partition ``{ids, lengths, sets, sig, tokens, skipped}``: ids object array (n,),
        canonical lengths int64 (n,), shingle sets, signature data (n, ...) or None,
        token lists (fit methods), skipped rows sorted by position.
    """
    lost = set(concat(losers).get("pos", np.zeros(0, np.int64)).tolist())
    is_lost = np.array([p in lost for p in raw["pos"].tolist()], dtype=bool)
    long = raw["long"]
    doc_ids = [
        raw["sources"][i] if lost else raw["ids"][i] for i, lost in enumerate(is_lost.tolist())
    ]
    keep = long
    keep_in_long = keep[long]  # which of the long documents' sets stay
    skipped = list(raw["skipped"])
    for i in np.flatnonzero(~keep).tolist():
        doc_id, source, p = doc_ids[i], raw["sources"][i], int(raw["pos"][i])
        detail = f"{raw['ntok'][i]} canonical tokens < min_tokens={opts.min_tokens}"
        skipped.append((p, Skipped(doc_id, source, "too-short", detail)))
    skipped.sort(key=lambda x: x[0])
    sets = raw["sets"].take(np.flatnonzero(keep_in_long))
    tokens = [t for t, k in zip(raw["tokens"], keep_in_long.tolist(), strict=False) if k]
    part = {
        "ids": np.array([doc_ids[i] for i in np.flatnonzero(keep).tolist()], dtype=object),
        "renamed": int(is_lost.sum()),
        "read": len(raw["ids"]) + len(raw["skipped"]),
        "lengths": raw["ntok"][keep],
        "sets": sets,
        "sig": None,
        "tokens": tokens,
        "skipped": [s for _, s in skipped],
    }
    if not meth.needs_fit:
        part["sig"] = meth.from_sets(sets).data
    return part


def part_count(part: dict[str, Any]) -> tuple[int, dict[str, int], int, int]:
    """Documents, skips by reason, records read and documents renamed (a repeated id) of a
    partition (small, sent to the client)."""
    reasons = dict(Counter(s.reason for s in part["skipped"]))
    return int(part["ids"].shape[0]), reasons, int(part["read"]), int(part["renamed"])


def part_stats(part: dict[str, Any]) -> Any:
    """Collection statistics of a partition's documents (for methods that need a fit)."""
    from neardup.methods.stats import CorpusStatistics

    return CorpusStatistics.from_token_lists(part["tokens"])


def merge_stats(*stats: Any) -> Any:
    """Sum of collection statistics (document counts, df and cf)."""
    from neardup.methods.stats import CorpusStatistics

    out = CorpusStatistics()
    for s in stats:
        out._n += s._n
        out._df.update(s._df)
        out._cf.update(s._cf)
    return out


def sign_fitted(part: dict[str, Any], meth: Any) -> dict[str, Any]:
    """Signatures of a partition with a fitted method; token lists are dropped."""
    prepared = [
        Prepared(i, "", t) for i, t in zip(part["ids"].tolist(), part["tokens"], strict=True)
    ]
    return {**part, "sig": meth.sign(prepared).data, "tokens": []}


def write_skipped(part: dict[str, Any], out_dir: str, p: int) -> int:
    """Write partition ``p``'s ``skipped.jsonl`` part; returns the row count."""
    return write_part(out_dir, "skipped.jsonl", p, (s.as_dict() for s in part["skipped"]))


# -- candidates -------------------------------------------------------------------------------
#: Slot of the content keys: documents with equal full shingle sets are always candidates
#: (and paired whatever the rule, as in the local job).
CONTENT_SLOT = -1


def split_keys(part: dict[str, Any], offset: int, meth: Any, n_out: int) -> list[Table]:
    """``(slot, key, gidx)`` rows of a partition's grouping keys, by hash of (slot, key).

    Besides the method's slots, slot :data:`CONTENT_SLOT` holds each non-empty document's
    content key (:meth:`ShingleSets.content_keys`), so identical documents meet whatever
    the method.
    """
    grouped = meth.group_keys(part["sig"])
    keys, valid = grouped.keys, grouped.valid
    n, slots = keys.shape
    slot = np.broadcast_to(np.arange(slots, dtype=np.int64), (n, slots))[valid]
    gidx = np.broadcast_to(np.arange(n, dtype=np.int64)[:, None] + offset, (n, slots))[valid]
    key = keys[valid]
    sets: ShingleSets = part["sets"]
    live = np.flatnonzero(sets.sizes > 0)
    slot = np.concatenate([slot, np.full(live.shape[0], CONTENT_SLOT, dtype=np.int64)])
    gidx = np.concatenate([gidx, live.astype(np.int64) + offset])
    key = np.concatenate([key.astype(U64), sets.content_keys()[live]])
    with np.errstate(over="ignore"):
        route = key ^ fmix64(slot.astype(U64) + U64(1))
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
        order = np.lexsort((t["gidx"], t["key"], t["slot"]))
        slot, key, gidx = t["slot"][order], t["key"][order], t["gidx"][order]
        change = np.ones(slot.size, dtype=bool)
        change[1:] = (slot[1:] != slot[:-1]) | (key[1:] != key[:-1])
        starts = np.flatnonzero(change).astype(np.int64)
        sizes = np.diff(np.append(starts, slot.size))
        content = slot[starts] == CONTENT_SLOT
        found = [
            pairs_in_groups(gidx, starts[~content], sizes[~content], max_group=max_group),
            pairs_in_groups(gidx, starts[content], sizes[content], max_group=2),
        ]
        pairs = unique_pairs(np.concatenate(found), int(offsets[-1]))
    table = {"a": pairs[:, 0], "b": pairs[:, 1]}
    return split(table, range_dest(table["a"], offsets), n_parts)


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
def fetch(part: dict[str, Any], cand: Table, offset: int) -> dict[str, Any]:
    """The documents of this partition that ``cand`` (another partition's pairs) needs.

    Returns:
        ``{gidx, sets, sig, ids}`` of the needed documents, ascending global index.
    """
    n = part["ids"].shape[0]
    b = np.unique(cand["b"])
    b = b[(b >= offset) & (b < offset + n)]
    local = b - offset
    return {
        "gidx": b,
        "sets": part["sets"].take(local),
        "sig": part["sig"][local],
        "ids": part["ids"][local],
    }


def verify(
    part: dict[str, Any],
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
        ``{rows: {a, b, res, cab, cba, score}, candidates: int}`` for the matched pairs.
    """
    n = part["ids"].shape[0]
    others = [f for f in fetched if f["gidx"].size]
    gidx = np.concatenate(
        [np.arange(offset, offset + n, dtype=np.int64)] + [f["gidx"] for f in others]
    )
    order = np.argsort(gidx, kind="stable")
    sets = ShingleSets.concat([part["sets"], *(f["sets"] for f in others)])
    sig = np.concatenate([part["sig"], *(f["sig"] for f in others)])
    ids = np.concatenate([part["ids"], *(f["ids"] for f in others)])
    pairs = np.stack([cand["a"], cand["b"]], axis=1).astype(np.int64)
    local = order[np.searchsorted(gidx[order], pairs)] if pairs.size else pairs
    # The key is never read by similarity() (the signatures were made here, by meth).
    score = _scores(meth, Signatures(None, sig, len(sets)), local)  # type: ignore[arg-type]
    content = sets.content_keys()
    same = content[local[:, 0]] == content[local[:, 1]] if local.size else np.zeros(0, bool)
    if meth.exact_key and pairs.size:  # grouping keys are prefixes: keep true key matches
        real = (score > 0) | same
        pairs, local, score, same = pairs[real], local[real], score[real], same[real]
    from neardup.methods.measures import intersection_sizes

    shared = intersection_sizes(sets, local).astype(float)
    size_a = sets.sizes[local[:, 0]].astype(float) if local.size else np.zeros(0)
    size_b = sets.sizes[local[:, 1]].astype(float) if local.size else np.zeros(0)
    union = size_a + size_b - shared
    res = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
    cab = np.divide(shared, size_a, out=np.zeros_like(shared), where=size_a > 0)
    cba = np.divide(shared, size_b, out=np.zeros_like(shared), where=size_b > 0)
    from neardup.methods.decision import own_accepts
    from neardup.pairs import DECIDED

    accepted = (
        own_accepts(meth, score, opts.threshold) if not opts.verify else (res >= opts.threshold)
    )
    identical = same & (res >= 1.0)  # identical documents are paired whatever the rule
    ok = accepted | identical
    rows = {
        "a": pairs[ok, 0],
        "b": pairs[ok, 1],
        "res": res[ok],
        "cab": cab[ok],
        "cba": cba[ok],
        "score": score[ok],
    }
    ok_local = local[ok] if local.size else np.zeros((0, 2), np.int64)
    values = np.stack([rows["res"], rows["cab"], rows["cba"], rows["score"]], axis=1)
    by_rule = DECIDED.index("verified" if opts.verify else "own")
    rule = np.where(accepted[ok], by_rule, DECIDED.index("identical"))
    lines = pair_lines(
        ids, ok_local[:, 0], ok_local[:, 1], values, meth.name, decisions=rule.astype(np.uint8)
    )
    write_part_lines(out_dir, "pairs.jsonl", p, lines)
    return {"rows": rows, "candidates": int(pairs.shape[0])}


def _scores(meth: Any, sigs: Signatures, pairs: np.ndarray, chunk: int = 50_000) -> np.ndarray:
    """The method's score of each pair, ``chunk`` pairs at a time (bounds the temporaries)."""
    if pairs.shape[0] == 0:
        return np.zeros(0)
    return np.concatenate(
        [meth.similarity(sigs, pairs[i : i + chunk]) for i in range(0, pairs.shape[0], chunk)]
    )


def slim(part: dict[str, Any]) -> dict[str, Any]:
    """A partition without its shingle sets and signatures (ids and lengths only)."""
    return {"ids": part["ids"], "lengths": part["lengths"]}


def edges_of(verified: dict[str, Any]) -> Table:
    """The edge table ``{u, v}`` of a partition's matched pairs."""
    return {"u": verified["rows"]["a"], "v": verified["rows"]["b"]}


def verified_counts(verified: dict[str, Any]) -> tuple[int, int]:
    """``(candidates, pairs)`` of a verified partition."""
    return verified["candidates"], int(verified["rows"]["a"].shape[0])
