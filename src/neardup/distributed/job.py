"""The corpus dedup job on a Dask cluster (:mod:`.executor`): same outputs as the local job.

Plan (every arrow between partitions is a task-based shuffle, :mod:`.shuffle`):

1. ``ingest``: input blocks (planned by the local job's planner, :func:`.io.plan_local`:
   JSONL byte ranges, Parquet row groups, other record files, document files and skip
   rows) -> documents (the local reader) -> canonical tokens -> shingle sets, per partition;
2. ``ids``: a shuffle by id hash finds repeated ids, renamed in one task by the local
   job's renamer (:mod:`.ids`: the same ids and warning); short documents are
   skipped; each partition counts its documents and the client turns the counts into
   offsets, so a document's global index (offset + position) is its index in the local job;
3. ``sign``: the method's signatures per partition (methods that need a fit: per-partition
   statistics are merged on the cluster, fitted once, then every partition signs);
4. ``candidates``: grouping keys (LSH band keys, or the exact keys) shuffled by key; each
   bucket gives its pairs (an oversized bucket a star from its earliest document) which
   are shuffled to the partition of their earlier document and deduplicated (up to
   :data:`WHOLE_KEY_DOCS` documents, one task over every partition's keys, which also
   screens them by the sketch prefilter on the sketches' low bytes);
5. ``verify``: each partition fetches from the later partitions only the documents its
   pairs need (the fetch runs where those documents live), computes exact resemblance and
   containment on the shingle sets and writes its ``pairs.jsonl`` part;
6. ``cluster``: connected components by large-star/small-star over the edge table
   (:mod:`.components`), then clusters, keep decisions and dropped reasons (:mod:`.clusters`);
7. ``write``: part files merged in partition order, ``summary.json`` last.

The client only ever holds per-partition counts, offsets and fingerprints (and, for fit
methods, the merged vocabulary statistics). Supported: the methods of :mod:`.grouping`,
``measure="resemblance"``; see ``docs/distributed.md`` for the differences from the local job.
With ``against`` (``dedup B --against A``) A's partitions come first and steps 4-6 are one
task running the local job's code (:mod:`.whole`: ``against_pairs``, ``keep_against``).
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import numpy as np

from neardup.distributed import clusters as cl
from neardup.distributed import forkserver, ids, io
from neardup.distributed import partition as pt
from neardup.distributed.components import component_labels
from neardup.distributed.result import read_result
from neardup.distributed.shuffle import shuffle
from neardup.distributed.whole import decide_whole, keep_whole
from neardup.errors import check_int
from neardup.job.decide import decision_summary
from neardup.job.pairs import PairTable
from neardup.job.pipeline import (
    DedupOptions,
    DedupResult,
    Job,
    decision_of,
    job_summary,
    lexicon_warnings,
)
from neardup.job.prepare import kernel_of
from neardup.methods.base import Method
from neardup.methods.plan import plan_for
from neardup.output import merge_tables, prepare_out_dir, write_summary, write_table
from neardup.text.units import ReadOptions, renamed_warning

DEFAULT_BLOCK_BYTES = 64 << 20

#: Decided pairs up to which clusters and keep decisions are made in one task (the local
#: job's stages; its worker holds the pairs: 10M pairs are about 0.6 GB of rows), beyond
#: which they are made by label propagation over the partitions.
WHOLE_KEEP_PAIRS = 10_000_000

#: Candidate pairs up to which they are decided in one task, on the documents they name
#: (at most twice as many documents; each partition's verify task, with fetches from every
#: later partition, is P x P / 2 tasks), beyond which partition by partition.
WHOLE_VERIFY_PAIRS = 1_000_000

#: Documents up to which the candidates of a method with grouping keys are found in one task
#: (:func:`~neardup.distributed.partition.group_candidates`: it holds the keys of every
#: partition, 9 bytes a document and slot, 370 with minhash-lsh's 40 bands at 0.5, and sorts
#: one slot at a time, as the local job does), beyond which by a shuffle of ``(slot, key)``
#: rows.
WHOLE_KEY_DOCS = 2_000_000

#: Input bytes up to which the job's own ``LocalCluster`` has its blocks' lines counted on
#: the client while it starts (:func:`_lines_counted_here`): 40 ms at 226 MB here, in the
#: 0.1 s the start takes; a million documents (2.3 GB, 0.4 s) are counted by the workers.
COUNT_HERE_BYTES = 512 << 20


def run_on_dask(
    job: Job,
    a_inputs: list[str],
    inputs: list[str],
    *,
    out_dir: str | os.PathLike[str] | None,
    client: Any,
    scheduler: str | None,
    workers: int | None,
    block_bytes: int,
    reduce_partitions: int | None,
) -> DedupResult:
    """Run ``job`` (its method and options resolved) on the input paths ``inputs`` and,
    with ``against``, A's ``a_inputs``: the Dask executor's run
    (:class:`neardup.distributed.executor.DaskExecutor`, whose attributes the other
    arguments are). The result is read back from ``out_dir``'s files."""
    meth, opts = job.method, job.options
    # derived parameters (an LSH's bands and rows: 25 ms) made here, before the cluster
    # starts, and pickled with the method into every task: not made again in each worker
    meth.params()
    blocks, k = plan_blocks(a_inputs, inputs, block_bytes, job.read_options)
    with _out(out_dir) as out, _client(client, scheduler, workers, blocks) as (cli, counted):
        run = _Job(cli, meth, opts, job.read_options, out, reduce_partitions)
        if len(job.groups) > 1:
            run.against = (a_inputs, job.within)
        summary, ids, pairs = run.run(blocks, k, counted)
        return read_result(out, ids, pairs, summary, against=run.first)


