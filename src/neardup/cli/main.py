"""The ``neardup`` command line (Typer): the app and its start-up (:func:`app_for`,
:func:`run`); every command is in its module (``register(app)`` adds it). Exit codes: 0 ok,
1 failure, 2 usage error."""

from __future__ import annotations

from neardup.cli.gc_pause import imports_without_gc, skip_final_collections

with imports_without_gc():  # Typer and the options: no collection walks them (start-up)
    import sys
    from typing import Annotated, Any

    import typer

    from neardup._version import __version__
    from neardup.cli import dedup as _dedup_command
    from neardup.cli.coercion import install as install_plain_coercion
    from neardup.cli.helptext import install as install_help_placeholders

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


def _register_extensions() -> None:
    """The commands, each in its module (``register(app)`` adds it), in the order
    ``neardup --help`` lists them."""
    import importlib

    commands = ("pair", "listing", "collection", "serve", "evaluate", "crawl")
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
