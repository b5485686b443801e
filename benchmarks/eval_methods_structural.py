"""Quality and speed of the structural methods (SL+ST, SpotSigs, SimHash) in the dedup job.

Each method runs in :func:`neardup.job.pipeline.dedup` with ``decision="own"`` (the method's own
score decides) on the three revision sets (scored with ``scope="all"``: unlisted pairs are
non-duplicates) and on clough-stevenson (``scope="labelled"``), against
``<repo>/../shared/data/<set>/gold.jsonl`` (:class:`neardup.evaluate.metrics.Gold`).
SimHash runs at ``threshold = 1 - k/64`` so that the job decides ``hamming <= k``.

Usage::

    .venv/bin/python benchmarks/eval_methods_structural.py [--sets a,b] [--methods a,b]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from neardup.evaluate.metrics import Gold, score_pairs
from neardup.job.pipeline import DedupOptions, dedup
from neardup.text.types import Document

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
SETS: dict[str, str] = {
    "linux-doc-revisions": "all",
    "linux-doc-zh-revisions": "all",
    "progit-ru-revisions": "all",
    "clough-stevenson": "labelled",
}
#: (label, registry name, job threshold, method parameters)
RUNS: list[tuple[str, str, float, dict[str, Any]]] = [
    ("sl-st t=0.3", "sl-st", 0.3, {}),
    ("sl-st t=0.5", "sl-st", 0.5, {}),
    ("spotsigs t=0.3", "spotsigs", 0.3, {}),
    ("spotsigs t=0.5", "spotsigs", 0.5, {}),
    ("simhash k=3", "simhash", 1 - 3 / 64, {"max_hamming": 3}),
    ("simhash k=10", "simhash", 1 - 10 / 64, {"max_hamming": 10}),
]


def load_docs(name: str, data: Path = DATA) -> list[Document]:
    """Documents of ``<data>/<name>/docs.jsonl`` (id, text)."""
    docs = []
    with open(data / name / "docs.jsonl", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                docs.append(Document(row["id"], row["text"]))
    return docs


def evaluate(
    name: str, method: str, threshold: float, params: dict[str, Any], data: Path = DATA
) -> dict[str, float]:
    """P, R, F1 and job seconds of one method on one set."""
    docs = load_docs(name, data)
    gold = Gold.load(data / name / "gold.jsonl")
    t0 = time.perf_counter()
    result = dedup(
        docs, method=method, options=DedupOptions(threshold=threshold, decision="own"), **params
    )
    seconds = time.perf_counter() - t0
    scores = score_pairs(((p.a, p.b) for p in result.pairs), gold, scope=SETS[name])
    return {
        "precision": scores.precision,
        "recall": scores.recall,
        "f1": scores.f1,
        "seconds": seconds,
        "candidates": result.summary["candidate_pairs"],
    }


def main() -> None:
    """Print one markdown table: method x set -> P / R / F1 / seconds."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--methods", default="", help="labels or names to run (default: all)")
    args = ap.parse_args()
    wanted = {m for m in args.methods.split(",") if m}
    print("| method | set | P | R | F1 | candidates | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, method, threshold, params in RUNS:
        if wanted and label not in wanted and method not in wanted:
            continue
        for name in args.sets.split(","):
            r = evaluate(name, method, threshold, params)
            print(
                f"| {label} | {name} | {r['precision']:.3f} | {r['recall']:.3f} | "
                f"{r['f1']:.3f} | {r['candidates']} | {r['seconds']:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
