"""Recall of a collection's index keys against the dedup job, for SL+ST and SpotSigs.

For each method and labelled set: the job (``dedup(docs, method=M, threshold=t)``) gives
its pairs; a SQLite collection of the same method and threshold is filled with the same
documents and every document is checked against it. Reported per method:

* ``job_pairs``: pairs the job found;
* ``key_recall``: share of the job's pairs whose two documents share an index key (the
  method's ``index_keys`` of each document signed alone, as ``add`` and ``check`` sign);
* ``check_recall``: share of the job's pairs that ``check`` of either document finds;
* ``score_equal``: share of the found pairs whose check score equals the job's (6 decimals);
* ``check_extra``: pairs check finds that the job does not.

Usage: python benchmarks/bench_collection_keys.py [--data ../shared/data]
    [--set progit-ru-revisions] [--methods sl-st spotsigs] [--threshold 0.5] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

from neardup import DedupOptions, dedup
from neardup.methods.base import Prepared
from neardup.methods.keys import key_rows
from neardup.methods.registry import make_method
from neardup.store import Store
from neardup.text.types import Document

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def load(path: Path, limit: int | None) -> list[Document]:
    """Documents of a labelled set's docs.jsonl (the first ``limit``)."""
    docs: list[Document] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            docs.append(Document(row["id"], row["text"]))
            if limit is not None and len(docs) >= limit:
                break
    return docs


def key_sharing(method: str, threshold: float, docs: list[Document]) -> dict[str, set[int]]:
    """Each document's index keys, each document signed alone."""
    meth = make_method(method, threshold=threshold)
    out: dict[str, set[int]] = {}
    for d in docs:
        tokens = meth.canonical.tokens(d.text)
        sigs = meth.sign([Prepared(d.id, d.text, tokens)])
        out[d.id] = set(key_rows(meth.keys(sigs)).key.tolist())
    return out


def measure(method: str, docs: list[Document], threshold: float) -> dict[str, object]:
    """The figures of one method (module docstring)."""
    result = dedup(docs, method=method, options=DedupOptions(threshold=threshold))
    job = {tuple(sorted((p.a, p.b))): round(p.score, 6) for p in result.pairs}
    keys = key_sharing(method, threshold, docs)
    shared = sum(1 for a, b in job if keys[a] & keys[b])
    found: dict[tuple[str, str], float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite:///{Path(tmp) / 'c.db'}")
        try:
            store.create_collection("c", method, threshold=threshold)
            store.add("c", docs)
            for d in docs:
                try:
                    res = store.check("c", d.text, limit=1000)
                except Exception:  # too short to check: the job skipped it too
                    continue
                for m in res.matches:
                    if m.doc_id != d.id:
                        found[tuple(sorted((d.id, m.doc_id)))] = m.evidence["score"]
        finally:
            store.close()
    hit = [p for p in job if p in found]
    equal = sum(1 for p in hit if found[p] == job[p])
    n = max(len(job), 1)
    return {
        "method": method,
        "documents": len(docs),
        "threshold": threshold,
        "job_pairs": len(job),
        "key_recall": round(shared / n, 4),
        "check_recall": round(len(hit) / n, 4),
        "score_equal": round(equal / max(len(hit), 1), 4),
        "check_extra": len(set(found) - set(job)),
        "keys_per_document": round(float(np.mean([len(k) for k in keys.values()])), 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--set", default="progit-ru-revisions")
    ap.add_argument("--methods", nargs="+", default=["sl-st", "spotsigs"])
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    docs = load(args.data / args.set / "docs.jsonl", args.limit)
    for method in args.methods:
        print(json.dumps({"set": args.set, **measure(method, docs, args.threshold)}), flush=True)


if __name__ == "__main__":
    main()
