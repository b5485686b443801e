"""The conformance kit (:func:`neardup.testing.check_method`) on every built-in method, with
real text: Pro Git (English) and Chekhov (Russian) from examples/corpus, each with an edited
copy and a partial copy. It replaces the per-method copies of the determinism, byte round
trip, refusal and invalid-parameter tests; the plugin test runs it on its methods too."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from neardup.methods.base import MethodBase
from neardup.methods.registry import method_class, method_names
from neardup.testing import check_method, sample_texts

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
SOURCES = ("progit/2016/rerere.asc", "chekhov/Хамелеон.txt", "chekhov/Ванька.txt")


def _texts() -> list[str]:
    return sample_texts([(CORPUS / p).read_text("utf-8")[:3000] for p in SOURCES])


BUILTIN = [n for n in method_names() if method_class(n).__module__.startswith("neardup.")]


@pytest.mark.parametrize("name", BUILTIN)
def test_every_builtin_method_passes_the_conformance_kit(name: str) -> None:
    check_method(method_class(name), texts=_texts())


def test_the_kit_runs_on_its_own_sample_and_with_parameters() -> None:
    check_method(method_class("shingles-mod"), params={"m": 3})
    check_method(method_class("sl-st"), params={"window": 3, "min_block": 3}, threshold=0.3)


def test_the_kit_catches_a_compare_that_ignores_the_key() -> None:
    from neardup.methods.base import Signature
    from neardup.methods.shingle_methods import ShinglesFull

    @dataclass(frozen=True, kw_only=True)
    class Careless(ShinglesFull):
        name: ClassVar[str] = "test-careless"

        def compare(self, a: Signature, b: Signature) -> float:  # no key check
            from neardup.methods.measures import overlap

            return overlap(a.payload, b.payload).resemblance

    assert issubclass(Careless, MethodBase)
    with pytest.raises(AssertionError, match="compare accepted a signature made as"):
        check_method(Careless, texts=_texts())


def test_the_kit_catches_a_parameter_accepted_out_of_range() -> None:
    from neardup.methods.shingle_methods import ShinglesFull
    from neardup.params import Constraint, Interval, validate_parameters

    @dataclass(frozen=True, kw_only=True)
    class Loose(ShinglesFull):
        name: ClassVar[str] = "test-loose"
        parameter_constraints: ClassVar[dict[str, Constraint]] = {  # a bound never checked
            **ShinglesFull.parameter_constraints,
            "extra": Interval("int", 1, 4),
        }
        extra: int = 1

        def __post_init__(self) -> None:  # validates the base's parameters only
            validate_parameters(self, ShinglesFull.parameter_constraints)

    with pytest.raises(AssertionError, match=r"extra='1' was accepted"):
        check_method(Loose, texts=_texts())
