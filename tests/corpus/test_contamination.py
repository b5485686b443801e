"""neardup.contamination: a planted 13-gram located exactly in corpus and evaluation item."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import neardup
from neardup.errors import InputError, ParameterError

QUESTION = (
    "Which river flows through the ancient city that was once the capital of the eastern "
    "empire and still holds its walls"
)  # 21 words


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def _sets(tmp_path: Path) -> tuple[Path, Path, list[dict[str, str]], list[dict[str, str]]]:
    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(20000)]

    def words(n: int) -> str:
        return " ".join(rng.choice(vocab) for _ in range(n))

    evals = [
        {"id": "q1", "text": words(8) + " " + QUESTION + " " + words(4)},
        {"id": "q2", "text": words(40)},
    ]
    thirteen = " ".join(QUESTION.split()[3:16])  # exactly 13 of its words
    corpus = [
        {"id": "c0", "text": words(60)},
        {"id": "c1", "text": words(12) + ", «" + thirteen.upper() + "»; " + words(9), "src": "web"},
        {"id": "c2", "text": words(5) + " " + " ".join(QUESTION.split()[3:15]) + " " + words(5)},
    ]
    return (
        _write(tmp_path / "corpus.jsonl", corpus),
        _write(tmp_path / "eval.jsonl", evals),
        corpus,
        evals,
    )


def test_planted_13gram_located_in_both(tmp_path: Path) -> None:
    corpus_path, eval_path, corpus, evals = _sets(tmp_path)
    result = neardup.contamination(corpus_path, eval_set=eval_path)
    assert [d.id for d in result.documents] == ["c1"]  # c2 shares 12 words only
    (m,) = result.documents[0].matches
    thirteen = " ".join(QUESTION.split()[3:16])
    assert corpus[1]["text"][m.start : m.end] == thirteen.upper()
    assert evals[0]["text"][m.eval_start : m.eval_end] == thirteen
    assert (m.eval_id, m.ngrams) == ("q1", 1)
    assert result.per_item == {"q1": 1, "q2": 0}


def test_longer_passage_is_one_match(tmp_path: Path) -> None:
    corpus_path, eval_path, corpus, _evals = _sets(tmp_path)
    result = neardup.contamination(corpus_path, eval_set=eval_path, ngram=8)
    by_id = {d.id: d.matches for d in result.documents}
    assert sorted(by_id) == ["c1", "c2"]
    (m,) = by_id["c2"]
    assert m.ngrams == 12 - 8 + 1
    assert corpus[2]["text"][m.start : m.end] == " ".join(QUESTION.split()[3:15])


def test_kept_is_the_corpus_without_them(tmp_path: Path) -> None:
    corpus_path, eval_path, _corpus, _ = _sets(tmp_path)
    out = tmp_path / "kept.jsonl"
    neardup.contamination(corpus_path, eval_set=eval_path, kept=out)
    lines = out.read_text("utf-8").splitlines()
    original = corpus_path.read_text("utf-8").splitlines()
    assert lines == [original[0], original[2]]  # byte for byte


def test_bad_ngram_named(tmp_path: Path) -> None:
    corpus_path, eval_path, _, _ = _sets(tmp_path)
    with pytest.raises(ParameterError, match="ngram"):
        neardup.contamination(corpus_path, eval_set=eval_path, ngram=0)


def test_an_evaluation_set_without_an_ngram_is_an_error(tmp_path: Path) -> None:
    corpus_path, _eval_path, _, _ = _sets(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match=r"the evaluation set '.*empty' holds no 13-gram"):
        neardup.contamination(corpus_path, eval_set=empty)
    short = _write(tmp_path / "short.jsonl", [{"id": "q", "text": QUESTION}])  # 21 words
    with pytest.raises(InputError, match=r"every item read \(1\) is shorter than 22 words"):
        neardup.contamination(corpus_path, eval_set=short, ngram=22)
    result = neardup.contamination(corpus_path, eval_set=short, ngram=21)
    assert result.summary["eval_items_too_short"] == 0
