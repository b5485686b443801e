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
    from neardup.cli import dedup as _dedup_command
    from neardup.cli.coercion import install as install_plain_coercion
    from neardup.cli.common import (
        CanonicalOptions,
        check_output_path,
        escape,
    )
    from neardup.cli.common import console as _console
    from neardup.cli.common import fail as _fail
    from neardup.cli.helptext import install as install_help_placeholders
    from neardup.cli.options import (
        JsonOpt,
        MorphOpt,
        NoStopOpt,
        ParamOpt,
        PresetOpt,
        ShingleOpt,
        StopOpt,
        StopSymOpt,
    )
    from neardup.errors import NeardupError, UsageError, check_int

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


_dedup_command.register(app)  # first: `neardup --help` lists dedup first


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
