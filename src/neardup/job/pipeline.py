"""The corpus dedup job: documents -> pairs, clusters and keep/drop decisions.

Stages (each timed in the summary): ``read`` (and extract markup), ``prepare`` (canonical
tokens; documents with fewer than ``min_tokens`` tokens are skipped as ``too-short``),
``sign`` (shingle sets and the method's signatures; ``fit`` first for lexical methods),
``candidates`` (the method's index; for ``measure="containment"`` also the fingerprint
postings, which find a small document inside a large one; always the groups of identical
documents), ``verify`` (the decision, and exact resemblance and containment on the full
shingle sets for every reported pair), ``cluster`` (connected components) and ``keep`` (one
document per cluster).

The decision for a pair (:func:`neardup.job.decide.decide`, shared with the Dask engine,
collections and :class:`neardup.Index`; rules in :mod:`neardup.methods.decision`): with
``decision="own"`` the
method's own rule as its paper defines it (equal I-Match/TF-RIDF/anchor signature, one shared
mega-shingle, SimHash Hamming distance, SL+ST/SpotSigs Jaccard, resemblance or containment
estimated on a shingle sample); with ``decision="verified"`` ``resemblance >= threshold``
for ``measure="resemblance"``, ``max(containment_ab, containment_ba) >= threshold`` for
``measure="containment"``, on the full shingle sets. The default is the method's
(``own`` for the papers' methods, ``verified`` for shingles-full and minhash-lsh). Identical
documents (equal full shingle sets) are paired whatever the rule; each pair row says which
rule accepted it (``decision``: ``own``, ``verified`` or ``identical``; ``rule``: the rule
with its bar) and the value it decided on (``score``).
"""

from __future__ import annotations

import dataclasses
import resource
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from os import PathLike
from typing import Any, ClassVar, Literal, Protocol

import numpy as np

from neardup._collector import FEWER_COLLECTIONS, Shared
from neardup._memory import no_huge_page_advice, whole_heap
from neardup._spill import PartStack, default_budget
from neardup._version import __version__
from neardup.errors import AccountingError, ParameterError, check_choice, check_int
from neardup.frames import adapt_source
from neardup.job.cluster import Cluster, make_clusters
from neardup.job.decide import (
    Decided,
    Decision,
    decide,
    decision_summary,
    prefilter_summary,
    signature_scores,
    sketch_prefilter,
)
from neardup.job.keep import containments, drop_reason, field_ranks
from neardup.job.pairs import Pair, PairTable
from neardup.job.prepare import (
    PreparedDocuments,
    claim_ids,
    kernel_of,
    no_repeats,
    prepare_stream,
    screen,
    uses_token_fingerprints,
)
from neardup.methods.base import Method, Prepared
from neardup.methods.corpus_stats import CorpusStatistics
from neardup.methods.decision import resolve_decision
from neardup.methods.lsh import banding_summary, thread_limit
from neardup.methods.plan import MethodPlan, PrepareConfig, plan_for
from neardup.methods.prefix import containment_candidates, rank_by_frequency
from neardup.methods.registry import make_method
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling
from neardup.options import JOB_OPTIONS, OPTIONS, validate_options
from neardup.progress import NullProgress, Progress
from neardup.text.types import Document, Skipped
from neardup.text.units import ReadOptions, UniqueIds

_BATCH = 2048
_BATCH_CHARS = 2_000_000  # bounds the vectorised tokenizer's temporary arrays


