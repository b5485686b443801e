"""Help texts with the usual placeholders: ``--method METHOD``, ``--jobs INTEGER``,
``INPUTS...``.

Typer 0.2x shows a parameter's Python type in its help (``--method <str>``, ``-p <list[str]>``,
``inputs... <list[str]>``) and puts a required argument in braces in the usage line
(``neardup dedup [OPTIONS] {inputs}...``). :func:`install` makes the help read as a
command-line tool's does: a string option's placeholder is its long name in capitals
(``--id-field ID_FIELD``), numbers are ``INTEGER`` / ``FLOAT``, paths ``PATH``, choices
``[a|b]``; an argument is its name in capitals, without a type. When Typer's internals differ
from what this module expects (another version), :func:`install` does nothing.
"""

from __future__ import annotations

from typing import Any

#: Typer's type labels -> the placeholder shown (``str`` is the option's name instead).
_LABELS = {"int": "INTEGER", "float": "FLOAT", "path": "PATH", "bool": "BOOLEAN"}


def placeholder(label: str, long_name: str | None) -> str:
    """The placeholder for Typer's type ``label`` (``int``, ``list[str]``, ``a|b``...) of an
    option whose first long name is ``long_name`` (``--id-field``), or None."""
    inner = label[5:-1] if label.startswith("list[") and label.endswith("]") else label
    if inner == "str":
        return (long_name or "--text").lstrip("-").replace("-", "_").upper()
    if "|" in inner:
        return f"[{inner}]"
    return _LABELS.get(inner.lower(), inner.upper())


def install() -> bool:
    """Patch Typer's help rendering as described above; True when it was patched."""
    try:
        from typer.core import TyperArgument, TyperOption
    except ImportError:  # pragma: no cover - typer is a dependency
        return False
    needed = ("display_type", "_usage_display_name", "_rich_display_name")
    if not all(hasattr(TyperArgument, n) for n in needed) or getattr(
        TyperOption, "_neardup_help", False
    ):
        return bool(getattr(TyperOption, "_neardup_help", False))
    original = TyperOption.display_type

    def option_type(self: Any, ctx: Any) -> str:
        label = original(self, ctx)
        if not (isinstance(label, str) and label.startswith("<") and label.endswith(">")):
            return str(label)
        longs = [o for o in self.opts if o.startswith("--")]
        return placeholder(label[1:-1], longs[0] if longs else None)

    def argument_type(self: Any, ctx: Any) -> str:
        return ""

    def argument_name(self: Any) -> str:
        name = (self.metavar or self.name or "").upper()
        return name + ("..." if self.nargs != 1 else "")

    def argument_usage(self: Any) -> str:
        name = argument_name(self)
        return name if self.required else f"[{name}]"

    TyperOption.display_type = option_type  # type: ignore[method-assign]
    TyperArgument.display_type = argument_type  # type: ignore[method-assign]
    TyperArgument._rich_display_name = argument_name  # type: ignore[method-assign]
    TyperArgument._usage_display_name = argument_usage  # type: ignore[method-assign]
    TyperOption._neardup_help = True  # type: ignore[attr-defined]
    return True
