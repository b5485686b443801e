"""Precision, recall, F1 and seconds of the exact-key methods in the dedup job.

Methods: megashingles, imatch, imatch-random, anchor-words, tf-ridf (default parameters),
each run by ``neardup.job.pipeline.dedup(docs, method=NAME, options=DedupOptions(threshold=...,
decision="own"))`` so the method's own rule decides (an equal key = a duplicate). Scored with
``neardup.evaluate.metrics.score_pairs``: scope ``all`` on the three revision sets (unlisted
pairs are non-duplicates), ``labelled`` on clough-stevenson.

Usage: python benchmarks/eval_methods_lexical.py [--data ../shared/data] [--threshold 0.5]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from neardup.evaluate.metrics import Gold, score_pairs
from neardup.job.pipeline import DedupOptions, dedup
from neardup.text.types import Document

METHODS = ("megashingles", "imatch", "imatch-random", "anchor-words", "tf-ridf")
SETS = {
    "linux-doc-revisions": "all",
    "linux-doc-zh-revisions": "all",
    "progit-ru-revisions": "all",
    "clough-stevenson": "labelled",
}
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def load(folder: Path) -> tuple[list[Document], Gold]:
    """Documents and gold pairs of one labelled set."""
    with (folder / "docs.jsonl").open(encoding="utf-8") as fh:
        docs = [Document(r["id"], r["text"], source=folder.name) for r in map(json.loads, fh)]
    return docs, Gold.load(folder / "gold.jsonl")


def evaluate(method: str, docs: list[Document], gold: Gold, scope: str, t: float) -> dict:
    """One job run: precision, recall, F1, pairs and wall seconds."""
    t0 = time.perf_counter()
    res = dedup(docs, method=method, options=DedupOptions(threshold=t, decision="own"))
    seconds = time.perf_counter() - t0
    s = score_pairs([(p.a, p.b) for p in res.pairs], gold, scope=scope)  # type: ignore[arg-type]
    return {"p": s.precision, "r": s.recall, "f1": s.f1, "pairs": len(res.pairs), "s": seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--threshold", type=float, default=0.5)
    args = ap.parse_args()
    print("| set (scope) | method | precision | recall | F1 | pairs | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, scope in SETS.items():
        docs, gold = load(args.data / name)
        for method in METHODS:
            m = evaluate(method, docs, gold, scope, args.threshold)
            print(
                f"| {name} ({scope}) | {method} | {m['p']:.3f} | {m['r']:.3f} | {m['f1']:.3f} "
                f"| {m['pairs']} | {m['s']:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
