"""Issue 41 items 16 and 17: a paper's preset runs its method (``rodnenko-2009``:
``shingles-dice``, with the script's list-based ``compaire`` as ``counting=lists``;
``zagorulko-2013``: the mod-m sample, w = 4, rabin32, m = 25, n = 160, mega-shingles on
rabin64), and the n-smallest sample compared by Zagorulko et al.'s formula (1)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.errors import ParameterError
from neardup.evaluate.table2 import table2_config
from neardup.job.compare import compare
from neardup.job.pipeline import DedupOptions, dedup
from neardup.methods.dice import compaire_of_sets, occurrence_set
from neardup.methods.measures import compaire
from neardup.methods.presets import preset
from neardup.methods.registry import make_method
from neardup.methods.sets import ShingleSets
from neardup.store import Store
from neardup.text.types import Document

runner = CliRunner()

#: Rodnenko's (2009) example sentence: 13 canonical words, 4 ten-word CRC-32 shingles.
BELINSKY = (
    "Разум дан человеку для того, чтобы он разумно жил, а не для того только, чтобы он "
    "понимал, что он неразумно живет."
)
TWICE = BELINSKY + " " + BELINSKY  # 17 shingles: the sentence's 4 twice and 9 across the seam
RODNENKO = preset("rodnenko-2009").params_for("shingles-dice")


# -- item 16: rodnenko-2009 runs shingles-dice; counting=lists is the script's compaire -----
def test_occurrence_set_keeps_the_repeats_of_a_list() -> None:
    got = occurrence_set(np.array([7, 3, 7, 7], np.uint64))
    assert got.tolist() == [3, 7, 7 + 2**32, 7 + 2 * 2**32]
    a = occurrence_set(np.array([1, 1, 2, 3], np.uint64))
    b = occurrence_set(np.array([1, 2, 4], np.uint64))
    # the script: 1, 1, 2 of a are in b -> same = 3; 2 * 3 / (4 + 3)
    assert compaire_of_sets(a, b) == pytest.approx(6 / 7)
    assert compaire_of_sets(b, a) == pytest.approx(4 / 7)
    x2, x1 = occurrence_set(np.array([5, 5], np.uint64)), occurrence_set(np.array([5], np.uint64))
    assert compaire_of_sets(x2, x1) == pytest.approx(4 / 3)
    empty = np.zeros(0, np.uint64)
    assert compaire_of_sets(empty, empty) == 0.0


def test_counting_lists_is_the_scripts_compaire_where_sets_differ() -> None:
    sets = compare(TWICE, BELINSKY, method="shingles-dice", **RODNENKO)
    lists = compare(TWICE, BELINSKY, method="shingles-dice", counting="lists", **RODNENKO)
    assert sets.score == pytest.approx(2 * 4 / (13 + 4))  # 8/17: Dice of the sets
    assert lists.score == pytest.approx(2 * 8 / (17 + 4))  # 16/21: the script's value
    assert lists.score == pytest.approx(lists.compaire)
    meth = make_method("shingles-dice", counting="lists", **RODNENKO)
    assert meth.params()["counting"] == "lists"
    assert "counting" not in make_method("shingles-dice", **RODNENKO).params()


def test_dedup_decides_on_the_lists_with_counting_lists() -> None:
    docs = [Document("twice", TWICE), Document("once", BELINSKY), Document("x", "другое " * 12)]
    opts = DedupOptions(threshold=0.7)
    lists = dedup(docs, method="shingles-dice", options=opts, counting="lists", **RODNENKO)
    assert [(p.a, p.b, round(p.score, 6)) for p in lists.pairs] == [
        ("twice", "once", round(16 / 21, 6))
    ]
    assert dedup(docs, method="shingles-dice", options=opts, **RODNENKO).pairs == []


def test_a_collection_checks_on_the_lists(tmp_path: Path) -> None:
    params = {**RODNENKO, "counting": "lists"}
    with Store(f"sqlite:///{tmp_path / 'd.db'}") as store:
        store.create_collection("r", method="shingles-dice", params=params, threshold=0.7)
        store.add("r", [Document("once", BELINSKY)])
        (match,) = store.check("r", TWICE).matches
        assert match.doc_id == "once"
        assert match.evidence["score"] == round(16 / 21, 6)


def test_counting_lists_on_64_bit_fingerprints_keeps_their_high_32_bits() -> None:
    params = {k: v for k, v in RODNENKO.items() if k != "fingerprint"}  # xxh64
    got = compare(TWICE, BELINSKY, method="shingles-dice", counting="lists", **params)
    assert got.score == pytest.approx(2 * 8 / (17 + 4))
    with pytest.raises(ParameterError):
        make_method("shingles-dice", counting="bags", **RODNENKO)


def test_the_list_score_equals_the_measure_on_random_lists() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        a = rng.integers(0, 6, rng.integers(0, 9)).astype(np.uint64)
        b = rng.integers(0, 6, rng.integers(0, 9)).astype(np.uint64)
        got = compaire_of_sets(occurrence_set(a), occurrence_set(b))
        assert got == pytest.approx(compaire(a, b))


def test_cli_preset_runs_its_method_in_dedup_compare_and_collections(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(TWICE, encoding="utf-8")
    (docs / "b.txt").write_text(BELINSKY, encoding="utf-8")
    res = runner.invoke(
        app, ["compare", str(docs / "a.txt"), str(docs / "b.txt"), "--preset",
              "rodnenko-2009", "--json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    row = json.loads(res.output)
    assert row["method"] == "shingles-dice" and row["score"] == round(8 / 17, 6)
    res = runner.invoke(
        app, ["compare", str(docs / "a.txt"), str(docs / "b.txt"), "--preset",
              "rodnenko-2009", "-p", "counting=lists", "--json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["score"] == round(16 / 21, 6)
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["dedup", str(docs), "--preset", "rodnenko-2009", "-t", "0.7", "-p",
              "counting=lists", "-q", "--out", str(out)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["method"] == "shingles-dice"
    assert summary["pairs"] == 1
    res = runner.invoke(
        app, ["dedup", str(docs), "--preset", "rodnenko-2009", "-m", "shingles-full",
              "-q", "--out", str(tmp_path / "full")],
    )  # fmt: skip
    assert json.loads((tmp_path / "full" / "summary.json").read_text())["method"] == (
        "shingles-full"
    )  # --method wins over the preset's
    db = f"sqlite:///{tmp_path / 'c.db'}"
    res = runner.invoke(
        app, ["collection", "create", "r", "--preset", "rodnenko-2009", "--db", db, "--json"]
    )
    assert res.exit_code == 0, res.output
    info = json.loads(res.output)
    assert info["method"] == "shingles-dice" and info["params"]["fingerprint"] == "crc32"


# -- item 17: Zagorulko et al. 2013 ---------------------------------------------------------
def _min_sigs(estimator: str, n: int = 3) -> tuple[object, object]:
    meth = make_method("shingles-min", n=n, estimator=estimator)
    sets = ShingleSets.from_arrays([np.array([1, 2, 3], np.uint64), np.array([1, 2, 4], np.uint64)])
    return meth, meth.from_sets(sets)


def test_zagorulko_estimator_is_formula_1_on_the_two_samples() -> None:
    pair = np.array([[0, 1]], np.int64)
    meth, sigs = _min_sigs("zagorulko")
    # V_A = {1, 2, 3}, V_B = {1, 2, 4}: |V_A ∩ V_B| / |V_A ∪ V_B| = 2 / 4
    assert meth.similarity(sigs, pair).tolist() == [0.5]  # type: ignore[attr-defined]
    meth, sigs = _min_sigs("broder")
    # Broder: min_3(V_A ∪ V_B) = {1, 2, 3}, of which 1 and 2 are in both: 2 / 3
    assert meth.similarity(sigs, pair).tolist() == [pytest.approx(2 / 3)]  # type: ignore[attr-defined]
    assert make_method("shingles-min", estimator="zagorulko").params()["estimator"] == ("zagorulko")
    with pytest.raises(ParameterError):
        make_method("shingles-min", estimator="median")


def test_zagorulko_preset_has_the_papers_parameters() -> None:
    p = preset("zagorulko-2013")
    assert p.method == "shingles-mod"
    mod = p.params_for("shingles-mod")
    assert (mod["shingle_size"], mod["fingerprint"], mod["m"]) == (4, "rabin32", 25)
    low = p.params_for("shingles-min")
    assert (low["n"], low["estimator"], low["fingerprint"]) == (160, "zagorulko", "rabin32")
    mega = p.params_for("megashingles")
    assert (mega["fingerprint"], mega["shingle_size"]) == ("rabin64", 5)
    assert "m" not in p.params_for("shingles-full")


def test_table2_uses_the_papers_estimator() -> None:
    params = table2_config().method_params
    assert params["shingles-min"]["estimator"] == "zagorulko"
    assert params["shingles-min"]["n"] == 160 and params["shingles-mod"]["m"] == 25


def test_cli_zagorulko_preset_runs_the_mod_sample(tmp_path: Path) -> None:
    text = " ".join(f"слово{i}" for i in range(300))
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    (tmp_path / "b.txt").write_text(text + " конец", encoding="utf-8")
    out = tmp_path / "out"
    res = runner.invoke(app, ["dedup", str(tmp_path), "--preset", "zagorulko-2013", "-q",
                              "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["method"] == "shingles-mod"
    assert summary["method_params"]["m"] == 25
    assert summary["method_params"]["fingerprint"] == "rabin32"


def test_plain_evaluate_of_megashingles_prints_formula_3(tmp_path: Path) -> None:
    text = " ".join(f"слово{i}" for i in range(200))
    rows = [("a", text), ("b", text), ("c", " ".join(f"иное{i}" for i in range(200)))]
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n" for i, t in rows),
        encoding="utf-8",
    )
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"a": "a", "b": "b", "label": 1}\n{"a": "a", "b": "c", "label": 1}\n')
    args = ["--methods", "megashingles", "--bootstrap", "10", "--memory", "off", "-q"]
    res = runner.invoke(app, ["evaluate", str(corpus), "--gold", str(gold), *args])
    assert res.exit_code == 0, res.output
    text_out = " ".join(res.output.split())
    # resemblance 1 (P = 1) and 0 (P = 0): formula (3) expects 0.5, as measured
    assert "recall measured 0.500, formula (3) expects 0.500 over the 2 gold" in text_out


@pytest.mark.parametrize(
    ("method", "params"),
    [("shingles-dice", {"counting": "lists"}), ("shingles-min", {"estimator": "zagorulko"})],
)
def test_the_new_options_pass_the_method_conformance_kit(
    method: str, params: dict[str, str]
) -> None:
    from neardup.methods.registry import method_class
    from neardup.testing import check_method

    check_method(method_class(method), params=params, threshold=0.3)
