"""Each method decides by its own rule (``decision="own"``) or on the exact shingle sets
(``decision="verified"``); identical documents are always paired; containment on the mod-m
sample (seed 000, formula 2)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.errors import ParameterError
from neardup.job.pairs import DECIDED
from neardup.job.pipeline import DedupOptions, dedup
from neardup.methods.decision import DECIDED_BY, rule_of
from neardup.methods.registry import make_method, method_class, method_names
from neardup.methods.shingles import Shingling
from neardup.methods.simhash import SimHash
from neardup.text.canonical import CanonicalForm
from neardup.text.types import Document
from shared_data import paragraphs

runner = CliRunner()


def _shuffled(text: str, seed: int = 7) -> str:
    words = text.split()
    random.Random(seed).shuffle(words)
    return " ".join(words)


def test_decided_names_agree() -> None:
    assert DECIDED == DECIDED_BY


@pytest.mark.parametrize(
    ("method", "default", "kind"),
    [
        ("shingles-full", "verified", "exact"),
        ("minhash-lsh", "verified", "sample"),
        ("shingles-mod", "own", "sample"),
        ("shingles-min", "own", "sample"),
        ("imatch", "own", "equal-signature"),
        ("imatch-random", "own", "equal-signature"),
        ("tf-ridf", "own", "equal-signature"),
        ("anchor-words", "own", "equal-signature"),
        ("megashingles", "own", "shared-mega-shingle"),
        ("simhash", "own", "hamming"),
        ("sl-st", "own", "similarity"),
        ("spotsigs", "own", "similarity"),
    ],
)
def test_each_method_declares_its_rule(method: str, default: str, kind: str) -> None:
    rule = rule_of(method_class(method))
    assert (rule.default, rule.kind) == (default, kind)


def test_methods_command_shows_the_rule() -> None:
    res = runner.invoke(app, ["methods", "--json"])
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.output)}
    assert rows["tf-ridf"]["decision"]["default"] == "own"
    assert "TF-RIDF signature" in rows["tf-ridf"]["decision"]["rule"]
    assert rows["shingles-mod"]["decision"]["measures"] == ["resemblance", "containment"]


def test_decision_is_the_one_spelling() -> None:
    with pytest.raises(ParameterError) as err:
        DedupOptions(decision="mine")  # type: ignore[arg-type]
    assert err.value.name == "decision"
    assert DedupOptions(decision="own").decision == "own"
    with pytest.raises(TypeError, match="verify"):  # the older spelling is gone
        DedupOptions(verify=False)  # type: ignore[call-arg]


@pytest.mark.data
def test_shuffled_copy_found_by_tfridf_under_own_not_verified() -> None:
    texts = paragraphs("progit-ru-revisions", 30, min_words=40)
    docs = [Document(str(i), t) for i, t in enumerate(texts)]
    docs.append(Document("shuffled", _shuffled(texts[3])))
    own = dedup(docs, method="tf-ridf")  # the method's default: its own rule
    found = {(p.a, p.b): p for p in own.pairs}
    assert ("3", "shuffled") in found
    pair = found[("3", "shuffled")]
    assert pair.decision == "own" and pair.score == 1.0 and pair.resemblance < 0.2
    assert own.summary["decision"]["mode"] == "own"
    assert own.summary["decision"]["pairs_by_rule"]["own"] == len(own.pairs)
    verified = dedup(docs, method="tf-ridf", options=DedupOptions(decision="verified"))
    assert ("3", "shuffled") not in {(p.a, p.b) for p in verified.pairs}
    assert verified.summary["decision"]["mode"] == "verified"


@pytest.mark.data
def test_mod_m_containment_on_a_contained_text() -> None:
    texts = paragraphs("linux-doc-revisions", 40, min_words=40)
    small = " ".join(texts[:12])
    words = small.split()
    words[::40] = ["zzzedited"] * len(words[::40])  # a few edits: containment below 1
    small = " ".join(words)
    large = " ".join(texts[12:30]) + "\n\n" + " ".join(texts[:12]) + "\n\n" + texts[30]
    docs = [Document("small", small), Document("large", large), Document("other", texts[35])]
    opts = DedupOptions(measure="containment", threshold=0.5, decision="own")
    res = dedup(docs, method="shingles-mod", options=opts, m=4)
    pairs = {(p.a, p.b): p for p in res.pairs}
    pair = pairs[("small", "large")]
    # formula 2 on the mod-m samples, computed here from the shingle sets
    canon = CanonicalForm()
    sets = Shingling().batch([canon.tokens(small), canon.tokens(large)])
    va, vb = (s[s % np.uint64(4) == 0] for s in (sets.get(0), sets.get(1)))
    expected = np.intersect1d(va, vb).size / va.size
    assert 0.5 <= expected < 1.0
    assert pair.score == pytest.approx(expected)
    assert pair.containment_ab > 0.5 > pair.resemblance
    assert pair.decision == "own"
    resemblance = dedup(docs, method="shingles-mod", options=DedupOptions(threshold=0.5), m=4)
    assert ("small", "large") not in {(p.a, p.b) for p in resemblance.pairs}


@pytest.mark.parametrize("method", ["shingles-min", "tf-ridf", "sl-st", "simhash"])
def test_own_rule_without_containment_is_refused(method: str) -> None:
    with pytest.raises(ParameterError) as err:
        dedup([], method=method, options=DedupOptions(measure="containment", decision="own"))
    assert err.value.name == "measure"


def test_containment_not_honoured_exits_2(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one two three four five six seven", encoding="utf-8")
    args = ["dedup", str(tmp_path), "-m", "shingles-min", "--measure", "containment"]
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert "containment" in res.output
    res = runner.invoke(app, [*args, "--decision", "verified", "-q"])
    assert res.exit_code == 0, res.output


@pytest.mark.data
@pytest.mark.parametrize("method", method_names())
def test_every_method_pairs_two_identical_documents(tmp_path: Path, method: str) -> None:
    texts = paragraphs("progit-ru-revisions", 6, min_words=40)
    for i, text in enumerate(texts):
        (tmp_path / f"d{i}.txt").write_text(text, encoding="utf-8")
    (tmp_path / "d6.txt").write_text(texts[2], encoding="utf-8")
    out = tmp_path / "out"
    res = runner.invoke(app, ["dedup", str(tmp_path), "-m", method, "-q", "--out", str(out)])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in (out / "pairs.jsonl").read_text().splitlines()]
    same = [r for r in rows if {r["a"], r["b"]} == {"d2.txt", "d6.txt"}]
    assert len(same) == 1 and same[0]["resemblance"] == 1.0, rows
    assert same[0]["decision"] in ("own", "verified", "identical")
    summary = json.loads((out / "summary.json").read_text())
    if method == "anchor-words":  # 7 documents are too few for its dictionary
        assert summary["method_params"]["anchors_size"] == 0
        assert same[0]["decision"] == "identical"
        assert "at least 10 documents" in summary["warnings"][0]
        assert "at least 10 documents" in res.output.replace("\n", " ")


@pytest.mark.data
def test_simhash_own_rule_ignores_the_job_threshold() -> None:
    texts = paragraphs("linux-doc-revisions", 20, min_words=60)
    docs = [Document(str(i), t) for i, t in enumerate(texts)]
    words = texts[4].split()
    words[3] = "qqq"  # one word replaced: a few bits of the 64 change
    docs.append(Document("edited", " ".join(words)))
    meth = make_method("simhash")
    assert isinstance(meth, SimHash)  # narrows the type: make_method gives a Method
    res = dedup(docs, method=meth, options=DedupOptions(threshold=0.999))
    found = {(p.a, p.b): p for p in res.pairs}
    pair = found[("4", "edited")]
    assert pair.decision == "own" and meth.matching_threshold <= pair.score < 0.999
    verified = dedup(
        docs, method="simhash", options=DedupOptions(threshold=0.999, decision="verified")
    )
    assert ("4", "edited") not in {(p.a, p.b) for p in verified.pairs}
