"""The public surface of ``neardup``, written once: ``src/neardup/__init__.py``'s table
``_EXPORTS`` (public name -> module that defines it) is the one hand-written list; its
``__all__`` and the imports its ``if _TYPE_CHECKING:`` block gives type checkers are
generated from the table here (a type checker does not run the lazy ``__getattr__``: a
name missing from that block was ``Any`` to mypy, as ``neardup.align_passages`` was).

``python docs/hooks/public_api.py`` rewrites the two generated regions between their
markers; ``tests/test_public_api.py`` checks that the file holds what this gives.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INIT = ROOT / "src" / "neardup" / "__init__.py"
LINE = 100  # [tool.ruff] line-length
#: Names in __all__ that are not in the table (defined in __init__.py itself).
EXTRA = ("__version__",)
ALL_START = "# -- __all__: generated from _EXPORTS by docs/hooks/public_api.py --"
IMPORTS_START = "    # -- imports: generated from _EXPORTS by docs/hooks/public_api.py --"
END = "# -- end of generated --"


def exports(source: str) -> dict[str, str]:
    """The ``_EXPORTS`` dict literal of ``source`` (the text of ``__init__.py``)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in targets):
                table = ast.literal_eval(node.value)  # type: ignore[arg-type]
                if not isinstance(table, dict):
                    raise ValueError("_EXPORTS is not a dict literal")
                return table
    raise ValueError("no _EXPORTS table")


def _isort_key(name: str) -> tuple[int, str]:
    """ruff's isort order within one import (order-by-type): CONSTANTS, Classes, others."""
    if name.isupper() and len(name) > 1:
        return (0, name)
    if name[:1].isupper():
        return (1, name)
    return (2, name)


def all_block(table: dict[str, str]) -> str:
    """``__all__ = [...]``: the table's names and :data:`EXTRA`, sorted."""
    names = sorted({*table, *EXTRA})
    return "__all__ = [\n" + "".join(f'    "{n}",\n' for n in names) + "]\n"


def imports_block(table: dict[str, str], indent: str = "    ") -> str:
    """One ``from MODULE import ...`` a module, modules and names in ruff's isort order."""
    by_module: dict[str, list[str]] = {}
    for name, module in table.items():
        by_module.setdefault(module, []).append(name)
    lines = []
    for module in sorted(by_module):
        names = sorted(by_module[module], key=_isort_key)
        line = f"{indent}from {module} import {', '.join(names)}"
        if len(line) <= LINE:
            lines.append(line + "\n")
        else:
            inner = "".join(f"{indent}    {n},\n" for n in names)
            lines.append(f"{indent}from {module} import (\n{inner}{indent})\n")
    return "".join(lines)


def generated(source: str) -> str:
    """``source`` with both generated regions rewritten from its table."""
    table = exports(source)
    regions = ((ALL_START, all_block(table)), (IMPORTS_START, imports_block(table)))
    for start, body in regions:
        indent = start[: len(start) - len(start.lstrip())]
        pattern = re.compile(re.escape(start) + r"\n.*?" + re.escape(indent + END), re.S)
        found = list(pattern.finditer(source))
        if len(found) != 1:
            raise ValueError(f"{INIT}: expected one region starting {start.strip()!r}")
        at = found[0]
        source = f"{source[: at.start()]}{start}\n{body}{indent}{END}{source[at.end() :]}"
    return source


def rewrite(path: Path = INIT) -> bool:
    """Rewrite the generated regions of ``path``; True if it changed."""
    text = path.read_text(encoding="utf-8")
    new = generated(text)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    changed = rewrite()
    print(f"{INIT.relative_to(ROOT)} {'rewritten' if changed else 'is current'}")
    sys.exit(0)
