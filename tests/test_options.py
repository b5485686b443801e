"""The job and collection options are declared once (:mod:`neardup.methods.options`): the
same bad value gets the same error from ``dedup()``, ``Index``, the store, the API (422
naming the field, with the library's message) and the command line (exit 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from neardup import DedupOptions, Index, ParameterError, Store, dedup
from neardup.cli.main import app as cli
from neardup.methods.options import (
    COLLECTION_OPTIONS,
    JOB_OPTIONS,
    OPTIONS,
    check_options,
)
from neardup.methods.params import Interval, Options
from neardup.service import ServiceConfig, create_app

TEXTS = [
    "the quick brown fox jumps over the lazy dog near the river bank today",
    "the quick brown fox jumps over the lazy dog near the river bank again",
]

#: (option, bad value, the message every entry point gives).
BAD = [
    ("min_tokens", -1, "min_tokens=-1 is not allowed: an integer in [1, 1000000]"),
    ("min_tokens", 1_000_001, "min_tokens=1000001 is not allowed: an integer in [1, 1000000]"),
    ("measure", "x", "measure='x' is not allowed: one of resemblance, containment"),
    ("threshold", 0.0, "threshold=0.0 is not allowed: a number in (0.0, 1.0]"),
    ("decision", "mine", "decision='mine' is not allowed: one of own, verified or None"),
]


@pytest.mark.parametrize(("name", "value", "message"), BAD)
def test_library_entry_points_give_one_error(
    name: str, value: Any, message: str, tmp_path: Path
) -> None:
    """DedupOptions (so dedup()), Index and Store.create_collection: the same error."""
    errors = []
    with pytest.raises(ParameterError) as err:
        dedup(TEXTS, options=DedupOptions(**{name: value}))
    errors.append(err.value)
    with pytest.raises(ParameterError) as err:
        Index(**{name: value})
    errors.append(err.value)
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        with pytest.raises(ParameterError) as err:
            store.create_collection("c", "minhash-lsh", **{name: value})
        errors.append(err.value)
        assert store.collections() == []  # nothing created
    finally:
        store.close()
    assert {(e.name, e.value, str(e)) for e in errors} == {(name, value, message)}


def test_max_df_same_bound_in_dedup_and_index() -> None:
    """max_df >= 2 everywhere: the methods' parameter (dedup(..., max_df=)) and Index's."""
    errors = []
    for make in (lambda: dedup(TEXTS, method="shingles-full", max_df=1), lambda: Index(max_df=1)):
        with pytest.raises(ParameterError) as err:
            make()
        errors.append(str(err.value))
    assert errors == ["max_df=1 is not allowed: an integer >= 2"] * 2
    assert Index(max_df=2).max_df == 2


@pytest.mark.parametrize(("name", "value", "message"), BAD)
def test_api_refuses_with_the_same_message(
    name: str, value: Any, message: str, tmp_path: Path
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    app = create_app(ServiceConfig(crawl=False), store=store)
    try:
        with TestClient(app) as client:
            resp = client.post("/collections", json={"name": "c", name: value})
            assert resp.status_code == 422, resp.text
            errors = resp.json()["errors"]
            assert [e["loc"] for e in errors] == [["body", name]]
            assert errors[0]["msg"] == f"Value error, {message}"
            assert client.get("/collections").json() == []
    finally:
        store.close()


@pytest.mark.parametrize(("name", "value", "message"), BAD)
def test_cli_exits_2_with_the_same_message(
    name: str, value: Any, message: str, tmp_path: Path
) -> None:
    runner = CliRunner()
    flag = "--" + name.replace("_", "-")
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(f'{{"id": "{i}", "text": "{t}"}}\n' for i, t in enumerate(TEXTS)))
    res = runner.invoke(cli, ["dedup", str(docs), flag, str(value), "-q"])
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.stderr.split())
    db = f"sqlite:///{tmp_path / 'store.db'}"
    res = runner.invoke(cli, ["collection", "create", "c", "--db", db, flag, str(value)])
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.stderr.split())


def test_the_older_verify_spelling_is_gone() -> None:
    with pytest.raises(TypeError):
        DedupOptions(verify=True)  # type: ignore[call-arg]
    res = CliRunner().invoke(cli, ["dedup", "x.jsonl", "--no-verify"])
    assert res.exit_code == 2 and "--no-verify" in res.output
    assert "verify" not in DedupOptions().as_dict()


def test_defaults_are_the_declaration() -> None:
    """Every consumer's default is the declared one; the CLI's help is the declared help."""
    job, idx = DedupOptions(), Index()
    for name in JOB_OPTIONS:
        assert getattr(job, name) == OPTIONS[name].default, name
    for name in COLLECTION_OPTIONS:
        if name != "decision":  # Index resolves None to the method's default
            assert getattr(idx, name) == OPTIONS[name].default, name
    res = CliRunner().invoke(cli, ["collection", "create", "--help"])
    assert res.exit_code == 0
    flat = " ".join(res.output.split())
    for name in COLLECTION_OPTIONS:
        assert " ".join(OPTIONS[name].help.split())[:40] in flat, name


def test_invalid_values_from_the_declaration_are_refused() -> None:
    """Each constraint's own invalid values (the params machinery) fail check_options, and
    its default passes."""
    for name, spec in OPTIONS.items():
        check_options(**{name: spec.default})
        for bad in spec.constraint.invalid_values(None):
            with pytest.raises(ParameterError) as err:
                check_options(**{name: bad})
            assert err.value.name == name
    assert isinstance(OPTIONS["min_tokens"].constraint, Interval)
    assert OPTIONS["measure"].choices == ("resemblance", "containment")
    assert isinstance(OPTIONS["decision"].constraint, Options)
    with pytest.raises(ParameterError, match="an option"):
        check_options(verify=True)
