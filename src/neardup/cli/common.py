"""Helpers shared by the ``neardup`` commands (:mod:`neardup.cli.main` and its sibling
modules): the Rich consoles ``err`` and ``out``, error exit, markup escaping, and the method
parameters of the common options."""

from __future__ import annotations

import dataclasses
from typing import Any

import typer

from neardup.errors import NeardupError, ParameterError, UsageError


def console(name: str) -> Any:
    """``err`` (stderr) or ``out`` (stdout): Rich consoles made on first use, so that
    ``--help`` and ``--version`` do not import Rich's console (see :func:`__getattr__`)."""
    made = globals().get(name)
    if made is None:
        from rich.console import Console

        made = globals()[name] = Console(stderr=name == "err")
    return made


def __getattr__(name: str) -> Any:
    """``from neardup.cli.common import err, out`` (PEP 562): the consoles of :func:`console`."""
    if name in ("err", "out"):
        return console(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def escape(text: str) -> str:
    """``text`` with Rich markup escaped (file names such as ``[draft].txt`` print as is)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def parse_value(raw: str) -> Any:
    """A ``--param`` value: bool, None, int, float, or the text itself."""
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
    stop_words: bool | None,
    morphology: str | None,
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
        result[key.strip().replace("-", "_")] = parse_value(value.strip())
    if "canonical" in fields and (stop_words is not None or morphology is not None):
        spec = next(f for f in dataclasses.fields(method_class(method)) if f.name == "canonical")
        base: Any = (
            spec.default_factory()
            if spec.default_factory is not dataclasses.MISSING
            else spec.default
        )
        result["canonical"] = dataclasses.replace(
            base,
            **({} if stop_words is None else {"stop_words": stop_words}),
            **({} if morphology is None else {"morphology": morphology}),
        )
    return result


def fail(exc: NeardupError) -> typer.Exit:
    """Print ``exc`` on stderr; the exit to raise (code 2 for a usage error, else 1)."""
    console("err").print(f"[red]error:[/red] {escape(str(exc))}")
    return typer.Exit(2 if isinstance(exc, UsageError) else 1)
