"""A user's stop-word list and stop symbols in the canonical form, through every path
(per-token, vectorised, dedup, evaluate, a collection) and the CLI options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.errors import InputError, ParameterError
from neardup.store import Store
from neardup.text.canonical import CanonicalForm
from neardup.text.stopwords import read_stop_words
from neardup.text.vectorized import canonical_fingerprints
from neardup.text.xxh64 import token_fingerprints
from store._db import db_url, pg_database, unique  # noqa: F401  (fixtures)

runner = CliRunner()
TEXT = "The Ёж and the cat sat on the mat, и в лес (again)."


def test_user_list_replaces_snowball_and_is_folded_like_the_text() -> None:
    form = CanonicalForm(stop_word_list=("ЕЖ", "cat", "  mat "))
    assert form.stop_word_list == ("cat", "mat", "еж")
    # "the", "and", "on", "и", "в" stay: they are Snowball words, not the user's
    assert form.tokens(TEXT) == ["the", "and", "the", "sat", "on", "the", "и", "в", "лес", "again"]
    assert CanonicalForm(stop_word_list=("cat",), stop_words=False).tokens("cat") == ["cat"]


def test_vectorised_fingerprints_honour_the_user_list() -> None:
    form = CanonicalForm(stop_word_list=("ёж", "cat", "mat"))
    texts = [TEXT, "cat cat dog", ""]
    fps, offsets = canonical_fingerprints(texts, form, seed=3)
    for i, text in enumerate(texts):
        expected = token_fingerprints(form.tokens(text), 3)
        assert np.array_equal(fps[offsets[i] : offsets[i + 1]], expected)


def test_stop_symbols_split_at_whitespace_and_strip_the_ends() -> None:
    form = CanonicalForm(stop_words=False, stop_symbols=".,()")
    assert form.tokens(TEXT) == [
        "the", "ёж", "and", "the", "cat", "sat", "on", "the", "mat", "и", "в", "лес", "again",
    ]  # fmt: skip
    tokens, spans = form.tokens_with_spans("  (Hi), there.")
    assert tokens == ["hi", "there"]
    assert [("  (Hi), there."[a:b]) for a, b in spans] == ["Hi", "there"]
    fps, _ = canonical_fingerprints(["(Hi), there."], form)  # the per-token path
    assert np.array_equal(fps, token_fingerprints(["hi", "there"]))


def test_params_record_the_new_fields_only_when_set() -> None:
    keys = {"version", "stop_words", "morphology", "min_token_length"}
    assert set(CanonicalForm().params()) == keys
    params: dict[str, Any] = CanonicalForm(stop_word_list=("b", "a"), stop_symbols=".").params()
    assert params["stop_word_list"] == ["a", "b"] and params["stop_symbols"] == "."
    rebuilt = CanonicalForm(**{k: v for k, v in params.items() if k != "version"})
    assert rebuilt == CanonicalForm(stop_word_list=("a", "b"), stop_symbols=".")


def test_bad_values_are_refused() -> None:
    with pytest.raises(ParameterError) as err:
        CanonicalForm(stop_word_list="abc")  # type: ignore[arg-type]
    assert err.value.name == "stop_word_list"
    with pytest.raises(ParameterError) as err:
        CanonicalForm(stop_word_list=("a", ""))
    assert err.value.name == "stop_word_list"
    with pytest.raises(ParameterError) as err:
        CanonicalForm(stop_symbols=3)  # type: ignore[arg-type]
    assert err.value.name == "stop_symbols"


def test_read_stop_words(tmp_path: Path) -> None:
    path = tmp_path / "stop.txt"
    path.write_text("# my list\nкак\n\n  так \nкак\n", encoding="utf-8")
    assert read_stop_words(path) == ("как", "так")
    (tmp_path / "empty.txt").write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(ParameterError):
        read_stop_words(tmp_path / "empty.txt")
    with pytest.raises(InputError):
        read_stop_words(tmp_path / "missing.txt")


def _corpus(tmp_path: Path) -> Path:
    base = " ".join(f"w{i}" for i in range(30))
    rows = [
        {"id": "a", "text": base + " zz zz zz zz zz zz"},
        {"id": "b", "text": base + " qq qq qq qq qq qq"},
        {"id": "c", "text": " ".join(f"x{i}" for i in range(30))},
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_cli_stop_words_file_on_dedup_and_evaluate(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    stop = tmp_path / "stop.txt"
    stop.write_text("zz\nqq\n", encoding="utf-8")
    args = ["dedup", str(corpus), "-t", "0.95", "--json", "-q"]
    plain = json.loads(runner.invoke(app, args).output)
    assert plain["pairs"] == []  # the tails keep a and b below 0.95
    res = runner.invoke(app, [*args, "--stop-words", str(stop)])
    assert res.exit_code == 0, res.output
    pairs = json.loads(res.output)["pairs"]
    assert [(p["a"], p["b"], p["resemblance"]) for p in pairs] == [("a", "b", 1.0)]
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"a": "a", "b": "b", "label": 1}) + "\n", encoding="utf-8")
    ev = ["evaluate", str(corpus), "--gold", str(gold), "--methods", "shingles-full"]
    ev += ["--thresholds", "0.95", "--json", "--memory", "off", "--bootstrap", "10"]
    res = runner.invoke(app, [*ev, "--stop-words", str(stop)])
    assert res.exit_code == 0, res.output
    row = json.loads(res.output[res.output.index("{") :])["rows"][0]
    assert (row["tp"], row["fp"], row["fn"]) == (1, 0, 0)
    res = runner.invoke(app, [*args, "--stop-words", str(tmp_path / "nope.txt")])
    assert res.exit_code == 1 and "cannot read" in res.output


def test_collection_keeps_the_users_list_and_symbols(db_url: str, tmp_path: Path) -> None:  # noqa: F811
    stop = tmp_path / "stop.txt"
    stop.write_text("zz\nqq\n", encoding="utf-8")
    name = unique()
    args = ["collection", "create", name, "-m", "shingles-full", "-t", "0.95", "--json"]
    args += ["--stop-words", str(stop), "--stop-symbols", ".,", "--db", db_url]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    canonical = json.loads(res.output[res.output.index("{") :])["canonical"]
    assert canonical["stop_word_list"] == ["qq", "zz"] and canonical["stop_symbols"] == ".,"
    base = " ".join(f"w{i}" for i in range(30))
    store = Store(db_url)
    try:
        from neardup.text.types import Document

        store.add(name, [Document("a", base + ". zz zz zz")])
        result = store.check(name, base + ", qq qq")
        assert [(m.doc_id, m.resemblance) for m in result.matches] == [("a", 1.0)]
    finally:
        store.close()
