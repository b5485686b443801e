"""The dedup job over the partitions of its input, as tasks that an executor maps,
shuffles and gathers (:class:`~.tasks.TaskRunner`): the Dask executor runs them on a
cluster (:mod:`.executor`), the inline executor in this process (:mod:`.inline`); the
outputs are the local job's, byte for byte.

The stages, each a function of its inputs run as tasks (:mod:`.partition` and the
modules named), every arrow between partitions a :meth:`~.tasks.TaskRunner.shuffle`:

1. read, prepared (``ingest``): input blocks (planned by the local job's planner,
   :func:`.io.plan_local`: JSONL byte ranges, Parquet row groups, other record files,
   document files and skip rows) -> documents (the local reader) -> canonical tokens ->
   shingle sets, mapped a task a block;
2. ids: when the id hashes collected as the blocks are read repeat, a shuffle by id hash
   finds repeated ids, renamed in one task by the local job's
   renamer (:mod:`.ids`: the same ids and warning); short documents are skipped; each
   partition counts its documents and the driver turns the gathered counts into offsets,
   so a document's global index (offset + position) is its index in the local job;
3. signed: the method's signatures per partition (methods that need a fit: per-partition
   statistics are merged by a tree of tasks, fitted once, then every partition signs);
4. candidates: grouping keys (LSH band keys, or the exact keys) shuffled by key; each
   bucket gives its pairs (an oversized bucket a star from its earliest document) which
   are shuffled to the partition of their earlier document and deduplicated (up to
   :data:`WHOLE_KEY_DOCS` documents, one task over every partition's keys, which also
   screens them by the sketch prefilter on the sketches' low bytes; those keys made as
   each block is read, :meth:`_Job._keys_early`);
5. decided: each partition fetches from the later partitions only the documents its
   pairs need (the fetch runs where those documents live), computes exact resemblance and
   containment on the shingle sets and writes its ``pairs.jsonl`` part;
6. clusters, kept: connected components by large-star/small-star over the edge table
   (:mod:`.components`), then clusters, keep decisions and dropped reasons
   (:mod:`.clusters`), or the local job's stages in one task when the pairs are few
   (:mod:`.whole`);
7. written: part files merged in partition order, ``summary.json`` last
   (:func:`neardup.output.merge_tables`, :func:`~neardup.output.write_summary`).

The driver (this process) only ever holds per-partition counts, offsets and fingerprints
(and, for fit methods, the merged vocabulary statistics). Every method runs, with both
measures (:mod:`.grouping` says how); see ``docs/distributed.md`` for the differences
from the local job. With ``against`` (``dedup B --against A``) A's partitions
come first and steps 4-6 are one task running the local job's code (:mod:`.whole`:
``against_pairs``, ``keep_against``).
"""

from __future__ import annotations

import os
import resource
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any

import numpy as np

from neardup.distributed import clusters as cl
from neardup.distributed import ids, io
from neardup.distributed import partition as pt
from neardup.distributed.components import component_labels
from neardup.distributed.result import read_result
from neardup.distributed.tables import collect
from neardup.distributed.tasks import TaskRunner
from neardup.distributed.whole import decide_whole, keep_whole
from neardup.errors import ParameterError
from neardup.job.cluster import Cluster
from neardup.job.decide import decision_summary
from neardup.job.pairs import PairTable
from neardup.job.pipeline import (
    DedupOptions,
    DedupResult,
    Dropped,
    Job,
    decision_of,
    job_summary,
    lexicon_warnings,
)
from neardup.job.prepare import kernel_of
from neardup.methods.base import Method
from neardup.methods.plan import plan_for
from neardup.output import merge_tables, prepare_out_dir, write_summary, write_table
from neardup.text.read import as_read_options
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

#: Read options that select the files of directory inputs or cut the stream, which the
#: partition planner does not apply (:func:`neardup.distributed.io.plan_local`).
_LOCAL_SELECTION = ("glob", "include", "exclude", "recursive", "limit")


