"""The ``neardup`` command line (Typer). Exit codes: 0 ok, 1 failure, 2 usage error."""

from __future__ import annotations

from neardup.cli.gc_pause import imports_without_gc, skip_final_collections

with imports_without_gc():  # Typer and the options: no collection walks them (start-up)
    import dataclasses
    import sys
    from pathlib import Path
    from typing import Annotated, Any

    import typer

    from neardup._version import __version__
    from neardup.cli import runconfig
    from neardup.cli.coercion import install as install_plain_coercion
    from neardup.cli.common import (
        CanonicalOptions,
        check_output_path,
        escape,
        warn_unused_threshold,
    )
    from neardup.cli.common import console as _console
    from neardup.cli.common import fail as _fail
    from neardup.cli.helptext import install as install_help_placeholders
    from neardup.cli.options import (
        KEEP,
        KEEP_ORDER,
        MAX_BYTES,
        MEASURE,
        MIN_TOKENS,
        THRESHOLD,
        ContentTypeOpt,
        DbOpt,
        DecisionOpt,
        ExcludeOpt,
        IdFieldOpt,
        IncludeOpt,
        JsonOpt,
        KeepOpt,
        KeepOrderOpt,
        LimitOpt,
        MaxBytesOpt,
        MeasureOpt,
        MinTokensOpt,
        NoStopOpt,
        PresetOpt,
        RecursiveOpt,
        StopOpt,
        StopSymOpt,
        TextFieldOpt,
        ThresholdOpt,
        check_fields,
        read_options,
    )
    from neardup.errors import NeardupError, ParameterError, UsageError, check_int

install_plain_coercion()  # str/int/float/Path values without pydantic (start-up)
install_help_placeholders()  # --method METHOD, INPUTS... (not <str>, {inputs})

