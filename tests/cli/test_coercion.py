"""Plain parameter values without pydantic (neardup.cli.coercion): for every parameter of
every command, the value (or the error message) is the one Typer's own pydantic conversion
gives, and a one-file check loads neither pydantic nor Rich's console."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import typer
from typer import core as _typer_core
from typer._click import Context
from typer._click.exceptions import BadParameter

from fresh_python import run_code
from neardup.cli.coercion import convert, install, plain_type
from neardup.cli.main import app

#: typer.core as Any: its build_runtime_param (replaced by neardup.cli.coercion.install, which
#: keeps the original as .typer_original) is not among the names typer exports
core: Any = _typer_core
SAMPLES: dict[type, list[Any]] = {
    str: ["abc", "", "-", "Ванька [draft].txt", b"bytes"],
    int: ["20", " 7 ", "-3", "1_000", "abc", "2.5", "", 5],
    float: ["0.5", "1e-1", " .25", "-2", "x", "", 3, 0.75],
    bool: ["true", "False", "0", "1", "yes", "off", "", "2", "maybe", True, False, 1, 0],
    Path: ["a/b.txt", "-", "/", "examples/corpus", Path("x")],
}


def _params() -> list[tuple[str, typer.core.TyperCommand, Any]]:
    out = []

    def walk(cmd: Any, prefix: str) -> None:
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                walk(sub, f"{prefix} {name}".strip())
        for p in cmd.params:
            out.append((f"{prefix} {p.name}", cmd, p))

    walk(typer.main.get_command(app), "")
    return out


def _outcome(runtime: Any, value: object, param: Any, ctx: Context) -> tuple[object, ...]:
    try:
        got = runtime.coerce(value, param=param, ctx=ctx)
    except BadParameter as exc:
        return ("error", exc.format_message())
    if isinstance(got, float) and math.isnan(got):
        return ("nan",)
    return ("value", type(got), got)


def test_installed_and_idempotent() -> None:
    assert install() is True
    assert getattr(core.build_runtime_param, "neardup_plain", False)
    assert install() is True
    assert not hasattr(core.build_runtime_param.typer_original, "neardup_plain")


def test_every_parameter_converts_as_typer_does() -> None:
    original = core.build_runtime_param.typer_original
    seen_kinds = set()
    params = _params()
    assert len(params) > 100
    for where, cmd, param in params:
        descriptor = param.type_descriptor
        kind = plain_type(descriptor)
        assert kind is not None, f"{where}: {descriptor.annotation} falls back to pydantic"
        seen_kinds.add(kind)
        ctx = Context(cmd)
        mine = core.build_runtime_param(descriptor)
        theirs = original(descriptor)
        samples: list[Any] = SAMPLES[kind]
        if descriptor.is_list:
            samples = [[s] for s in samples[:3]] + [samples[:2], tuple(samples[:2])]
        for value in samples:
            assert _outcome(mine, value, param, ctx) == _outcome(theirs, value, param, ctx), (
                where,
                value,
            )
    assert seen_kinds == {str, int, float, bool, Path}


def test_other_types_are_left_to_typer() -> None:
    from enum import StrEnum

    class Colour(StrEnum):
        red = "red"

    from typer._coercion import resolve_type_descriptor
    from typer.models import OptionInfo

    assert plain_type(resolve_type_descriptor(Colour, OptionInfo())) is None
    assert plain_type(resolve_type_descriptor(int, OptionInfo(min=1))) is None
    assert plain_type(resolve_type_descriptor(list[int], OptionInfo())) is int
    assert plain_type(resolve_type_descriptor(dict, OptionInfo())) is None


def test_convert_values() -> None:
    assert convert(int, " 12 ") == 12 and convert(float, "1e3") == 1000.0
    assert convert(bool, " YES ") is True and convert(bool, "") is False
    assert convert(Path, "a/b") == Path("a/b") and convert(str, b"x") == "x"
    with pytest.raises(ValueError, match="valid integer"):
        convert(int, "1e3")
    with pytest.raises(ValueError, match="valid boolean"):
        convert(bool, 2)


def test_bad_values_exit_2_with_typers_message() -> None:
    from typer.testing import CliRunner

    res = CliRunner().invoke(app, ["check", "c", "x", "--limit", "many"])
    assert res.exit_code == 2
    assert "Invalid value for '--limit'" in res.output
    assert "unable to parse string as an integer" in res.output


def test_a_one_file_check_loads_no_pydantic_nor_rich(tmp_path: Path) -> None:
    """A one-file check in a fresh interpreter loads only what it needs."""
    import neardup

    corpus = Path(__file__).resolve().parents[2] / "examples" / "corpus"
    url = f"sqlite:///{tmp_path / 'c.db'}"
    with neardup.Store(url) as store:
        store.create_collection("s", "minhash-lsh")
        store.add("s", neardup.read_corpus([str(corpus / "chekhov")]))
    heavy = ("pydantic", "rich.console", "sqlalchemy.dialects.postgresql", "numpy.ma", "alembic")
    code = (
        "import sys, json\n"
        "from neardup.cli.main import run\n"
        f"sys.argv = ['neardup', 'check', 's', {str(corpus / 'web' / 'vanka.html')!r}, "
        f"'--db', {url!r}]\n"
        "try:\n    run()\nexcept SystemExit as exc:\n    code = exc.code\n"
        f"print(json.dumps([code, [m for m in {heavy!r} if m in sys.modules]]))\n"
    )
    res = run_code(code)
    assert res.returncode == 0, res.stderr
    assert "vanka.html: duplicate of Ванька.txt" in res.stdout
    assert json.loads(res.stdout.splitlines()[-1]) == [1, []]