def plan_blocks(
    a_inputs: Sequence[str | os.PathLike[str]],
    inputs: Sequence[str | os.PathLike[str]],
    block_bytes: int,
    read_options: ReadOptions | dict[str, Any] | None = None,
) -> tuple[list[io.Block], int]:
    """The job's blocks (partitions), A's (``--against``) first, and how many are A's:
    local inputs planned by the local job's planner (:func:`~.io.plan_local`: every kind
    it reads), inputs given by URL as JSONL(.gz) and Parquet files.

    Raises:
        InputError: an input does not exist, or is given by URL and is not JSONL/Parquet.
    """
    if not any(io.is_url(p) for p in [*a_inputs, *inputs]):
        groups = [a_inputs, inputs] if a_inputs else [inputs]
        planned = io.plan_local(groups, block_bytes, read_options)
        a_blocks = planned[0] if a_inputs else []
        return [*a_blocks, *planned[-1]], len(a_blocks)
    a_files = io.list_files(a_inputs) if a_inputs else []
    files = [*a_files, *io.list_files(inputs)]
    names = io.file_names([*a_inputs, *inputs], files)  # as group_names: A's, then B's
    a_blocks = io.make_blocks(a_files, block_bytes, names[: len(a_files)])
    rest = io.make_blocks(files[len(a_files) :], block_bytes, names[len(a_files) :])
    return [*a_blocks, *rest], len(a_blocks)


@contextmanager
def _lines_counted_here(blocks: Sequence[io.Block]) -> Iterator[Future[list[int]] | None]:
    """The blocks' line counts (:func:`~.io.count_lines`), a future counted in a thread of
    this process while the ``with`` block runs (the start of the job's own
    ``LocalCluster``), when every block is a range of a local JSONL file and they hold at
    most :data:`COUNT_HERE_BYTES`; else None (the workers count them, after the start).
    The client only waits while the cluster starts (for the workers' fork server and
    their registration), and the count (a memory map, numpy without the GIL) fits in that
    wait: the workers' count cost the job 40-60 ms more at 100,000 documents."""
    local = all(b.kind == "jsonl" and io.is_local(b.url) for b in blocks)
    if not local or sum(b.end - b.start for b in blocks) > COUNT_HERE_BYTES:
        yield None
        return
    with ThreadPoolExecutor(1, thread_name_prefix="neardup-count") as pool:
        yield pool.submit(lambda: [io.count_lines(b) for b in blocks])


@contextmanager
def _out(out_dir: str | os.PathLike[str] | None) -> Any:
    if out_dir is not None:
        yield os.fspath(out_dir)
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="neardup-dask-") as tmp:
        yield tmp


@contextmanager
def _client(
    client: Any, scheduler: str | None, workers: int | None, blocks: Sequence[io.Block]
) -> Iterator[tuple[Any, Future[list[int]] | None]]:
    """The client to run on (``client``, one for ``scheduler``, else one of a
    ``LocalCluster`` of ``workers`` started here and closed at the end) and the blocks'
    line counts where they were counted here while that cluster started
    (:func:`_lines_counted_here`; else None)."""
    if client is not None:
        yield client, None
        return
    from distributed import Client

    if scheduler is not None:
        with Client(scheduler) as cli:
            yield cli, None
        return
    n = check_int("workers", workers if workers is not None else 2, low=1)
    with (
        _lines_counted_here(blocks) as counted,
        local_cluster(workers=n) as cluster,
        Client(cluster) as cli,
    ):
        yield cli, counted


