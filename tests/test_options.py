"""The job and collection options are declared once (:mod:`neardup.options`): the
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
from neardup.options import (
    COLLECTION_OPTIONS,
    JOB_OPTIONS,
    OPTIONS,
    check_options,
)
from neardup.params import Interval, Options
from neardup.service import ServiceConfig, create_app
from neardup.text.types import Document

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


#: (option, bad value, the message): the bounds of a check and an add, one rule everywhere.
BOUNDS = [
    ("limit", 0, "limit=0 is not allowed: an integer in [1, 1000]"),
    ("limit", 1001, "limit=1001 is not allowed: an integer in [1, 1000]"),
    ("k", 0, "k=0 is not allowed: an integer in [1, 1000]"),
    ("k", 1001, "k=1001 is not allowed: an integer in [1, 1000]"),
]
ADDED = "the quick brown fox jumps over the lazy dog near the river bank today"


@pytest.fixture
def store(tmp_path: Path) -> Any:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    store.create_collection("c", "minhash-lsh")
    store.add("c", [Document("a", ADDED)])
    yield store
    store.close()


@pytest.mark.parametrize(("name", "value", "message"), BOUNDS)
def test_check_bounds_are_one_rule(name: str, value: int, message: str, store: Any) -> None:
    """limit and k in [1, 1000]: ParameterError from the Index, the store and a collection
    handle; 422 from the API naming the field; exit 2 from `check` (k is its --top)."""
    idx = Index()
    idx.add([Document("a", ADDED)])
    errors = []
    for check in (
        idx.check,
        lambda t, **kw: store.check("c", t, **kw),
        store.open_collection("c").check,
    ):
        with pytest.raises(ParameterError) as err:
            check(ADDED, **{name: value})
        errors.append(str(err.value))
    assert errors == [message] * 3
    with TestClient(create_app(ServiceConfig(crawl=False), store=store)) as client:
        resp = client.post("/collections/c/check", json={"text": ADDED, name: value})
        assert resp.status_code == 422, resp.text
        assert [(e["loc"], e["msg"]) for e in resp.json()["errors"]] == [
            (["body", name], f"Value error, {message}")
        ]
        ok = client.post("/collections/c/check", json={"text": ADDED, name: 1000})
        assert [m["id"] for m in ok.json()["matches"]] == ["a"]
    assert idx.check(ADDED, **{name: 1000}).matches[0].doc_id == "a"


@pytest.mark.parametrize(("name", "value", "message"), BOUNDS)
def test_cli_check_bounds(name: str, value: int, message: str, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'store.db'}"
    store = Store(db)
    store.create_collection("c", "minhash-lsh")
    store.close()
    doc = tmp_path / "q.txt"
    doc.write_text(ADDED)
    flag = {"limit": "--limit", "k": "--top"}[name]
    res = CliRunner().invoke(cli, ["check", "c", str(doc), "--db", db, flag, str(value)])
    assert res.exit_code == 2, res.output
    expected = message if name == "limit" else message.replace("k=", "--top=")
    assert expected in " ".join(res.stderr.split())
    res = CliRunner().invoke(cli, ["check", "c", str(doc), "--db", db, flag, "1000"])
    assert res.exit_code == 0, res.output  # the largest allowed value: nothing stored yet


@pytest.mark.parametrize("value", [0, 100_001])
def test_batch_size_is_one_rule(value: int, tmp_path: Path) -> None:
    """batch_size in [1, 100000]: Store.add, Index.add, `collection add --batch-size`."""
    message = f"batch_size={value} is not allowed: an integer in [1, 100000]"
    db = f"sqlite:///{tmp_path / 'store.db'}"
    store = Store(db)
    try:
        store.create_collection("c", "minhash-lsh")
        with pytest.raises(ParameterError, match=r"^batch_size=") as err:
            store.add("c", [Document("a", ADDED)], batch_size=value)
        assert str(err.value) == message
    finally:
        store.close()
    with pytest.raises(ParameterError) as err:
        Index().add([Document("a", ADDED)], batch_size=value)
    assert str(err.value) == message
    docs = tmp_path / "docs.jsonl"
    docs.write_text(f'{{"id": "a", "text": "{ADDED}"}}\n')
    res = CliRunner().invoke(
        cli, ["collection", "add", "c", str(docs), "--db", db, "--batch-size", str(value)]
    )
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.stderr.split())


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("max_bytes", 0, "max_bytes=0 is not allowed: an integer >= 1"),
        ("content_type", "pdf", "content_type='pdf' is not allowed: one of auto, text, html, wiki"),
        ("text_field", "", "text_field='' is not allowed: a non-empty string"),
    ],
)
def test_read_options_are_one_rule(name: str, value: Any, message: str, tmp_path: Path) -> None:
    """The reader's options: read_corpus and the commands refuse the same values."""
    from neardup.text.read import read_corpus

    docs = tmp_path / "docs.jsonl"
    docs.write_text(f'{{"id": "a", "text": "{ADDED}"}}\n')
    with pytest.raises(ParameterError) as err:
        list(read_corpus([docs], **{name: value}))
    assert str(err.value) == message
    db = f"sqlite:///{tmp_path / 'store.db'}"
    flag = "--" + name.replace("_", "-")
    res = CliRunner().invoke(
        cli, ["collection", "add", "c", str(docs), "--db", db, flag, str(value)]
    )
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.stderr.split())


