"""A method added from outside the package: one class and one `register` call make it work
by name in the dedup job and in a collection; registration fails loudly."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from neardup.dedup import dedup
from neardup.errors import ParameterError, UsageError
from neardup.methods.base import MethodBase
from neardup.methods.params import Constraint, Interval
from neardup.methods.registry import make_method, method_names, register, unregister
from neardup.methods.shingle_methods import ShinglesFull
from neardup.store import Store
from neardup.text.types import Document

NAME = "test-plugin-shingles"
BASE = " ".join(f"w{i}" for i in range(60))
DOCS = [
    Document("a", BASE),
    Document("b", BASE.replace("w30", "x30")),  # one word changed: 5 of 56 shingles differ
    Document("c", " ".join(f"v{i}" for i in range(60))),
]


@dataclass(frozen=True, kw_only=True)
class PluginShingles(ShinglesFull):
    """Full shingle sets with a declared extra parameter (a plugin's own method)."""

    name: ClassVar[str] = NAME
    source: ClassVar[str] = "tests/methods/test_plugin.py"
    margin: float = 0.0

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **ShinglesFull.parameter_constraints,
        "margin": Interval("float", 0.0, 1.0),
    }


@pytest.fixture
def plugin() -> Iterator[str]:
    register(PluginShingles)
    try:
        yield NAME
    finally:
        unregister(NAME)
    assert NAME not in method_names()


def test_a_registered_method_works_by_name_in_dedup(plugin: str) -> None:
    assert plugin in method_names()
    result = dedup(DOCS, method=plugin, threshold=0.8)
    assert {(p.a, p.b) for p in result.pairs} == {("a", "b")}
    assert result.summary["method"] == plugin
    with pytest.raises(ParameterError) as err:
        make_method(plugin, margin=2.0)  # validated from its declaration, by the base class
    assert err.value.name == "margin"


def test_a_registered_method_works_by_name_in_a_collection(plugin: str, tmp_path: Path) -> None:
    with Store(f"sqlite:///{tmp_path / 'plugin.db'}") as store:
        store.create_collection("c", plugin, threshold=0.8)
        store.add("c", DOCS[:1] + DOCS[2:])
        found = store.check("c", DOCS[1].text)
        assert [m.doc_id for m in found.matches] == ["a"] and found.method == plugin


def test_registration_fails_loudly() -> None:
    class NotAMethod:
        name = "x"

    @dataclass(frozen=True, kw_only=True)
    class Taken(MethodBase):
        name: ClassVar[str] = "minhash-lsh"

    with pytest.raises(UsageError, match=r"not a neardup\.methods\.base\.MethodBase"):
        register(NotAMethod)
    with pytest.raises(UsageError, match=r"is taken by neardup\.methods\.shingle_methods"):
        register(Taken)
    assert make_method("minhash-lsh").__class__.__name__ == "MinHashLSH"
