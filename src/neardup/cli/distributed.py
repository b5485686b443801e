"""``neardup dask-dedup``: the corpus dedup job on a Dask cluster (see docs/distributed.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add the ``dask-dedup`` command to the ``neardup`` app."""
    app.command("dask-dedup")(dask_dedup)


def dask_dedup(
    inputs: Annotated[
        list[str],
        typer.Argument(help="JSONL(.gz) or Parquet files, directories or globs; fsspec URLs."),
    ],
    out_dir: Annotated[
        str, typer.Option("--out", "-o", help="Output directory (path or URL) for all workers.")
    ],
    method: Annotated[
        str, typer.Option("--method", "-m", help="minhash-lsh | megashingles | imatch | tf-ridf.")
    ] = "minhash-lsh",
    threshold: Annotated[
        float, typer.Option("--threshold", "-t", help="Decision threshold in (0, 1].")
    ] = 0.5,
    shingle_size: Annotated[
        int | None, typer.Option("--shingle-size", "-w", help="Words per shingle (default 5).")
    ] = None,
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="Method parameter KEY=VALUE.")
    ] = None,
    keep: Annotated[str, typer.Option(help="longest | first.")] = "longest",
    verify: Annotated[bool, typer.Option("--verify/--no-verify")] = True,
    min_tokens: Annotated[int, typer.Option(help="Skip documents with fewer tokens.")] = 3,
    scheduler: Annotated[
        str | None, typer.Option(help="Scheduler address, e.g. tcp://host:8786.")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="Workers of a local cluster (no --scheduler); default 2.")
    ] = None,
    block_mib: Annotated[int, typer.Option(help="JSONL block (partition) size, MiB.")] = 64,
    id_field: Annotated[str, typer.Option(help="JSONL/Parquet id field.")] = "id",
    text_field: Annotated[str, typer.Option(help="JSONL/Parquet text field.")] = "text",
    content_type: Annotated[str, typer.Option(help="auto | text | html | wiki.")] = "auto",
    stop_words: Annotated[bool, typer.Option("--stop-words/--no-stop-words")] = True,
    morphology: Annotated[str, typer.Option(help="none | stem | lemma.")] = "none",
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Deduplicate a corpus on a Dask cluster (same output files as `neardup dedup`)."""
    from neardup.cli.main import _fail, err, method_params
    from neardup.dedup import DedupOptions
    from neardup.distributed import dedup_dask
    from neardup.errors import NeardupError

    if scheduler is not None and workers is not None:
        err.print("[red]error:[/red] give --scheduler or --workers, not both")
        raise typer.Exit(2)
    try:
        opts = DedupOptions(
            threshold=threshold,
            keep=keep,  # type: ignore[arg-type]
            verify=verify,
            min_tokens=min_tokens,
        )
        mparams = method_params(method, shingle_size, param, stop_words, morphology)
        summary = dedup_dask(
            inputs,
            out_dir,
            method=method,
            options=opts,
            read_options={
                "id_field": id_field,
                "text_field": text_field,
                "content_type": content_type,
            },
            scheduler=scheduler,
            workers=workers,
            block_bytes=block_mib << 20,
            **mparams,
        )
    except NeardupError as exc:
        raise _fail(exc) from None
    if as_json:
        sys.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
    else:
        from neardup.cli.main import _print_summary

        _print_summary(summary, Path(out_dir) if "://" not in out_dir else None)
    if summary["documents"] == 0:
        err.print("[red]error:[/red] no document could be processed")
        raise typer.Exit(1)
