"""``neardup dedup``: deduplicate a corpus into pairs and clusters and decide what to keep,
on the engine ``--engine`` names (:data:`ENGINES`: the flags it takes, what it refuses and
its executor, chosen once). Exit codes: 0 documents processed, 1 none (or a disk error),
2 usage.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from neardup.cli import runconfig
from neardup.cli.common import (
    check_output_path,
    console,
    escape,
    fail,
    method_choice,
    warn_unused_threshold,
)
from neardup.cli.shared_options import (
    CONTENT_TYPE,
    DEDUP_METHOD,
    ID_FIELD,
    KEEP,
    KEEP_ORDER,
    MAX_BYTES,
    MEASURE,
    MIN_TOKENS,
    TEXT_FIELD,
    THRESHOLD,
    ContentTypeOpt,
    DbOpt,
    DecisionOpt,
    ExcludeOpt,
    IdFieldOpt,
    IncludeOpt,
    KeepOpt,
    KeepOrderOpt,
    LimitOpt,
    MaxBytesOpt,
    MeasureOpt,
    MinTokensOpt,
    MorphOpt,
    NoStopOpt,
    ParamOpt,
    PresetOpt,
    RecursiveOpt,
    ShingleOpt,
    StopOpt,
    StopSymOpt,
    TextFieldOpt,
    ThresholdOpt,
    check_fields,
    read_options,
)
from neardup.errors import NeardupError, ParameterError, check_choice, check_int

if TYPE_CHECKING:
    from neardup.job.pipeline import Executor


def dedup(
    inputs: Annotated[
        list[str],
        typer.Argument(
            help="Files, directories, globs (a quoted 'shard*.jsonl' is expanded) or - "
            "(stdin): JSONL, Parquet, CSV, Arrow, datasets folders, txt/md/html/wiki, PDF, "
            "DOCX; .gz/.zst too; with --engine dask also fsspec URLs (s3://..., JSONL, "
            "Parquet, CSV and Arrow files)."
        ),
    ],
    method: Annotated[
        str | None,
        typer.Option(
            "--method",
            "-m",
            help="Detection method (see `neardup methods`); default: the preset's, else "
            f"{DEDUP_METHOD} (on every engine).",
        ),
    ] = None,
    measure: MeasureOpt = MEASURE,
    threshold: ThresholdOpt = THRESHOLD,
    shingle_size: ShingleOpt = None,
    param: ParamOpt = None,
    keep: KeepOpt = KEEP,
    keep_by: Annotated[
        str | None,
        typer.Option(
            "--keep-by",
            help="Keep the member with the largest value of this record field instead "
            "(e.g. date: the newest revision; a.b reaches into an object; mtime: a "
            "document file's modification time); numbers, ISO dates, else strings.",
        ),
    ] = None,
    keep_order: KeepOrderOpt = KEEP_ORDER,
    decision: DecisionOpt = None,
    min_tokens: MinTokensOpt = MIN_TOKENS,
    out_dir: Annotated[
        str | None,
        typer.Option(
            "--out",
            "-o",
            help="Write pairs/clusters/dropped/skipped/summary here (a URL with --engine dask).",
        ),
    ] = None,
    passages: Annotated[
        bool,
        typer.Option(
            "--passages", help="With --out: also write passages.jsonl (align_passages per pair)."
        ),
    ] = False,
    id_field: IdFieldOpt = ID_FIELD,
    text_field: TextFieldOpt = TEXT_FIELD,
    content_type: ContentTypeOpt = CONTENT_TYPE,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    extractor: Annotated[
        str, typer.Option(help="HTML main-text extractor: resiliparse | trafilatura.")
    ] = "resiliparse",
    follow_symlinks: Annotated[
        bool,
        typer.Option("--follow-symlinks", help="Read symbolic links that leave an input tree."),
    ] = False,
    include: IncludeOpt = None,
    exclude: ExcludeOpt = None,
    recursive: RecursiveOpt = True,
    limit: LimitOpt = None,
    kept: Annotated[
        Path | None,
        typer.Option(
            "--kept",
            help="Write the kept records, all fields, here (.jsonl, .csv [.gz|.zst] or .parquet).",
        ),
    ] = None,
    removed: Annotated[
        Path | None,
        typer.Option("--removed", help="Write the dropped records here (same formats)."),
    ] = None,
    against: Annotated[
        list[str] | None,
        typer.Option(
            "--against",
            help="Corpus A (inputs of any kind; one a flag: --against a1 --against a2, or a "
            "folder): drop only INPUTS' documents that match one of A's (dropped rows name the "
            "match and its score); A's are never dropped nor written to --kept.",
        ),
    ] = None,
    against_collection: Annotated[
        str | None,
        typer.Option(
            "--against-collection",
            help="Collection A (see `neardup collection`, --db): INPUTS' documents are "
            "checked against its index; A is not read again.",
        ),
    ] = None,
    db: DbOpt = None,
    within: Annotated[
        bool,
        typer.Option(
            "--within/--no-within",
            help="With --against: also drop INPUTS' duplicates among themselves (default); "
            "--no-within: check against A only.",
        ),
    ] = True,
    mark: Annotated[
        bool,
        typer.Option(
            "--mark",
            help="Mark, don't drop: --kept gets every record, with cluster (number or null) "
            "and duplicate_of (the kept record's id, null for the kept one) added.",
        ),
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", help="Processes reading and preparing (default: cores)."),
    ] = None,
    memory_mib: Annotated[
        int | None,
        typer.Option(
            "--memory-mib",
            help="Shingle sets and signatures held in memory, MiB; past it they go to "
            "temporary files (default: a quarter of the machine's memory).",
        ),
    ] = None,
    spill_dir: Annotated[
        Path | None,
        typer.Option(
            "--spill-dir", help="Directory of those temporary files (default: the system's)."
        ),
    ] = None,
    stop_words: StopOpt = None,
    no_stop_words: NoStopOpt = False,
    stop_symbols: StopSymOpt = None,
    preset: PresetOpt = None,
    morphology: MorphOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="table (counts, largest clusters, closest pairs) | json (one document with "
            "summary, pairs, clusters, dropped, skipped) | jsonl (one line per pair, cluster, "
            "dropped and skipped document, then the summary; for large runs).",
        ),
    ] = "table",
    top: Annotated[int, typer.Option("--top", help="Clusters and pairs the table shows.")] = 10,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    engine: Annotated[
        str,
        typer.Option(
            help="Executor: local (this machine: --jobs worker processes) | dask (a Dask "
            "cluster: --scheduler or --workers)."
        ),
    ] = "local",
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address (--engine dask).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="LocalCluster workers (--engine dask).")
    ] = None,
    block_mib: Annotated[
        int | None, typer.Option(help="JSONL block (partition) size, MiB (--engine dask).")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="Options from a TOML file (long names as keys, e.g. threshold = 0.7, "
            "inputs = [...]; paths relative to the file); the command line wins.",
            is_eager=True,
            callback=runconfig.callback,
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Print the plan (inputs, method, memory, outputs) and stop."
        ),
    ] = False,
) -> None:
    """Deduplicate a corpus into pairs and clusters, and decide what to keep.

    Example: `neardup dedup crawl/ --method minhash-lsh -t 0.7 --kept clean.jsonl.zst`;
    against an earlier corpus: `neardup dedup new/ --against old/ --kept new-only.jsonl`

    Keep the newest revision, and mark instead of dropping:
    `neardup dedup docs.jsonl --keep-by date --kept marked.jsonl --mark`"""
    from neardup.job.pipeline import DedupOptions
    from neardup.job.pipeline import dedup as run_dedup
    from neardup.output import mark_stale, write_result
    from neardup.text.inputs import Spool

    spool = Spool()
    try:
        opts = DedupOptions(
            measure=measure,  # type: ignore[arg-type]
            threshold=threshold,
            keep=keep,  # type: ignore[arg-type]
            keep_by=keep_by,
            keep_order=keep_order,  # type: ignore[arg-type]
            decision=decision,  # type: ignore[arg-type]
            min_tokens=min_tokens,
        )
        chosen = check_choice("--engine", engine, tuple(ENGINES))
        method, mparams = method_choice(
            method,
            DEDUP_METHOD,
            stop_words=stop_words,
            no_stop_words=no_stop_words,
            stop_symbols=stop_symbols,
            morphology=morphology,
            preset=preset,
            shingle_size=shingle_size,
            params=param,
        )
        _check_against(against, against_collection, within)
        read_opts: dict[str, Any] = {
            **read_options(
                id_field=id_field,
                text_field=text_field,
                content_type=content_type,
                max_bytes=max_bytes,
                include=include,
                exclude=exclude,
                recursive=recursive,
                limit=limit,
            ),
            "extractor": extractor,
            "follow_symlinks": follow_symlinks,
        }
        flags: dict[str, Any] = {
            "--jobs": jobs,
            "--memory-mib": memory_mib,
            "--spill-dir": spill_dir,
            "--scheduler": scheduler,
            "--workers": workers,
            "--block-mib": block_mib,
        }
        asked = Asked(
            method=method,
            measure=measure,
            inputs=[*inputs, *(against or [])],
            flags=flags,
            selection={
                "--include": include,
                "--exclude": exclude,
                "--limit": limit,
                "--no-recursive": not recursive,
            },
            keep_by=keep_by,
            collection=against_collection,
            outputs={"--kept": kept, "--removed": removed, "--passages": passages or None},
            out_dir=out_dir,
        )
        ENGINES[chosen].check(asked)
        warn_unused_threshold(method, threshold, decision)
        _check_outputs(kept, removed)
        check_fields(inputs, read_opts)  # a wrong field: exit 2 before any output
        if mark and (kept is None or removed is not None):
            raise ParameterError(
                "--mark",
                True,
                "only with --kept FILE (every record goes there, marked) and without --removed",
            )
        if mark and (against or against_collection is not None):
            raise ParameterError("--mark", True, "without --against (A's records are not written)")
        if keep_by is not None and (against or against_collection is not None):
            raise ParameterError("--keep-by", keep_by, "without --against (A's matches decide)")
        if out_dir == "":  # Path("") is the working folder: five files written there
            raise ParameterError("--out", out_dir, "a directory path (not empty)")
        local_out = out_dir is not None and "://" not in out_dir
        if local_out:
            check_output_path("--out", Path(out_dir), kind="directory")  # type: ignore[arg-type]
        if spill_dir is not None:
            check_output_path("--spill-dir", Path(spill_dir), kind="directory")
        fmt = _output_format(fmt, as_json, top)
        if passages and out_dir is None:
            raise ParameterError("--passages", True, "with --out DIR")
        executor = ENGINES[chosen].make(flags, out_dir)
        if dry_run:
            from neardup.cli.dedup_output import print_plan

            plan: dict[str, Any] = {
                "engine": engine,
                "method": method,
                "params": mparams,
                "options": dataclasses.asdict(opts),
                "jobs": jobs,
                "memory_mib": memory_mib,
                "outputs": {"out": out_dir, "kept": kept, "removed": removed},
            }
            if against or against_collection:
                plan["against"] = against or {"collection": against_collection}
                plan["within"] = within
            from neardup.text.read import read_options as make_read_options

            options = make_read_options(**read_opts)
            print_plan(console("out"), inputs, plan, as_json=fmt != "table", options=options)
            return
        paths = _spooled_inputs(inputs, spool)
        a_paths = None if not against else _spooled_inputs(against, spool)
        job: dict[str, Any] = {
            "method": method,
            "options": opts,
            "read_options": read_opts,
            "executor": executor,
            **mparams,
        }
        if a_paths is not None:
            job.update(against=a_paths, within=within)
        silent = quiet or fmt != "table"
        if against_collection is not None:
            result = _run_with_progress(
                lambda prog: _against_collection(paths, against_collection, db, within, job, prog),
                silent,
            )
        else:
            result = _run_with_progress(lambda prog: run_dedup(paths, progress=prog, **job), silent)
        if local_out:
            mark_stale(out_dir)  # type: ignore[arg-type]  # a killed job leaves no summary.json
        _run_with_progress(
            lambda prog: _export(
                result, paths, read_opts, kept, removed, prog, named_with=a_paths or [], mark=mark
            ),
            silent,
        )
        if local_out:
            result.summary.update(_recorded_inputs(inputs, read_opts))  # for `neardup view`
            # summary.json last: it names --kept/--removed
            write_result(result, out_dir, tables=not executor.writes_files)  # type: ignore[arg-type]
        if out_dir is not None and passages:
            from neardup.passages import write_pair_passages

            every = [*(a_paths or []), *paths]  # ids named with A's inputs too
            write_pair_passages(result.pairs, every, read_opts, out_dir)
    except NeardupError as exc:
        raise fail(exc) from None
    except OSError as exc:  # a full or read-only disk under --out, --spill-dir, --kept
        raise _fail_os(exc) from None
    finally:
        spool.close()
    from neardup.cli.dedup_output import skipped_lines

    for line in skipped_lines(result.skipped, out_dir):
        console("err").print(escape(line), style="yellow", highlight=False)
    for w in result.summary.get("warnings", []):
        console("err").print(f"[yellow]warning:[/yellow] {escape(w)}", highlight=False)
    _report_result(result, out_dir, fmt, top)


def _check_against(against: list[str] | None, collection: str | None, within: bool) -> None:
    """Refuse, before any work, what ``--against`` cannot be run with.

    Raises:
        ParameterError: ``--against`` with ``--against-collection``; ``--no-within``
            without either. (``--db`` alone is no error: it may come from ``NEARDUP_DB``.)
    """
    if against and collection is not None:
        raise ParameterError(
            "--against-collection", collection, "--against INPUT... or a collection, not both"
        )
    if not against and collection is None and not within:
        raise ParameterError("--no-within", True, "with --against or --against-collection")


def _against_collection(
    paths: list[str], name: str, db: str | None, within: bool, job: dict[str, Any], prog: Any
) -> Any:
    """``dedup INPUTS --against-collection NAME``: :func:`neardup.corpus.against.
    against_collection` on the store at ``db``."""
    from neardup.corpus.against import against_collection
    from neardup.store import Store

    store = Store(db)
    try:
        return against_collection(paths, store, name, within=within, progress=prog, **job)
    finally:
        store.close()


def _check_outputs(kept: Path | None, removed: Path | None) -> None:
    from neardup.job.export import output_format

    for flag, path in (("--kept", kept), ("--removed", removed)):
        if path is not None:
            output_format(path)
            check_output_path(flag, path, kind="file")


@dataclass(frozen=True, kw_only=True)
class Asked:
    """What a ``dedup`` command line asks of its engine, for the engine's checks.

    Attributes:
        method, measure: the method's name and the measure; inputs: B's and A's inputs.
        flags: the engine flags (``--jobs``... ``--block-mib``; None: not given).
        selection: the flags selecting the files of directory inputs (``--include``...;
            falsy: not given); keep_by: ``--keep-by``; collection: ``--against-collection``.
        outputs: ``--kept``, ``--removed``, ``--passages`` (None: not asked); out_dir: ``--out``.
    """

    method: str
    measure: str
    inputs: list[str]
    flags: dict[str, Any]
    selection: dict[str, Any]
    keep_by: str | None
    collection: str | None
    outputs: dict[str, Any]
    out_dir: str | None


@dataclass(frozen=True)
class Engine:
    """An ``--engine``: the flags it takes, what it refuses before any work (naming the
    reason and the alternative) and its executor (:class:`neardup.job.pipeline.Executor`)
    made from the flags and ``--out``."""

    takes: tuple[str, ...]
    refuse: Callable[[Asked], None]
    make: Callable[[dict[str, Any], str | None], Executor]

    def check(self, asked: Asked) -> None:
        """Refuse a flag of another engine, then what this engine cannot run.

        Raises:
            ParameterError: naming the flag, its value and the engine that takes it.
        """
        for flag, value in asked.flags.items():
            if value is not None and flag not in self.takes:
                raise ParameterError(flag, str(value), _ELSEWHERE[flag])
        self.refuse(asked)


#: How to read a flag another engine takes.
_ELSEWHERE = {
    "--jobs": "only with --engine local (use --workers with --engine dask)",
    "--memory-mib": "only with --engine local (give the Dask workers a memory_limit instead)",
    "--spill-dir": "only with --engine local (Dask workers spill to their own local directory)",
    "--scheduler": "only with --engine dask",
    "--workers": "only with --engine dask",
    "--block-mib": "only with --engine dask",
}


def _local_refuses(asked: Asked) -> None:
    """Nothing: the local engine runs every job the command line makes."""


def _local_executor(flags: dict[str, Any], out_dir: str | None) -> Executor:
    """The pool executor: ``--jobs`` worker processes (1: this process), ``--memory-mib``,
    ``--spill-dir``."""
    from neardup.job.executors.pool import ProcessPool

    memory_mib = flags["--memory-mib"]
    if memory_mib is not None:
        check_int("--memory-mib", memory_mib, low=0)
    return ProcessPool(
        jobs=flags["--jobs"],
        memory_budget=None if memory_mib is None else memory_mib << 20,
        spill_dir=flags["--spill-dir"],
    )


def _dask_refuses(asked: Asked) -> None:
    """Refuse, before any work, what the Dask engine cannot run.

    Raises:
        ParameterError: an unknown method; standard input; ``--keep-by``;
            ``--against-collection``; the file selection flags; ``--kept``/``--removed``/
            ``--passages`` with inputs that are not local paths, ``--passages`` with an
            ``--out`` URL, no ``--out`` with ``--scheduler``; ``--scheduler`` with
            ``--workers``.
    """
    from neardup.distributed.grouping import check_dask_options

    check_dask_options(asked.method, asked.measure)
    if any(str(p) == "-" for p in asked.inputs):
        raise ParameterError(
            "inputs",
            "-",
            "files, directories, globs or URLs with --engine dask (standard input cannot be "
            "cut into partitions); save it to a file, or use --engine local",
        )
    if asked.keep_by is not None:
        raise ParameterError(
            "--keep-by",
            asked.keep_by,
            "only with --engine local (the Dask engine decides on its workers, which "
            "do not hold record fields); or --mark, and choose yourself",
        )
    if asked.collection is not None:
        raise ParameterError(
            "--against-collection",
            asked.collection,
            "--engine local (the Dask engine does not read a collection; --against INPUT... "
            "runs on Dask)",
        )
    for flag, chosen in asked.selection.items():
        if chosen:
            raise ParameterError(flag, str(chosen), "only with --engine local")
    for flag, given in asked.outputs.items():
        if given is not None and any("://" in str(p) for p in asked.inputs):
            raise ParameterError(
                flag,
                str(given),
                "local input paths with --engine dask (the records are read again on this "
                "machine, in input order); copy the inputs here or use the pairs/dropped files",
            )
    out_dir, scheduler = asked.out_dir, asked.flags["--scheduler"]
    if asked.outputs["--passages"] and out_dir is not None and "://" in out_dir:
        raise ParameterError(
            "--passages",
            True,
            "a local --out directory with --engine dask (passages.jsonl is written on this "
            "machine); use a local --out, or --engine local",
        )
    if out_dir is None and scheduler is not None:
        raise ParameterError(
            "--out", None, "a directory every worker can write with --scheduler (a URL)"
        )
    if scheduler is not None and asked.flags["--workers"] is not None:
        raise ParameterError(
            "--workers", asked.flags["--workers"], "--scheduler or --workers, not both"
        )


def _dask_executor(flags: dict[str, Any], out_dir: str | None) -> Executor:
    """The Dask executor: ``--scheduler`` or a ``LocalCluster`` of ``--workers``, blocks of
    ``--block-mib``, the files written into ``--out`` by the workers."""
    from neardup.distributed.executor import DaskExecutor
    from neardup.distributed.stages import DEFAULT_BLOCK_BYTES

    block = flags["--block-mib"]
    return DaskExecutor(
        out_dir=out_dir,
        scheduler=flags["--scheduler"],
        workers=flags["--workers"],
        block_bytes=DEFAULT_BLOCK_BYTES
        if block is None
        else check_int("--block-mib", block, low=1) << 20,
    )


#: ``--engine`` name -> its engine.
ENGINES: dict[str, Engine] = {
    "local": Engine(("--jobs", "--memory-mib", "--spill-dir"), _local_refuses, _local_executor),
    "dask": Engine(("--scheduler", "--workers", "--block-mib"), _dask_refuses, _dask_executor),
}


def _recorded_inputs(inputs: list[str], read_opts: dict[str, Any]) -> dict[str, Any]:
    """``summary.json``'s ``inputs`` (absolute paths; standard input is not recorded) and
    ``read_options``: what ``neardup view`` reads again for the texts."""
    paths = [str(Path(p).absolute()) for p in inputs if p != "-"]
    return {"inputs": paths, "read_options": {k: v for k, v in read_opts.items()}}


def _fail_os(exc: OSError) -> typer.Exit:
    """One line for an error of the disk (full, read-only, gone) and exit 1."""
    where = f" {exc.filename}" if exc.filename else ""
    what = exc.strerror or str(exc)
    line = f"[red]error:[/red] cannot write{escape(where)}: {escape(what)}"
    console("err").print(line, soft_wrap=True)
    return typer.Exit(1)


def _spooled_inputs(inputs: list[str], spool: Any) -> list[str]:
    """Input paths as strings, standard input (``-``) spooled once to a temporary file so
    that ``--kept``/``--removed`` can read it again."""
    from neardup.text.inputs import resolve_inputs

    if not any(str(p) == "-" for p in inputs):
        return [str(p) for p in inputs]
    return [str(p) for p in resolve_inputs([str(p) for p in inputs], spool)]


def _export(
    result: Any,
    paths: list[str],
    read_opts: dict[str, Any],
    kept: Path | None,
    removed: Path | None,
    prog: Any = None,
    *,
    named_with: list[str],
    mark: bool = False,
) -> None:
    """Write ``--kept`` and ``--removed`` (a ``kept`` and a ``removed`` bar, in bytes of the
    inputs read again): the records of ``paths`` (with ``--against``, B's only, ids named
    with A's inputs ``named_with``)."""
    if kept is None and removed is None:
        return
    from neardup.job.export import export_marked, export_records
    from neardup.text.read import read_options

    opts = read_options(**read_opts)
    dropped = {d.id for d in result.dropped}
    outputs: dict[str, Any] = {}
    if kept is not None and mark:
        n = export_marked(paths, kept, result.marks(), opts)
        outputs["kept"] = {"path": str(kept), "records": n, "marked": True}
        console("err").print(
            f"all records, marked with cluster and duplicate_of: {n} written to {escape(str(kept))}"
        )
    elif kept is not None:
        ids = set(result.kept_ids())
        n = export_records(
            paths, kept, ids, opts, progress=prog, stage="kept", named_with=named_with
        )
        outputs["kept"] = {"path": str(kept), "records": n}
        console("err").print(f"kept records: {n} written to {escape(str(kept))}")
        _written_all(result, "--kept", n, len(ids))
    if removed is not None:
        n = export_records(
            paths, removed, dropped, opts, progress=prog, stage="removed", named_with=named_with
        )
        outputs["removed"] = {"path": str(removed), "records": n}
        console("err").print(f"removed records: {n} written to {escape(str(removed))}")
        _written_all(result, "--removed", n, len(dropped))
    result.summary["outputs"] = outputs


def _written_all(result: Any, flag: str, written: int, counted: int) -> None:
    """A warning (summary and stderr) when an output holds fewer records than the job
    counted: an input changed or went away between the job's read and the write."""
    if written != counted:
        result.summary.setdefault("warnings", []).append(
            f"{flag} holds {written} records of the {counted} the job counted: an input"
            " changed or was removed after the job read it (run the job again)"
        )


def _output_format(fmt: str, as_json: bool, top: int) -> str:
    """``--format`` checked against ``--json`` (its alias) and ``--top``.

    Raises:
        ParameterError: an unknown format, ``--json`` with another format, ``--top`` < 0.
    """
    from neardup.cli.dedup_output import FORMATS
    from neardup.errors import check_choice, check_int

    check_choice("--format", fmt, FORMATS)
    check_int("--top", top, low=0)
    if as_json and fmt not in ("table", "json"):
        raise ParameterError("--json", f"--format {fmt}", "--json alone or --format json")
    return "json" if as_json else fmt


def _report_result(result: Any, out_dir: str | None, fmt: str, top: int) -> None:
    from neardup.cli import dedup_output

    if fmt == "json":
        dedup_output.write_json(sys.stdout, result)
    elif fmt == "jsonl":
        dedup_output.write_jsonl(sys.stdout, result)
    else:
        dedup_output.print_table(console("out"), result, out_dir, top=top)
    _exit_if_empty(result.summary)


def _exit_if_empty(summary: dict[str, Any]) -> None:
    if summary["documents"] == 0:
        console("err").print("[red]error:[/red] no document could be processed")
        raise typer.Exit(1)


def _run_with_progress(fn: Any, silent: bool) -> Any:
    if silent or not console("err").is_terminal:
        return fn(None)
    from neardup.cli.progress_bars import RichProgress

    with RichProgress(console("err")) as prog:
        return fn(prog)


def register(app: typer.Typer) -> None:
    """Add ``dedup`` to the ``neardup`` app."""
    app.command("dedup")(dedup)
