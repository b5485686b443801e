"""Parameter constraints as data (neardup.params): every parameter of every method
is declared, refuses an invalid value naming itself, and is published by `neardup methods`."""

from __future__ import annotations

import dataclasses
import json

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.errors import ParameterError
from neardup.methods.registry import make_method, method_class, method_names
from neardup.params import Options


def _cases() -> list[tuple[str, str, object]]:
    cases = []
    for name in method_names():
        defaults = make_method(name)
        for param, constraint in method_class(name).parameter_constraints.items():
            cases += [(name, param, value) for value in constraint.invalid_values(defaults)]
    return cases


@pytest.mark.parametrize("name", method_names())
def test_every_parameter_of_every_method_is_declared(name: str) -> None:
    cls = method_class(name)
    fields = {f.name for f in dataclasses.fields(cls) if f.init} - {"canonical"}
    assert list(cls.parameter_constraints) and set(cls.parameter_constraints) == fields


@pytest.mark.parametrize(("name", "param", "value"), _cases(), ids=repr)
def test_an_invalid_value_is_refused_naming_the_parameter(
    name: str, param: str, value: object
) -> None:
    with pytest.raises(ParameterError) as err:
        make_method(name, **{param: value})
    assert err.value.name == param and err.value.value == value
    assert param in str(err.value) and "is not allowed" in str(err.value)


def test_every_choice_is_allowed() -> None:
    for name in method_names():
        for param, c in method_class(name).parameter_constraints.items():
            for choice in c.choices if isinstance(c, Options) else ():
                assert getattr(make_method(name, **{param: choice}), param) == choice


def test_methods_json_publishes_ranges_and_choices() -> None:
    res = CliRunner().invoke(app, ["methods", "--json"])
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r["parameters"] for r in json.loads(res.stdout)}
    assert rows["shingles-mod"]["m"]["allowed"] == {
        "type": "int",
        "low": 1,
        "high": 1_000_000,
        "low_open": False,
        "none": False,
    }
    assert rows["minhash-lsh"]["threshold"]["allowed"]["low_open"] is True
    assert rows["minhash-lsh"]["bands"]["allowed"]["high"] == "num_perm"
    assert rows["simhash"]["weighting"]["allowed"] == {
        "type": "choice",
        "choices": ["tf", "log"],
        "none": False,
    }
    assert all(p["allowed"] is not None for params in rows.values() for p in params.values())
