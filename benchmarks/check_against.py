"""Check a ``neardup dedup B --against A`` run exhaustively (issue 31): no kept B document
has a match in A at the threshold, every removed B document names an A document it
matches, no A document is dropped, and ``read = kept + removed + skipped``.

The kept check does not trust the job's candidates: every pair of a kept B document and an
A document sharing at least one 5-word shingle (resemblance >= t > 0 needs one) is measured
exactly, on the shingle sets of the job's canonical form (``shingles-full`` defaults).

Usage (the inputs as given to the run; ``--out`` and ``--kept`` of the run)::

    neardup dedup B/ --against A/ -o RUN --kept RUN-kept.jsonl -q
    python benchmarks/check_against.py --against A/ --inputs B/ --out RUN --kept RUN-kept.jsonl

With ``--collection-ids``, A's ids in the run are relative to A's own inputs (A was added
to a collection) and B's relative to B's; a named match's score may then differ from the
exact one by up to 1e-5 (the collection verifies on 32-bit fingerprints).
Prints one JSON object; exit 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from neardup.job.prepare import prepare_documents
from neardup.methods.plan import PrepareConfig
from neardup.methods.registry import make_method
from neardup.text.inputs import Spool, group_names, input_names, resolve_inputs
from neardup.text.read import read_named, read_options
from neardup.text.types import Document


def _documents(groups: list[list[str]], joint: bool) -> list[list[Document]]:
    spool = Spool()
    try:
        resolved = [resolve_inputs(g, spool) for g in groups]
        names = group_names(resolved) if joint else [input_names(r) for r in resolved]
        opts = read_options()
        return [
            [d for d in read_named(r, opts, n) if isinstance(d, Document)]
            for r, n in zip(resolved, names, strict=True)
        ]
    finally:
        spool.close()


def _sets(docs: list[Document], threshold_tokens: int = 3) -> tuple[list[str], list[np.ndarray]]:
    meth = make_method("shingles-full")
    config = PrepareConfig(
        canonical=meth.canonical, shingling=meth.shingling, min_tokens=threshold_tokens
    )
    ids: list[str] = []
    sets: list[np.ndarray] = []
    for i in range(0, len(docs), 512):
        batch = docs[i : i + 512]
        done = prepare_documents(batch, config)
        long = np.flatnonzero(done.long).tolist()
        for k, j in enumerate(long):
            ids.append(batch[j].id)
            sets.append(np.unique(done.sets.get(k)))
    return ids, sets


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", nargs="+", required=True)
    ap.add_argument("--inputs", nargs="+", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--kept", required=True, type=Path)
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--collection-ids", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    a_docs, b_docs = _documents([args.against, args.inputs], joint=not args.collection_ids)
    a_ids, a_sets = _sets(a_docs)
    b_ids, b_sets = _sets(b_docs)
    a_index = {i: k for k, i in enumerate(a_ids)}
    b_index = {i: k for k, i in enumerate(b_ids)}
    summary = json.loads((args.out / "summary.json").read_text())
    dropped = [json.loads(x) for x in (args.out / "dropped.jsonl").open()]
    kept = [json.loads(x)["id"] for x in args.kept.open()]
    failures: list[str] = []
    # no A document dropped; every dropped one is B's
    # (A as a collection: its ids are relative to its own inputs and may equal B's; the job
    # never held A's documents, so only "every dropped one is B's" is checked)
    a_dropped = [] if args.collection_ids else [d["id"] for d in dropped if d["id"] in a_index]
    not_b = [d["id"] for d in dropped if d["id"] not in b_index]
    if a_dropped or not_b:
        failures.append(f"dropped A documents {a_dropped[:3]}, unknown {not_b[:3]}")
    # every removed B document with a match names an A document it matches (exactly)
    low: list[tuple[str, str, float]] = []
    # a collection verifies on the high 32 bits of each fingerprint (neardup.index.codec):
    # a rare collision moves a score in the 6th decimal
    tolerance = 1e-5 if args.collection_ids else 1e-6
    matched = [d for d in dropped if d.get("match") is not None]
    for d in matched:
        b, a = b_sets[b_index[d["id"]]], a_sets[a_index[d["match"]]]
        shared = np.intersect1d(a, b, assume_unique=True).size
        res = shared / (a.size + b.size - shared)
        if res < args.threshold or abs(res - d["score"]) > tolerance:
            low.append((d["id"], d["match"], res))
    if low:
        failures.append(f"{len(low)} removed documents whose named match is below t: {low[:3]}")
    # exhaustive: no kept B document shares >= t with any A document
    values = np.concatenate(a_sets)
    owner = np.repeat(np.arange(len(a_sets)), [s.size for s in a_sets])
    order = np.argsort(values, kind="stable")
    values, owner = values[order], owner[order]
    sizes = np.array([s.size for s in a_sets])
    worst: tuple[float, str, str] = (0.0, "", "")
    over: list[tuple[str, str, float]] = []
    measured = 0
    for doc in kept:
        if doc not in b_index:
            failures.append(f"kept {doc} is not a B document")
            continue
        b = b_sets[b_index[doc]]
        lo, hi = np.searchsorted(values, b, "left"), np.searchsorted(values, b, "right")
        pieces = [owner[x:y] for x, y in zip(lo.tolist(), hi.tolist(), strict=True) if y > x]
        hits = np.concatenate(pieces) if pieces else np.zeros(0, np.int64)
        if not hits.size:
            continue
        who, shared = np.unique(hits, return_counts=True)
        measured += who.size
        res = shared / (sizes[who] + b.size - shared)
        k = int(np.argmax(res))
        if res[k] > worst[0]:
            worst = (float(res[k]), doc, a_ids[int(who[k])])
        close = res >= args.threshold
        pairs = zip(who[close].tolist(), res[close].tolist(), strict=True)
        over += [(doc, a_ids[w], r) for w, r in pairs]
    if over:
        failures.append(f"{len(over)} kept documents match A: {over[:3]}")
    counts = {k: summary[k] for k in ("read", "documents", "kept", "removed", "skipped")}
    if counts["read"] != counts["kept"] + counts["removed"] + counts["skipped"]:
        failures.append(f"accounting: {counts}")
    print(json.dumps({
        "a_documents": len(a_ids), "b_documents": len(b_ids), **counts,
        "removed_for_a_match": len(matched), "removed_within_b": len(dropped) - len(matched),
        "kept_rows": len(kept), "kept_pairs_measured": measured,
        "kept_best_resemblance_in_a": {"value": round(worst[0], 6), "b": worst[1], "a": worst[2]},
        "against": summary.get("against"), "check_seconds": round(time.perf_counter() - t0, 1),
        "failures": failures,
    }, indent=1, ensure_ascii=False))  # fmt: skip
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