@dataclass(frozen=True, slots=True)
class Dropped:
    """A document dropped in favour of its cluster's kept document (``dropped.jsonl``).

    Attributes:
        id: the dropped document; kept: the document kept in its place.
        cluster: its cluster number, or None for a document dropped for its match in
            ``--against`` (not clustered).
        reason: why, in words.
        match: with ``--against``, the id of the ``--against`` document it matches (the
            best one: highest ``score``, then the smallest id), else None.
        score: the value that decided that match (:mod:`neardup.job.decide`), in [0, 1].
    """

    id: str
    kept: str
    cluster: int | None
    reason: str
    match: str | None = None
    score: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready row (``match`` and ``score`` only for a match in ``--against``)."""
        row: dict[str, Any] = {
            "id": self.id,
            "kept": self.kept,
            "cluster": self.cluster,
            "reason": self.reason,
        }
        if self.match is not None:
            row["match"] = self.match
            row["score"] = self.score
        return row


@dataclass
class DedupResult:
    """Everything the job found.

    Every result names documents by id. :meth:`to_arrow` and :meth:`to_pandas` give one of
    the four tables with the columns of its JSON lines file (``pairs.jsonl``,
    ``clusters.jsonl``, ``dropped.jsonl``, ``skipped.jsonl``).

    Attributes:
        ids: ids of the processed documents, in input order (index = document number).
        pairs: verified pairs (a :class:`~neardup.job.pairs.PairTable`: a sequence of
            :class:`Pair` stored as columns); clusters: clusters of size >= 2 with their
            kept member (:class:`~neardup.job.cluster.Cluster`: ids, and positions in ``ids``);
        dropped: dropped documents; skipped: skipped inputs;
        summary: counts, parameters, version, seconds per stage, peak memory.
        frame: the DataFrame/Table given as ``source`` with ``cluster`` and ``duplicate_of``
            columns (:func:`neardup.frames.annotate`), or None.
        against: with ``against=``, the number of leading ``ids`` that are the
            ``against`` documents (never dropped, never kept: :meth:`kept_ids` is the
            source's); 0 otherwise.
        lengths: int64 (len(ids),): canonical tokens of each document (the ``longest``
            keep rule), or None.
    """

    ids: list[str]
    pairs: Sequence[Pair]
    clusters: list[Cluster]
    dropped: list[Dropped]
    skipped: list[Skipped]
    summary: dict[str, Any] = field(default_factory=dict)
    frame: Any = None
    against: int = 0
    lengths: np.ndarray | None = None

    def kept_ids(self) -> list[str]:
        """Ids of the kept documents of the source (with ``against=``, the source's
        documents minus the dropped ones; the ``against`` documents are not listed)."""
        dropped = {d.id for d in self.dropped}
        return [i for i in self.ids[self.against :] if i not in dropped]

    def cluster_rows(self) -> Iterator[dict[str, Any]]:
        """``clusters.jsonl`` rows: ``{cluster, members, keep}`` with document ids."""
        for c in self.clusters:
            yield c.as_dict()

    def marks(self) -> dict[str, tuple[int | None, str | None]]:
        """Mark, don't drop: ``{id: (cluster, duplicate_of)}`` for every document read (the
        skipped ones too): the cluster number (None in no cluster) and, for a document
        the job drops, the id of its cluster's kept document (else None). The columns
        ``--kept --mark`` adds to every record (:func:`neardup.job.export.export_marked`)."""
        out: dict[str, tuple[int | None, str | None]] = {s.id: (None, None) for s in self.skipped}
        out.update((i, (None, None)) for i in self.ids)
        for c in self.clusters:
            out.update((m, (c.cluster, None)) for m in c.members)
        out.update((d.id, (d.cluster, d.kept)) for d in self.dropped)
        return out

    def to_arrow(self, table: str = "pairs") -> Any:
        """One table of the result as a ``pyarrow.Table``.

        Args:
            table: ``pairs`` (columns of :meth:`PairTable.to_arrow`), ``clusters``
                (``cluster`` int64, ``members`` list of ids, ``keep`` id), ``dropped``
                (``id``, ``kept``, ``cluster``, ``reason``) or ``skipped`` (``id``,
                ``source``, ``reason``, ``detail``).

        Raises:
            ParameterError: an unknown ``table``.
            InputError: pyarrow is not installed.
        """
        from neardup.result_tables import rows_to_arrow

        if check_choice("table", table, RESULT_TABLES) == "pairs":
            return _pair_table(self).to_arrow()
        return rows_to_arrow(self._rows(table), _TABLE_COLUMNS[table])

    def to_pandas(self, table: str = "pairs") -> Any:
        """One table of the result as a ``pandas.DataFrame`` (the columns of
        :meth:`to_arrow`; ``members`` cells are lists of ids).

        Raises:
            ParameterError: an unknown ``table``.
            InputError: pandas is not installed.
        """
        from neardup.result_tables import rows_to_pandas

        if check_choice("table", table, RESULT_TABLES) == "pairs":
            return _pair_table(self).to_pandas()
        return rows_to_pandas(self._rows(table), _TABLE_COLUMNS[table])

    def _rows(self, table: str) -> Iterator[dict[str, Any]]:
        if table == "clusters":
            return self.cluster_rows()
        items = self.dropped if table == "dropped" else self.skipped
        return (item.as_dict() for item in items)


#: The tables of :meth:`DedupResult.to_arrow`.
RESULT_TABLES: tuple[str, ...] = ("pairs", "clusters", "dropped", "skipped")
_TABLE_COLUMNS: dict[str, dict[str, str]] = {
    "clusters": {"cluster": "int", "members": "list[str]", "keep": "str"},
    "dropped": {"id": "str", "kept": "str", "cluster": "int", "reason": "str"},
    "skipped": {"id": "str", "source": "str", "reason": "str", "detail": "str"},
}


def _pair_table(result: DedupResult) -> PairTable:
    """The result's pairs as a :class:`PairTable` (built from :class:`Pair` values when a
    caller made the result with a plain sequence)."""
    if isinstance(result.pairs, PairTable):
        return result.pairs
    return PairTable.from_pairs(list(result.pairs), method=result.summary.get("method", ""))


@dataclass(frozen=True, kw_only=True)
class DedupOptions:
    """Job options, validated by their one declaration
    (:data:`neardup.options.OPTIONS`: the same value gets the same error from
    collections, the API and the CLI).

    Args:
        measure: ``resemblance`` or ``containment``.
        threshold: decision threshold in (0, 1].
        keep: ``longest`` or ``first``.
        keep_by: a record field (``"date"``; ``"meta.date"`` reaches into an object) whose
            largest value (``keep_order="max"``, e.g. the newest date) or smallest
            (``"min"``) each cluster keeps, instead of ``keep``; numbers compare as
            numbers, dates and ISO 8601 strings as dates, anything else as strings
            (:func:`neardup.job.keep.value_kind`); a record without the field loses to one
            with it; ties go to the earlier document. For document files (a directory of
            ``.txt``...) the field ``mtime`` is the file's modification time (POSIX
            seconds). The field is read from input paths or a DataFrame/Table column.
        keep_order: ``max`` or ``min`` (only with ``keep_by``).
        decision: ``own`` (the method's own rule), ``verified`` (exact shingle sets) or
            ``None`` (the method's default; see :mod:`neardup.methods.decision`).
        min_tokens: documents with fewer canonical tokens are skipped as ``too-short``,
            1 to 1,000,000.

    The index keys shared by too many documents are the method's parameter ``max_df``
    (``dedup(..., max_df=N)``, ``-p max_df=N``), not a job option.

    Raises:
        ParameterError: an option out of its declaration (names it, the value and what is
            allowed), or ``keep_order`` other than ``max`` without ``keep_by``.
    """

    measure: Literal["resemblance", "containment"] = OPTIONS["measure"].default
    threshold: float = OPTIONS["threshold"].default
    keep: Literal["longest", "first"] = OPTIONS["keep"].default
    keep_by: str | None = OPTIONS["keep_by"].default
    keep_order: Literal["max", "min"] = OPTIONS["keep_order"].default
    decision: Literal["own", "verified"] | None = OPTIONS["decision"].default
    min_tokens: int = OPTIONS["min_tokens"].default

    def __post_init__(self) -> None:
        validate_options(self, JOB_OPTIONS)
        if self.keep_by is None and self.keep_order != "max":
            raise ParameterError("keep_order", self.keep_order, "max unless keep_by is given")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready options."""
        return {name: getattr(self, name) for name in JOB_OPTIONS}


#: ``(wanted ids) -> {id: value}``: a keep-by field's values of the clustered documents.
FieldReader = Callable[[set[str]], dict[str, Any]]


@dataclass(frozen=True, kw_only=True, eq=False)
class Job:
    """One dedup job as :func:`dedup` hands it to an :class:`Executor`: everything
    resolved and checked, nothing read yet.

    Attributes:
        groups: the inputs, ``[source]`` or, with ``against``, ``[against, source]`` (A's
            first); each input paths or documents (:func:`dedup` turned texts, pairs and
            frames into documents).
        method: the method, built (:func:`resolve_method`); options: the options with the
            decision resolved (:func:`decided_options`).
        read_options: how input paths are read.
        within: with ``against``: B's duplicates among themselves are dropped too.
        field_reader: the keep-by field's reader, or None (no ``keep_by``).
        progress: the receiver of the stages' progress; clock: ``() -> seconds``.
    """

    groups: list[Any]
    method: Method
    options: DedupOptions
    read_options: ReadOptions
    within: bool = True
    field_reader: FieldReader | None = None
    progress: Progress = field(default_factory=NullProgress)
    clock: Any = time.perf_counter


class Executor(Protocol):
    """What runs a :class:`Job`: the in-process job (:mod:`neardup.job.executors.local`),
    a pool of worker processes (:mod:`neardup.job.executors.pool`), a Dask cluster
    (:mod:`neardup.distributed.executor`) or the Dask plan in this process
    (:mod:`neardup.distributed.inline`). Every executor gives the same
    :class:`DedupResult`: the same pairs, clusters, dropped and skipped rows, and a summary
    with the same keys (:func:`job_summary`; its own figures under ``summary["executor"]``).

    The stages are read -> prepared -> signed -> candidates -> decided -> clusters ->
    kept -> written, each written once (the prepare kernel, :func:`plan_for`'s signer
    and candidates, :func:`neardup.job.decide.decide`, :func:`neardup.job.cluster.keepers`,
    :func:`neardup.output.write_table`, :class:`~neardup.text.units.UniqueIds`,
    :func:`job_summary`) and run two ways:

    - over the whole corpus in this process (:func:`run_here`: the local and pool
      executors; the pool maps the read units to its worker processes);
    - over the input's partitions, as tasks that the executor maps, shuffles and gathers
      (:func:`neardup.distributed.stages.run_partitioned` over a
      :class:`neardup.distributed.tasks.TaskRunner`: the Dask and inline executors).

    A new executor is one module with a class implementing this protocol, given to
    :func:`dedup` as ``executor=`` (or named in :data:`EXECUTORS`); one running the
    partitioned job (Ray, say) implements a :class:`~neardup.distributed.tasks.TaskRunner`
    (``submit`` and ``gather``; ``map``, ``shuffle``, ``wait``, ``holders``, ``workers``
    optional) and calls ``run_partitioned`` in its ``run``, as
    :mod:`neardup.distributed.inline` does. An executor that cannot run a job refuses it
    in :meth:`run`, before any work, with a :class:`~neardup.errors.ParameterError` naming
    what it cannot run.

    Attributes:
        name: the executor's name (``summary["executor"]["name"]``).
        settings: the :func:`dedup` arguments it takes when named by a string (``jobs``,
            ``memory_budget``, ``spill_dir``); the others are refused.
        writes_files: whether :meth:`run` writes the four JSONL files of the result into
            an output directory of its own (the Dask workers do, a piece a partition
            through :func:`neardup.output.write_table`; then
            :func:`neardup.output.write_result` adds ``summary.json`` only).
    """

    name: ClassVar[str]
    settings: ClassVar[tuple[str, ...]]
    writes_files: ClassVar[bool]

    def run(self, job: Job) -> DedupResult:
        """Run ``job``; its result."""
        ...


#: Executor name -> ``module:class`` (imported when named: the partitioned executors sit
#: above the job, in :mod:`neardup.distributed`; the Dask one imports Dask when it runs).
EXECUTORS: dict[str, str] = {
    "local": "neardup.job.executors.local:InProcess",
    "pool": "neardup.job.executors.pool:ProcessPool",
    "dask": "neardup.distributed.executor:DaskExecutor",
    "inline": "neardup.distributed.inline:InlineExecutor",
}


def executor_for(executor: str | Executor | None, **settings: Any) -> Executor:
    """The executor of a job: ``executor`` itself, the one :data:`EXECUTORS` names (made
    with the ``settings`` it takes), or, for None, the pool (which runs in this process
    when ``jobs`` is 1 or the input is not paths).

    Args:
        executor: an :class:`Executor`, a name of :data:`EXECUTORS`, or None.
        **settings: :func:`dedup`'s ``jobs``, ``memory_budget`` and ``spill_dir`` (None:
            not given).

    Raises:
        ParameterError: an unknown name; a setting the executor does not take (or any
            setting with an :class:`Executor` object: set it on the object).
    """
    given = {k: v for k, v in settings.items() if v is not None}
    if executor is not None and not isinstance(executor, str):
        for key, value in given.items():
            raise ParameterError(key, value, "None with an Executor object (set it there)")
        return executor
    from importlib import import_module

    name = check_choice("executor", executor or "pool", tuple(EXECUTORS))
    module, _, cls_name = EXECUTORS[name].partition(":")
    cls = getattr(import_module(module), cls_name)
    for key, value in given.items():
        if key not in cls.settings:
            raise ParameterError(key, value, f"None with the {name} executor")
    made: Executor = cls(**given)
    return made


class _Clock:
    """Seconds per stage (``clock``: injectable for determinism in tests) and this process's
    CPU seconds (all its threads, ``time.process_time``) per stage where they were taken:
    the stages run by :meth:`run` and those :meth:`add` is given them for."""

    def __init__(self, clock: Any = time.perf_counter) -> None:
        self._clock = clock
        self.seconds: dict[str, float] = {}
        self.cpu_seconds: dict[str, float] = {}

    def run(self, stage: str, fn: Any, *args: Any) -> Any:
        t0, c0 = self._clock(), time.process_time()
        out = fn(*args)
        self.add(stage, self._clock() - t0, time.process_time() - c0)
        return out

    def now(self) -> float:
        return float(self._clock())

    def add(self, stage: str, seconds: float, cpu_seconds: float | None = None) -> None:
        self.seconds[stage] = round(self.seconds.get(stage, 0.0) + seconds, 6)
        if cpu_seconds is not None:
            cpu = self.cpu_seconds.get(stage, 0.0) + cpu_seconds
            self.cpu_seconds[stage] = round(cpu, 6)


def children_cpu_seconds() -> float:
    """CPU seconds (user + system) of this process's ended and waited-for child processes
    (``RUSAGE_CHILDREN``): a pool's workers' once it has shut down."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return float(used.ru_utime + used.ru_stime)


def dedup(
    source: Iterable[Document] | Sequence[str | PathLike[str]] | Any,
    *,
    method: str | Method = OPTIONS["dedup_method"].default,
    options: DedupOptions | None = None,
    read_options: ReadOptions | Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    clock: Any = time.perf_counter,
    jobs: int | None = None,
    memory_budget: int | None = None,
    spill_dir: str | PathLike[str] | None = None,
    texts: bool | None = None,
    id_field: str = OPTIONS["id_field"].default,
    text_field: str = OPTIONS["text_field"].default,
    against: Iterable[Document] | Sequence[str | PathLike[str]] | str | PathLike[str] | Any = None,
    within: bool = True,
    executor: str | Executor | None = None,
    **method_params: Any,
) -> DedupResult:
    """Find near-duplicate pairs and clusters in a corpus and decide what to keep.

    Args:
        source: :class:`~neardup.text.Document` objects, or input paths for
            :func:`neardup.text.read_corpus` (``read_options`` are passed to it), or texts,
            ``(id, text)`` pairs, a pandas/polars DataFrame, a pyarrow Table or a
            ``datasets.Dataset`` (``id_field``/``text_field`` columns): see
            :mod:`neardup.frames`, which also gives the rule for strings (paths when the
            first names an existing path or looks like one, else texts; ``texts=True`` or
            ``False`` says it outright).
            Given a frame or table, ``DedupResult.frame`` is it with ``cluster`` and
            ``duplicate_of`` columns.
        method: a registry name or a :class:`~neardup.methods.base.Method`.
        options: :class:`DedupOptions`; defaults if omitted.
        read_options: how input paths are read: a :class:`~neardup.text.read.ReadOptions`
            or the keyword arguments of :func:`neardup.text.read.read_options` (validated
            first, whatever ``source`` is); defaults if omitted.
        progress: stage progress receiver (the CLI's bars); silent by default.
        clock: ``() -> seconds`` used for stage timings.
        jobs: worker processes that read, prepare and shingle input paths (default: the
            cores available; 1: this process only). The result does not depend on it. Used
            for word shingles with XXH64 fingerprints and methods that sign from the
            shingle sets; other methods read in this process. It also bounds the threads
            of the LSH band keys and band grouping (:func:`neardup.methods.lsh.thread_limit`).
            A setting of the pool executor (:class:`~neardup.job.executors.pool.ProcessPool`).
        memory_budget: bytes of shingle sets and signature rows the job holds in memory
            (>= 0; default: a quarter of the physical memory); past it they are kept in
            temporary files in ``spill_dir`` (default: the system's temporary directory)
            and read through memory maps. The result does not depend on it. Applies to
            the worker path (input paths, methods that sign from the shingle sets).
            Settings of the local and pool executors.
        against: a second corpus A, of any kind ``source`` may be (paths are read with
            ``read_options``; a frame's annotation is not made then): only ``source``'s
            documents (B) are dropped, never A's. A B document is dropped when it has a
            decided match in A (``Dropped.match`` names the best, ``Dropped.score`` its
            score; no cluster) or, with ``within``, in B itself (clusters of B as without
            ``against``, among the B documents without a match in A). Pairs of two A
            documents are never compared. ``ids`` hold A's documents first
            (``DedupResult.against`` of them); ids of paths are relative to the common
            parent of A's and B's inputs, so the two never collide (a record id of B that
            A holds already is renamed by its place, as a repeated id is). The summary
            counts B (``read = kept + removed + skipped``); A's counts are in
            ``summary["against"]``.
        within: with ``against``: also drop B documents that match other B documents
            (default); False: check B against A only.
        executor: what runs the job (:class:`Executor`): ``"local"`` (this process),
            ``"pool"`` (``jobs`` worker processes; the default), ``"dask"``
            (:class:`neardup.distributed.executor.DaskExecutor` on a ``LocalCluster``; give
            a ``DaskExecutor`` object for a cluster of your own), or an executor object.
            The result does not depend on it.
        **method_params: parameters of the named method (``shingle_size=4``, ``m=25``...).
            For ``minhash-lsh``, ``threshold`` defaults to ``options.threshold``.

    Returns:
        :class:`DedupResult`.

    Raises:
        ParameterError: a bad option or method parameter; a job the executor cannot run
            (named: ``keep_by`` or documents on Dask).
        InputError: an input path does not exist.
    """
    from neardup.text.read import as_read_options

    ropts = as_read_options(read_options)  # validated before anything is read
    runner = executor_for(executor, jobs=jobs, memory_budget=memory_budget, spill_dir=spill_dir)
    opts = options or DedupOptions()
    meth = resolve_method(method, opts, method_params)
    opts = decided_options(meth, opts)
    job = partial(Job, method=meth, options=opts, read_options=ropts,
                  progress=progress or NullProgress(), clock=clock)  # fmt: skip
    if against is not None:
        if not isinstance(within, bool):
            raise ParameterError("within", within, "True or False")
        if options is not None and options.keep_by is not None:
            raise ParameterError(
                "keep_by", options.keep_by, "None with against (A's matches decide what goes)"
            )
        groups = [
            _plain_source(g, texts=texts, id_field=id_field, text_field=text_field)
            for g in (against, source)
        ]
        return runner.run(job(groups=groups, within=within))
    adapted = adapt_source(source, texts=texts, id_field=id_field, text_field=text_field)
    field = opts.keep_by
    if adapted is not None:
        reader = None if field is None else adapted.field_reader(field)
        result = runner.run(job(groups=[adapted.documents], field_reader=reader))
        return adapted.finish(result)
    reader = None if field is None else _path_field_reader(source, field, ropts)
    return runner.run(job(groups=[source], field_reader=reader))


def _plain_source(source: Any, **how: Any) -> Any:
    """``source`` as input paths or documents (a frame, table or texts: its documents; one
    path: a list of it)."""
    if isinstance(source, str | PathLike) and not how.get("texts"):
        return [source]
    adapted = adapt_source(source, **how)
    return source if adapted is None else adapted.documents


def _path_field_reader(source: Any, field: str, opts: ReadOptions) -> FieldReader:
    """The keep-by field's reader for input paths: a second streaming pass over them
    (:func:`neardup.job.export.field_values`).

    Raises:
        ParameterError: ``source`` is documents or texts (they have no other fields).
    """
    if not _is_paths(source):
        raise ParameterError(
            "keep_by",
            field,
            "given with input paths or a DataFrame/Table (documents and texts have no "
            "fields to keep by)",
        )
    from neardup.job.export import field_values

    paths = list(source)
    return lambda wanted: field_values(paths, wanted, field, opts)


#: numpy's huge page advice off while held (:func:`neardup._memory.no_huge_page_advice`):
#: the local job's main process keeps the large arrays it makes (:func:`run_here`).
WITHOUT_HUGE_PAGE_ADVICE = Shared(no_huge_page_advice)
#: Every allocation from the heap, freed memory kept (:func:`neardup._memory.whole_heap`):
#: the local job's main process makes and frees arrays of hundreds of MiB in every stage.
WHOLE_HEAP = Shared(whole_heap)


@FEWER_COLLECTIONS.applied()
@WITHOUT_HUGE_PAGE_ADVICE.applied()
@WHOLE_HEAP.applied()
def run_here(
    job: Job,
    *,
    executor: str,
    jobs: int | None,
    memory_budget: int | None,
    spill_dir: str | PathLike[str] | None,
) -> DedupResult:
    """Run ``job`` in this process, reading, preparing and shingling input paths on
    ``jobs`` worker processes (1: here; None: the cores available): the in-process and
    pool executors' run (``executor``: its name, for the summary). ``memory_budget`` and
    ``spill_dir``: as :func:`dedup` takes them. The collector's young collections are
    :data:`~neardup._collector.YOUNG_THRESHOLD` allocations apart while it runs
    (:data:`~neardup._collector.FEWER_COLLECTIONS`), numpy advises no huge pages
    (:data:`WITHOUT_HUGE_PAGE_ADVICE`) and glibc keeps freed memory (:data:`WHOLE_HEAP`)."""
    groups, meth, opts, read_options = job.groups, job.method, job.options, job.read_options
    within, field_reader, prog = job.within, job.field_reader, job.progress
    timer = _Clock(job.clock)
    plan = plan_for(meth, opts)
    shingling = meth.shingling
    streaming = plan.streams
    ingest = _Ingest(plan, shingling, timer, keep_docs=not streaming)
    spill = _Spill.make(memory_budget, spill_dir)
    limited = read_options.limit is not None  # a cut stream: one process
    children0 = children_cpu_seconds()
    if streaming and ingest.fast and all(_is_paths(g) for g in groups) and not limited:
        parallel = _ParallelIngest(ingest, read_options, jobs, plan, spill)
        sets, ids, lengths, skipped, signed = parallel.run(groups, prog)
        read, unique = parallel.read, parallel.unique
        worker_seconds = parallel.worker_seconds
        spilled = parallel.spilled
        kernel, kernel_note = parallel.kernel, parallel.kernel_note
        bounds = parallel.bounds
    else:
        c0 = time.process_time()
        if len(groups) == 1:
            ingest.run(*_items(groups[0], read_options, prog), prog)
        else:
            from neardup.text.inputs import Spool

            spool = Spool()
            try:
                for items in _group_items(groups, read_options, spool):
                    ingest.run(items, None, False, prog)
            finally:
                spool.close()
        # its CPU as one figure (its wall seconds are split by step: read, prepare...)
        timer.cpu_seconds.pop("read", None)
        timer.cpu_seconds["read+prepare"] = round(time.process_time() - c0, 6)
        sets, ids, lengths, skipped, signed = ingest.result()
        read, unique = ingest.read, ingest.unique
        worker_seconds, spilled = {}, False
        kernel, kernel_note = ingest.kernel, ingest.kernel_note
        bounds = ingest.bounds
    # with against: A's documents are ids[:first], its skip rows skipped[:a_skipped]
    first, a_read, a_skipped = bounds[0] if len(groups) > 1 else (0, 0, 0)
    n = len(ids)
    keys = timer.run("identical", signed.content_keys)  # made with the shingle sets
    with thread_limit(jobs):  # LSH band keys and band grouping: on at most jobs threads
        if signed.rows is not None:
            sigs = timer.run("sign", signed.signatures, meth, sets)
        else:
            sigs = timer.run("sign", _sign, ingest.prepared, plan, sets)
        warnings = lexicon_warnings(plan, n) + ([kernel_note] if kernel_note else [])
        restrict = partial(against_pairs, first=first, within=within) if len(groups) > 1 else None
        cand, decided, contained = find_pairs(
            meth, sigs, sets, keys, opts, timer=timer, progress=prog, restrict=restrict
        )
    pairs = decided.rows()
    if len(groups) > 1:
        matches = best_matches(pairs, ids, first)
        clusters, dropped = timer.run(
            "keep", keep_against, ids, lengths, pairs[pairs[:, :2].min(axis=1) >= first],
            matches, opts,
        )  # fmt: skip
        keep_by = None
    else:
        ranks, keep_by = None, None
        if field_reader is not None:
            ranks, keep_by = timer.run("keep", _keep_ranks, field_reader, ids, decided.pairs, opts)
        clusters = timer.run(
            "cluster", _cluster, ids, decided.pairs, lengths, opts, contained, ranks
        )
        dropped = timer.run(
            "keep", dropped_members, clusters, ids, pairs, contained, opts.threshold
        )
    pair_table = PairTable(ids, pairs, meth.name, decisions=decided.codes, rules=decided.labels)
    figures: dict[str, Any] = {"name": executor}
    if worker_seconds:
        figures["worker_seconds"] = worker_seconds
        if worker_seconds["jobs"] > 1:  # worker processes (1: this one, in cpu_seconds)
            figures["worker_cpu_seconds"] = round(children_cpu_seconds() - children0, 3)
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        figures["worker_peak_memory_mib"] = {"largest": round(children / 1024, 1)}
    figures["spilled_to_disk"] = spilled
    summary = job_summary(
        meth, opts, seconds=timer.seconds, cpu_seconds=timer.cpu_seconds,
        skipped=skipped[a_skipped:],
        candidates=int(cand.shape[0]), pairs=len(pair_table), clusters=len(clusters),
        dropped=len(dropped), decision=decision_summary(meth, decision_of(opts), decided.codes),
        kernel=kernel, warnings=[*warnings, *filter(None, [unique.warning()])],
        renamed_ids=unique.renamed, documents=n - first, executor=figures,
        verified=decided.candidates,
    )  # fmt: skip
    if keep_by is not None:
        summary["keep_by"] = keep_by
        if keep_by["clustered"] and keep_by["missing"] == keep_by["clustered"]:
            summary["warnings"].append(
                f"no clustered document has the field {opts.keep_by!r} (keep_by): each "
                "cluster kept its first document"
            )
    if len(groups) > 1:
        summary["against"] = _against_summary(first, a_read, skipped[:a_skipped], within, dropped)
    check_accounting(summary, read - a_read)
    return DedupResult(
        ids, pair_table, clusters, dropped, skipped[a_skipped:], summary,
        against=first, lengths=lengths,
    )  # fmt: skip


def against_pairs(cand: np.ndarray, first: int, *, within: bool) -> np.ndarray:
    """The candidate pairs a job ``against`` A compares: documents ``< first`` are A's,
    the others B's; a pair of two A documents is never compared, a pair of two B documents
    only ``within``. int64 (p', 2), in the order of ``cand``."""
    if not cand.size:
        return cand
    low = cand.min(axis=1)
    keep = cand.max(axis=1) >= first
    if not within:
        keep &= low < first
    return cand[keep]


def best_matches(rows: np.ndarray, ids: Sequence[str], first: int) -> dict[int, tuple[str, float]]:
    """``{B document: (A id, score)}``: each B document's best decided match in A (highest
    score rounded to 6 decimals, as a collection stores it, then the smallest id), from
    decided rows ``(a, b, resemblance, cab, cba, score)`` whose documents ``< first`` are
    A's."""
    out: dict[int, tuple[str, float]] = {}
    if not rows.shape[0]:
        return out
    a, b = rows[:, 0].astype(np.int64), rows[:, 1].astype(np.int64)
    cross = np.minimum(a, b) < first
    scores = np.round(rows[cross, 5], 6).tolist()  # as a collection stores them
    for x, y, score in zip(a[cross].tolist(), b[cross].tolist(), scores, strict=True):
        doc, match = (y, x) if x < first else (x, y)
        best = out.get(doc)
        if best is None or (-score, ids[match]) < (-best[1], best[0]):
            out[doc] = (ids[match], score)
    return out


def keep_against(
    ids: list[str],
    lengths: np.ndarray,
    rows: np.ndarray,
    matches: dict[int, tuple[str, float]],
    opts: DedupOptions,
) -> tuple[list[Cluster], list[Dropped]]:
    """The keep stage of a job against A: every B document with a match in A is dropped
    (naming the match and its score, in no cluster); the others are clustered by their
    decided B-B pairs ``rows`` and one document of each cluster is kept (the keep rule
    of a job without A). Rows of the dropped documents are left out of the clusters.

    Args:
        ids: document ids (A's first); lengths: canonical tokens per document;
        rows: float64 (p, 6): decided pairs of two B documents; matches:
            :func:`best_matches` (or a collection's, by document number); opts: the job's.

    Returns:
        The clusters of B, and the dropped documents in input order.
    """
    if matches and rows.shape[0]:
        gone = np.array(sorted(matches), dtype=np.int64)
        ends = rows[:, :2].astype(np.int64)
        rows = rows[~np.isin(ends, gone).any(axis=1)]
    contained = containments(rows, opts.threshold) if opts.measure == "containment" else {}
    edges = rows[:, :2].astype(np.int64)
    clusters = make_clusters(ids, edges, lengths, keep=opts.keep, contained_in=contained)
    dropped = dropped_members(clusters, ids, rows, contained, opts.threshold)
    for doc, (match, score) in matches.items():
        why = f"matches {match} in --against (score {score:.3f})"
        dropped.append(Dropped(ids[doc], match, None, why, match, score))
    where = {doc_id: k for k, doc_id in enumerate(ids)}
    dropped.sort(key=lambda d: where[d.id])
    return clusters, dropped


def _against_summary(
    documents: int, read: int, skipped: list[Skipped], within: bool, dropped: list[Dropped]
) -> dict[str, Any]:
    """``summary["against"]``: A's counts, ``within``, and the B documents dropped for a
    match in A."""
    reasons: dict[str, int] = {}
    for s in skipped:
        reasons[s.reason] = reasons.get(s.reason, 0) + 1
    return against_counts(
        documents, read, reasons, within, sum(d.match is not None for d in dropped)
    )


def against_counts(
    documents: int, read: int, reasons: dict[str, int], within: bool, matched: int
) -> dict[str, Any]:
    """``summary["against"]`` of a job against A (this job and the Dask engine's): A's
    records ``read``, ``documents`` and skips (``reasons``: count by reason), ``within``
    and the B documents dropped for a match in A (``matched``)."""
    return {
        "read": read,
        "documents": documents,
        "skipped": sum(reasons.values()),
        "skipped_by_reason": dict(sorted(reasons.items())),
        "within": within,
        "matched": matched,
    }


def find_pairs(
    meth: Method,
    sigs: Any,
    sets: ShingleSets,
    keys: np.ndarray,
    opts: DedupOptions,
    *,
    timer: _Clock | None = None,
    progress: Progress | None = None,
    restrict: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, Decided, dict[int, int]]:
    """The candidate and decision stages over a whole corpus, written once (the local job;
    the Dask engine's one task for methods whose index needs the whole corpus).

    ``containment``: the fingerprints are ranked by corpus frequency and the containment
    prefix index (:func:`neardup.methods.prefix.containment_candidates`) adds its pairs; the
    groups of identical documents are always candidates; the pairs are decided by
    :func:`neardup.job.decide.decide`.

    Args:
        meth: the (fitted) method; sigs: its signatures of the ``n`` documents; sets: their
            full shingle sets; keys: uint64 (n,) content keys; opts: resolved options
            (:func:`decided_options`).
        timer: stage clock (``rank``, ``candidates``, ``prefilter``, ``relabel``,
            ``verify``); progress: receiver of the ``candidates`` and ``verify`` stages.
        restrict: keeps the candidate pairs to decide (``dedup --against``:
            :func:`against_pairs`); all of them when None.

    Returns:
        ``(candidates, decided, contained)``: int64 (c, 2) candidate pairs (``a < b``,
        sorted), the decided pairs in that order (``decided.candidates``: those compared,
        after :func:`neardup.job.decide.sketch_prefilter`), and ``{doc: container}``
        (:func:`neardup.job.keep.containments`; empty for resemblance).
    """
    clock = timer or _Clock()
    prog = progress or NullProgress()
    if opts.measure == "containment":  # the containment index needs frequency ranks
        sets = clock.run("rank", rank_by_frequency, sets)
    cand = clock.run("candidates", _candidates, meth, sigs, sets, opts, prog, keys)
    if restrict is not None:
        cand = restrict(cand)
    checked = clock.run("prefilter", sketch_prefilter, plan_for(meth, opts), sigs, cand, sets.sizes)
    if _relabel(opts, sets, checked):
        # many candidates: dense labels (< 2**32) make the exact intersections one int64 sort
        sets = clock.run("relabel", ShingleSets.dense_labels, sets)
    decided, contained = clock.run(
        "verify", partial(_verify, keys=keys), meth, sigs, sets, checked, opts, prog
    )
    return cand, decided, contained


def resolve_method(method: str | Method, opts: DedupOptions, params: dict[str, Any]) -> Method:
    """The method of a job: ``method`` itself, or the registry's method built from
    ``params`` (``threshold`` defaulting to ``opts.threshold`` when the method has one).

    Raises:
        ParameterError: parameters given with a Method object, an unknown method or
            parameter, or a value out of range.
    """
    if not isinstance(method, str):
        if params:
            raise ParameterError("method_params", sorted(params), "none with a Method object")
        return method
    from neardup.methods.registry import method_class

    cls = method_class(method)
    if any(f.name == "threshold" for f in dataclasses.fields(cls)):
        params.setdefault("threshold", opts.threshold)
    return make_method(method, **params)


def decided_options(meth: Method, opts: DedupOptions) -> DedupOptions:
    """``opts`` with the decision resolved for ``meth`` (``decision`` set).

    Raises:
        ParameterError: the method's own rule cannot decide on ``opts.measure`` (for
            example containment with shingles-min: only the mod-m sample estimates it).
    """
    mode = resolve_decision(meth, opts.decision, opts.measure)
    return dataclasses.replace(opts, decision=mode)  # type: ignore[arg-type]


def lexicon_warnings(plan: MethodPlan, num_docs: int) -> list[str]:
    """Warnings of a lexical method whose fitted lexicon is too small for the collection
    (the method's ``lexicon_warning(num_docs)``)."""
    if not plan.needs_fit:
        return []
    text = plan.method.lexicon_warning(num_docs)
    return [text] if text else []


def identical_pairs(keys: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Each group of documents with equal content keys among the ``live`` ones (non-empty
    sets) as a star, its first member paired with each other one: int64 (p, 2), ``a < b``,
    grouped by key (every executor's candidates of identical documents).

    Args:
        keys: uint64 (n,) content keys; live: bool (n,).

    Only the keys that can repeat are sorted (:func:`neardup.methods.lsh.repeated_groups`:
    at ten million documents 0.3 s against 1.8 s for a stable argsort of every key)."""
    from neardup._array import pairs_in_groups
    from neardup.methods.lsh import repeated_groups

    rows = np.flatnonzero(live).astype(np.int64)
    members, starts, sizes = repeated_groups(keys[rows], rows)
    return pairs_in_groups(members, starts, sizes, max_group=2)


def _is_paths(source: object) -> bool:
    return isinstance(source, Sequence) and all(isinstance(s, str | PathLike) for s in source)


def _group_items(
    groups: list[Any], opts: ReadOptions, spool: Any
) -> list[Iterable[Document | Skipped]]:
    """The documents of each of several groups of inputs; paths are named relative to the
    common parent of all (:func:`neardup.text.inputs.group_names`)."""
    from neardup.text.inputs import group_names, resolve_inputs
    from neardup.text.read import read_named

    resolved = [resolve_inputs([str(p) for p in g], spool) if _is_paths(g) else [] for g in groups]
    names = group_names(resolved)
    return [
        read_named(paths, opts, nm) if _is_paths(g) else g
        for g, paths, nm in zip(groups, resolved, names, strict=True)
    ]


def _items(
    source: Iterable[Document] | Sequence[str | PathLike[str]],
    opts: ReadOptions,
    prog: Progress,
) -> tuple[Iterable[Document | Skipped], int | None, bool]:
    """The items of ``source``, the planned bytes of the read (None if unknown) and whether
    the read's progress is in bytes (input paths: it advances as units are read)."""
    if _is_paths(source):
        from neardup.text.read import read_counted

        total, items = read_counted(
            list(source),  # type: ignore[arg-type]
            opts,
            lambda n: prog.advance("read", n),
        )
        return items, total, True
    return source, None, False  # type: ignore[return-value]


@dataclass(frozen=True, eq=False)
class Signed:
    """What the workers computed past the shingle sets, in order.

    Attributes:
        keys: uint64 content keys per unit; rows: the signature rows (in memory or spilled
        to disk), or None when the method does not sign one row per document; lean: the
        rows are the method's ``lean_rows`` (:attr:`~neardup.methods.plan.PrepareConfig.lean`).
    """

    keys: list[np.ndarray]
    rows: PartStack | None
    lean: bool = False

    def content_keys(self) -> np.ndarray:
        """uint64 (n,): the corpus' content keys."""
        return np.concatenate(self.keys) if self.keys else np.zeros(0, np.uint64)

    def signatures(self, meth: Method, sets: ShingleSets) -> Any:
        """The method's signatures of the whole corpus: its rows stacked (``from_sets`` of
        the empty ``sets`` when there are none). Consumes :attr:`rows`."""
        if self.rows is None or not len(self.rows):
            return meth.from_sets(sets)
        rows = self.rows.stack(np.zeros(0, np.uint64))
        return meth.from_lean_rows(rows) if self.lean else meth.from_rows(rows)


@dataclass(frozen=True, slots=True)
class _Spill:
    """Where the worker path's sets and rows go past ``budget`` bytes (None: never)."""

    budget: int | None
    dir: str | None

    @classmethod
    def make(cls, budget: int | None, directory: str | PathLike[str] | None) -> _Spill:
        if budget is not None:
            check_int("memory_budget", budget, low=0)
        return cls(default_budget() if budget is None else budget, _spill_dir(directory))


def _spill_dir(directory: str | PathLike[str] | None) -> str | None:
    if directory is None:
        return None
    from pathlib import Path

    path = Path(directory)
    if not path.is_dir():
        raise ParameterError("spill_dir", str(directory), "an existing directory")
    return str(path)


class _ParallelIngest:
    """Read, prepare and shingle input paths on ``jobs`` worker processes
    (:mod:`neardup.job.prepare_pool`); the stage ``read+prepare`` is the wall time of all three.
    Content keys, and the signatures of methods that sign one row per document
    (``rows_per_document``), are made in the workers too (:attr:`signed`)."""

    def __init__(
        self,
        ingest: _Ingest,
        read_options: ReadOptions,
        jobs: int | None,
        plan: MethodPlan,
        spill: _Spill,
    ) -> None:
        from neardup.job.prepare_pool import check_jobs, default_jobs, pool_safe

        self._ingest = ingest
        self._read = read_options
        self._config = plan.prepare_config(rows=True, texts=True, read=self._read, lean=True)
        #: the prepare kernel the workers run (``summary.json``'s ``kernel``), and the line
        #: the job warns with when the compiled kernel is not built
        self.kernel, self.kernel_note = _kernel(self._config)
        if jobs is not None:
            check_jobs(jobs)
        self._jobs = (jobs or default_jobs()) if pool_safe() else 1
        self.worker_seconds: dict[str, float] = {}
        self.read = 0
        self.unique = UniqueIds()
        self._spill = spill
        self.spilled = False
        #: ``(ids, read, skipped)`` after each group of inputs
        self.bounds: list[tuple[int, int, int]] = []

    def run(
        self, groups: Sequence[Sequence[str | PathLike[str]]], prog: Progress
    ) -> tuple[ShingleSets, list[str], np.ndarray, list[Skipped], Signed]:
        """Read the groups of input paths one after another (``[against, source]`` or
        ``[source]``), ids relative to the common parent of all; :attr:`bounds` gets
        ``(ids, read, skipped)`` after each group."""
        from neardup.job.prepare_pool import UnitMerger, prepared_units
        from neardup.text.inputs import (
            Spool,
            group_names,
            plan_units,
            planned_bytes,
            resolve_inputs,
        )

        timer = self._ingest._timer
        t0, c0 = timer.now(), time.process_time()
        spool = Spool()
        merger = UnitMerger(budget=self._spill.budget, spill_dir=self._spill.dir)
        try:
            resolved = [resolve_inputs([str(p) for p in paths], spool) for paths in groups]
            total = sum(planned_bytes(paths, self._read) for paths in resolved)
            prog.start("read", total, unit="bytes")
            self.unique = merger.unique
            done = 0
            for paths, names in zip(resolved, group_names(resolved), strict=True):
                weights: deque[int] = deque()  # each unit's bytes, in the order results come
                units = _noted(plan_units(paths, self._read, names=names), weights)
                for item in prepared_units(units, self._config, jobs=self._jobs):
                    self.read += merger.add(item)
                    weight = weights.popleft()
                    done += weight
                    prog.advance("read", weight)
                    merger.expect(done, total)
                self.bounds.append((len(merger.ids), self.read, len(merger.skipped)))
        finally:
            spool.close()
        prog.finish("read")
        timer.add("read+prepare", timer.now() - t0, time.process_time() - c0)
        read_s, prepare_s, shingle_s, sign_s = (round(float(x), 6) for x in merger.seconds)
        self.worker_seconds = {
            "jobs": self._jobs,
            "read": read_s,
            "prepare": prepare_s,
            "shingle": shingle_s,
            "sign": sign_s,
        }
        rows = merger.rows if self._config.signer else None
        signed = Signed(merger.keys, rows, self._config.lean)
        self.spilled = merger.spilled
        lengths = np.array(merger.lengths, dtype=np.int64)
        return merger.sets(), merger.ids, lengths, merger.skipped, signed


def _noted(units: Iterable[Any], weights: deque[int]) -> Iterator[Any]:
    """``units`` as they are, each one's bytes (``weight``; 0 for a skip) noted in turn."""
    for unit in units:
        weights.append(getattr(unit, "weight", 0))
        yield unit


class _Ingest:
    """One streaming pass over documents: batches prepared by
    :func:`neardup.job.prepare.prepare_documents`, repeated ids and too-short documents skipped
    by :func:`neardup.job.prepare.screen`.

    Token lists are kept only when the method signs from prepared documents
    (``keep_docs``); shingle methods need nothing but the sets, so memory stays at the
    size of the sets however large the corpus.
    """

    def __init__(
        self,
        plan: MethodPlan,
        shingling: Shingling,
        timer: _Clock,
        *,
        keep_docs: bool,
    ) -> None:
        self._shingling = shingling
        self._timer = timer
        self._keep_docs = keep_docs
        # a method that signs from the text alone (SL+ST) needs no token lists: its sets
        # take the vectorised path and its documents are kept with their text only
        self._config = plan.prepare_config(texts=True)
        self.kernel, self.kernel_note = _kernel(self._config)
        self.prepared: list[Prepared] = []
        self._ids: list[str] = []
        self._lengths: list[int] = []
        self._parts: list[ShingleSets] = []
        self._keys: list[np.ndarray] = []
        self._skipped: list[Skipped] = []
        self.unique = UniqueIds()
        self.read = 0
        self._count_items = True
        #: ``(ids, read, skipped)`` after each :meth:`run`
        self.bounds: list[tuple[int, int, int]] = []

    def run(
        self,
        items: Iterable[Document | Skipped],
        total: int | None,
        in_bytes: bool,
        prog: Progress,
    ) -> None:
        """Read ``items`` (one group of inputs; call again for the next); the ``read``
        stage counts ``total`` bytes (``in_bytes``: the reader advances it) or items."""
        prog.start("read", total, unit="bytes" if in_bytes else "items")
        self._count_items = not in_bytes
        batches = prepare_stream(
            self._read(items, prog),
            self._config,
            batch=_BATCH,
            batch_chars=_BATCH_CHARS,
            clock=self._timer.now,
        )
        for ready in batches:
            self._take(ready)
        prog.finish("read")
        self.bounds.append((len(self._ids), self.read, len(self._skipped)))

    def _read(
        self, items: Iterable[Document | Skipped], prog: Progress
    ) -> Iterator[Document | Skipped]:
        it = iter(items)
        while True:
            item = self._timer.run("read", next, it, None)
            if item is None:
                return
            if self._count_items:
                prog.advance("read")
            self.read += 1
            yield item

    def _take(self, ready: PreparedDocuments) -> None:
        _, prepare_s, shingle_s, keys_s = ready.seconds
        self._timer.add("prepare", prepare_s)
        self._timer.add("shingle", shingle_s)
        self._timer.add("identical", keys_s)
        ready = claim_ids(ready, self.unique)  # a repeated id: renamed by its place
        out = screen(ready, no_repeats(ready))
        self._skipped.extend(out.skip_rows(ready))
        everything = out.is_everything(ready)
        self._parts.append(ready.sets if everything else ready.sets.take(out.take))
        self._keys.append(ready.keys if everything else ready.keys[out.take])
        self._ids.extend(ready.ids[k] for k in out.accepted.tolist())
        self._lengths.extend(ready.counts[out.accepted].tolist())
        if self._keep_docs:
            tokens, texts = ready.tokens, ready.texts
            for k, t in zip(out.accepted.tolist(), out.take.tolist(), strict=True):
                kept = () if tokens is None else tokens[t]
                text_ = "" if texts is None else texts[t]
                self.prepared.append(Prepared(ready.ids[k], text_, kept))

    @property
    def fast(self) -> bool:
        """Word shingles with XXH64 fingerprints: the vectorised path."""
        return uses_token_fingerprints(self._shingling)

    def result(self) -> tuple[ShingleSets, list[str], np.ndarray, list[Skipped], Signed]:
        lengths = np.array(self._lengths, dtype=np.int64)
        sets = ShingleSets.concat(self._parts)
        return sets, self._ids, lengths, self._skipped, Signed(self._keys, None)


def _kernel(config: PrepareConfig) -> tuple[str, str]:
    """The prepare kernel a job runs with ``config`` and, when the compiled kernel is not
    built (and the numpy path was not asked for), the one line the job warns with."""
    from neardup.methods.kernel import unbuilt_note

    kernel = kernel_of(config)
    return kernel, unbuilt_note() if kernel == "python" else ""


def _sign(prepared: list[Prepared], plan: MethodPlan, sets: ShingleSets) -> Any:
    meth = plan.method
    if plan.needs_fit:
        meth.fit(CorpusStatistics.from_token_lists(p.tokens for p in prepared))
    return meth.from_sets(sets) if plan.signs_from_sets else meth.sign(prepared)


def _relabel(opts: DedupOptions, sets: ShingleSets, cand: np.ndarray) -> bool:
    """Whether to verify on dense labels: by :func:`~neardup.methods.measures.dense_labels_pay`
    (relabelling sorts every fingerprint of the corpus: it pays only when the candidates
    gather several times as many), never under containment (frequency ranks)."""
    from neardup.methods.measures import dense_labels_pay

    return opts.measure != "containment" and dense_labels_pay(sets, _gather_volume(sets, cand))


def _gather_volume(sets: ShingleSets, cand: np.ndarray) -> int:
    """Fingerprints the exact verification of ``cand`` reads."""
    sizes = sets.sizes
    return int(sizes[cand[:, 0]].sum() + sizes[cand[:, 1]].sum()) if cand.size else 0


def _candidates(
    meth: Method,
    sigs: Any,
    sets: ShingleSets,
    opts: DedupOptions,
    prog: Progress,
    keys: np.ndarray | None = None,
) -> np.ndarray:
    from neardup._array import pair_codes, pairs_of_codes, sorted_unique, with_pairs

    prog.start("candidates", None)
    cand = meth.candidates(sigs)
    extra = []
    if opts.measure == "containment":
        extra.append(containment_candidates(sets, opts.threshold))
    if keys is not None:
        same = identical_pairs(keys, sets.sizes > 0)
        if same.size:
            extra.append(same)
    # always sorted by (a, b): the pairs.jsonl order of every method and every executor
    # (an index listing pairs by signature, as tf-ridf's, is sorted here too)
    n = len(sets)
    codes = pair_codes(cand, n)
    if codes.size > 1 and not np.all(codes[1:] > codes[:-1]):
        codes = sorted_unique(codes)
        cand = pairs_of_codes(codes, n)
    if extra:
        cand = with_pairs(cand, codes, np.concatenate(extra), n)
    prog.finish("candidates")
    return cand


def _verify(
    meth: Method,
    sigs: Any,
    sets: ShingleSets,
    cand: np.ndarray,
    opts: DedupOptions,
    prog: Progress,
    *,
    keys: np.ndarray | None = None,
) -> tuple[Decided, dict[int, int]]:
    """The decided pairs (:func:`neardup.job.decide.decide`) and the containments among them.

    ``keys``: content keys of the full sets (under the own rule, only the pairs it accepts
    or with equal keys are measured exactly).
    """
    prog.start("verify", int(cand.shape[0]))
    decision = decision_of(opts)
    own = signature_scores(meth, sigs, opts.measure) if decision.mode == "own" else None
    decided = decide(sets, cand, decision=decision, method=meth, own_scores=own, content_keys=keys)
    rows = decided.rows()
    contained = containments(rows, opts.threshold) if opts.measure == "containment" else {}
    prog.advance("verify", int(cand.shape[0]))
    prog.finish("verify")
    return decided, contained


def decision_of(opts: DedupOptions) -> Decision:
    """The :class:`~neardup.job.decide.Decision` of resolved job options
    (:func:`decided_options`)."""
    mode = opts.decision or "verified"
    return Decision(measure=opts.measure, threshold=opts.threshold, mode=mode)


def _cluster(
    ids: list[str],
    edges: np.ndarray,
    lengths: np.ndarray,
    opts: DedupOptions,
    contained: dict[int, int],
    ranks: np.ndarray | None = None,
) -> list[Cluster]:
    return make_clusters(ids, edges, lengths, keep=opts.keep, contained_in=contained, ranks=ranks)


def _keep_ranks(
    reader: FieldReader, ids: list[str], edges: np.ndarray, opts: DedupOptions
) -> tuple[np.ndarray, dict[str, Any]]:
    """The keep-by field's rank of every document (:func:`neardup.job.keep.field_ranks`; only
    the documents in some pair are read) and the summary's ``keep_by`` entry: ``field``,
    ``order``, ``kind`` (how the values compared), ``clustered`` (documents read) and
    ``missing`` (those without the field)."""
    from neardup._array import sorted_unique
    from neardup.job.keep import value_kind

    members = sorted_unique(edges).tolist() if edges.size else []
    found = reader({ids[m] for m in members})
    values = {m: found.get(ids[m]) for m in members}
    ranks = field_ranks(len(ids), values, order=opts.keep_order)
    missing = sum(1 for m in members if ranks[m] == 0)
    info = {
        "field": opts.keep_by,
        "order": opts.keep_order,
        "kind": value_kind(v for v in values.values() if v == v),
        "clustered": len(members),
        "missing": missing,
    }
    return ranks, info


def dropped_members(
    clusters: list[Cluster],
    ids: list[str],
    rows: np.ndarray,
    contained: dict[int, int],
    threshold: float,
) -> list[Dropped]:
    """One :class:`Dropped` per cluster member other than the kept one, with its reason
    (the keep stage's drop list; the Dask engine's one-task keep stage calls it too).

    Args:
        clusters: the job's clusters; ids: document ids; rows: float64 (p, 6): the
            decided pairs ``(a, b, resemblance, a in b, b in a, score)``; contained:
            ``{doc: container}`` of a containment job (else empty); threshold: the job's.
    """
    members = [
        (m, c.keep_index, c.cluster)
        for c in clusters
        for m in c.member_indexes
        if m != c.keep_index
    ]
    if not members:
        return []
    doc, kept, _ = (np.array(col, dtype=np.int64) for col in zip(*members, strict=True))
    row_of = _direct_rows(rows, doc, kept)
    out: list[Dropped] = []
    for (m, k, cluster), r in zip(members, row_of.tolist(), strict=True):
        why = drop_reason(m, k, rows[r] if r >= 0 else None, contained, threshold)
        out.append(Dropped(ids[m], ids[k], cluster, why))
    return out


def _direct_rows(rows: np.ndarray, doc: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Row index of the pair ``{doc[i], kept[i]}`` in ``rows`` (``-1``: not a direct pair);
    the last such row when a pair occurs twice."""
    if rows.shape[0] == 0:
        return np.full(doc.shape[0], -1, dtype=np.int64)
    a, b = rows[:, 0].astype(np.int64), rows[:, 1].astype(np.int64)
    span = int(max(a.max(), b.max(), doc.max(), kept.max())) + 1
    keys = np.minimum(a, b) * span + np.maximum(a, b)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    want = np.minimum(doc, kept) * span + np.maximum(doc, kept)
    pos = np.searchsorted(sorted_keys, want, side="right") - 1
    hit = (pos >= 0) & (sorted_keys[np.maximum(pos, 0)] == want)
    return np.where(hit, order[np.maximum(pos, 0)], -1)


def check_accounting(summary: dict[str, Any], read: int) -> None:
    """The job's own check that no record was lost: the records the readers yielded
    (``read``) must be ``kept + removed + skipped`` of ``summary`` (whose ``read`` it sets).

    Raises:
        AccountingError: they differ (a bug; the job stops rather than report it).
    """
    kept, removed, skipped = summary["kept"], summary["removed"], summary["skipped"]
    if read != kept + removed + skipped:
        raise AccountingError(
            f"internal error: {read} records read but {kept} kept + {removed} removed +"
            f" {skipped} skipped = {kept + removed + skipped}; please report this"
        )
    summary["read"] = read


def job_summary(
    meth: Method,
    opts: DedupOptions,
    *,
    documents: int,
    skipped: Sequence[Skipped] | Mapping[str, int],
    candidates: int,
    pairs: int,
    clusters: int,
    dropped: int,
    seconds: Mapping[str, float],
    cpu_seconds: Mapping[str, float],
    decision: dict[str, Any],
    kernel: str,
    warnings: list[str],
    renamed_ids: int,
    executor: dict[str, Any],
    verified: int,
) -> dict[str, Any]:
    """``summary.json`` of a job, the same keys on every executor (``read`` is set by
    :func:`check_accounting`; ``against``, ``keep_by``, ``inputs``, ``read_options`` and
    ``outputs`` are added when the job has them).

    Args:
        meth, opts: the job's method and resolved options; documents: B's documents
            processed; skipped: B's skip rows, or their counts by reason; candidates,
            pairs, clusters, dropped: the stages' counts; seconds: seconds per stage;
            cpu_seconds: this process's CPU seconds per stage, where they were taken (a
            pool's or a cluster's workers' under ``executor``);
            decision: :func:`~neardup.job.decide.decision_summary`; kernel: the prepare
            kernel; warnings: lines for the user; renamed_ids: records given their place
            as id (a repeated id); executor: ``{"name": ...}`` and the executor's own
            figures (worker seconds, partitions...); verified: the candidates compared
            exactly after the sketch prefilter (:func:`~neardup.job.decide.sketch_prefilter`).
    """
    if isinstance(skipped, Mapping):
        reasons = dict(skipped)
    else:
        reasons = {}
        for s in skipped:
            reasons[s.reason] = reasons.get(s.reason, 0) + 1
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    n_skipped = sum(reasons.values())
    return {
        "neardup_version": __version__,
        "method": meth.name,
        "method_params": meth.params(),
        "canonical": meth.canonical.params(),
        "options": opts.as_dict(),
        "read": documents + n_skipped,
        "documents": documents,
        "skipped": n_skipped,
        "skipped_by_reason": dict(sorted(reasons.items())),
        "candidate_pairs": candidates,
        "prefiltered_pairs": candidates - verified,
        "verified_pairs": verified,
        **banding_summary(meth, opts.threshold),
        **prefilter_summary(plan_for(meth, opts)),
        "pairs": pairs,
        "clusters": clusters,
        "kept": documents - dropped,
        "dropped": dropped,
        "removed": dropped,
        "seconds": {**seconds, "total": round(sum(seconds.values()), 6)},
        "cpu_seconds": {**cpu_seconds, "total": round(sum(cpu_seconds.values()), 6)},
        "peak_memory_mib": round(peak_kib / 1024, 1),
        "decision": decision,
        "kernel": kernel,
        "warnings": warnings,
        "renamed_ids": renamed_ids,
        "executor": executor,
    }