def test_document_ids_are_2000_utf8_bytes_everywhere(store: Any) -> None:
    """An id of 1,000 Cyrillic letters (2,000 bytes) is stored by the library and the API; one
    of 1,001 (2,002 bytes, 1,001 characters) is refused by both: skipped by the library, 422
    from the API (body and path)."""
    fits, over = "я" * 1000, "я" * 1001
    report = store.add("c", [Document(fits, ADDED + " one"), Document(over, ADDED + " two")])
    assert report.added == 1
    assert [(s.id, s.detail) for s in report.skipped] == [
        (over, "document id over 2000 UTF-8 bytes")
    ]
    idx = Index()
    skipped = idx.add([Document(over, ADDED)]).skipped
    assert [s.detail for s in skipped] == ["document id over 2000 UTF-8 bytes"]
    with TestClient(create_app(ServiceConfig(crawl=False), store=store)) as client:
        resp = client.post("/collections/c/documents", json={"id": over, "text": ADDED})
        assert resp.status_code == 422, resp.text
        assert [(e["loc"], e["msg"]) for e in resp.json()["errors"]] == [
            (["body", "id"], "Value error, document id over 2000 UTF-8 bytes")
        ]
        assert client.get(f"/collections/c/documents/{over}").status_code == 422
        assert client.get(f"/collections/c/documents/{fits}").json()["id"] == fits


def test_every_surface_defaults_to_the_declaration() -> None:
    """Defaults of a check, an add, the reader and each surface's method: the declared ones."""
    import inspect

    from neardup.crawl.queue import CrawlQueue
    from neardup.job.compare import compare
    from neardup.service.api import CheckIn, CollectionIn, LibraryIn
    from neardup.store.store import StoreCollection
    from neardup.text.read import read_corpus, read_options

    def defaults(fn: Any) -> dict[str, Any]:
        return {
            n: p.default
            for n, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty
        }

    checks: tuple[Any, ...] = (Store.check, StoreCollection.check, Index.check)
    for fn in checks:
        assert defaults(fn)["limit"] == OPTIONS["limit"].default == 20
        assert defaults(fn)["k"] is OPTIONS["k"].default is None
    adds: tuple[Any, ...] = (Store.add, StoreCollection.add, Index.add)
    for fn in adds:
        assert defaults(fn)["batch_size"] == OPTIONS["batch_size"].default == 2000
    read = ("id_field", "text_field", "content_type", "max_bytes", "extractor")
    readers: tuple[Any, ...] = (read_corpus, read_options)
    for fn in readers:
        got = defaults(fn)
        assert {n: got[n] for n in read} == {n: OPTIONS[n].default for n in read}
    assert CheckIn(text="x").limit == 20 and CheckIn(text="x").k is None
    assert defaults(dedup)["method"] == defaults(compare)["method"] == "shingles-full"
    assert OPTIONS["dedup_method"].default == "shingles-full"
    collection = OPTIONS["collection_method"].default
    assert collection == "tf-ridf"
    assert defaults(Store.create_collection)["method"] == collection
    assert defaults(CrawlQueue.add)["method"] == collection
    assert CollectionIn(name="c").method == LibraryIn(url="http://x").method == collection
    assert Index()._name == "minhash-lsh" and Index(measure="containment")._name == "shingles-full"
    res = CliRunner().invoke(cli, ["check", "--help"])
    assert " ".join(OPTIONS["k"].help.split())[:40] in " ".join(res.output.split())
