"""The public names of `neardup` resolve on first use (lazy imports), the functions
`neardup.dedup` / `neardup.compare` are not shadowed by modules of their names,
`neardup.__all__` is exactly the public surface (as httpx's `test_all_imports_are_exported`),
and no module of the package imports another module's private name."""

from __future__ import annotations

import ast
import importlib.util
import shutil
import subprocess
import sys
from importlib import import_module
from pathlib import Path
from types import ModuleType

import pytest

import neardup

SRC = Path(neardup.__file__).resolve().parent
ROOT = SRC.parents[1]
INIT = SRC / "__init__.py"


def _public_api_hook() -> ModuleType:
    """docs/hooks/public_api.py, the generator of ``__all__`` and the type-checking imports."""
    spec = importlib.util.spec_from_file_location(
        "public_api", ROOT / "docs" / "hooks" / "public_api.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _type_checking_imports(source: str) -> dict[str, str]:
    """Name -> module of each ``from MODULE import NAME`` under ``if _TYPE_CHECKING:``."""
    found: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "_TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom), ast.unparse(stmt)
                for alias in stmt.names:
                    assert alias.asname is None, alias.name
                    assert alias.name not in found, alias.name
                    assert stmt.module is not None, ast.unparse(stmt)
                    found[alias.name] = stmt.module
    return found


#: The public API (docs/api.md): a name added or removed here is a deliberate change.
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
    "recall_params",
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


def test_init_holds_what_its_table_generates() -> None:
    """``__all__`` and the type-checking imports are generated from ``_EXPORTS``: run
    ``python docs/hooks/public_api.py`` after editing the table."""
    text = INIT.read_text(encoding="utf-8")
    hook = _public_api_hook()
    assert hook.exports(text) == neardup._EXPORTS
    assert hook.generated(text) == text, "run: python docs/hooks/public_api.py"


def test_the_generator_restores_a_name_lost_to_type_checkers() -> None:
    """``align_passages`` was missing from the type-checking imports, so mypy saw
    ``neardup.align_passages`` as ``Any`` (the lazy ``__getattr__``'s type)."""
    text = INIT.read_text(encoding="utf-8")
    hook = _public_api_hook()
    broken = text.replace("        align_passages,\n", "", 1).replace('    "dedup",\n', "", 1)
    assert broken != text
    assert "align_passages" not in _type_checking_imports(broken)
    assert "dedup" not in ast.literal_eval(broken.split("__all__ = ", 1)[1].split("\n]")[0] + "]")
    assert hook.generated(broken) == text


def test_table_all_type_checking_imports_and_lazy_loader_agree() -> None:
    """Every name of the table is in ``__all__``, imported for type checkers from the
    table's module, and resolved by the lazy loader to the object that module defines
    (the API reference's ``::: MODULE.NAME`` blocks use the same table)."""
    table = neardup._EXPORTS
    assert set(neardup.__all__) == {*table, "__version__"}
    assert _type_checking_imports(INIT.read_text(encoding="utf-8")) == table
    for name, module in table.items():
        assert getattr(neardup, name) is getattr(import_module(module), name), name


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("mypy", path=str(Path(sys.executable).parent)) is None,
    reason="mypy is not installed (the dev extra)",
)
def test_mypy_sees_the_real_types(tmp_path: Path) -> None:
    """What mypy infers for public names (they were ``Any`` when missing from the
    type-checking imports): a function's signature, a class. mypy runs with the project's
    options, so it reads the cache ``make lint``'s run left (about 1 s, not 9 to 17 s)."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import neardup\n"
        "reveal_type(neardup.align_passages)\n"
        "reveal_type(neardup.AlignedPassage)\n"
        "reveal_type(neardup.Cluster)\n",
        encoding="utf-8",
    )
    mypy = Path(sys.executable).parent / "mypy"
    res = subprocess.run(
        [str(mypy), "--no-error-summary", str(probe)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    lines = res.stdout.splitlines()
    assert len(lines) == 3, res.stdout + res.stderr
    assert all("Any" not in line.split("Revealed type is", 1)[1] for line in lines), res.stdout
    assert "def (" in lines[0] and "list[neardup.passages" in lines[0], lines[0]
    assert "neardup.passages" in lines[1] and "AlignedPassage" in lines[1], lines[1]
    assert "neardup.job.cluster.Cluster" in lines[2], lines[2]


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


def test_no_submodule_is_named_like_a_public_name() -> None:
    """A submodule ``neardup.dedup`` would replace the function ``neardup.dedup`` once
    imported (the package had a ``__setattr__`` workaround for it until the job moved into
    ``neardup.job``)."""
    clashes = [n for n in neardup.__all__ if importlib.util.find_spec(f"neardup.{n}") is not None]
    assert clashes == []
    code = (
        "import neardup.job.pipeline, neardup.job.compare, neardup\n"
        "assert callable(neardup.dedup) and neardup.dedup.__module__ == 'neardup.job.pipeline'\n"
        "assert callable(neardup.compare) and neardup.compare.__module__ == 'neardup.job.compare'\n"
        "from neardup import dedup, compare\n"
        "assert dedup is neardup.dedup\n"
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
