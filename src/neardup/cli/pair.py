"""``neardup compare A B``: one pair of documents, by any method: resemblance, containment
both ways, shared shingles, the method's own score; with ``--passages`` the aligned passages,
with ``--html`` one page of the pair.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from neardup.cli.common import check_output_path, console, escape, fail, method_choice
from neardup.cli.shared_options import (
    CONTENT_TYPE,
    DEDUP_METHOD,
    ContentTypeOpt,
    JsonOpt,
    MethodOpt,
    MorphOpt,
    NoStopOpt,
    ParamOpt,
    PresetOpt,
    ShingleOpt,
    StopOpt,
    StopSymOpt,
)
from neardup.errors import NeardupError, UsageError, check_int


def compare(
    a: Annotated[Path, typer.Argument(help="First document (any readable file).")],
    b: Annotated[Path, typer.Argument(help="Second document.")],
    method: MethodOpt = None,
    shingle_size: ShingleOpt = None,
    param: ParamOpt = None,
    content_type: ContentTypeOpt = CONTENT_TYPE,
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
    from neardup.job.compare import compare as run_compare
    from neardup.job.compare import read_document
    from neardup.text.types import Document

    try:
        check_int("--context", context, low=0)
        if html_file is not None:
            check_output_path("--html", html_file, kind="file")
            passages = True
        text_a = read_document(a, content_type=content_type)
        text_b = read_document(b, content_type=content_type)
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
        reference = _corpus_texts(corpus) if corpus else None
        sides = Document(str(a), text_a), Document(str(b), text_b)  # texts, never paths
        result = run_compare(*sides, method=method, corpus=reference, **mparams)
        if tiles and not passages:
            raise UsageError("--tiles goes with --passages")
        shared = _passages(text_a, text_b, mparams, tiles=tiles) if passages else None
    except NeardupError as exc:
        raise fail(exc) from None
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
    console("out").print(table)
    if shared is not None:
        from neardup.cli.pairview import print_passages

        print_passages(
            console("out"), shared, text_a, text_b, name_a=a.name, name_b=b.name, context=context
        )
    if html_file is not None and shared is not None:
        from neardup.cli.pairview import html_report

        html_report(html_file, shared, text_a, text_b, name_a=str(a), name_b=str(b), scores=row)
        console("err").print(f"HTML report: {escape(str(html_file))}", highlight=False)


def _empty_lexicon(method: str, *, corpus: bool) -> None:
    """Say that a lexical method made no signature; without ``--corpus``, refuse (exit 2):
    its score would be 0 whatever the texts."""
    what = "the statistics of the reference corpus" if corpus else "the statistics of A and B alone"
    message = (
        f"warning: {method} found no lexicon words on {what}, so its score is 0 whatever the texts"
    )
    if corpus:
        console("err").print(message + ".", markup=False, highlight=False, soft_wrap=True)
        return
    console("err").print(
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
    from neardup.methods.plan import plan_for

    if not plan_for(method).needs_fit:
        return
    console("err").print(
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


def register(app: typer.Typer) -> None:
    """Add ``compare`` to the ``neardup`` app."""
    app.command("compare")(compare)