app = typer.Typer(
    rich_markup_mode=None,  # plain click help: rich.markdown alone costs ~0.2 s of start-up
    name="neardup",
    help="Find near-duplicate documents: shingles (Broder 1997), MinHash-LSH, mega-shingles, "
    "I-Match, TF-RIDF and more (`neardup methods`).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def __getattr__(name: str) -> Any:
    """``neardup.cli.main.err`` / ``.out`` (PEP 562): :mod:`neardup.cli.common`'s consoles."""
    if name in ("err", "out"):
        return _console(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


MethodOpt = Annotated[
    str | None,
    typer.Option(
        "--method",
        "-m",
        help="Detection method (see `neardup methods`); default: the preset's, else shingles-full.",
    ),
]
ShingleOpt = Annotated[
    int | None, typer.Option("--shingle-size", "-w", help="Words per shingle (default 5).")
]
ParamOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--param", "-p", help="Method parameter KEY=VALUE (repeatable), e.g. num_perm=256."
    ),
]
MorphOpt = Annotated[
    str | None,
    typer.Option("--morphology", help="none | stem (Snowball) | lemma (pymorphy3)."),
]


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"neardup {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """neardup: near-duplicate detection for text collections."""


@app.command()
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
            "shingles-full (on every engine).",
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
    id_field: IdFieldOpt = "id",
    text_field: TextFieldOpt = "text",
    content_type: ContentTypeOpt = "auto",
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
    engine: Annotated[str, typer.Option(help="local | dask.")] = "local",
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
    from neardup.dedup import DedupOptions
    from neardup.dedup import dedup as run_dedup
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
        canonical = CanonicalOptions(
            stop_words=stop_words,
            no_stop_words=no_stop_words,
            stop_symbols=stop_symbols,
            morphology=morphology,
            preset=preset,
        )
        if engine not in ("local", "dask"):
            raise ParameterError("--engine", engine, "local or dask")
        method = canonical.method(method, "shingles-full")
        _check_against(against, against_collection, within, engine)
        if engine == "dask":
            every = [*inputs, *(against or [])]  # A's inputs are cut into partitions too
            _check_dask(method, measure, every, kept, removed, out_dir, scheduler, passages)
            if keep_by is not None:
                raise ParameterError(
                    "--keep-by",
                    keep_by,
                    "only with --engine local (the Dask engine decides on its workers, which "
                    "do not hold record fields); or --mark, and choose yourself",
                )
        mparams = canonical.method_params(method, shingle_size=shingle_size, params=param)
        warn_unused_threshold(method, threshold, decision)
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
        if out_dir is not None and "://" not in out_dir:
            check_output_path("--out", Path(out_dir), kind="directory")
        if spill_dir is not None:
            check_output_path("--spill-dir", Path(spill_dir), kind="directory")
        fmt = _output_format(fmt, as_json, top)
        if memory_mib is not None:
            check_int("--memory-mib", memory_mib, low=0)
        local_only = {
            "--memory-mib": (memory_mib, "give the Dask workers a memory_limit instead"),
            "--spill-dir": (spill_dir, "Dask workers spill to their own local directory"),
            "--jobs": (jobs, "use --workers with --engine dask"),
        }
        for name, (given, instead) in local_only.items():
            if engine == "dask" and given is not None:
                raise ParameterError(name, str(given), f"only with --engine local ({instead})")
        selection: dict[str, object] = {"--include": include, "--exclude": exclude}
        selection.update({"--limit": limit, "--no-recursive": not recursive})
        for flag, chosen in selection.items():
            if engine == "dask" and chosen:
                raise ParameterError(flag, str(chosen), "only with --engine local")
        dask_only = {"--scheduler": scheduler, "--workers": workers, "--block-mib": block_mib}
        for flag, value in dask_only.items():
            if engine == "local" and value is not None:
                raise ParameterError(flag, value, "only with --engine dask")
        if scheduler is not None and workers is not None:
            raise ParameterError("--workers", workers, "--scheduler or --workers, not both")
        if passages and out_dir is None:
            raise ParameterError("--passages", True, "with --out DIR")
        if dry_run:
            from neardup.cli.results import print_plan

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
            print_plan(_console("out"), inputs, plan, as_json=fmt != "table", options=options)
            return
        a_paths: list[str] | None = None
        if engine == "dask":
            if block_mib is not None:
                block = check_int("--block-mib", block_mib, low=1)
                mparams = {**mparams, "block_bytes": block << 20}
            paths = list(inputs)
            if against:
                a_paths = list(against)
                mparams = {**mparams, "against": a_paths, "within": within}
            result = _dedup_dask(
                paths, out_dir, method, opts, read_opts, scheduler, workers, mparams
            )
        else:
            paths = _spooled_inputs(inputs, spool)
            a_paths = None if not against else _spooled_inputs(against, spool)
            job = {
                "method": method,
                "options": opts,
                "read_options": read_opts,
                "jobs": jobs,
                "memory_budget": None if memory_mib is None else memory_mib << 20,
                "spill_dir": spill_dir,
                **mparams,
            }
            if a_paths is not None:
                job.update(against=a_paths, within=within)
            if against_collection is not None:
                result = _run_with_progress(
                    lambda prog: _against_collection(
                        paths, against_collection, db, within, job, prog
                    ),
                    quiet or fmt != "table",
                )
            else:
                result = _run_with_progress(
                    lambda prog: run_dedup(paths, progress=prog, **job),
                    quiet or fmt != "table",
                )
        if out_dir is not None and engine == "local":
            mark_stale(out_dir)  # a killed job leaves no summary.json: nothing is claimed
        _run_with_progress(
            lambda prog: _export(
                result, paths, read_opts, kept, removed, prog, named_with=a_paths or [], mark=mark
            ),
            quiet or fmt != "table",
        )
        if out_dir is not None and engine == "local":
            result.summary.update(_recorded_inputs(inputs, read_opts))  # for `neardup view`
            write_result(result, out_dir)  # summary.json last: it names --kept/--removed
        if out_dir is not None and passages:
            from neardup.passages import write_pair_passages

            every = [*(a_paths or []), *paths]  # ids named with A's inputs too
            write_pair_passages(result.pairs, every, read_opts, out_dir)
    except NeardupError as exc:
        raise _fail(exc) from None
    except OSError as exc:  # a full or read-only disk under --out, --spill-dir, --kept
        raise _fail_os(exc) from None
    finally:
        spool.close()
    from neardup.cli.results import skipped_lines

    for line in skipped_lines(result.skipped, out_dir):
        _console("err").print(escape(line), style="yellow", highlight=False)
    for w in result.summary.get("warnings", []):
        _console("err").print(f"[yellow]warning:[/yellow] {escape(w)}", highlight=False)
    _report_result(result, out_dir, fmt, top)


def _check_against(
    against: list[str] | None, collection: str | None, within: bool, engine: str
) -> None:
    """Refuse, before any work, what ``--against`` cannot be run with.

    Raises:
        ParameterError: ``--against`` with ``--against-collection``; ``--no-within``
            without either; ``--against-collection`` with ``--engine dask`` (not built
            there: use ``--engine local``; ``--against INPUT...`` runs on Dask). (``--db``
            alone is no error: it may come from ``NEARDUP_DB``.)
    """
    if against and collection is not None:
        raise ParameterError(
            "--against-collection", collection, "--against INPUT... or a collection, not both"
        )
    if not against and collection is None:
        if not within:
            raise ParameterError("--no-within", True, "with --against or --against-collection")
    elif engine == "dask" and collection is not None:
        raise ParameterError(
            "--against-collection",
            collection,
            "--engine local (the Dask engine does not read a collection; --against INPUT... "
            "runs on Dask)",
        )


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


def _check_dask(
    method: str,
    measure: str,
    inputs: list[str],
    kept: Path | None,
    removed: Path | None,
    out_dir: str | None,
    scheduler: str | None,
    passages: bool = False,
) -> None:
    """Refuse, before any work, what the Dask engine cannot run (naming the reason and the
    alternative).

    Raises:
        ParameterError: an unknown method, ``--kept``/``--removed``/``--passages`` with
            inputs that are not local paths, ``--passages`` with an ``--out`` URL, no
            ``--out`` with ``--scheduler``.
    """
    from neardup.distributed.grouping import check_dask_options

    check_dask_options(method, measure)
    if any(str(p) == "-" for p in inputs):
        raise ParameterError(
            "inputs",
            "-",
            "files, directories, globs or URLs with --engine dask (standard input cannot be "
            "cut into partitions); save it to a file, or use --engine local",
        )
    rereads = {"--kept": kept, "--removed": removed, "--passages": passages or None}
    for flag, given in rereads.items():
        if given is not None and any("://" in str(p) for p in inputs):
            raise ParameterError(
                flag,
                str(given),
                "local input paths with --engine dask (the records are read again on this "
                "machine, in input order); copy the inputs here or use the pairs/dropped files",
            )
    if passages and out_dir is not None and "://" in out_dir:
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
    _console("err").print(line, soft_wrap=True)
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
        _console("err").print(
            f"all records, marked with cluster and duplicate_of: {n} written to {escape(str(kept))}"
        )
    elif kept is not None:
        ids = set(result.kept_ids())
        n = export_records(
            paths, kept, ids, opts, progress=prog, stage="kept", named_with=named_with
        )
        outputs["kept"] = {"path": str(kept), "records": n}
        _console("err").print(f"kept records: {n} written to {escape(str(kept))}")
        _written_all(result, "--kept", n, len(ids))
    if removed is not None:
        n = export_records(
            paths, removed, dropped, opts, progress=prog, stage="removed", named_with=named_with
        )
        outputs["removed"] = {"path": str(removed), "records": n}
        _console("err").print(f"removed records: {n} written to {escape(str(removed))}")
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


def _dedup_dask(
    inputs: list[str],
    out_dir: str | None,
    method: str,
    opts: Any,
    read_opts: dict[str, Any],
    scheduler: str | None,
    workers: int | None,
    mparams: dict[str, Any],
) -> Any:
    from neardup.distributed import dedup_dask

    return dedup_dask(
        list(inputs),
        out_dir,
        method=method,
        options=opts,
        read_options=read_opts,
        scheduler=scheduler,
        workers=workers,
        **mparams,
    )


def _output_format(fmt: str, as_json: bool, top: int) -> str:
    """``--format`` checked against ``--json`` (its alias) and ``--top``.

    Raises:
        ParameterError: an unknown format, ``--json`` with another format, ``--top`` < 0.
    """
    from neardup.cli.results import FORMATS
    from neardup.errors import check_choice, check_int

    check_choice("--format", fmt, FORMATS)
    check_int("--top", top, low=0)
    if as_json and fmt not in ("table", "json"):
        raise ParameterError("--json", f"--format {fmt}", "--json alone or --format json")
    return "json" if as_json else fmt


def _report_result(result: Any, out_dir: str | None, fmt: str, top: int) -> None:
    from neardup.cli import results

    if fmt == "json":
        results.write_json(sys.stdout, result)
    elif fmt == "jsonl":
        results.write_jsonl(sys.stdout, result)
    else:
        results.print_table(_console("out"), result, out_dir, top=top)
    _exit_if_empty(result.summary)


def _exit_if_empty(summary: dict[str, Any]) -> None:
    if summary["documents"] == 0:
        _console("err").print("[red]error:[/red] no document could be processed")
        raise typer.Exit(1)


def _run_with_progress(fn: Any, silent: bool) -> Any:
    if silent or not _console("err").is_terminal:
        return fn(None)
    from neardup.cli.progress import RichProgress

    with RichProgress(_console("err")) as prog:
        return fn(prog)


@app.command()
def compare(
    a: Annotated[Path, typer.Argument(help="First document (any readable file).")],
    b: Annotated[Path, typer.Argument(help="Second document.")],
    method: MethodOpt = None,
    shingle_size: ShingleOpt = None,
    param: ParamOpt = None,
    content_type: Annotated[str, typer.Option(help="auto | text | html | wiki.")] = "auto",
    corpus: Annotated[
        list[Path] | None,
        typer.Option(
            "--corpus",
            help="Collection the lexical methods take statistics from (default: A and B).",
        ),
    ] = None,
    passages: Annotated[
        bool,
        typer.Option(
            "--passages",
            help="The shared passages (align_passages: copies, paraphrases, summaries) with "
            "a little context and a word diff of each ([-removed-] {+inserted+}).",
        ),
    ] = False,
    tiles: Annotated[
        bool,
        typer.Option(
            "--tiles",
            help="With --passages: exact token-equal tiles instead (matched_passages, "
            "greedy string tiling on --shingle-size words).",
        ),
    ] = False,
    context: Annotated[
        int, typer.Option("--context", help="Characters of context around each passage.")
    ] = 60,
    html_file: Annotated[
        Path | None,
        typer.Option(
            "--html", help="Also write one HTML page of the pair: scores, passages side by side."
        ),
    ] = None,
    stop_words: StopOpt = None,
    no_stop_words: NoStopOpt = False,
    stop_symbols: StopSymOpt = None,
    preset: PresetOpt = None,
    morphology: MorphOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Compare two documents: resemblance, containment both ways, shared shingles.

    Example: `neardup compare old.txt new.txt --passages --html pair.html`"""
    from neardup.compare import compare as run_compare
    from neardup.compare import read_document
    from neardup.text.types import Document

    try:
        check_int("--context", context, low=0)
        if html_file is not None:
            check_output_path("--html", html_file, kind="file")
            passages = True
        text_a = read_document(a, content_type=content_type)
        text_b = read_document(b, content_type=content_type)
        canonical = CanonicalOptions(
            stop_words=stop_words,
            no_stop_words=no_stop_words,
            stop_symbols=stop_symbols,
            morphology=morphology,
            preset=preset,
        )
        method = canonical.method(method, "shingles-full")
        mparams = canonical.method_params(method, shingle_size=shingle_size, params=param)
        reference = _corpus_texts(corpus) if corpus else None
        sides = Document(str(a), text_a), Document(str(b), text_b)  # texts, never paths
        result = run_compare(*sides, method=method, corpus=reference, **mparams)
        if tiles and not passages:
            raise UsageError("--tiles goes with --passages")
        shared = _passages(text_a, text_b, mparams, tiles=tiles) if passages else None
    except NeardupError as exc:
        raise _fail(exc) from None
    if result.empty_lexicon:
        _empty_lexicon(result.method, corpus=bool(corpus))
    elif not corpus:
        _own_statistics(method)
    if as_json:
        row = result.as_dict()
        if shared is not None:
            row["passages"] = [dataclasses.asdict(p) for p in shared]
        import json  # here: `neardup --help` does not load json

        sys.stdout.write(json.dumps(row, ensure_ascii=False, indent=2) + "\n")
        return
    from rich.table import Table

    table = Table(title=f"{a.name} vs {b.name} ({result.method})", show_header=False)
    row = result.as_dict()
    table.add_row("resemblance", f"{row['resemblance']:.4f}")
    table.add_row("containment A in B", f"{row['containment_ab']:.4f}")
    table.add_row("containment B in A", f"{row['containment_ba']:.4f}")
    table.add_row("shared shingles", f"{row['shared']} (A: {row['size_a']}, B: {row['size_b']})")
    dice = f"{row['dice']:.4f} / {row['dice_multiset']:.4f}"
    table.add_row("Dice (sets / lists with repeats)", dice)
    table.add_row("method score", f"{row['score']:.4f}")
    _console("out").print(table)
    if shared is not None:
        from neardup.cli.pairview import print_passages

        print_passages(
            _console("out"), shared, text_a, text_b, name_a=a.name, name_b=b.name, context=context
        )
    if html_file is not None and shared is not None:
        from neardup.cli.pairview import html_report

        html_report(html_file, shared, text_a, text_b, name_a=str(a), name_b=str(b), scores=row)
        _console("err").print(f"HTML report: {escape(str(html_file))}", highlight=False)


