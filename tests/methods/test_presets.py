"""Rodnenko's (2009) canonical form and shingling as the ``rodnenko-2009`` preset: the paper's
Belinsky example gives its four CRC-32 checksums; ``compaire`` on lists with repeats."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.errors import ParameterError
from neardup.job.compare import compare
from neardup.methods.measures import compaire, dice_multiset
from neardup.methods.presets import RODNENKO_STOP_WORDS, preset
from neardup.methods.registry import make_method

runner = CliRunner()

#: The quotation of the paper's example (its «» and attribution are not part of what the
#: paper canonizes: its canonical form starts "разум" and ends "живет").
BELINSKY = (
    "Разум дан человеку для того, чтобы он разумно жил, а не для того только, чтобы он "
    "понимал, что он неразумно живет."
)
#: The paper's canonical form and its four checksums (Python 2's signed binascii.crc32).
CANONICAL = "разум дан человеку того чтобы разумно жил того только чтобы понимал неразумно живет"
CRC32_SIGNED = [1313803605, -1077944445, -2009290115, 1772759749]


def _signed(v: int) -> int:
    return v - (1 << 32) if v >= 1 << 31 else v


def test_the_preset_has_the_papers_29_stop_words_and_symbols() -> None:
    p = preset("rodnenko-2009")
    assert len(RODNENKO_STOP_WORDS) == 29 and len(set(RODNENKO_STOP_WORDS)) == 29
    assert p.canonical.stop_symbols == ".,!?:;-\n\r()"
    assert dict(p.shingling) == {"shingle_size": 10, "step": 1, "fingerprint": "crc32"}


def test_belinsky_gives_the_papers_four_crc32_checksums() -> None:
    meth = make_method("shingles-full", **preset("rodnenko-2009").params_for("shingles-full"))
    tokens = meth.canonical.tokens(BELINSKY)
    assert " ".join(tokens) == CANONICAL
    fingerprints, starts = meth.shingling.occurrences(tokens)
    assert [_signed(int(v)) for v in fingerprints] == CRC32_SIGNED
    assert starts.tolist() == [0, 1, 2, 3]
    assert meth.shingling.shingles(tokens)[3] == (
        "того чтобы разумно жил того только чтобы понимал неразумно живет"
    )


def test_canonize_keeps_inner_symbols_and_strips_only_the_ends() -> None:
    form = preset("rodnenko-2009").canonical
    # "т.д." -> "т.д" (only the end is stripped); "«" is not a stop symbol; "Он" is a stop word
    assert form.tokens("Он сказал: «да», (и т.д.)!") == ["сказал", "«да»", "т.д"]


def test_compaire_is_the_scripts_dice_over_lists() -> None:
    a = np.array([1, 1, 2, 3], dtype=np.uint64)
    b = np.array([1, 2, 4], dtype=np.uint64)
    # the script: each of a's 4 elements found in b? 1, 1, 2 -> same = 3; 2 * 3 / 7
    assert compaire(a, b) == pytest.approx(6 / 7)
    # multiset Dice: min(2, 1) + min(1, 1) = 2 shared -> 4 / 7
    assert dice_multiset(a, b) == pytest.approx(4 / 7)
    assert compaire(np.array([5, 5], np.uint64), np.array([5], np.uint64)) == pytest.approx(4 / 3)
    assert dice_multiset(np.zeros(0, np.uint64), np.zeros(0, np.uint64)) == 0.0


def test_compare_reports_dice_over_lists_with_repeats() -> None:
    text_a = BELINSKY + " " + BELINSKY  # every shingle of the sentence twice, plus the seams
    text_b = BELINSKY
    params = preset("rodnenko-2009").params_for("shingles-full")
    res = compare(text_a, text_b, **params)
    # A: 26 tokens -> 17 shingles (the 4 sentence shingles twice + 9 across the seam); B: 4
    assert (res.overlap.size_a, res.overlap.size_b, res.overlap.shared) == (13, 4, 4)
    assert res.overlap.dice == pytest.approx(8 / 17)
    assert res.dice_multiset == pytest.approx(2 * 4 / (17 + 4))
    assert res.compaire == pytest.approx(2 * 8 / (17 + 4))


def test_unknown_preset_is_refused() -> None:
    with pytest.raises(ParameterError) as err:
        preset("nobody-1999")
    assert err.value.name == "preset" and "rodnenko-2009" in str(err.value)
    res = runner.invoke(app, ["methods"])  # a command that works, for contrast
    assert res.exit_code == 0


def test_cli_preset_on_compare_and_dedup(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(BELINSKY, encoding="utf-8")
    (tmp_path / "b.txt").write_text(BELINSKY.replace(".", "!"), encoding="utf-8")
    (tmp_path / "c.txt").write_text("Совсем другой текст о собаках " * 3, encoding="utf-8")
    res = runner.invoke(
        app,
        ["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--preset",
         "rodnenko-2009", "--json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    row = json.loads(res.output)
    assert (row["size_a"], row["tokens_a"], row["resemblance"]) == (4, 13, 1.0)
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["dedup", str(tmp_path), "--preset", "rodnenko-2009", "-q", "--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["method_params"]["fingerprint"] == "crc32"
    assert summary["method_params"]["size"] == 10
    res = runner.invoke(app, ["dedup", str(tmp_path), "--preset", "nobody", "-q"])
    assert res.exit_code == 2 and "rodnenko-2009" in res.output
