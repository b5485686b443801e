"""SimHash fingerprints per second: neardup (vectorised batch) vs the ``simhash`` PyPI package.

Documents: every text of ``<repo>/../shared/data/{linux-doc-revisions, linux-doc-zh-revisions,
progit-ru-revisions, clough-stevenson}/docs.jsonl`` (3,638 documents), topped up to ``--n``
(5,000) with RusLit works cut into 1,500-word pieces. Two comparisons:

* **from text**: neardup's canonical tokens + :meth:`SimHash.fingerprint_batch` vs
  ``simhash.Simhash`` on its own text features (its default: character 4-grams of
  lower-cased ``\\w`` text, MD5 per feature);
* **same features**: both given the same canonical word lists (tf-weighted words):
  ``fingerprint_batch(token_lists)`` vs ``simhash.Simhash(Counter(tokens))``.

Needs ``pip install simhash`` (the ``bench`` extra). Usage::

    .venv/bin/python benchmarks/bench_simhash.py [--n 5000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from neardup.methods.simhash import SimHash
from neardup.text.encoding import decode

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
SETS = ("linux-doc-revisions", "linux-doc-zh-revisions", "progit-ru-revisions", "clough-stevenson")


def load_texts(n: int, data: Path = DATA) -> list[str]:
    """``n`` real texts: the labelled sets' documents, then RusLit pieces."""
    texts: list[str] = []
    for name in SETS:
        with open(data / name / "docs.jsonl", encoding="utf-8") as fh:
            texts.extend(json.loads(line)["text"] for line in fh if line.strip())
    for path in sorted((data / "ruslit").rglob("*.txt")):
        if len(texts) >= n:
            break
        words = decode(path.read_bytes(), source=str(path)).split()
        texts.extend(" ".join(words[i : i + 1500]) for i in range(0, len(words), 1500))
    return texts[:n]


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """Smallest wall time of ``repeat`` runs of ``fn``, seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def pypi_fingerprint(features: dict[str, int]) -> int:
    """``simhash.Simhash`` of weighted features, working around its numpy-2 overflow.

    simhash 2.1.2 multiplies a uint8 bit array by an int weight, which numpy 2 refuses for
    weights > 255; such weights are passed as floats (same result, same code path: weights
    above its ``large_weight_cutoff`` of 50 take that path anyway).
    """
    from simhash import Simhash

    return int(Simhash({k: (v if v <= 255 else float(v)) for k, v in features.items()}).value)


def pypi_from_text(text: str) -> int:
    """``Simhash(text)``'s own pipeline (char 4-grams of lower-cased ``\\w``), counted."""
    from simhash import Simhash

    return pypi_fingerprint(Counter(Simhash(0)._tokenize(text)))


def main() -> None:
    """Print fingerprints per second of both libraries and their ratio."""

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    texts = load_texts(args.n)
    method = SimHash()
    canon = method.canonical
    tokens = [canon.tokens(t) for t in texts]
    n = len(texts)
    words = sum(map(len, tokens))
    print(f"{n} documents, {words} canonical tokens, {sum(map(len, texts))} characters")

    ours_text = best_of(lambda: method.fingerprint_batch([canon.tokens(t) for t in texts]), 1)
    theirs_text = best_of(lambda: [pypi_from_text(t) for t in texts], 1)
    ours_tok = best_of(lambda: method.fingerprint_batch(tokens), args.repeat)
    theirs_tok = best_of(lambda: [pypi_fingerprint(Counter(t)) for t in tokens], 1)
    print("| comparison | neardup fp/s | simhash fp/s | ratio |")
    print("|---|---:|---:|---:|")
    for label, ours, theirs in (
        ("from text (each its own features)", ours_text, theirs_text),
        ("same word features", ours_tok, theirs_tok),
    ):
        print(f"| {label} | {n / ours:,.0f} | {n / theirs:,.0f} | {theirs / ours:.1f}x |")


if __name__ == "__main__":
    main()