def refuse_unplanned(job: Job, executor: str) -> None:
    """Refuse, before any work, what the partitioned job cannot run (``executor``: the
    executor's name, for the message).

    Raises:
        ParameterError: ``keep_by`` (the tasks decide without the record fields),
            documents or texts as the source (the tasks read input paths), or a read
            option that selects files or cuts the stream (``include``, ``exclude``,
            ``recursive``, ``glob``, ``limit``).
    """
    if job.field_reader is not None:
        raise ParameterError(
            "keep_by",
            job.options.keep_by,
            f"None with the {executor} executor (its tasks decide without the record "
            "fields); use the local or pool executor, or the result's clusters",
        )
    for group in job.groups:
        if not _are_paths(group):
            raise ParameterError(
                "source",
                type(group).__name__,
                f"input paths (files, directories, globs or URLs) with the {executor} "
                "executor (its tasks read them); use the local or pool executor",
            )
    default = as_read_options(None)
    for name in _LOCAL_SELECTION:
        value = getattr(job.read_options, name)
        if value != getattr(default, name):
            raise ParameterError(
                name, value, f"{getattr(default, name)!r} with the {executor} executor"
            )


def _are_paths(group: Any) -> bool:
    return isinstance(group, list | tuple) and all(isinstance(p, str | os.PathLike) for p in group)


def planned(job: Job, executor: str, block_bytes: int) -> tuple[list[io.Block], int]:
    """What an executor of the partitioned job does first, before its runtime starts:
    :func:`refuse_unplanned` (``executor``: its name), then the job's blocks of about
    ``block_bytes`` (:func:`plan_blocks` of its input paths; A's first) and how many are A's.

    Raises:
        ParameterError: what :func:`refuse_unplanned` refuses.
        InputError: what :func:`plan_blocks` raises.
    """
    refuse_unplanned(job, executor)
    a_inputs = [os.fspath(p) for p in job.groups[0]] if len(job.groups) > 1 else []
    inputs = [os.fspath(p) for p in job.groups[-1]]
    return plan_blocks(a_inputs, inputs, block_bytes, job.read_options)


def run_partitioned(
    job: Job,
    tasks: TaskRunner,
    blocks: list[io.Block],
    k: int,
    *,
    executor: str,
    out_dir: str,
    reduce_partitions: int | None = None,
    counted: Future[list[int]] | None = None,
) -> DedupResult:
    """Run ``job`` (its method and options resolved; :func:`refuse_unplanned` passed)
    over the partitions ``blocks`` (:func:`plan_blocks`: A's ``k`` first) on ``tasks``:
    the partitioned executors' run (``executor``: its name, for the summary). The tasks
    write the result's files into ``out_dir`` (a directory every task can write); the
    result is read back from them.

    Args:
        reduce_partitions: outputs of the shuffles (None: :func:`reduce_count` for the
            workers running).
        counted: the blocks' line counts (:func:`~.io.count_lines`), a future made while
            the executor started, or None (counted by tasks).
    """
    # derived parameters (an LSH's bands and rows: 25 ms) made here, before any task, and
    # pickled with the method into every task: not made again in each worker
    job.method.params()
    run = _Job(tasks, job.method, job.options, job.read_options, out_dir, reduce_partitions)
    run.name = executor
    if len(job.groups) > 1:
        run.against = (list(job.groups[0]), job.within)
    summary, ids, pairs = run.run(blocks, k, counted)
    return read_result(out_dir, ids, pairs, summary, against=run.first, kept=run.kept)


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
def out_dir_of(out_dir: str | os.PathLike[str] | None) -> Iterator[str]:
    """``out_dir`` as a string, or a temporary local directory removed at the end."""
    if out_dir is not None:
        yield os.fspath(out_dir)
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="neardup-job-") as tmp:
        yield tmp


