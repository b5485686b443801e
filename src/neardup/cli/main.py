"""The ``neardup`` command line (Typer). Exit codes: 0 ok, 1 failure, 2 usage error."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from neardup._version import __version__
from neardup.errors import NeardupError, ParameterError, UsageError

app = typer.Typer(
    name="neardup",
    help="Find near-duplicate documents: shingles, MinHash-LSH and the methods of the seeds.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True)
out = Console()

MethodOpt = Annotated[
    str, typer.Option("--method", "-m", help="Detection method (see `neardup methods`).")
]
DecisionOpt = Annotated[
    str | None,
    typer.Option(
        "--decision",
        help="own (the method's rule from its paper) | verified (exact shingle sets); "
        "default: each method's own (see `neardup methods`).",
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
StopOpt = Annotated[
    bool | None,
    typer.Option(
        "--stop-words/--no-stop-words",
        help="Drop Russian and English stop words (default: the method's canonical form).",
    ),
]
MorphOpt = Annotated[
    str | None,
    typer.Option("--morphology", help="none | stem (Snowball) | lemma (pymorphy3)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]


def _version(value: bool) -> None:
    if value:
        out.print(f"neardup {__version__}")
        raise typer.Exit(0)


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """neardup: near-duplicate detection for text collections."""


def _parse_value(raw: str) -> Any:
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(raw)
        except ValueError:
            pass
    return raw


def method_params(
    method: str,
    shingle_size: int | None,
    params: list[str] | None,
    stop_words: bool,
    morphology: str,
) -> dict[str, Any]:
    """Collect method parameters from the common options and ``--param KEY=VALUE``.

    Raises:
        ParameterError: a malformed ``--param`` or a parameter the method does not have.
    """
    from neardup.methods.registry import method_class

    fields = {f.name for f in dataclasses.fields(method_class(method)) if f.init}
    result: dict[str, Any] = {}
    if shingle_size is not None:
        if "shingle_size" not in fields:
            raise ParameterError("--shingle-size", shingle_size, f"not a parameter of {method}")
        result["shingle_size"] = shingle_size
    for item in params or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ParameterError("--param", item, "KEY=VALUE")
        result[key.strip().replace("-", "_")] = _parse_value(value.strip())
    if "canonical" in fields and (stop_words is not None or morphology is not None):
        spec = next(f for f in dataclasses.fields(method_class(method)) if f.name == "canonical")
        has_factory = spec.default_factory is not dataclasses.MISSING
        base = spec.default_factory() if has_factory else spec.default  # type: ignore[misc]
        result["canonical"] = dataclasses.replace(
            base,
            **({} if stop_words is None else {"stop_words": stop_words}),
            **({} if morphology is None else {"morphology": morphology}),
        )
    return result


def _fail(exc: NeardupError) -> typer.Exit:
    err.print(f"[red]error:[/red] {exc}")
    return typer.Exit(2 if isinstance(exc, UsageError) else 1)


@app.command()
def dedup(
    inputs: Annotated[
        list[Path],
        typer.Argument(help="Files or directories (txt, md, html, jsonl, csv; .gz too)."),
    ],
    method: MethodOpt = "shingles-full",
    measure: Annotated[str, typer.Option(help="resemblance | containment.")] = "resemblance",
    threshold: Annotated[
        float, typer.Option("--threshold", "-t", help="Decision threshold in (0, 1].")
    ] = 0.5,
    shingle_size: ShingleOpt = None,
    param: ParamOpt = None,
    keep: Annotated[
        str, typer.Option(help="Which document a cluster keeps: longest | first.")
    ] = "longest",
    decision: DecisionOpt = None,
    verify: Annotated[
        bool | None,
        typer.Option("--verify/--no-verify", help="Older spelling of --decision verified / own."),
    ] = None,
    min_tokens: Annotated[
        int, typer.Option(help="Skip documents with fewer canonical tokens.")
    ] = 3,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write pairs/clusters/dropped/skipped/summary here."),
    ] = None,
    id_field: Annotated[str, typer.Option(help="JSONL/CSV id field.")] = "id",
    text_field: Annotated[str, typer.Option(help="JSONL/CSV text field.")] = "text",
    content_type: Annotated[str, typer.Option(help="auto | text | html | wiki.")] = "auto",
    max_bytes: Annotated[
        int, typer.Option(help="Skip documents larger than this many bytes.")
    ] = 20_000_000,
    stop_words: StopOpt = None,
    morphology: MorphOpt = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    engine: Annotated[str, typer.Option(help="local | dask.")] = "local",
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address (--engine dask).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="LocalCluster workers (--engine dask).")
    ] = None,
) -> None:
    """Deduplicate a corpus into pairs and clusters, and decide what to keep."""
    from neardup.dedup import DedupOptions
    from neardup.dedup import dedup as run_dedup
    from neardup.output import write_result

    try:
        opts = DedupOptions(
            measure=measure,  # type: ignore[arg-type]
            threshold=threshold,
            keep=keep,  # type: ignore[arg-type]
            verify=verify,
            decision=decision,  # type: ignore[arg-type]
            min_tokens=min_tokens,
        )
        mparams = method_params(method, shingle_size, param, stop_words, morphology)
        read_opts = {
            "id_field": id_field,
            "text_field": text_field,
            "content_type": content_type,
            "max_bytes": max_bytes,
        }
        if engine not in ("local", "dask"):
            raise ParameterError("--engine", engine, "local or dask")
        if engine == "local" and (scheduler is not None or workers is not None):
            raise ParameterError("--scheduler/--workers", scheduler or workers, "--engine dask")
        if engine == "dask":
            summary = _dedup_dask(
                inputs, out_dir, method, opts, read_opts, scheduler, workers, mparams
            )
            _report_summary(summary, out_dir, as_json)
            return
        result = _run_with_progress(
            lambda prog: run_dedup(
                [str(p) for p in inputs],
                method=method,
                options=opts,
                read_options=read_opts,
                progress=prog,
                **mparams,
            ),
            quiet or as_json,
        )
        if out_dir is not None:
            write_result(result, out_dir)
    except NeardupError as exc:
        raise _fail(exc) from None
    for s in result.skipped:
        err.print(f"[yellow]skipped[/yellow] {s.id}: {s.reason} {s.detail}".rstrip())
    for w in result.summary.get("warnings", []):
        err.print(f"[yellow]warning:[/yellow] {w}", markup=True, highlight=False)
    _report_summary(result.summary, out_dir, as_json)


def _dedup_dask(
    inputs: list[Path],
    out_dir: Path | None,
    method: str,
    opts: Any,
    read_opts: dict[str, Any],
    scheduler: str | None,
    workers: int | None,
    mparams: dict[str, Any],
) -> dict[str, Any]:
    from neardup.distributed import dedup_dask

    if out_dir is None:
        raise ParameterError("--out", None, "an output directory with --engine dask")
    return dedup_dask(
        [str(p) for p in inputs],
        str(out_dir),
        method=method,
        options=opts,
        read_options=read_opts,
        scheduler=scheduler,
        workers=workers,
        **mparams,
    )


def _report_summary(summary: dict[str, Any], out_dir: Path | None, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    else:
        _print_summary(summary, out_dir)
    if summary["documents"] == 0:
        err.print("[red]error:[/red] no document could be processed")
        raise typer.Exit(1)


def _run_with_progress(fn: Any, silent: bool) -> Any:
    if silent or not err.is_terminal:
        return fn(None)
    from neardup.cli.progress import RichProgress

    with RichProgress(err) as prog:
        return fn(prog)


def _print_summary(summary: dict[str, Any], out_dir: Path | None) -> None:
    table = Table(title=f"neardup dedup ({summary['method']})", show_header=False)
    for key in ("documents", "skipped", "candidate_pairs", "pairs", "clusters", "kept", "dropped"):
        table.add_row(key.replace("_", " "), str(summary[key]))
    table.add_row("seconds", f"{summary['seconds']['total']:.2f}")
    table.add_row("peak memory", f"{summary['peak_memory_mib']} MiB")
    if out_dir is not None:
        table.add_row("output", str(out_dir))
    out.print(table)


@app.command()
def compare(
    a: Annotated[Path, typer.Argument(help="First document (any readable file).")],
    b: Annotated[Path, typer.Argument(help="Second document.")],
    method: MethodOpt = "shingles-full",
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
        typer.Option("--passages", help="List the shared passages, highlighted in both texts."),
    ] = False,
    stop_words: StopOpt = None,
    morphology: MorphOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Compare two documents: resemblance, containment both ways, shared shingles."""
    from neardup.compare import compare as run_compare

    try:
        text_a, text_b = _read_one(a, content_type), _read_one(b, content_type)
        mparams = method_params(method, shingle_size, param, stop_words, morphology)
        reference = _corpus_texts(corpus) if corpus else None
        result = run_compare(text_a, text_b, method=method, corpus=reference, **mparams)
        shared = _passages(text_a, text_b, mparams) if passages else None
    except NeardupError as exc:
        raise _fail(exc) from None
    if as_json:
        row = result.as_dict()
        if shared is not None:
            row["passages"] = [dataclasses.asdict(p) for p in shared]
        sys.stdout.write(json.dumps(row, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table(title=f"{a.name} vs {b.name} ({result.method})", show_header=False)
    row = result.as_dict()
    table.add_row("resemblance", f"{row['resemblance']:.4f}")
    table.add_row("containment A in B", f"{row['containment_ab']:.4f}")
    table.add_row("containment B in A", f"{row['containment_ba']:.4f}")
    table.add_row("shared shingles", f"{row['shared']} (A: {row['size_a']}, B: {row['size_b']})")
    table.add_row("method score", f"{row['score']:.4f}")
    out.print(table)
    if shared is not None:
        _print_passages(shared, text_a, text_b, a.name, b.name)


def _passages(text_a: str, text_b: str, mparams: dict[str, Any]) -> list[Any]:
    from neardup.passages import matched_passages

    return matched_passages(text_a, text_b, shingle_size=mparams.get("shingle_size", 5))


def _print_passages(shared: list[Any], text_a: str, text_b: str, name_a: str, name_b: str) -> None:
    from neardup.passages import highlight

    if not shared:
        out.print("no shared passages")
        return
    table = Table("#", f"{name_a} [start, end)", f"{name_b} [start, end)", "tokens", "text")
    for i, p in enumerate(shared, 1):
        preview = p.text_a(text_a).replace("\n", " ")
        preview = preview if len(preview) <= 60 else preview[:57] + "..."
        table.add_row(
            str(i), f"{p.a_start}-{p.a_end}", f"{p.b_start}-{p.b_end}", str(p.tokens), preview
        )
    out.print(table)
    for name, text, spans in (
        (name_a, text_a, [p.a_span for p in shared]),
        (name_b, text_b, [p.b_span for p in shared]),
    ):
        out.rule(name)
        out.print(highlight(text, spans))


def _corpus_texts(paths: list[Path]) -> list[str]:
    from neardup.text.read import read_corpus
    from neardup.text.types import Document

    return [d.text for d in read_corpus(paths) if isinstance(d, Document)]


def _read_one(path: Path, content_type: str) -> str:
    from neardup.errors import InputError
    from neardup.text.read import read_corpus

    if not path.is_file():
        raise InputError(f"{path}: not a file")
    items = list(read_corpus([path], content_type=content_type))
    docs = [i for i in items if not hasattr(i, "reason")]
    if not docs:
        reason = items[0] if items else None
        detail = f"{reason.reason} {reason.detail}" if reason is not None else "no document"  # type: ignore[union-attr]
        raise InputError(f"{path}: cannot be compared ({detail})")
    return "\n\n".join(d.text for d in docs)  # type: ignore[union-attr]


@app.command()
def methods(as_json: JsonOpt = False) -> None:
    """List the detection methods with their parameters and sources."""
    from neardup.methods.registry import describe, method_names

    rows = [describe(n) for n in method_names()]
    if as_json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2, default=str) + "\n")
        return
    table = Table("method", "parameters", "decision (default)", "source")
    for r in rows:
        params = ", ".join(f"{k}={v['default']}" for k, v in r["parameters"].items())
        rule = r["decision"]
        table.add_row(r["name"], params, f"{rule['rule']} ({rule['default']})", r["source"])
    out.print(table)


def _register_extensions() -> None:
    """Commands defined in sibling modules: each has ``register(app)``."""
    import importlib

    for name in ("collections", "serve", "evaluate", "distributed", "crawl"):
        try:
            module = importlib.import_module(f"neardup.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"neardup.cli.{name}":
                raise
            continue
        module.register(app)


_register_extensions()


def run() -> None:
    """Console-script entry point."""
    app()
