"""Test helpers: the real corpora in ../shared/data, and the one "fail in CI, else skip" rule.

A clone without ``../shared`` beside it (as anyone cloning the repository has) runs the suite
with the data tests skipped; with the environment variable ``CI`` set (to anything but ``""``,
``0`` or ``false``) a missing data file, database server or browser fails the test instead,
so CI never passes by skipping. Every test reaching ``../shared/data`` goes through
:func:`data_path` (or the loaders built on it).
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any, Literal, NoReturn

import pytest

from neardup.text.types import Document

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def in_ci() -> bool:
    """True when the environment variable ``CI`` is set to a true value (``CI=true``)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(msg: str) -> NoReturn:
    """Stop a test whose resource (data, server, browser) is missing: fail in CI, else skip."""
    if in_ci():
        pytest.fail(msg)
    pytest.skip(msg, allow_module_level=True)  # a module's import may need it too


def require(module: str) -> ModuleType:
    """Import a test dependency (a ``dev`` extra of pyproject.toml): fails in CI, else skips
    when it is not installed (the rule of :func:`unavailable`, in place of
    ``pytest.importorskip``, which would let CI pass by skipping)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        unavailable(f"{module} is not installed (pip install -e '.[dev]'): {exc}")


def data_path(*parts: str) -> Path:
    """A path under ../shared/data; fails in CI and skips elsewhere if it is missing."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        unavailable(f"shared data missing: {path}")
    return path


def load_docs(name: str) -> list[Document]:
    """Documents of a labelled set in ../shared/data/NAME/docs.jsonl."""
    path = data_path(name, "docs.jsonl")
    with path.open(encoding="utf-8") as fh:
        return [Document(r["id"], r["text"], source=name) for r in map(json.loads, fh)]


def paragraphs(name: str, count: int, *, min_words: int = 25) -> list[str]:
    """The first ``count`` paragraphs of >= ``min_words`` words of a labelled set's documents."""
    out: list[str] = []
    with data_path(name, "docs.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            text = json.loads(line)["text"]
            out += [p for p in text.split("\n\n") if len(p.split()) >= min_words]
            if len(out) >= count:
                return out[:count]
    return out


def job_scores(
    name: str,
    method: str,
    threshold: float,
    params: dict[str, Any],
    *,
    scope: Literal["all", "labelled"] = "all",
) -> dict[str, float]:
    """Precision, recall and F1 of the dedup job (``decision="own"``: the method's own score
    decides) with ``method`` at ``threshold`` on the labelled set ``name``, against its
    ``gold.jsonl`` (``scope="all"``: unlisted pairs are non-duplicates)."""
    from neardup.evaluate.metrics import Gold, score_pairs
    from neardup.job.pipeline import DedupOptions, dedup

    docs = load_docs(name)
    gold = Gold.load(data_path(name, "gold.jsonl"))
    options = DedupOptions(threshold=threshold, decision="own")
    result = dedup(docs, method=method, options=options, **params)
    scores = score_pairs(((p.a, p.b) for p in result.pairs), gold, scope=scope)
    return {"precision": scores.precision, "recall": scores.recall, "f1": scores.f1}


#: The names that reach ../shared/data: a test using one of them (or a helper, fixture or
#: method of the test files that does) is a ``data`` test (tests/conftest.py marks it).
DATA_NAMES = frozenset({"DATA", "data_path", "load_docs", "paragraphs", "job_scores"})
_TESTS = Path(__file__).resolve().parent


def uses_shared_data(func: Any, _seen: set[int] | None = None) -> bool:
    """Whether ``func`` reaches ../shared/data: its code (nested functions and lambdas
    too) names one of :data:`DATA_NAMES`, or calls a function or class defined under
    tests/ that does (followed through module globals, transitively)."""
    seen = set() if _seen is None else _seen
    func = inspect.unwrap(getattr(func, "__func__", func))
    if id(func) in seen:
        return False
    seen.add(id(func))
    if isinstance(func, type):
        return any(uses_shared_data(m, seen) for m in vars(func).values() if _defined_here(m))
    code = getattr(func, "__code__", None)
    if code is None:
        return False
    scope = getattr(func, "__globals__", {})
    for name in _names(code):
        if name in DATA_NAMES and name in scope and _from_helpers(scope[name]):
            return True
        target = scope.get(name)
        if _defined_here(target) and uses_shared_data(target, seen):
            return True
    return False


def _names(code: Any) -> set[str]:
    """The global names of ``code`` and of the code objects nested in it."""
    out = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            out |= _names(const)
    return out


def _from_helpers(value: Any) -> bool:
    return value is DATA or getattr(value, "__module__", None) == __name__


def _defined_here(value: Any) -> bool:
    """A function or class defined in a file under tests/ (not the library's)."""
    if not isinstance(value, FunctionType | type | staticmethod | classmethod):
        return False
    try:
        target: Any = getattr(value, "__func__", value)  # the function of a static/class method
        where = inspect.getfile(target)
    except (TypeError, OSError):
        return False
    return Path(where).resolve().is_relative_to(_TESTS)