def local_cluster(*, workers: int = 2, processes: bool = True, **kwargs: Any) -> Any:
    """A ``distributed.LocalCluster`` of ``workers`` workers, one thread each, with no
    dashboard, no probe of port 8787, glibc's default allocator thresholds
    (:func:`_worker_environ`) and no statistical profiler in the workers (it samples the
    task thread's stack every 10 ms, for the dashboard this cluster does not serve).
    Worker processes are forked from a fork server that has imported Dask and the job's
    modules (:mod:`.forkserver`; spawned where the platform has none).

    ``dashboard_address=None`` turns the dashboard off but the scheduler's HTTP server (its
    health and metrics routes) still binds the default port 8787, and warns "Port 8787 is
    already in use" beside another cluster. Here it binds a free port on the loopback
    interface (``127.0.0.1:0``) and the dashboard stays off (``dashboard=False``).

    Args:
        workers: number of workers (>= 1).
        processes: worker processes (True) or threads of this process.
        **kwargs: further ``LocalCluster`` arguments (``memory_limit``, ...).

    Raises:
        ParameterError: ``workers`` < 1.
    """
    import dask

    from distributed import LocalCluster

    n = check_int("workers", workers, low=1)
    settings = {
        "distributed.nanny.pre-spawn-environ": _worker_environ(),
        "distributed.worker.profile.enabled": False,  # a nanny hands its config to its worker
        **(forkserver.dask_settings() if processes else {}),
    }
    with dask.config.set(settings):
        return LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=processes,
            dashboard_address="127.0.0.1:0",
            scheduler_kwargs={"dashboard": False},
            **kwargs,
        )