def reduce_count(n_parts: int, n_workers: int) -> int:
    """Default outputs of the job's shuffles: ``ceil(n_parts / 4)``, at least ``2 x
    n_workers`` (so every worker has some) and 2, at most ``max(2, n_parts)``.

    A shuffle costs one task a piece (inputs x outputs; 1,156 at 34 blocks, about 4 s of
    scheduling at a million documents, when each output was one block's worth); a quarter
    keeps each output a few blocks' worth of keys."""
    want = max(2, 2 * n_workers, -(-n_parts // 4))
    return min(want, max(2, n_parts))


class _Job:
    """One run: holds handles of the partitions between stages (``tasks``' results)."""

    def __init__(
        self,
        tasks: TaskRunner,
        meth: Method,
        opts: DedupOptions,
        read_options: ReadOptions | dict[str, Any],
        out_dir: str,
        reduce: int | None,
    ) -> None:
        self.t = tasks
        #: the executor's name (``summary["executor"]["name"]``)
        self.name = "tasks"
        self.meth = meth
        self.opts = opts
        #: how the method runs (its ``method`` is ``meth``, fitted in place when it needs it)
        self.plan = plan_for(meth, opts)
        self.read_options = read_options
        self.out = out_dir
        self.reduce = reduce
        self.seconds: dict[str, float] = {}
        #: this process's (the driver's) CPU seconds per stage
        self.cpu_seconds: dict[str, float] = {}
        #: the workers' CPU seconds when the job started (:meth:`run`)
        self.worker_cpu: dict[str, float] = {}
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
        #: a future of :func:`~.partition.group_candidates` of the partitions'
        #: :func:`~.partition.part_keys`, submitted with the ingest when the one-task
        #: candidates are sure to follow (:meth:`_keys_early`)
        self.found: Any = None
        #: a future of the candidates each partition's sketch screen dropped in the
        #: one-task candidate stage (:func:`~.partition.group_candidates`), else None
        self.screened: Any = None
        #: ``(clusters, dropped)`` when the keep stage ran in one task
        #: (:func:`~.whole.keep_whole`), else None (read back from the files)
        self.kept: tuple[list[Cluster], list[Dropped]] | None = None

    @property
    def _fetches_signatures(self) -> bool:
        """Whether verification fetches signatures (:func:`~.partition.uses_signatures`)."""
        return pt.uses_signatures(self.meth, self.opts)

    @property
    def whole(self) -> bool:
        """Whether candidates and decisions run in one task (:mod:`.whole`)."""
        return self.against is not None or not self.plan.runs_by_key

    def _time(self, stage: str, t0: tuple[float, float]) -> None:
        """Record ``stage``'s seconds and this process's CPU seconds since ``t0``
        (:func:`_started`)."""
        self.seconds[stage] = round(time.perf_counter() - t0[0], 6)
        self.cpu_seconds[stage] = round(time.process_time() - t0[1], 6)

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
        self.worker_cpu = self.t.on_workers(_cpu_seconds)
        parts, offsets, skip_reasons, late = self._ingest(blocks, k, counted)
        n_parts = len(parts)
        r = self._reduce(n_parts)
        kept: Any = None
        bound: int | None = None  # at most this many decided pairs (None: not known)
        if not self.whole:
            cand, sizes = self._candidates(parts, offsets, r)
            t0 = _started()
            verified = self._verify(parts, cand, sizes, offsets)
            del cand
            contained: Any = {}
            bound = sum(sizes)
        else:
            t0 = _started()
            verified, contained, kept = self._whole(parts, offsets)
        # clusters need ids and lengths only: let the sets and signatures go
        parts = [self.t.submit(pt.slim, x) for x in parts]
        if self.against is not None:  # the keep stage ran in the one task (keep_against)
            done, rounds = kept, 0
        else:
            done, rounds = self._cluster(parts, verified, offsets, r, contained, bound)
        done, verified, (named, _), (_, self.clashes), screened = self.t.gather(
            [done, verified, late, self.renaming, self.screened]
        )
        self._time("verify+cluster", t0)
        counts = [pt.verified_counts(v) for v in verified]
        rows = [v["rows"] for v in verified]
        if self.against is not None:
            n_clusters, n_dropped, matched = done
        else:
            if isinstance(done[0], list):  # keep_whole: the clusters and dropped themselves
                self.kept = done
                done = (len(done[0]), len(done[1]))
            (n_clusters, n_dropped), matched = done, 0
        n_cand = sum(c[0] for c in counts) + (0 if screened is None else int(screened.sum()))
        n_verified, n_pairs = sum(c[1] for c in counts), sum(c[2] for c in counts)
        ids = [str(i) for part in named for i in part]
        pairs = self._pairs(rows, ids)
        t0 = _started()
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
        t0 = _started()
        if counted is not None:
            counts = counted.result()
        else:
            counts = self.t.gather(self.t.map(io.count_lines, blocks))
        blocks = io.number_lines(blocks, counts)
        raw = self.t.map(
            pt.ingest,
            blocks,
            meth=self.meth,
            opts=self.opts,
            read_options=self.read_options,
            whole=self.whole,
        )
        n_parts = len(raw)
        repeats = self.t.submit(ids.repeated, self._collected(raw, ids.id_hashes))
        early: list[Any] = [None] * n_parts  # partitions finalized before the ids are known
        keys_early = self._keys_early(blocks, counts)
        if keys_early:
            early = [self.t.submit(pt.finalize, x, self.meth, self.opts) for x in raw]
            keyed = self._collected(early, pt.part_keys, self.meth, self.opts)
            limit = self.plan.group_limit
            self.found = self.t.submit(
                pt.collected_candidates, limit, keyed, meth=self.meth, opts=self.opts
            )
            raw = [self.t.submit(pt.bare, x) for x in raw]  # the raw partitions may go
        if self.t.gather(repeats):  # the wait for every block (the holders' wait below)
            renamed = self._renamed(raw)
        else:
            renamed = [None] * n_parts
            self.renaming = self.t.submit(ids.nothing_renamed)
        held = self._holders(early if keys_early else raw)
        parts = [
            early[p]
            if early[p] is not None and renamed[p] is None
            else self.t.submit(
                pt.finalize,
                raw[p],
                self.meth,
                self.opts,
                renamed[p],
                whole=self.whole,
                signed=early[p],
                where=held[p],  # None: the ingest failed (or one place for all)
            )
            for p in range(n_parts)
        ]
        del raw, early
        if self.plan.needs_fit:
            parts = self._fit(parts, sign=not self.whole)
        # A's partitions come first (k of them): their skips are A's, not written
        writes = [
            self.t.submit(pt.write_skipped, x, self.out, p)
            if p >= k
            else self.t.submit(write_table, self.out, "skipped.jsonl", [], part=p)
            for p, x in enumerate(parts)
        ]
        named = [self.t.submit(pt.part_ids, x) for x in parts]
        counting = [self.t.submit(pt.part_count, x) for x in parts]
        stats = self.t.gather(counting)
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
        (:meth:`_grouped_candidates`: a method with grouping keys that signs without a
        fit and at most :data:`WHOLE_KEY_DOCS` documents, here bounded by the blocks'
        ``lines``, each block a range of a JSONL file), so that each partition is
        finalized as soon as it is read, before the ids are known (which documents
        :func:`~.partition.finalize` keeps and their signatures do not depend on the ids: a
        repeated id is renamed, never dropped), its keys made and collected, and the
        candidates found while the repeated ids are: in a task stream at a million
        documents, the ids shuffle, finalize and then the keys held the candidate task back
        2.1 s after the last block was read. Where no id repeats, that partition is the
        job's (finalized once: 34 finalize tasks fewer at a million documents); else its
        ids are renamed from the raw partition's :func:`~.partition.bare` form, which is
        all that is kept of it."""
        return (
            not self.whole
            and not self.plan.needs_fit
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
        self.t.wait(futures)
        return self.t.holders(futures)

    def _collected(self, raw: list[Any], fn: Any, *args: Any) -> Any:
        """A handle of the list of ``fn(x, *args)`` of every partition ``x`` of ``raw``, in
        order, collected on one worker as each is made (:func:`~.tables.collect`).

        Every link runs on the same worker (the first of :meth:`~.tasks.TaskRunner.places`):
        placed by the scheduler, the list (the keys of a million documents: 400 MB by the
        end) moved between the workers, a worker waiting idle for it, 1.3-1.8 s a worker
        in a task stream at a million documents (2026-12-05)."""
        where = self.t.places()[:1] or None
        made = [self.t.submit(fn, x, *args) for x in raw]
        held = self.t.submit(collect, made[0], where=where) if made else []
        for x in made[1:]:
            held = self.t.submit(collect, held, x, where=where)
        return held

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
        splits = [self.t.submit(ids.split_ids, x, p, r) for p, x in enumerate(raw)]
        buckets = [
            self.t.submit(
                ids.bucket_ids, j, *(self.t.submit(operator.getitem, s, j) for s in splits)
            )
            for j in range(r)
        ]
        clash = [self.t.submit(ids.clashes, b) for b in buckets]
        names = self.t.submit(ids.first_names, r, *clash)
        taken = [
            self.t.submit(ids.taken, b, self.t.submit(operator.getitem, names, j))
            for j, b in enumerate(buckets)
        ]
        done = self.t.submit(ids.rename, n, *clash, *taken)
        self.renaming = self.t.submit(operator.getitem, done, slice(1, 3))
        by_part = self.t.submit(operator.getitem, done, 0)
        return [self.t.submit(operator.getitem, by_part, p) for p in range(n)]

    def _fit(self, parts: list[Any], *, sign: bool) -> list[Any]:
        """Fit the method on the corpus statistics (a tree reduction over the partitions);
        with ``sign``, sign every partition with the fitted method."""
        stats = [self.t.submit(pt.part_stats, x) for x in parts]
        while len(stats) > 1:  # tree reduction on the cluster
            stats = [
                self.t.submit(pt.merge_stats, *stats[i : i + 8]) for i in range(0, len(stats), 8)
            ]
        self.meth.fit(self.t.gather(stats[0]))
        if not sign:
            return parts
        return [self.t.submit(pt.sign_fitted, x, self.meth) for x in parts]

    def _whole(self, parts: list[Any], offsets: np.ndarray) -> tuple[Any, Any, Any]:
        """Candidates and decisions over the whole corpus in one task (:mod:`.whole`):
        the verified partitions (one future of their list), the containment map and the
        keep stage's counts with ``--against`` (futures all)."""
        import operator

        against = None if self.against is None else (self.first, self.against[1])
        done = self.t.submit(
            decide_whole, self.meth, self.opts, offsets, self.out, *parts, against=against
        )
        verified = self.t.submit(operator.getitem, done, 0)
        contained = self.t.submit(operator.getitem, done, 1)
        kept = self.t.submit(operator.getitem, done, 2)
        return verified, contained, kept

    def _each(self, values: Any, n: int) -> list[Any]:
        """Per-partition handles of ``values``: a list of ``n`` of them (returned as it
        is) or one future of their list (one task made them all), split here by one
        ``getitem`` task a partition.

        A stage whose next task takes every partition's value takes the one future
        as it is (a task's argument may be either form), not P ``getitem`` tasks: with
        the counts and rows taken from the gathered list, 5 P - 1 fewer tasks (169 at
        the 34 partitions of a million documents; no measurable gain in the job's time
        on 2 workers, ``benchmarks/results/issue43_20261204f.md``)."""
        import operator

        if isinstance(values, list):
            return values
        return [self.t.submit(operator.getitem, values, p) for p in range(n)]

    def _candidates(self, parts: list[Any], offsets: np.ndarray, r: int) -> tuple[Any, list[int]]:
        """The candidate pairs of each partition (:meth:`_each`'s handles: one future of
        their list or a future a partition) and their counts (gathered: the stage's wait):
        in one task up to :data:`WHOLE_KEY_DOCS` documents of a method with grouping keys
        (:meth:`_grouped_candidates`), else by two shuffles of ``(slot, key)`` rows over
        ``r`` outputs (:meth:`_shuffled_candidates`); the same pairs."""
        t0 = _started()
        max_group = self.plan.group_limit
        if self.plan.set_keys is None and int(offsets[-1]) <= WHOLE_KEY_DOCS:
            cand = self._grouped_candidates(parts, offsets)
            sizes: list[int] = self.t.gather(self.t.submit(pt.table_sizes, cand))
        else:
            cand = self._shuffled_candidates(parts, offsets, r, max_group)
            sizes = self.t.gather([self.t.submit(pt.table_rows, c) for c in cand])
        self._time("candidates", t0)
        return cand, sizes

    def _grouped_candidates(self, parts: list[Any], offsets: np.ndarray) -> Any:
        """:func:`~neardup.distributed.partition.group_candidates` on every partition's
        keys: one future of the list of their candidate tables."""
        import operator

        found, self.found = self.found, None
        if found is None:
            keyed = [self.t.submit(pt.part_keys, x, self.meth, self.opts) for x in parts]
            limit = self.plan.group_limit
            found = self.t.submit(
                pt.group_candidates, limit, offsets, *keyed, meth=self.meth, opts=self.opts
            )
        self.screened = self.t.submit(operator.getitem, found, 1)
        return self.t.submit(operator.getitem, found, 0)

    def _shuffled_candidates(
        self, parts: list[Any], offsets: np.ndarray, r: int, max_group: int | None
    ) -> list[Any]:
        """Keys shuffled to ``r`` bucket tasks, their pairs to the partitions."""
        n_parts = len(parts)
        lookups = self._df(parts, r) if self.plan.set_keys == "prefix" else [[]] * n_parts
        first = [
            self.t.submit(pt.split_keys, x, int(offsets[p]), self.meth, r, *lookups[p])
            for p, x in enumerate(parts)
        ]
        buckets = self.t.shuffle(
            first,
            pt.passthrough,
            r,
            pt.bucket_pairs,
            split_args=(r,),
            combine_args=(max_group, offsets),
            name="buckets",
        )
        return self.t.shuffle(
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

        splits = [self.t.submit(pt.split_values, x, r) for x in parts]
        pieces = [[self.t.submit(operator.getitem, s, j) for j in range(r)] for s in splits]
        df = [self.t.submit(pt.sum_df, j, *(own[j] for own in pieces)) for j in range(r)]
        return [[self.t.submit(pt.lookup_df, df[j], own[j]) for j in range(r)] for own in pieces]

    def _verify(self, parts: list[Any], cand: Any, sizes: list[int], offsets: np.ndarray) -> Any:
        """Verify the candidate pairs (``cand``: :meth:`_each`'s handles; ``sizes`` of them
        a partition): up to :data:`WHOLE_VERIFY_PAIRS` in one task (:meth:`_verify_all`),
        else partition by partition, at most ``2 x workers`` in flight. Returns the
        verified partitions (:meth:`_each`'s handles).

        A partition's verify task holds the documents it fetched from later partitions;
        bounding the partitions in flight bounds that memory on every worker (fetches run
        only for the partitions being verified).
        """
        n_parts = len(parts)
        if sum(sizes) <= WHOLE_VERIFY_PAIRS:
            return self._verify_all(parts, cand, offsets)
        cand = self._each(cand, n_parts)
        window = max(2, 2 * self._workers())
        verified: list[Any] = [None] * n_parts
        running: deque[Any] = deque()
        for p in range(n_parts):
            if len(running) >= window:  # the oldest in flight: verify tasks are alike
                self.t.wait([running.popleft()])
            verified[p] = self._verify_one(parts, cand, offsets, p)
            running.append(verified[p])
        return verified

    def _verify_all(self, parts: list[Any], cand: Any, offsets: np.ndarray) -> Any:
        """Verify every partition's pairs in one task
        (:func:`~neardup.distributed.partition.verify_all`), on the documents the pairs name,
        fetched once a partition; one future of the verified partitions' list."""
        named = self.t.submit(pt.named_documents, cand)
        docs = [
            self.t.submit(pt.fetch, parts[q], named, int(offsets[q]), self._fetches_signatures)
            for q in range(len(parts))
        ]
        return self.t.submit(pt.verify_all, self.meth, self.opts, self.out, offsets, cand, *docs)

    def _verify_one(self, parts: list[Any], cand: list[Any], offsets: np.ndarray, p: int) -> Any:
        n_parts = len(parts)
        fetched = [
            self.t.submit(pt.fetch, parts[q], cand[p], int(offsets[q]), self._fetches_signatures)
            for q in range(p + 1, n_parts)
        ]
        return self.t.submit(
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
        verified: Any,
        offsets: np.ndarray,
        r: int,
        contained: Any,
        bound: int | None,
    ) -> tuple[Any, int]:
        """Components, clusters, keep decisions and dropped reasons; ``verified``: the
        verified partitions (:meth:`_each`'s handles); ``contained``: the ``{doc:
        container}`` map of a containment job (or its future), else empty; ``bound``: at
        most this many decided pairs (None: not known). Returns the
        ``(clusters, dropped)`` counts (a future, or values) and the label propagation's
        rounds.

        Up to :data:`WHOLE_KEEP_PAIRS` decided pairs, the local job's stages in one task
        (:func:`~neardup.distributed.whole.keep_whole`, ``cc_rounds`` 0), submitted at once
        when ``bound`` says so (else after a wait for the counts); beyond, label
        propagation and shuffles over the partitions."""
        n_parts = len(parts)
        if bound is None or bound > WHOLE_KEEP_PAIRS:
            verified = self._each(verified, n_parts)
            counts = self.t.gather([self.t.submit(pt.verified_counts, v) for v in verified])
            bound = sum(c[2] for c in counts)
        if bound <= WHOLE_KEEP_PAIRS:
            done = self.t.submit(keep_whole, self.opts, contained, self.out, verified, *parts)
            return done, 0
        edges = [self.t.submit(pt.edges_of, v) for v in verified]
        labels, rounds = component_labels(self.t, edges, r)
        attached = self.t.shuffle(
            labels,
            cl.split_to_docs,
            n_parts,
            cl.attach,
            split_args=(offsets,),
            combine_each=parts,
            combine_args=(offsets,),
            name="attach",
        )
        groups = self.t.shuffle(
            attached,
            cl.split_by_label,
            r,
            cl.make_groups,
            split_args=(r,),
            combine_args=(self.opts.keep, contained),
            name="groups",
        )
        reasons = self.t.shuffle(
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
        n_each = self.t.gather([self.t.submit(cl.cluster_count, f) for f in finals])
        first = np.concatenate([[0], np.cumsum(n_each)]).astype(int)
        writes = [
            self.t.submit(cl.write_clusters, f, int(first[p]), self.out, p)
            for p, f in enumerate(finals)
        ]
        dropped = sum(self.t.gather(writes))
        return (int(first[-1]), int(dropped)), rounds

    def _finals(self, groups: list[Any], reasons: list[Any], offsets: np.ndarray) -> list[Any]:
        import operator

        n_parts = offsets.shape[0] - 1
        g_split = [self.t.submit(cl.split_to_keep, g, offsets) for g in groups]
        d_split = [self.t.submit(cl.split_to_keep, d, offsets) for d in reasons]
        finals = []
        for p in range(n_parts):
            gm = [self.t.submit(operator.getitem, s, p) for s in g_split]
            dm = [self.t.submit(operator.getitem, s, p) for s in d_split]
            finals.append(self.t.submit(cl.gather_final, p, len(gm), *gm, *dm))
        return finals

    def _pairs(self, parts: list[dict[str, np.ndarray]], ids: list[str]) -> PairTable:
        """The decided pairs of every partition (``parts``: the gathered verified
        partitions' ``rows``), in partition order (as ``pairs.jsonl``)."""
        table = pt.stacked_rows(parts)
        labels = [r.label for r in decision_of(self.opts).rules(self.meth)]
        return PairTable(ids, table, self.meth.name, decisions=_codes(parts), rules=labels)

    def _reduce(self, n_parts: int) -> int:
        """Outputs of a shuffle over ``n_parts`` partitions: ``reduce_partitions`` if given,
        else :func:`reduce_count` for the cluster's workers now."""
        return self.reduce or reduce_count(n_parts, self._workers())

    def _workers(self) -> int:
        """The cluster's workers now."""
        return self.t.workers()

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
        peaks = self.t.on_workers(_peak_mib)
        cpu_now = self.t.on_workers(_cpu_seconds)
        cpu = sum(v - self.worker_cpu.get(k, 0.0) for k, v in cpu_now.items())
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
            cpu_seconds=self.cpu_seconds,
            decision=decision_summary(meth, decision_of(self.opts), codes),
            kernel=kernel,
            warnings=warnings,
            renamed_ids=self.renamed,
            verified=n_verified,
            executor={
                "name": self.name,
                "partitions": n_parts,
                "cc_rounds": rounds,
                "worker_peak_memory_mib": {k: round(v, 1) for k, v in sorted(peaks.items())},
                "worker_cpu_seconds": round(cpu, 3),
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


def _cpu_seconds() -> float:
    """CPU seconds (user + system) this process has used."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return float(used.ru_utime + used.ru_stime)


def _started() -> tuple[float, float]:
    """``(perf_counter, process_time)`` now: a stage's start for :meth:`_Job._time`."""
    return time.perf_counter(), time.process_time()
