"""PAN text-alignment corpus folders: loading, per-type scores, ``evaluate --passages DIR``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.errors import InputError
from neardup.evaluate.pan import (
    NO_PLAGIARISM,
    evaluate_pan_corpus,
    is_pan_corpus,
    load_pan_corpus,
)

CHEKHOV = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "chekhov"
#: The PAN 2013 text-alignment test corpus (not in the repository, not in ../shared): the
#: folder ``data/test_corpus`` of github.com/ArijanaBrlek/PlagiarismDetection.
#: Looked for in $NEARDUP_PAN13, else in ``pan/data/test_corpus`` beside the repository or
#: beside its parent folder (a worktree).
_REPO = Path(__file__).resolve().parents[2]
PAN13_TEST = next(
    (
        p
        for p in (
            Path(os.environ.get("NEARDUP_PAN13", "/nonexistent")),
            _REPO.parent / "pan" / "data" / "test_corpus",
            _REPO.parent.parent / "pan" / "data" / "test_corpus",
        )
        if p.is_dir()
    ),
    _REPO.parent / "pan" / "data" / "test_corpus",
)


def _xml(folder: Path, a: str, b: str, case: tuple[int, int, int, int] | None) -> None:
    feature = ""
    if case is not None:
        feature = (
            f'<feature name="plagiarism" obfuscation="none" this_offset="{case[0]}" '
            f'this_length="{case[1]}" source_reference="{b}" source_offset="{case[2]}" '
            f'source_length="{case[3]}" type="artificial" />'
        )
    folder.mkdir(exist_ok=True)
    path = folder / f"{a.removesuffix('.txt')}-{b.removesuffix('.txt')}.xml"
    path.write_text(f'<document reference="{a}">{feature}</document>\n', encoding="utf-8")


def _paragraphs(name: str) -> list[str]:
    text = (CHEKHOV / f"{name}.txt").read_text(encoding="utf-8")
    return [p for p in text.split("\n") if len(p.split()) >= 40]


def make_corpus(root: Path) -> tuple[int, int, int, int]:
    """A PAN folder: one verbatim pair, one no-plagiarism pair, one caseless summary-folder
    pair; returns the verbatim case's offsets (in Chekhov's stories, with CRLF line ends
    in one text to check that offsets count characters as stored)."""
    (root / "susp").mkdir(parents=True)
    (root / "src").mkdir()
    source = "\n".join(_paragraphs("Хамелеон"))
    copied = _paragraphs("Хамелеон")[1]
    host = _paragraphs("Ванька")
    before = "\r\n".join(host[:2]) + "\r\n"
    suspicious = before + copied + "\r\n" + "\r\n".join(host[2:])
    (root / "susp" / "s1.txt").write_bytes(suspicious.encode("utf-8"))
    (root / "src" / "b1.txt").write_text(source, encoding="utf-8")
    (root / "susp" / "s2.txt").write_text("\n".join(_paragraphs("Тоска")), encoding="utf-8")
    (root / "src" / "b2.txt").write_text("\n".join(_paragraphs("Гриша")), encoding="utf-8")
    (root / "susp" / "s3.txt").write_text("\n".join(_paragraphs("Хирургия")), encoding="utf-8")
    (root / "src" / "b3.txt").write_text("\n".join(_paragraphs("Дачница")), encoding="utf-8")
    (root / "pairs").write_text("s1.txt b1.txt\ns2.txt b2.txt\ns3.txt b3.txt\n", "utf-8")
    case = (len(before), len(copied), source.index(copied), len(copied))
    _xml(root / "01-no-plagiarism", "s2.txt", "b2.txt", None)
    _xml(root / "02-no-obfuscation", "s1.txt", "b1.txt", case)
    _xml(root / "05-summary-obfuscation", "s3.txt", "b3.txt", None)
    return case


def test_load_pan_corpus_groups_pairs_by_type_folder(tmp_path: Path) -> None:
    case = make_corpus(tmp_path)
    corpus = load_pan_corpus(tmp_path)
    assert is_pan_corpus(tmp_path) and not is_pan_corpus(tmp_path / "susp")
    assert corpus.pairs == (("s1.txt", "b1.txt"), ("s2.txt", "b2.txt"), ("s3.txt", "b3.txt"))
    assert corpus.group == {
        ("s1.txt", "b1.txt"): "no-obfuscation",
        ("s2.txt", "b2.txt"): NO_PLAGIARISM,
        ("s3.txt", "b3.txt"): "summary-obfuscation",
    }
    assert corpus.groups == [NO_PLAGIARISM, "no-obfuscation", "summary-obfuscation"]
    (gold,) = corpus.cases
    assert (gold.a_offset, gold.a_length, gold.b_offset, gold.b_length) == case
    text = corpus.text("s1.txt", suspicious=True)  # CRLF kept: offsets count characters
    assert "\r\n" in text
    source = corpus.text("b1.txt", suspicious=False)
    assert (
        text[gold.a_offset : gold.a_offset + gold.a_length]
        == source[gold.b_offset : gold.b_offset + gold.b_length]
    )


def test_load_pan_corpus_refuses_a_folder_without_pairs(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a PAN text-alignment corpus"):
        load_pan_corpus(tmp_path)


def test_evaluate_pan_corpus_scores_each_type_and_counts_negative_pairs(tmp_path: Path) -> None:
    make_corpus(tmp_path)
    corpus = load_pan_corpus(tmp_path)
    report = evaluate_pan_corpus(corpus)
    verbatim = report.groups["no-obfuscation"]
    assert verbatim.cases == 1 and verbatim.detections == 1
    assert verbatim.plagdet > 0.95
    assert report.negatives == {NO_PLAGIARISM: 1, "no-obfuscation": 0, "summary-obfuscation": 1}
    assert report.flagged_negatives == {
        NO_PLAGIARISM: 0,
        "no-obfuscation": 0,
        "summary-obfuscation": 0,
    }
    assert report.overall.plagdet == verbatim.plagdet  # nothing found in the negatives
    # a detection in a negative pair is a false positive: precision of that type is 0
    fake = evaluate_pan_corpus(corpus, align=_everything)
    assert fake.groups[NO_PLAGIARISM].precision == 0.0
    assert fake.flagged_negatives[NO_PLAGIARISM] == 1
    assert fake.overall.precision < fake.groups["no-obfuscation"].precision
    two = evaluate_pan_corpus(corpus, jobs=2)
    assert two.as_dict()["groups"] == report.as_dict()["groups"]


def _everything(a: str, b: str) -> list[object]:
    """An aligner that reports the whole of both texts as one passage."""
    from neardup.passages import AlignedPassage

    return [AlignedPassage(0, len(a), 0, len(b), 1)]


def test_cli_evaluate_passages_reads_a_pan_folder(tmp_path: Path) -> None:
    make_corpus(tmp_path)
    runner = CliRunner()
    res = runner.invoke(app, ["evaluate", "--passages", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert list(data["groups"]) == [
        NO_PLAGIARISM,
        "no-obfuscation",
        "summary-obfuscation",
        "overall",
    ]
    assert data["groups"]["no-obfuscation"]["plagdet"] > 0.95
    assert data["groups"]["overall"]["negative_pairs"] == 2
    table = runner.invoke(app, ["evaluate", "--passages", str(tmp_path)])
    assert table.exit_code == 0 and "no-obfuscation" in table.stdout
    extra = runner.invoke(app, ["evaluate", str(tmp_path / "susp"), "--passages", str(tmp_path)])
    assert extra.exit_code == 2


#: The issue's targets (issue 32) for the default call, per PAN 2013 type.
TARGETS = {
    "no-obfuscation": 0.93,
    "random-obfuscation": 0.85,
    "translation-obfuscation": 0.85,
    "summary-obfuscation": 0.55,
}


@pytest.mark.slow
@pytest.mark.pan
def test_default_align_passages_meets_the_targets_on_the_pan13_test_corpus() -> None:
    """The whole PAN 2013 test corpus (5,185 pairs; minutes): the default ``align_passages``
    reaches the issue's plagdet per type and flags at most 2 % of the pairs without a case
    (a 10 % sample is not enough: its translation figure was 0.84 where the corpus gives
    0.90)."""
    if not is_pan_corpus(PAN13_TEST):
        # not ../shared data: skipped wherever it is missing, CI included
        pytest.skip(f"the PAN 2013 test corpus is not at {PAN13_TEST} (set NEARDUP_PAN13)")
    report = evaluate_pan_corpus(load_pan_corpus(PAN13_TEST), jobs=2)
    for group, target in TARGETS.items():
        assert report.groups[group].plagdet >= target, group
    assert sum(report.flagged_negatives.values()) <= 0.02 * sum(report.negatives.values())
