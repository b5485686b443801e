"""PAN's measures (Potthast et al. 2010), passage gold, planted set, ``evaluate --passages``."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.errors import FormatError, InputError, ParameterError
from neardup.evaluate.pan import (
    PassageGold,
    Span,
    align_gold_pairs,
    load_passage_gold,
    pan_scores,
)
from neardup.evaluate.planted import (
    LEVELS,
    build_set,
    obfuscate,
    plant_pair,
    shared_texts,
    shares_text,
)
from neardup.passages import matched_passages
from shared_data import DATA, data_path

runner = CliRunner()


def case(a_off: int, a_len: int, b_off: int, b_len: int, a: str = "s", b: str = "t") -> Span:
    return Span(a, b, a_off, a_len, b_off, b_len)


# -- the measures, exact small values ----------------------------------------------------------
def test_perfect_detection_scores_one() -> None:
    s = pan_scores([case(0, 100, 50, 100)], [case(0, 100, 50, 100)])
    assert (s.precision, s.recall, s.granularity, s.plagdet) == (1.0, 1.0, 1.0, 1.0)


def test_half_detected_case() -> None:
    s = pan_scores([case(0, 100, 0, 100)], [case(0, 50, 0, 50)])
    assert (s.precision, s.recall, s.granularity) == (1.0, 0.5, 1.0)
    assert s.plagdet == pytest.approx(2 / 3)


def test_two_detections_of_one_case_raise_granularity() -> None:
    s = pan_scores([case(0, 100, 0, 100)], [case(0, 50, 0, 50), case(50, 50, 50, 50)])
    assert (s.precision, s.recall, s.granularity) == (1.0, 1.0, 2.0)
    assert s.plagdet == pytest.approx(1 / math.log2(3))
    assert s.per_case[0].detections == 2


def test_detection_must_overlap_in_both_documents_of_the_same_pair() -> None:
    cases = [case(0, 100, 0, 100)]
    for wrong in (case(0, 100, 500, 100), case(0, 100, 0, 100, b="u")):
        s = pan_scores(cases, [wrong])
        assert (s.precision, s.recall, s.plagdet) == (0.0, 0.0, 0.0)
        assert s.granularity == 1.0


def test_precision_counts_characters_outside_the_case() -> None:
    # the detection is 200 + 100 characters, 100 + 100 of them in the case
    s = pan_scores([case(100, 100, 0, 100)], [case(50, 200, 0, 100)])
    assert s.precision == pytest.approx(200 / 300)
    assert s.recall == 1.0


def test_empty_inputs_follow_perfmeasures() -> None:
    assert pan_scores([], []).plagdet == 1.0
    assert pan_scores([case(0, 10, 0, 10)], []).recall == 0.0
    assert pan_scores([], [case(0, 10, 0, 10)]).precision == 0.0


def _chars(s: Span) -> set[tuple[str, int]]:
    return {("a", i) for i in range(s.a_offset, s.a_offset + s.a_length)} | {
        ("b", i) for i in range(s.b_offset, s.b_offset + s.b_length)
    }


def _oracle_recall(cases: list[Span], dets: list[Span]) -> float:
    """PAN's macro recall with character sets, as perfmeasures.py computes it."""
    if not cases and not dets:
        return 1.0
    if not cases or not dets:
        return 0.0
    total = 0.0
    for s in cases:
        got: set[tuple[str, int]] = set()
        for r in dets:
            if s.overlaps(r):
                got |= _chars(s) & _chars(r)
        total += len(got) / len(_chars(s))
    return total / len(cases)


spans = st.builds(
    case, st.integers(0, 60), st.integers(1, 40), st.integers(0, 60), st.integers(1, 40)
)


@settings(max_examples=200, deadline=None)
@given(st.lists(spans, max_size=5), st.lists(spans, max_size=6))
def test_measures_match_a_character_set_oracle(cases: list[Span], dets: list[Span]) -> None:
    s = pan_scores(cases, dets)
    assert s.recall == pytest.approx(_oracle_recall(cases, dets))
    assert s.precision == pytest.approx(_oracle_recall(dets, cases))
    counts = [sum(c.overlaps(r) for r in dets) for c in cases]
    hit = [n for n in counts if n]
    assert s.granularity == pytest.approx(sum(hit) / len(hit) if hit else 1.0)
    assert 0.0 <= s.plagdet <= 1.0