def reduce_count(n_parts: int, n_workers: int) -> int:
    """Default outputs of the job's shuffles: ``ceil(n_parts / 4)``, at least ``2 x
    n_workers`` (so every worker has some) and 2, at most ``max(2, n_parts)``.

    A shuffle costs one task a piece (inputs x outputs; 1,156 at 34 blocks, about 4 s of
    scheduling at a million documents, when each output was one block's worth); a quarter
    keeps each output a few blocks' worth of keys."""
    want = max(2, 2 * n_workers, -(-n_parts // 4))
    return min(want, max(2, n_parts))


def _worker_environ() -> dict[str, Any]:
    """The environment Dask sets in a worker process before it starts, without
    ``MALLOC_TRIM_THRESHOLD_``.

    Dask sets it (to 65536) so that freed memory goes back to the system at once; setting
    it turns off glibc's adaptive mmap threshold, so that every array over 128 KiB is a
    fresh mapping whose pages fault in one by one: the job's numpy stages ran twice as
    long there as in a plain process (``split_keys`` 0.23 s, 0.12 s of it in the kernel,
    against 0.12 s; 20,000 page faults against 20). The nanny reads this when it is made,
    so a restarted worker has it too."""
    import dask

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {})
    environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    return environ


class _Job:
    """One run: holds futures of the partitions between stages."""

    def __init__(
        self,
        client: Any,
        meth: Method,
        opts: DedupOptions,
        read_options: ReadOptions | dict[str, Any],
        out_dir: str,
        reduce: int | None,
    ) -> None:
        self.c = client
        self.meth = meth
        self.opts = opts
        #: how the method runs (its ``method`` is ``meth``, fitted in place when it needs it)
        self.plan = plan_for(meth, opts)
        self.read_options = read_options
        self.out = out_dir
        self.reduce = reduce
        self.seconds: dict[str, float] = {}
        self.read = 0
        self.renamed = 0
        #: a future of the renamer's ``(renamed, first clashes)`` (:meth:`_renamed`), and
        #: those first ``(id, source)`` clashes once gathered (the warning names them)
        self.renaming: Any = None
        self.clashes: list[tuple[str, str]] = []
        #: ``(A's inputs, within)`` for ``--against``, else None
        self.against: tuple[list[Any], bool] | None = None
        #: A's documents (the first ``first`` of the corpus), its records read and skips
        self.first = 0
        self.a_read = 0
        self.a_reasons: dict[str, int] = {}
        #: futures of the partitions' :func:`~.partition.part_keys`, submitted with the
        #: ingest when the one-task candidates are sure to follow (:meth:`_keys_early`)
        self.keyed: list[Any] | None = None
        #: a future of the candidates each partition's sketch screen dropped in the
        #: one-task candidate stage (:func:`~.partition.group_candidates`), else None
        self.screened: Any = None

    @property
    def _fetches_signatures(self) -> bool:
        """Whether verification fetches signatures (:func:`~.partition.uses_signatures`)."""
        return pt.uses_signatures(self.meth, self.opts)

    @property
    def whole(self) -> bool:
        """Whether candidates and decisions run in one task (:mod:`.whole`)."""
        return self.against is not None or not self.plan.runs_by_key

    def _time(self, stage: str, t0: float) -> None:
        self.seconds[stage] = round(time.perf_counter() - t0, 6)

    def run(
        self, blocks: list[io.Block], k: int, counted: Future[list[int]] | None = None
    ) -> tuple[dict[str, Any], list[str], PairTable]:
        """Run the job on ``blocks`` (:func:`plan_blocks`: A's ``k`` first; ``counted``:
        their line counts made on the client, or None); the summary, the processed
        documents' ids in input order and the decided pairs (gathered from the workers, in
        ``pairs.jsonl`` order).

        The client waits on the cluster where a choice needs a count (the partitions'
        document counts for their offsets, the candidate count for the verify and keep
        plans) and once at the end, for everything the summary and the result need (ids,
        skip writes, counts, pair rows): each wait is a round trip through the scheduler
        (10-50 ms), and the stages between run back to back on the workers."""
        prepare_out_dir(self.out)
        parts, offsets, skip_reasons, late = self._ingest(blocks, k, counted)
        n_parts = len(parts)
        r = self._reduce(n_parts)
        kept: Any = None
        bound: int | None = None  # at most this many decided pairs (None: not known)
        if not self.whole:
            cand, sizes = self._candidates(parts, offsets, r)
            t0 = time.perf_counter()
            verified, counts = self._verify(parts, cand, sizes, offsets)
            del cand
            contained: Any = {}
            bound = sum(sizes)
        else:
            t0 = time.perf_counter()
            verified, contained, kept, counts = self._whole(parts, offsets)
        rows = [self.c.submit(pt.pair_rows, v) for v in verified]  # beside the cluster stage
        # clusters need ids and lengths only: let the sets and signatures go
        parts = [self.c.submit(pt.slim, x) for x in parts]
        if self.against is not None:  # the keep stage ran in the one task (keep_against)
            done, rounds = kept, 0
        else:
            done, rounds = self._cluster(parts, verified, offsets, r, contained, counts, bound)
        done, counts, rows, (named, _), (_, self.clashes), screened = self.c.gather(
            [done, counts, rows, late, self.renaming, self.screened]
        )
        self._time("verify+cluster", t0)
        if self.against is not None:
            n_clusters, n_dropped, matched = done
        else:
            (n_clusters, n_dropped), matched = done, 0
        n_cand = sum(c[0] for c in counts) + (0 if screened is None else int(screened.sum()))
        n_verified, n_pairs = sum(c[1] for c in counts), sum(c[2] for c in counts)
        ids = [str(i) for part in named for i in part]
        pairs = self._pairs(rows, ids)
        t0 = time.perf_counter()
        merge_tables(self.out, n_parts)
        self._time("merge", t0)
        n = int(offsets[-1]) - self.first
        summary = self._summary(
            n,
            skip_reasons,
            (n_cand, n_verified, n_pairs),
            n_clusters,
            n_dropped,
            n_parts,
            rounds,
            _codes(rows),
        )
        from neardup.job.pipeline import against_counts, check_accounting

        if self.against is not None:
            summary["against"] = against_counts(
                self.first, self.a_read, self.a_reasons, self.against[1], matched
            )
        check_accounting(summary, self.read - self.a_read)
        write_summary(self.out, summary)
        return summary, ids, pairs

    # -- stages ---------------------------------------------------------------------------
    def _ingest(
        self, blocks: list[io.Block], k: int, counted: Future[list[int]] | None
    ) -> tuple[list[Any], np.ndarray, dict[str, int], tuple[list[Any], list[Any]]]:
        """Read and prepare the blocks (the first ``k`` are A's; ``counted``: their line
        counts made on the client, or None: counted here); the finalized partitions
        (futures), their document offsets, the reading skips by reason (gathered: the
        stage's wait) and, left for the job's last wait, futures of the partitions' ids
        (input order) and of their ``skipped.jsonl`` writes."""
        t0 = time.perf_counter()
        if counted is not None:
            counts = counted.result()
        else:
            counts = self.c.gather(self.c.map(io.count_lines, blocks, pure=False))
        blocks = io.number_lines(blocks, counts)
        raw = self.c.map(
            pt.ingest,
            blocks,
            meth=self.meth,
            opts=self.opts,
            read_options=self.read_options,
            whole=self.whole,
            pure=False,
        )
        n_parts = len(raw)
        renamed = self._renamed(raw)
        held = self._holders(raw)
        parts = [
            self.c.submit(
                pt.finalize,
                raw[p],
                self.meth,
                self.opts,
                renamed[p],
                whole=self.whole,
                pure=False,
                workers=held[p],
                allow_other_workers=held[p] is not None,  # None: the ingest failed
            )
            for p in range(n_parts)
        ]
        del raw
        if self.plan.needs_fit:
            parts = self._fit(parts, sign=not self.whole)
        # A's partitions come first (k of them): their skips are A's, not written
        writes = [
            self.c.submit(pt.write_skipped, x, self.out, p)
            if p >= k
            else self.c.submit(write_table, self.out, "skipped.jsonl", [], part=p)
            for p, x in enumerate(parts)
        ]
        named = [self.c.submit(pt.part_ids, x) for x in parts]
        counting = [self.c.submit(pt.part_count, x) for x in parts]
        if self._keys_early(blocks, counts):  # after the counts: they run first
            self.keyed = [self.c.submit(pt.part_keys, x, self.meth, self.opts) for x in parts]
        stats = self.c.gather(counting)
        sizes = np.array([s[0] for s in stats], dtype=np.int64)
        offsets = np.zeros(n_parts + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        self.first = int(offsets[k])
        self.read = sum(s[2] for s in stats)
        self.a_read = sum(s[2] for s in stats[:k])
        self.renamed = sum(s[3] for s in stats)
        self.a_reasons = _reasons(stats[:k])
        reasons = _reasons(stats[k:])
        self._time("ingest", t0)
        return parts, offsets, reasons, (named, writes)

    def _keys_early(self, blocks: list[io.Block], lines: list[int]) -> bool:
        """Whether the candidates are sure to be found in one task
        (:meth:`_grouped_candidates`: a method with grouping keys and at most
        :data:`WHOLE_KEY_DOCS` documents, here bounded by the blocks' ``lines``, each
        block a range of a JSONL file), so that the partitions' keys are made while the
        client waits for their document counts (in a loaded run's task stream at 100,000
        documents, the part_keys tasks ran 0.25 s after that wait's round trip)."""
        return (
            not self.whole
            and self.plan.set_keys is None
            and all(b.kind == "jsonl" for b in blocks)
            and sum(lines) <= WHOLE_KEY_DOCS
        )

    def _holders(self, futures: list[Any]) -> list[list[str] | None]:
        """The workers holding each of ``futures`` once it is done (None: not known), for a
        task on one of them to run there (loosely: elsewhere if they are gone) rather than
        where the scheduler's occupancy estimate sends it, with a copy of the partition
        (up to 1.2 s a partition at a million documents). The duplicate-id shuffle waits
        for every partition anyway, so waiting here delays nothing."""
        self._wait(futures)
        where = self.c.who_has(futures)
        return [list(where.get(f.key, ())) or None for f in futures]

    def _renamed(self, raw: list[Any]) -> list[Any]:
        """Per partition: a future of its renamed ids (:mod:`.ids`: the clashes found by a
        shuffle of the ids by hash, renamed by the local job's :class:`UniqueIds` in one
        task); :attr:`renaming` is a future of that task's ``(renamed, first clashes)``.

        The ids go to :func:`reduce_count` buckets by hash, not one a partition: each
        bucket is a task a partition twice over (its piece in, its rows out), so ``P``
        buckets made ``2 P^2`` tasks (2,312 at 34 partitions, for a few kilobytes each)."""
        import operator

        n = len(raw)
        r = self._reduce(n)
        splits = [self.c.submit(ids.split_ids, x, p, r) for p, x in enumerate(raw)]
        buckets = [
            self.c.submit(
                ids.bucket_ids, j, *(self.c.submit(operator.getitem, s, j) for s in splits)
            )
            for j in range(r)
        ]
        clash = [self.c.submit(ids.clashes, b) for b in buckets]
        names = self.c.submit(ids.first_names, r, *clash)
        taken = [
            self.c.submit(ids.taken, b, self.c.submit(operator.getitem, names, j))
            for j, b in enumerate(buckets)
        ]
        done = self.c.submit(ids.rename, n, *clash, *taken)
        self.renaming = self.c.submit(operator.getitem, done, slice(1, 3))
        by_part = self.c.submit(operator.getitem, done, 0)
        return [self.c.submit(operator.getitem, by_part, p) for p in range(n)]

    def _fit(self, parts: list[Any], *, sign: bool) -> list[Any]:
        """Fit the method on the corpus statistics (a tree reduction over the partitions);
        with ``sign``, sign every partition with the fitted method."""
        stats = [self.c.submit(pt.part_stats, x) for x in parts]
        while len(stats) > 1:  # tree reduction on the cluster
            stats = [
                self.c.submit(pt.merge_stats, *stats[i : i + 8]) for i in range(0, len(stats), 8)
            ]
        self.meth.fit(stats[0].result())
        if not sign:
            return parts
        return [self.c.submit(pt.sign_fitted, x, self.meth) for x in parts]

    def _whole(
        self, parts: list[Any], offsets: np.ndarray
    ) -> tuple[list[Any], Any, Any, list[Any]]:
        """Candidates and decisions over the whole corpus in one task (:mod:`.whole`):
        the verified partitions, the containment map, the keep stage's counts with
        ``--against`` and the partitions' ``(candidates, verified, pairs)`` counts (futures
        all)."""
        import operator

        against = None if self.against is None else (self.first, self.against[1])
        done = self.c.submit(
            decide_whole, self.meth, self.opts, offsets, self.out, *parts, against=against
        )
        found = self.c.submit(operator.getitem, done, 0)
        verified = [self.c.submit(operator.getitem, found, p) for p in range(len(parts))]
        contained = self.c.submit(operator.getitem, done, 1)
        kept = self.c.submit(operator.getitem, done, 2)
        counts = [self.c.submit(pt.verified_counts, v) for v in verified]
        return verified, contained, kept, counts

    def _candidates(
        self, parts: list[Any], offsets: np.ndarray, r: int
    ) -> tuple[list[Any], list[int]]:
        """The candidate pairs of each partition (futures) and their counts (gathered: the
        stage's wait): in one task up to :data:`WHOLE_KEY_DOCS` documents of a method with
        grouping keys (:meth:`_grouped_candidates`), else by two shuffles of ``(slot, key)``
        rows over ``r`` outputs (:meth:`_shuffled_candidates`); the same pairs."""
        t0 = time.perf_counter()
        max_group = self.plan.group_limit
        if self.plan.set_keys is None and int(offsets[-1]) <= WHOLE_KEY_DOCS:
            cand = self._grouped_candidates(parts, offsets, max_group)
        else:
            cand = self._shuffled_candidates(parts, offsets, r, max_group)
        sizes: list[int] = self.c.gather([self.c.submit(pt.table_rows, c) for c in cand])
        self._time("candidates", t0)
        return cand, sizes

    def _grouped_candidates(
        self, parts: list[Any], offsets: np.ndarray, max_group: int | None
    ) -> list[Any]:
        """:func:`~neardup.distributed.partition.group_candidates` on every partition's keys."""
        import operator

        keyed = self.keyed or [self.c.submit(pt.part_keys, x, self.meth, self.opts) for x in parts]
        self.keyed = None
        found = self.c.submit(
            pt.group_candidates, max_group, offsets, *keyed, meth=self.meth, opts=self.opts
        )
        self.screened = self.c.submit(operator.getitem, found, 1)
        tables = self.c.submit(operator.getitem, found, 0)
        return [self.c.submit(operator.getitem, tables, p) for p in range(len(parts))]

    def _shuffled_candidates(
        self, parts: list[Any], offsets: np.ndarray, r: int, max_group: int | None
    ) -> list[Any]:
        """Keys shuffled to ``r`` bucket tasks, their pairs to the partitions."""
        n_parts = len(parts)
        lookups = self._df(parts, r) if self.plan.set_keys == "prefix" else [[]] * n_parts
        first = [
            self.c.submit(pt.split_keys, x, int(offsets[p]), self.meth, r, *lookups[p])
            for p, x in enumerate(parts)
        ]
        buckets = shuffle(
            self.c,
            first,
            pt.passthrough,
            r,
            pt.bucket_pairs,
            split_args=(r,),
            combine_args=(max_group, offsets),
            name="buckets",
        )
        return shuffle(
            self.c,
            buckets,
            pt.passthrough,
            n_parts,
            pt.unique_candidates,
            split_args=(n_parts,),
            combine_args=(int(offsets[-1]),),
            name="pairs",
        )

    def _df(self, parts: list[Any], r: int) -> list[list[Any]]:
        """The document-frequency pass of prefix filtering: per partition, ``r`` futures of
        ``{v, df}`` (its fingerprints' corpus document frequencies, by hash bucket)."""
        import operator

        splits = [self.c.submit(pt.split_values, x, r) for x in parts]
        pieces = [[self.c.submit(operator.getitem, s, j) for j in range(r)] for s in splits]
        df = [self.c.submit(pt.sum_df, j, *(own[j] for own in pieces)) for j in range(r)]
        return [[self.c.submit(pt.lookup_df, df[j], own[j]) for j in range(r)] for own in pieces]

    def _verify(
        self, parts: list[Any], cand: list[Any], sizes: list[int], offsets: np.ndarray
    ) -> tuple[list[Any], list[Any]]:
        """Verify the candidate pairs (``sizes`` of them a partition): up to
        :data:`WHOLE_VERIFY_PAIRS` in one task (:meth:`_verify_all`), else partition by
        partition, at most ``2 x workers`` in flight. Returns the verified partitions and
        their ``(candidates, verified, pairs)`` counts (futures, or values where the window waited
        for them).

        A partition's verify task holds the documents it fetched from later partitions;
        bounding the partitions in flight bounds that memory on every worker (fetches run
        only for the partitions being verified).
        """
        from distributed import as_completed

        n_parts = len(parts)
        if sum(sizes) <= WHOLE_VERIFY_PAIRS:
            return self._verify_all(parts, cand, offsets)
        window = max(2, 2 * self._workers())
        verified: list[Any] = [None] * n_parts
        counts: list[Any] = []
        running = as_completed()
        for p in range(n_parts):
            if running.count() >= window:
                counts.append(next(running).result())
            verified[p] = self._verify_one(parts, cand, offsets, p)
            running.add(self.c.submit(pt.verified_counts, verified[p]))
        counts += [f.result() for f in running]
        return verified, counts

    def _verify_all(
        self, parts: list[Any], cand: list[Any], offsets: np.ndarray
    ) -> tuple[list[Any], list[Any]]:
        """Verify every partition's pairs in one task
        (:func:`~neardup.distributed.partition.verify_all`), on the documents the pairs name,
        fetched once a partition; the verified partitions and their counts (futures)."""
        import operator

        named = self.c.submit(pt.named_documents, *cand)
        docs = [
            self.c.submit(pt.fetch, parts[q], named, int(offsets[q]), self._fetches_signatures)
            for q in range(len(parts))
        ]
        done = self.c.submit(pt.verify_all, self.meth, self.opts, self.out, offsets, *cand, *docs)
        verified = [self.c.submit(operator.getitem, done, p) for p in range(len(parts))]
        return verified, [self.c.submit(pt.verified_counts, v) for v in verified]

    def _verify_one(self, parts: list[Any], cand: list[Any], offsets: np.ndarray, p: int) -> Any:
        n_parts = len(parts)
        fetched = [
            self.c.submit(pt.fetch, parts[q], cand[p], int(offsets[q]), self._fetches_signatures)
            for q in range(p + 1, n_parts)
        ]
        return self.c.submit(
            pt.verify,
            parts[p],
            cand[p],
            int(offsets[p]),
            p,
            self.meth,
            self.opts,
            self.out,
            *fetched,
        )

    def _cluster(
        self,
        parts: list[Any],
        verified: list[Any],
        offsets: np.ndarray,
        r: int,
        contained: Any,
        counts: list[Any],
        bound: int | None,
    ) -> tuple[Any, int]:
        """Components, clusters, keep decisions and dropped reasons; ``contained``: the
        ``{doc: container}`` map of a containment job (or its future), else empty;
        ``counts``: the verified partitions' ``(candidates, verified, pairs)`` (futures or
        values);
        ``bound``: at most this many decided pairs (None: not known). Returns the
        ``(clusters, dropped)`` counts (a future, or values) and the label propagation's
        rounds.

        Up to :data:`WHOLE_KEEP_PAIRS` decided pairs, the local job's stages in one task
        (:func:`~neardup.distributed.whole.keep_whole`, ``cc_rounds`` 0), submitted at once
        when ``bound`` says so (else after a wait for the counts); beyond, label
        propagation and shuffles over the partitions."""
        n_parts = len(parts)
        if bound is None or bound > WHOLE_KEEP_PAIRS:
            bound = sum(c[2] for c in self.c.gather(counts))
        if bound <= WHOLE_KEEP_PAIRS:
            done = self.c.submit(
                keep_whole, self.opts, contained, self.out, n_parts, *parts, *verified
            )
            return done, 0
        edges = [self.c.submit(pt.edges_of, v) for v in verified]
        labels, rounds = component_labels(self.c, edges, r)
        attached = shuffle(
            self.c,
            labels,
            cl.split_to_docs,
            n_parts,
            cl.attach,
            split_args=(offsets,),
            combine_each=parts,
            combine_args=(offsets,),
            name="attach",
        )
        groups = shuffle(
            self.c,
            attached,
            cl.split_by_label,
            r,
            cl.make_groups,
            split_args=(r,),
            combine_args=(self.opts.keep, contained),
            name="groups",
        )
        reasons = shuffle(
            self.c,
            groups,
            cl.split_dropped,
            n_parts,
            cl.add_reasons,
            split_args=(offsets,),
            combine_each=verified,
            combine_args=(self.opts.threshold, contained),
            name="reasons",
        )
        finals = self._finals(groups, reasons, offsets)
        n_each = self.c.gather([self.c.submit(cl.cluster_count, f) for f in finals])
        first = np.concatenate([[0], np.cumsum(n_each)]).astype(int)
        writes = [
            self.c.submit(cl.write_clusters, f, int(first[p]), self.out, p)
            for p, f in enumerate(finals)
        ]
        dropped = sum(self.c.gather(writes))
        return (int(first[-1]), int(dropped)), rounds

    def _finals(self, groups: list[Any], reasons: list[Any], offsets: np.ndarray) -> list[Any]:
        import operator

        n_parts = offsets.shape[0] - 1
        g_split = [self.c.submit(cl.split_to_keep, g, offsets) for g in groups]
        d_split = [self.c.submit(cl.split_to_keep, d, offsets) for d in reasons]
        finals = []
        for p in range(n_parts):
            gm = [self.c.submit(operator.getitem, s, p) for s in g_split]
            dm = [self.c.submit(operator.getitem, s, p) for s in d_split]
            finals.append(self.c.submit(cl.gather_final, p, len(gm), *gm, *dm))
        return finals

    def _pairs(self, parts: list[dict[str, np.ndarray]], ids: list[str]) -> PairTable:
        """The decided pairs of every partition (``parts``: gathered
        :func:`~neardup.distributed.partition.pair_rows`), in partition order (as
        ``pairs.jsonl``)."""
        table = pt.stacked_rows(parts)
        labels = [r.label for r in decision_of(self.opts).rules(self.meth)]
        return PairTable(ids, table, self.meth.name, decisions=_codes(parts), rules=labels)

    def _reduce(self, n_parts: int) -> int:
        """Outputs of a shuffle over ``n_parts`` partitions: ``reduce_partitions`` if given,
        else :func:`reduce_count` for the cluster's workers now."""
        return self.reduce or reduce_count(n_parts, self._workers())

    def _workers(self) -> int:
        """The cluster's workers now."""
        return len(self.c.scheduler_info().get("workers", {}))

    def _wait(self, futures: list[Any]) -> None:
        from distributed import wait

        wait(futures)

    def _summary(
        self,
        n: int,
        reasons: dict[str, int],
        pair_counts: tuple[int, int, int],
        n_clusters: int,
        n_dropped: int,
        n_parts: int,
        rounds: int,
        codes: np.ndarray,
    ) -> dict[str, Any]:
        """The job's summary (:func:`~neardup.job.pipeline.job_summary`, the keys of every
        executor); ``pair_counts``: the candidate pairs, those compared exactly (after the
        sketch prefilter) and the pairs found; the Dask figures under ``executor``."""
        meth = self.meth
        n_cand, n_verified, n_pairs = pair_counts
        peaks = self.c.run(_peak_mib)
        kernel = kernel_of(pt.ingest_config(meth, self.opts, self.read_options, whole=self.whole))
        warnings = lexicon_warnings(self.plan, n + self.first)
        if kernel == "python":
            from neardup.methods.kernel import unbuilt_note

            warnings += [note for note in [unbuilt_note()] if note]
        warnings += filter(None, [renamed_warning(self.renamed, self.clashes)])
        return job_summary(
            meth,
            self.opts,
            documents=n,
            skipped=reasons,
            candidates=n_cand,
            pairs=n_pairs,
            clusters=n_clusters,
            dropped=n_dropped,
            seconds=self.seconds,
            decision=decision_summary(meth, decision_of(self.opts), codes),
            kernel=kernel,
            warnings=warnings,
            renamed_ids=self.renamed,
            verified=n_verified,
            executor={
                "name": "dask",
                "partitions": n_parts,
                "cc_rounds": rounds,
                "worker_peak_memory_mib": {k: round(v, 1) for k, v in sorted(peaks.items())},
            },
        )


def _codes(parts: list[dict[str, np.ndarray]]) -> np.ndarray:
    """uint8 (p,): the decided pairs' rule codes (:data:`~neardup.job.decide.DECIDED`), in
    partition order."""
    codes = [p["code"] for p in parts if p["a"].size]
    return np.concatenate(codes) if codes else np.zeros(0, np.uint8)


def _reasons(stats: Sequence[tuple[int, dict[str, int], int, int]]) -> dict[str, int]:
    """Skips by reason summed over partitions' :func:`~.partition.part_count` stats."""
    reasons: dict[str, int] = {}
    for _, by_reason, _, _ in stats:
        for k, v in by_reason.items():
            reasons[k] = reasons.get(k, 0) + v
    return reasons


def _peak_mib() -> float:
    """Peak resident memory of this process, MiB (``ru_maxrss``)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
