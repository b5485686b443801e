"""Start-up: `neardup --help` / `--version` load neither numpy, Rich's console, SQLAlchemy,
pydantic nor the methods (lazy imports; the option declarations of
``neardup.methods.options`` and ``.params`` are loaded: plain dataclasses, no numpy), and
the trimmed app that `run()` builds for one command prints the same help and errors as the
whole app."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app, app_for

HEAVY = (
    "numpy",
    "rich.console",
    "sqlalchemy",
    "pydantic",
    "neardup.methods.base",
    "neardup.methods.registry",
    "neardup.dedup",
)
runner = CliRunner()


def _loaded(*argv: str) -> set[str]:
    """Heavy modules loaded by `neardup ARGV` in a fresh interpreter."""
    code = (
        "import sys, json\n"
        "from neardup.cli.main import run\n"
        f"sys.argv = ['neardup', *{list(argv)!r}]\n"
        "try:\n    run()\nexcept SystemExit:\n    pass\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    return set(json.loads(res.stdout.splitlines()[-1]))


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_help_and_version_load_nothing_heavy(argv: list[str]) -> None:
    assert _loaded(*argv) == set()


def test_a_command_loads_what_it_needs() -> None:
    assert {"neardup.methods.registry"} <= _loaded("methods", "--json")


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
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
    assert not sub.registered_groups
    assert app_for(["nope"]) is app