# -- the gold file ------------------------------------------------------------------------------
def test_jsonl_gold_with_negative_pairs(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    rows = [
        {"a": "x", "b": "y", "a_offset": 1, "a_length": 2, "b_offset": 3, "b_length": 4},
        {"a": "x", "b": "z"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    gold = load_passage_gold(path)
    assert gold.pairs == (("x", "y"), ("x", "z"))
    assert gold.cases == (Span("x", "y", 1, 2, 3, 4),)
    path.write_text(
        '{"a": "x", "b": "y", "a_offset": -1, "a_length": 2, "b_offset": 3, "b_length": 4}\n',
        encoding="utf-8",
    )
    with pytest.raises(FormatError, match=":1:"):
        load_passage_gold(path)
    with pytest.raises(InputError):
        load_passage_gold(tmp_path / "missing.jsonl")


def test_pan_xml_gold(tmp_path: Path) -> None:
    (tmp_path / "suspicious-document00001-source-document00002.xml").write_text(
        '<document reference="suspicious-document00001.txt">'
        '<feature name="plagiarism" this_offset="10" this_length="20" '
        'source_reference="source-document00002.txt" source_offset="30" source_length="40"/>'
        "</document>",
        encoding="utf-8",
    )
    (tmp_path / "suspicious-document00003-source-document00004.xml").write_text(
        '<document reference="suspicious-document00003.txt"></document>', encoding="utf-8"
    )
    gold = load_passage_gold(tmp_path)
    assert gold.cases == (
        Span("suspicious-document00001.txt", "source-document00002.txt", 10, 20, 30, 40),
    )
    assert gold.pairs[1] == ("suspicious-document00003.txt", "source-document00004.txt")
    (tmp_path / "broken.xml").write_text("<document", encoding="utf-8")
    with pytest.raises(FormatError):
        load_passage_gold(tmp_path / "broken.xml")


def test_align_gold_pairs_names_a_missing_document() -> None:
    gold = PassageGold((("x", "y"),), ())
    with pytest.raises(InputError, match="'y'"):
        align_gold_pairs({"x": "text"}, gold)


# -- the planted set ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def texts() -> dict[str, list[tuple[str, str]]]:
    data_path("ruslit")
    return shared_texts(DATA, per_language=30)


@pytest.mark.slow
@pytest.mark.data
def test_planted_offsets_are_exact_and_the_set_is_deterministic(
    texts: dict[str, list[tuple[str, str]]],
) -> None:
    pairs = build_set(texts, pairs_per_level=3, seed=5)
    assert pairs == build_set(texts, pairs_per_level=3, seed=5)
    assert {(p.language, p.level) for p in pairs} == {(g, v) for g in ("en", "ru") for v in LEVELS}
    host_of = {id_: t for docs in texts.values() for id_, t in docs}
    for p in pairs:
        assert p.cases
        for c in p.cases:
            planted = p.a_text[c.a_offset : c.a_offset + c.a_length]
            original = p.b_text[c.b_offset : c.b_offset + c.b_length]
            assert planted == planted.strip() and original == original.strip()
            assert 40 <= len(original.split()) <= 300
            if p.level == "none":
                assert planted == original
            else:
                assert planted != original
        # removing the planted passages gives back a real document, unrelated to the source
        rest = p.a_text
        for c in sorted(p.cases, key=lambda c: -c.a_offset):
            rest = rest[: c.a_offset] + rest[c.a_offset + c.a_length + 2 :]
        assert rest in host_of.values()
        assert not shares_text(rest, p.b_text)


def test_obfuscation_rates() -> None:
    words = [f"w{i}" for i in range(2000)]
    text = " ".join(words)
    vocab = ["x"]
    rng = random.Random(1)
    replaced = obfuscate(text, "replace", rng, vocab).split()
    assert len(replaced) == 2000
    assert 0.17 < replaced.count("x") / 2000 < 0.23
    edited = obfuscate(text, "edit", rng, vocab).split()
    kept = [w for w in edited if w != "x"]
    assert 0.87 < len(kept) / 2000 < 0.93  # 10 % deleted
    assert 0.08 < edited.count("x") / 2000 < 0.12  # 10 % inserted
    assert kept == sorted(kept, key=lambda w: int(w[1:]))  # order kept
    reordered = obfuscate(text, "reorder", rng, vocab).split()
    survivors = [int(w[1:]) for w in reordered if w != "x"]
    assert survivors != sorted(survivors)
    assert all(abs(i - j) < 20 for i, j in zip(survivors, sorted(survivors), strict=True))
    assert obfuscate(text, "none", rng, []) == text
    with pytest.raises(ParameterError, match="level"):
        obfuscate(text, "heavy", rng, vocab)


def test_plant_pair_checks_its_inputs() -> None:
    rng = random.Random(0)
    with pytest.raises(ParameterError, match="cases"):
        plant_pair("a", "x\ny", "b", "z", level="none", cases=9, rng=rng)
    with pytest.raises(ParameterError, match="source"):
        plant_pair("a", "x\ny\nz", "b", "few words", level="none", cases=1, rng=rng)


# -- scores on the planted set (small), align beside tiles ---------------------------------------
@pytest.mark.slow
@pytest.mark.data
def test_alignment_scores_on_the_planted_set(texts: dict[str, list[tuple[str, str]]]) -> None:
    """The must-show targets on a small planted set: plagdet >= 0.95 without obfuscation and
    >= 0.80 at the heaviest level; the greedy tiles of ``matched_passages`` fragment
    obfuscated passages (granularity well above 1)."""
    pairs = build_set(texts, pairs_per_level=5, seed=11)
    for level in ("none", "reorder"):
        subset = [p for p in pairs if p.level == level]
        docs = {p.a: p.a_text for p in subset} | {p.b: p.b_text for p in subset}
        cases = tuple(
            Span(c.a, c.b, c.a_offset, c.a_length, c.b_offset, c.b_length)
            for p in subset
            for c in p.cases
        )
        gold = PassageGold(tuple((p.a, p.b) for p in subset), cases)
        aligned = align_gold_pairs(docs, gold)
        tiles = align_gold_pairs(docs, gold, align=matched_passages)
        assert aligned.plagdet >= (0.95 if level == "none" else 0.80)
        assert aligned.granularity == 1.0
        if level == "reorder":
            assert tiles.granularity > 2.0
            assert tiles.plagdet < aligned.plagdet


@pytest.mark.data
def test_cli_evaluate_passages(texts: dict[str, list[tuple[str, str]]], tmp_path: Path) -> None:
    pairs = build_set(texts, pairs_per_level=1, levels=("none",), seed=3)
    with (tmp_path / "docs.jsonl").open("w", encoding="utf-8") as fh:
        for p in pairs:
            fh.write(json.dumps({"id": p.a, "text": p.a_text}, ensure_ascii=False) + "\n")
            fh.write(json.dumps({"id": p.b, "text": p.b_text}, ensure_ascii=False) + "\n")
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "".join(json.dumps(c.as_dict()) + "\n" for p in pairs for c in p.cases), encoding="utf-8"
    )
    docs = str(tmp_path / "docs.jsonl")
    result = runner.invoke(app, ["evaluate", docs, "--passages", str(gold), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["cases"] == sum(len(p.cases) for p in pairs) == len(data["per_case"])
    assert data["plagdet"] >= 0.95
    html = tmp_path / "r.html"
    result = runner.invoke(app, ["evaluate", docs, "--passages", str(gold), "--html", str(html)])
    assert result.exit_code == 0
    assert re.search(r"plagdet \d\.\d{3}", result.stdout)
    assert "Potthast" in html.read_text(encoding="utf-8")
    assert runner.invoke(app, ["evaluate", "--passages", str(gold)]).exit_code == 2