def _empty_lexicon(method: str, *, corpus: bool) -> None:
    """Say that a lexical method made no signature; without ``--corpus``, refuse (exit 2):
    its score would be 0 whatever the texts."""
    what = "the statistics of the reference corpus" if corpus else "the statistics of A and B alone"
    message = (
        f"warning: {method} found no lexicon words on {what}, so its score is 0 whatever the texts"
    )
    if corpus:
        _console("err").print(message + ".", markup=False, highlight=False, soft_wrap=True)
        return
    _console("err").print(
        message + ": pass the collection the documents come from, e.g. --corpus DIR "
        "(I-Match and anchor words take mid-frequency words from its statistics)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    raise typer.Exit(2)


def _own_statistics(method: str) -> None:
    """Warn that a lexical method (``needs_fit``: TF-RIDF, I-Match, anchor words) compared
    without ``--corpus`` took its word statistics from A and B alone."""
    from neardup.methods.registry import method_class

    if not method_class(method).capabilities.needs_fit:
        return
    _console("err").print(
        f"warning: {method} takes word statistics from a collection; without --corpus they "
        "are those of A and B alone, so its signature is not the one the documents get in "
        "their collection: pass it, e.g. --corpus DIR",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _passages(text_a: str, text_b: str, mparams: dict[str, Any], *, tiles: bool) -> list[Any]:
    """``compare --passages``: :func:`align_passages` (the one aligner), or with ``--tiles``
    the exact tiles of :func:`matched_passages`."""
    from neardup.passages import align_passages, matched_passages

    if tiles:
        return matched_passages(text_a, text_b, shingle_size=mparams.get("shingle_size", 5))
    return align_passages(text_a, text_b)


def _corpus_texts(paths: list[Path]) -> list[str]:
    from neardup.text.read import read_corpus
    from neardup.text.types import Document

    return [d.text for d in read_corpus(paths) if isinstance(d, Document)]


@app.command()
def methods(as_json: JsonOpt = False) -> None:
    """List the detection methods with their parameters and sources."""
    from neardup.methods.registry import describe, method_names

    rows = [describe(n) for n in method_names()]
    if as_json:
        import json

        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2, default=str) + "\n")
        return
    from rich.table import Table

    table = Table("method", "parameters", "decision (default)", "source")
    for r in rows:
        params = ", ".join(f"{k}={v['default']}" for k, v in r["parameters"].items())
        rule = r["decision"]
        decision = f"{rule['rule']} ({rule['default']})"
        table.add_row(escape(r["name"]), escape(params), escape(decision), escape(r["source"]))
    _console("out").print(table)


