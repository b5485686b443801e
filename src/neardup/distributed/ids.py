"""Repeated ids on the Dask engine: the local job's renamer over the clashes only.

The local job renames a repeated id as it reads, in input order, with
:class:`neardup.text.units.UniqueIds` (the first record with an id keeps it; a later one is
given its place ``FILE:LINE``, ``#2``, ``#3``... appended if that is taken). Here the same
object decides, in one task, over the only rows its decisions depend on:

1. :func:`split_ids`: every partition's ids (documents and reading skips) by id hash;
2. :func:`bucket_ids` + :func:`clashes`: each bucket's rows of ids met more than once;
3. :func:`first_names`: :class:`UniqueIds` over those rows in input order gives the names of
   the renamed rows, sent by hash to the buckets;
4. :func:`taken`: each bucket's rows whose own id is one of those names (a name that an
   earlier record holds is not free; a later record holding it is renamed in turn);
5. :func:`rename`: :class:`UniqueIds` over the clashes and those rows in input order: the
   new ids by partition, the count and the first clashes of the job's warning
   (:meth:`UniqueIds.warning`), the local job's exactly.

Before them, every partition's id hashes are collected on one worker while the blocks are
read (:func:`id_hashes`, :func:`repeated`): when no hash repeats, no id does, and steps 1-5
do not run (nothing is renamed). Not covered
(as the local job would): the place of a record renamed *because* its own id is another
record's place, when that place is in turn some record's id.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import xxhash

from neardup._array import U64, group_bounds, sorted_unique
from neardup.distributed.tables import Table, concat, hash_dest, split
from neardup.job.prepare import PreparedDocuments
from neardup.text.units import UniqueIds


def _hashes(ids: np.ndarray) -> np.ndarray:
    return np.fromiter(
        (xxhash.xxh64_intdigest(s.encode("utf-8", "surrogatepass")) for s in ids),
        dtype=U64,
        count=ids.size,
    )


def _empty() -> Table:
    return {
        "h": np.zeros(0, U64),
        "part": np.zeros(0, np.int64),
        "pos": np.zeros(0, np.int64),
        "skip": np.zeros(0, bool),
        "id": np.zeros(0, object),
        "source": np.zeros(0, object),
    }


def _ids(raw: PreparedDocuments) -> np.ndarray:
    """object (d + s,): the ids of a raw partition's documents, then of its reading skips
    (a skipped record's id is taken too, as in the local job)."""
    return np.array([*raw.ids, *(s.id for _, s in raw.skipped)], dtype=object)


def id_hashes(raw: PreparedDocuments) -> np.ndarray:
    """uint64 (d + s,): the hashes of a raw partition's ids (:func:`_ids`), for
    :func:`repeated`."""
    return _hashes(_ids(raw))


def repeated(hashes: list[np.ndarray]) -> bool:
    """Whether any hash of every partition's :func:`id_hashes` is met twice: if not, no id
    repeats and nothing is renamed (the common case, decided without the shuffle of the
    ids: at a million documents it moved 1M ids and sources between the workers and held
    the job's last stages back by 0.9-1.6 s); if so (a repeated id, or two ids of one
    hash), the shuffle finds the clashes."""
    h = np.concatenate(hashes) if hashes else np.zeros(0, U64)
    return bool(sorted_unique(h).size < h.size)


def nothing_renamed() -> tuple[int, list[tuple[str, str]]]:
    """The renamer's ``(renamed, first clashes)`` (as :func:`rename` gives them) when no id
    repeats."""
    return 0, []


def split_ids(raw: PreparedDocuments, part: int, n_out: int) -> list[Table]:
    """Rows ``(h, part, pos, skip, id, source)`` of a raw partition's documents and reading
    skips (:func:`_ids`), by id hash into ``n_out`` pieces."""
    skip_pos = np.array([p for p, _ in raw.skipped], dtype=np.int64)
    ids = _ids(raw)
    sources = np.array([*raw.sources, *(s.source for _, s in raw.skipped)], dtype=object)
    skip = np.zeros(ids.size, bool)
    skip[len(raw.ids) :] = True
    h = _hashes(ids)
    table = {
        "h": h,
        "part": np.full(ids.size, part, np.int64),
        "pos": np.concatenate([raw.positions, skip_pos]),
        "skip": skip,
        "id": ids,
        "source": sources,
    }
    return split(table, hash_dest(h, n_out), n_out)


def bucket_ids(j: int, *pieces: Table) -> Table:
    """Bucket ``j``'s rows (its pieces from every partition), by hash then input order."""
    t = concat(pieces) or _empty()
    order = np.lexsort((t["pos"], t["part"], t["h"]))
    return {k: v[order] for k, v in t.items()}


def clashes(bucket: Table) -> Table:
    """The rows of a :func:`bucket_ids` bucket whose id is met more than once (all of them,
    the first included)."""
    starts, sizes = group_bounds(bucket["h"])
    keep = np.zeros(bucket["h"].size, bool)
    for s, z in zip(starts[sizes > 1].tolist(), sizes[sizes > 1].tolist(), strict=True):
        ids = bucket["id"][s : s + z].tolist()
        counts = Counter(ids)
        keep[s : s + z] = [counts[i] > 1 for i in ids]
    return {k: v[keep] for k, v in bucket.items()}


def _claimed(tables: tuple[Table, ...]) -> tuple[UniqueIds, Table]:
    """:class:`UniqueIds` run over the rows of ``tables`` in input order (a row met twice
    counted once); it and the renamed rows ``(part, pos, id)`` (the new ids)."""
    t = concat(tables) or _empty()
    order = np.lexsort((t["pos"], t["part"]))
    t = {k: v[order] for k, v in t.items()}
    if t["part"].size:  # a row found both as a clash and as a taken name
        first = np.ones(t["part"].size, bool)
        first[1:] = (t["part"][1:] != t["part"][:-1]) | (t["pos"][1:] != t["pos"][:-1])
        t = {k: v[first] for k, v in t.items()}
    unique = UniqueIds()
    at: list[int] = []
    names: list[str] = []
    rows = zip(t["skip"].tolist(), t["id"].tolist(), t["source"].tolist(), strict=True)
    for r, (skip, doc_id, source) in enumerate(rows):
        if skip:
            unique.note(doc_id)
            continue
        before = unique.renamed
        new = unique.claim(doc_id, source)
        if unique.renamed != before:
            at.append(r)
            names.append(new)
    index = np.array(at, np.int64)
    renamed = {"part": t["part"][index], "pos": t["pos"][index], "id": np.array(names, object)}
    return unique, renamed


def first_names(n_out: int, *clash: Table) -> list[Table]:
    """The names the clashes alone give their renamed rows (:func:`_claimed`), by hash into
    ``n_out`` pieces for :func:`taken`."""
    names = _claimed(clash)[1]["id"]
    return split({"id": names}, hash_dest(_hashes(names), n_out), n_out)


def taken(bucket: Table, names: Table) -> Table:
    """The rows of a bucket whose own id is one of ``names`` (its piece of
    :func:`first_names`)."""
    if not names["id"].size:
        return {k: v[:0] for k, v in bucket.items()}
    wanted = set(names["id"].tolist())
    keep = np.fromiter((i in wanted for i in bucket["id"].tolist()), bool, bucket["id"].size)
    return {k: v[keep] for k, v in bucket.items()}


def rename(n_parts: int, *tables: Table) -> tuple[list[Table], int, list[tuple[str, str]]]:
    """The new ids (:class:`UniqueIds` over the clashes and the :func:`taken` rows, in input
    order) as ``{pos, id}`` tables by partition, the number renamed and the first few
    ``(id, source)`` clashes (:attr:`UniqueIds.first`, for :func:`renamed_warning`)."""
    unique, renamed = _claimed(tables)
    by_part = split(renamed, renamed["part"], n_parts)
    return [{"pos": t["pos"], "id": t["id"]} for t in by_part], unique.renamed, unique.first


def new_ids(raw: PreparedDocuments, renamed: Table) -> tuple[PreparedDocuments, int]:
    """``raw`` with its renamed documents' new ids (``renamed``: the partition's
    :func:`rename` table) and how many there are."""
    import dataclasses

    if not renamed["pos"].size:
        return raw, 0
    new = dict(zip(renamed["pos"].tolist(), renamed["id"].tolist(), strict=True))
    ids = [new.get(p, i) for p, i in zip(raw.positions.tolist(), raw.ids, strict=True)]
    return dataclasses.replace(raw, ids=ids), len(new)
