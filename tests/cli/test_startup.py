"""Start-up: `neardup --help` / `--version` load neither numpy, Rich's console, SQLAlchemy,
pydantic nor the methods (lazy imports; the option declarations of
``neardup.options`` and ``.params`` are loaded: plain dataclasses, no numpy), nor
the standard modules only a command's work needs (tomllib for --config, tempfile for --out
files, json for JSON output); and the trimmed app that `run()` builds for one command prints
the same help and errors as the whole app (issue 28: `--version` and a one-file `check` no
slower than 2b454db)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fresh_python import run_code
from neardup._version import __version__
from neardup.cli.main import app, app_for

HEAVY = (
    "numpy",
    "rich.console",
    "sqlalchemy",
    "pydantic",
    "neardup.methods.base",
    "neardup.methods.registry",
    "neardup.job.pipeline",
    "tomllib",
    "tempfile",
    "json",
)
runner = CliRunner()


def _loaded(*argv: str) -> set[str]:
    """Heavy modules loaded by `neardup ARGV` in a fresh interpreter."""
    code = (
        "import sys\n"
        "from neardup.cli.main import run\n"
        f"sys.argv = ['neardup', *{list(argv)!r}]\n"
        "try:\n    run()\nexcept SystemExit:\n    pass\n"
        f"print('loaded:', *[m for m in {HEAVY!r} if m in sys.modules])\n"  # no json import
    )
    res = run_code(code)
    assert res.returncode == 0, res.stderr
    return set(res.stdout.splitlines()[-1].split()[1:])


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_help_and_version_load_nothing_heavy(argv: list[str]) -> None:
    assert _loaded(*argv) == set()


def test_a_command_loads_what_it_needs() -> None:
    assert {"neardup.methods.registry"} <= _loaded("methods", "--json")


def test_config_reads_toml_when_given(tmp_path: Path) -> None:
    """tomllib is imported when --config is given (not at start-up): a malformed file is a
    usage error naming it (a good one: tests/cli/test_dedup_friction.py)."""
    bad = tmp_path / "bad.toml"
    bad.write_text("method = \n", encoding="utf-8")
    res = runner.invoke(app, ["dedup", "x", "--config", str(bad)])
    assert res.exit_code == 2
    assert "bad.toml is not TOML" in res.output


def test_version_alone_builds_no_command() -> None:
    """`neardup --version` prints the version from an app holding no command (the eager
    callback exits before any is needed); with another argument the listing is built."""
    sub = app_for(["--version"])
    assert not sub.registered_commands and not sub.registered_groups
    res = runner.invoke(sub, ["--version"])
    assert (res.exit_code, res.output) == (0, f"neardup {__version__}\n")
    assert len(app_for(["--version", "--help"]).registered_commands) == len(app.registered_commands)


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        ["--version", "--help"],
        ["--help", "--version"],
        [],
        ["collection", "--help"],
        ["collection", "check", "--help"],
        ["dedup", "--help"],
        ["check", "--help"],
        ["nope"],
        ["dedup", "--frobnicate"],
    ],
)
def test_trimmed_app_says_the_same_as_the_whole_app(argv: list[str]) -> None:
    whole = runner.invoke(app, argv)
    trimmed = runner.invoke(app_for(argv), argv)
    assert (trimmed.exit_code, trimmed.output) == (whole.exit_code, whole.output)


def test_trimmed_app_holds_only_the_command() -> None:
    sub = app_for(["dedup", "x"])
    assert [getattr(c.callback, "__name__", None) for c in sub.registered_commands] == ["dedup"]
    # its annotations evaluated once (Typer would compile each string twice)
    hints = sub.registered_commands[0].callback.__annotations__
    assert hints and not any(isinstance(h, str) for h in hints.values())
    assert not sub.registered_groups
    assert app_for(["nope"]) is app


def test_a_one_file_check_loads_one_method_and_no_kernel(tmp_path: Path) -> None:
    """`neardup check FILE` on a minhash-lsh collection: the method's own module only (not
    the eight other built-in ones), numpy's band keys for its one sketch (no compiled
    kernel module), no TOML parser; and it finds the stored near-duplicate."""
    text = (
        "The quick brown fox jumps over the lazy dog while the farmer watches from the "
        "porch and the cat sleeps in the warm afternoon sun beside the old red barn."
    )
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "d0", "text": text}) + "\n", encoding="utf-8")
    query = tmp_path / "q.txt"
    query.write_text(text.replace("old red barn", "red old barn") + "\n", encoding="utf-8")
    db = ["--db", f"sqlite:///{tmp_path / 'c.db'}"]
    assert (
        runner.invoke(app, ["collection", "create", "c", "-m", "minhash-lsh", *db]).exit_code == 0
    )
    assert runner.invoke(app, ["add", "c", str(corpus), "-q", *db]).exit_code == 0
    code = (
        "import sys, json\n"
        "from neardup.cli.main import run\n"
        f"sys.argv = ['neardup', 'check', 'c', {str(query)!r}, *{db!r}]\n"
        "try:\n    run()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "mods = ['neardup.methods.kernel', 'neardup.methods.slst', 'neardup.methods.tfridf',"
        " 'neardup.methods.shingle_methods', 'tomllib']\n"
        "print(json.dumps([code, [m for m in mods if m in sys.modules]]))\n"
    )
    res = run_code(code)
    assert "q.txt: duplicate of d0" in res.stdout, res.stderr
    assert json.loads(res.stdout.splitlines()[-1]) == [1, ["neardup.methods.shingle_methods"]]


@pytest.mark.parametrize("enabled", [True, False])
def test_imports_without_gc_pause_collection_then_freeze_and_restore(enabled: bool) -> None:
    import gc

    from neardup.cli.gc_pause import imports_without_gc

    before = gc.isenabled()
    frozen = gc.get_freeze_count()
    (gc.enable if enabled else gc.disable)()
    try:
        with imports_without_gc():
            assert not gc.isenabled()
            made: list[list[int]] = [[] for _ in range(1000)]  # alive at the end of the block
        assert gc.isenabled() is enabled
        assert gc.get_freeze_count() >= frozen + len(made)
    finally:
        gc.unfreeze()
        (gc.enable if before else gc.disable)()


@pytest.mark.parametrize(
    ("argv", "local"),
    [
        (["dedup", "in.jsonl", "--engine", "dask", "--out", "o"], True),
        (["dedup", "in.jsonl", "--engine=dask", "--workers", "2"], True),
        (["dedup", "in.jsonl", "--engine", "dask", "--scheduler", "tcp://h:8786"], False),
        (["dedup", "in.jsonl", "--engine", "dask", "--scheduler=tcp://h:8786"], False),
        (["dedup", "in.jsonl", "--engine", "local"], False),
        (["dedup", "in.jsonl"], False),
        (["check", "dask", "--engine", "dask"], False),
        ([], False),
    ],
)
def test_the_fork_server_starts_first_only_for_a_local_cluster(
    argv: list[str], local: bool
) -> None:
    """The console script starts the workers' fork server before anything else only for
    ``dedup --engine dask`` without ``--scheduler``."""
    from neardup.cli.early import on_local_cluster

    assert on_local_cluster(argv) is local


def test_the_console_script_is_the_light_entry_point() -> None:
    """``neardup`` runs :func:`neardup.cli.entry.run`, whose module imports neither Typer nor
    the command line: a Dask worker re-imports the console script as its main module
    (``multiprocessing``), and took Typer and every command with it before."""
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="neardup")
    assert script.value == "neardup.cli.entry:run"
    code = (
        "import sys\n"
        "import neardup.cli.entry\n"
        "print(sorted(m for m in ('typer', 'neardup.cli.main', 'numpy') if m in sys.modules))\n"
    )
    res = run_code(code)
    assert res.stdout.strip() == "[]", res.stderr


def test_python_m_neardup_runs_the_command_line(tmp_path: Path) -> None:
    """``python -m neardup`` (issue 41, item 15: "No module named neardup.__main__") enters
    as the console script does; its usage lines say ``neardup``; a worker re-importing the
    main module (``multiprocessing``) runs nothing."""
    import subprocess
    import sys

    from fresh_python import python_env

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "neardup", *args]
        return subprocess.run(cmd, capture_output=True, text=True, env=python_env(), timeout=300)

    assert run("--version").stdout == f"neardup {__version__}\n"
    story = "the old doctor walked slowly along the river bank in the morning light"
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(story, encoding="utf-8")
    res = run("dedup", str(tmp_path), "-f", "json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["summary"]["pairs"] == 1
    bad = run("no-such-command")
    assert bad.returncode == 2 and "Usage: neardup " in bad.stderr
    imported = run_code(
        "import runpy; runpy.run_module('neardup.__main__', run_name='__mp_main__')"
    )
    assert imported.returncode == 0 and imported.stdout == "", imported.stderr
