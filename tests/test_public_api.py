"""The public names of `neardup` resolve on first use (lazy imports), the functions
`neardup.dedup` / `neardup.compare` are not replaced by their modules, `neardup.__all__` is
exactly the public surface (as httpx's `test_all_imports_are_exported`), and no module of the
package imports another module's private name."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import neardup

SRC = Path(neardup.__file__).resolve().parent

#: The public API (README "Python API"): a name added or removed here is a deliberate change.
PUBLIC = [
    "AddReport",
    "AlignedPassage",
    "CanonicalForm",
    "CheckResult",
    "Cluster",
    "Collection",
    "CollectionInfo",
    "Comparison",
    "Contaminated",
    "ContaminationResult",
    "DecodeError",
    "DedupOptions",
    "DedupResult",
    "Document",
    "Dropped",
    "EvalMatch",
    "FormatError",
    "IncompatibleSignatureError",
    "Index",
    "IndexMatch",
    "InputError",
    "LSHParams",
    "Match",
    "Method",
    "MinHasher",
    "NeardupError",
    "Overlap",
    "Pair",
    "PairTable",
    "ParagraphResult",
    "ParameterError",
    "Passage",
    "Prepared",
    "QueryResult",
    "RepeatedSpan",
    "RepeatedUnit",
    "ShingleSets",
    "Shingling",
    "Signature",
    "SignatureKey",
    "Signatures",
    "Skipped",
    "Store",
    "StoreCollection",
    "SubstringResult",
    "UsageError",
    "__version__",
    "against_collection",
    "align_passages",
    "compare",
    "contamination",
    "dedup",
    "highlight",
    "make_method",
    "matched_passages",
    "method_names",
    "optimal_params",
    "overlap",
    "read_corpus",
    "repeated_paragraphs",
    "repeated_substrings",
    "write_result",
]


def test_all_is_exactly_the_public_surface() -> None:
    assert neardup.__all__ == PUBLIC  # sorted, nothing added or lost by accident
    for name in neardup.__all__:
        getattr(neardup, name)  # resolve every lazy name, then look at the namespace
    public = {
        name
        for name in dir(neardup)
        if not name.startswith("_") and not isinstance(getattr(neardup, name), ModuleType)
    }
    assert public | {"__version__"} == set(neardup.__all__)


def _private_imports(path: Path) -> list[str]:
    """``module:line name`` of each ``from neardup.X... import _name`` in ``path`` where X is
    not the package (or root module) ``path`` belongs to."""
    rel = path.relative_to(SRC).with_suffix("").parts
    own = f"neardup.{rel[0]}"
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        module = node.module or ""
        if module.startswith("neardup.") and not (module + ".").startswith(own + "."):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{node.module}:{node.lineno} {alias.name}")
    return found


@pytest.mark.parametrize(
    "path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC.parent))
)
def test_no_module_imports_a_private_name_of_another(path: Path) -> None:
    """Shared code has a public internal name (the Dask engine once imported ``dedup._reason``,
    ``dedup._resolve`` and ``imatch._prefix_keys``)."""
    assert _private_imports(path) == []


def test_every_public_name_resolves() -> None:
    for name in neardup.__all__:
        assert getattr(neardup, name) is not None, name
    assert set(neardup.__all__) <= set(dir(neardup))


def test_functions_win_over_modules_of_the_same_name() -> None:
    code = (
        "import neardup.dedup, neardup.compare, neardup\n"
        "assert callable(neardup.dedup) and neardup.dedup.__module__ == 'neardup.dedup'\n"
        "assert callable(neardup.compare) and neardup.compare.__name__ == 'compare'\n"
        "from neardup import dedup, compare\n"
        "assert dedup is neardup.dedup\n"
        "import sys; assert 'neardup.dedup' in sys.modules\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_import_neardup_is_light() -> None:
    code = "import sys, neardup; print('numpy' in sys.modules)"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.stdout.strip() == "False", res.stderr


def test_unknown_name_is_an_attribute_error() -> None:
    try:
        neardup.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("no AttributeError")