def _register_extensions() -> None:
    """Commands defined in sibling modules: each has ``register(app)``."""
    import importlib

    commands = ("collection", "serve", "evaluate", "crawl")
    for name in (*commands, "lines", "substrings", "contamination", "view"):
        try:
            module = importlib.import_module(f"neardup.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"neardup.cli.{name}":
                raise
            continue
        module.register(app)


_register_extensions()


def app_for(argv: list[str]) -> typer.Typer:
    """The app that runs ``neardup ARGV``, built only as far as ``argv`` needs.

    Typer builds the options of every command it holds before it parses anything (about
    10 ms a command). So: ``neardup --version`` alone gets no command (its eager callback
    exits first); ``neardup`` and ``neardup --help`` get a listing of the commands (names
    and help only); ``neardup COMMAND ...`` gets an app
    holding that command alone; an unknown command gets the whole app, so that the error
    lists the choices. Help and error texts are the same as the whole app's.
    """
    import copy
    import inspect

    name = next((a for a in argv if not a.startswith("-")), None)
    sub = copy.copy(app)
    if argv == ["--version"]:  # the eager callback prints and exits: no command is built
        sub.registered_commands, sub.registered_groups = [], []
        return sub
    if name is None:
        sub.registered_commands = []
        for info in app.registered_commands:
            stub = copy.copy(info)
            stub.name = info.name or info.callback.__name__.replace("_", "-")  # type: ignore[union-attr]
            stub.help = info.help or inspect.getdoc(info.callback)
            stub.callback = _listed
            sub.registered_commands.append(stub)
        sub.registered_groups = []
        for group in app.registered_groups:
            assert group.typer_instance is not None  # add_typer() always sets it
            empty = copy.copy(group.typer_instance)
            empty.registered_commands, empty.registered_groups = [], []
            stub_group = copy.copy(group)
            stub_group.typer_instance = empty
            sub.registered_groups.append(stub_group)
        return sub
    sub.registered_commands = [
        c
        for c in app.registered_commands
        if (c.name or c.callback.__name__.replace("_", "-")) == name  # type: ignore[union-attr]
    ]
    sub.registered_groups = [g for g in app.registered_groups if g.name == name]
    if not sub.registered_commands and not sub.registered_groups:
        return app
    for info in sub.registered_commands:
        _resolve_hints(info.callback)
    return sub


def _resolve_hints(callback: Any) -> None:
    """Replace ``callback``'s string annotations by their values, once: Typer reads the
    type hints of a command twice, each time compiling and evaluating every string."""
    if callback is None or not any(isinstance(a, str) for a in callback.__annotations__.values()):
        return
    from typing import get_type_hints

    callback.__annotations__ = get_type_hints(callback, include_extras=True)


def _listed() -> None:
    """Stand-in callback of a command that is only listed (never run)."""


# Typer reads each callback's type hints (twice a command); a string "None" is compiled and
# evaluated every time (`from __future__ import annotations`): the stand-in has none.
_listed.__annotations__ = {}


def run() -> None:
    """Run the command line on ``sys.argv`` (see :func:`app_for`); the console script
    reaches it through :func:`neardup.cli.entry.run`."""
    from neardup.cli.early import start_workers_early

    start_workers_early(sys.argv[1:])  # idempotent: the console script's entry ran it first
    try:
        app_for(sys.argv[1:])(prog_name="neardup")  # `python -m neardup` too
    finally:
        skip_final_collections()
