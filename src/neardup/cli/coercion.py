"""Plain parameter values without pydantic: start-up of every command.

Typer (0.2x) converts each command-line value through a pydantic ``TypeAdapter``: the first
command that runs imports pydantic and builds an adapter for each of its parameters, about
0.15-0.2 s of CPU before the command starts (a third of a one-file ``neardup check``).
neardup's parameters are plain: ``str``, ``int``, ``float``, ``bool``, ``pathlib.Path`` and
lists of them, without ranges, parsers or choices. :func:`install` makes Typer convert those with
the built-in constructors (``int("20")``, ``Path("a.txt")``, Typer's own path checks) and
leaves every other parameter (choices, files, ranges, other types) to
Typer's pydantic adapters, unchanged.

Only Typer's documented behaviour is reproduced; the values are those Typer gives (a test
compares both on every parameter of every command). When Typer's internals differ from
what this module expects (another version), :func:`install` does nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

_PLAIN = (str, int, float, bool, Path)
_MESSAGES = {
    int: "Input should be a valid integer, unable to parse string as an integer",
    float: "Input should be a valid number, unable to parse string as a number",
    bool: "Input should be a valid boolean, unable to interpret input",
}
#: The integers a command line takes: 64-bit signed (a larger one is no count, size or
#: limit neardup can hold; it ended in an OverflowError deep in a job).
INT_RANGE = (-(2**63), 2**63 - 1)
#: The strings pydantic reads as booleans (case-insensitive), as Typer does.
_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})


def plain_type(descriptor: Any) -> type | None:
    """The plain type (``str``, ``int``, ``float``, ``bool``, ``Path``) of a parameter, or of the
    items of a ``list[...]`` parameter; None when Typer's own conversion is needed (a
    file, parser, choice, range or any other type)."""
    info = descriptor.parameter_info
    if descriptor.file_annotation is not None or getattr(info, "parser", None) is not None:
        return None
    if getattr(info, "min", None) is not None or getattr(info, "max", None) is not None:
        return None
    if getattr(info, "click_type", None) is not None or descriptor.is_choice:
        return None
    annotation = descriptor.annotation
    if get_origin(annotation) is list:
        args = get_args(annotation)
        annotation = args[0] if len(args) == 1 else None
    if annotation is Path and getattr(info, "path_type", None) not in (None, Path):
        return None
    return annotation if annotation in _PLAIN else None


def convert(kind: type, value: Any) -> Any:
    """``value`` (a command-line string, an environment value or a default) as ``kind``.

    A value of another type than a command line gives (from a ``--config`` file: a number
    for a path, a table for a string, a float for an integer) and an integer outside
    :data:`INT_RANGE` are refused with a message naming the value and what is allowed.

    Raises:
        ValueError: not a valid ``int`` / ``float`` / ``bool`` (the message is Typer's), a
            path or string of another type, an integer outside :data:`INT_RANGE`.
    """
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    if kind is str:
        if value is None:
            raise ValueError("None is not a valid string")
        if isinstance(value, list | tuple | dict | set):
            raise ValueError(f"Input should be a valid string, not {_shown(value)}")
        return value if isinstance(value, str) else str(value)
    if kind is Path:
        if not isinstance(value, str | os.PathLike):
            raise ValueError(f"Input should be a path (a string), not {_shown(value)}")
        return value if isinstance(value, Path) else Path(value)
    if kind is bool:
        return _bool(value)
    if kind is int and isinstance(value, float):
        raise ValueError(f"Input should be a valid integer, not {_shown(value)}")
    if isinstance(value, kind) and not isinstance(value, bool):
        return _in_range(value)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str):
        raise ValueError(_MESSAGES[kind])
    try:
        return _in_range(kind(value.strip()))
    except ValueError as exc:
        if str(exc).startswith("Input should"):
            raise
        raise ValueError(_MESSAGES[kind]) from None


def _in_range(value: Any) -> Any:
    """``value``, an integer within :data:`INT_RANGE` (a float passes as it is)."""
    low, high = INT_RANGE
    if isinstance(value, int) and not low <= value <= high:
        raise ValueError(f"Input should be an integer from {low} to {high}, not {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    """``value`` for a message: its repr, cut to 60 characters, and its type."""
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word == "" or word in _FALSE:
            return False
        if word in _TRUE:
            return True
    raise ValueError(_MESSAGES[bool])


def install() -> bool:
    """Make Typer convert plain parameters with :func:`convert` (see the module docstring).

    Returns:
        True when installed (or already), False when Typer's internals are not those
        expected (nothing is changed then).
    """
    try:
        from typer import core
        from typer._click.exceptions import BadParameter
        from typer._coercion import RuntimeParam
        from typer._param_types import coerce_cli_path
    except ImportError:
        return False
    original = getattr(core, "build_runtime_param", None)
    if original is None:
        return False
    if getattr(original, "neardup_plain", False):
        return True

    @dataclass(frozen=True)
    class PlainParam(RuntimeParam):
        """Typer's runtime conversion of one plain parameter, without pydantic."""

        kind: type

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            origin: Any = get_origin(self.annotation)
            if origin is list:
                items = value if isinstance(value, list | tuple) else [value]
                return [self._one(item, param, ctx) for item in items]
            return self._one(value, param, ctx)

        def _one(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                out = convert(self.kind, value)
            except ValueError as exc:
                raise BadParameter(str(exc), ctx=ctx, param=param) from None
            if self.kind is Path:
                return coerce_cli_path(
                    out, self.parameter_info, path_type=Path, param=param, ctx=ctx
                )
            return out

    def build_runtime_param(descriptor: Any) -> Any:
        kind = plain_type(descriptor)
        if kind is None:
            return original(descriptor)
        return PlainParam(descriptor.parameter_info, descriptor.annotation, kind)

    build_runtime_param.neardup_plain = True  # type: ignore[attr-defined]
    build_runtime_param.typer_original = original  # type: ignore[attr-defined]
    # typer.core's hook, replaced on purpose (it does not export the name)
    core.build_runtime_param = build_runtime_param  # type: ignore[attr-defined]
    return True
