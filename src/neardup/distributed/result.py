"""The Dask engine's :class:`~neardup.job.pipeline.DedupResult`: the pairs gathered from the
workers, the skipped documents read back from the files they wrote, the clusters and
dropped documents too unless the keep task handed them over (the same type, and the same
values, as the local job returns)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from neardup.job.cluster import Cluster
from neardup.job.pairs import PairTable
from neardup.job.pipeline import DedupResult, Dropped
from neardup.text.types import Skipped


def read_result(
    out_dir: str,
    ids: Sequence[str],
    pairs: PairTable,
    summary: dict[str, Any],
    *,
    against: int = 0,
    kept: tuple[list[Cluster], list[Dropped]] | None = None,
) -> DedupResult:
    """The result of a finished run whose files are in ``out_dir``.

    Args:
        out_dir: the run's output directory (local path or fsspec URL).
        ids: the processed documents' ids in input order (document number = position).
        pairs: the decided pairs, gathered from the workers (unrounded, as the local job's).
        summary: the run's summary.
        against: the leading ``ids`` that are A's documents (``--against``), else 0.
        kept: the clusters and dropped documents when the run holds them (its keep stage
            ran in one task), else None: read from ``clusters.jsonl`` and ``dropped.jsonl``.

    Raises:
        OSError / FileNotFoundError: an output file is missing or unreadable.
    """
    skipped = [
        Skipped(r["id"], r["source"], r["reason"], r["detail"])
        for r in _rows(out_dir, "skipped.jsonl")
    ]
    clusters, dropped = kept if kept is not None else _read_kept(out_dir, ids)
    return DedupResult(list(ids), pairs, clusters, dropped, skipped, summary, against=against)


def _read_kept(out_dir: str, ids: Sequence[str]) -> tuple[list[Cluster], list[Dropped]]:
    """The clusters (numbered by position in ``ids``) and dropped documents of the files
    ``clusters.jsonl`` and ``dropped.jsonl`` in ``out_dir``."""
    rows = list(_rows(out_dir, "clusters.jsonl"))
    members = {m for r in rows for m in r["members"]}  # numbered: these only
    number = {doc_id: i for i, doc_id in enumerate(ids) if doc_id in members}
    clusters = [
        Cluster(
            int(r["cluster"]),
            tuple(r["members"]),
            r["keep"],
            tuple(number[m] for m in r["members"]),
            number[r["keep"]],
        )
        for r in rows
    ]
    dropped = [
        Dropped(
            r["id"],
            r["kept"],
            None if r["cluster"] is None else int(r["cluster"]),
            r["reason"],
            r.get("match"),
            r.get("score"),
        )
        for r in _rows(out_dir, "dropped.jsonl")
    ]
    return clusters, dropped


def _rows(out_dir: str, name: str) -> Iterator[dict[str, Any]]:
    """The rows of a JSONL output file, decoded at once (msgspec: 5x ``json.loads`` a
    line, 25 ms of a 100,000-document run)."""
    import fsspec
    import msgspec

    fs, root = fsspec.core.url_to_fs(out_dir)
    with fs.open(f"{root.rstrip('/')}/{name}", "rb") as fh:
        data = fh.read()
    yield from msgspec.json.Decoder().decode_lines(data)  # [] for an empty file
