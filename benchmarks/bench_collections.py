"""Collections benchmark: add and check throughput, check latency, statistics recompute.

For each size N (10k, 100k) and database (SQLite file, PostgreSQL):

* ``add``: documents per second into a ``minhash-lsh`` collection (t=0.5), batches of 500;
* ``check``: latency percentiles (p50, p99, ms) and throughput of ``Store.check`` for
  ``--queries`` documents, half of them perturbed copies of stored documents;
* ``recompute``: seconds of the set-wise statistics + signature recompute of a
  ``tf-ridf`` collection of the same N documents (``--no-lexical`` skips it);
* peer: datasketch's in-memory ``MinHashLSH`` (same threshold, 128 permutations) query
  latency on the same documents' 5-word shingles.

Corpus: ``bash ../shared/data/bench-corpus.sh OUT 100000`` (``OUT/corpus.jsonl``).
Usage: ``python benchmarks/bench_collections.py CORPUS.jsonl --sizes 10000 100000
--pg postgresql://postgres@127.0.0.1:5432/test --out benchmarks/results/collections.json``.
``--only-recompute`` runs the ``tf-ridf`` add + recompute only (no minhash-lsh add/check,
no datasketch peer); ``--no-sqlite`` / ``--no-pg`` pick the databases.
Targets: check p50 < 10 ms, p99 < 50 ms; recompute of 100k documents < 30 s.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from neardup.store import Store
from neardup.text.types import Document


def load(path: Path, n: int) -> list[Document]:
    """The first ``n`` documents of a ``{"id", "text"}`` JSONL corpus."""
    docs = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if len(docs) >= n:
                break
            row = json.loads(line)
            docs.append(Document(row["id"], row["text"]))
    return docs


def queries(docs: list[Document], k: int, seed: int = 7) -> list[str]:
    """``k`` queries: half stored documents with 2% of words replaced, half shuffled (no match)."""
    rng = random.Random(seed)
    out = []
    for i in range(k):
        words = rng.choice(docs).text.split()
        if i % 2 == 0:
            for _ in range(len(words) // 50):
                words[rng.randrange(len(words))] = f"edit{rng.randrange(10**6)}"
        else:
            rng.shuffle(words)
        out.append(" ".join(words))
    return out


def pct(values: list[float], q: float) -> float:
    """The ``q``-th percentile of ``values`` (ms, 3 decimals)."""
    return round(float(np.percentile(np.array(values) * 1000, q)), 3)


def bench_db(
    url: str, docs: list[Document], qs: list[str], lexical: bool, only_recompute: bool = False
) -> dict[str, Any]:
    """Add, check and recompute timings on one database."""
    store = Store(url)
    if only_recompute:
        row = bench_lexical(store, docs)
        store.close()
        return row
    name = f"bench-{uuid.uuid4().hex[:8]}"
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    t0 = time.perf_counter()
    report = store.add(name, docs)
    add_s = time.perf_counter() - t0
    lat = []
    found = 0
    for q in qs:
        t = time.perf_counter()
        found += bool(store.check(name, q).matches)
        lat.append(time.perf_counter() - t)
    row: dict[str, Any] = {
        "documents": report.added,
        "add_docs_per_s": round(report.added / add_s, 1),
        "add_s": round(add_s, 2),
        "check_p50_ms": pct(lat, 50),
        "check_p99_ms": pct(lat, 99),
        "check_per_s": round(len(qs) / sum(lat), 1),
        "queries_with_match": found,
    }
    store.delete_collection(name)
    if lexical:
        row.update(bench_lexical(store, docs))
    store.close()
    return row


def bench_lexical(store: Store, docs: list[Document]) -> dict[str, Any]:
    """Add to a tf-ridf collection without recompute, then time the set-wise recompute."""
    name = f"lex-{uuid.uuid4().hex[:8]}"
    store.create_collection(name, "tf-ridf", threshold=0.5)
    t0 = time.perf_counter()
    store.add(name, docs, recompute_stats=False)
    add_s = time.perf_counter() - t0
    rep = store.recompute(name)
    store.delete_collection(name)
    assert rep is not None
    return {
        "lexical_add_s": round(add_s, 2),
        "recompute_s": rep.seconds["total"],
        "recompute_steps": rep.seconds,
        "terms": rep.terms,
    }


def bench_datasketch(docs: list[Document], qs: list[str]) -> dict[str, Any]:
    """datasketch MinHashLSH (in memory) on the same 5-word shingles: build and query."""
    from datasketch import MinHash, MinHashLSH

    from neardup.methods.shingles import Shingling
    from neardup.text.canonical import CanonicalForm

    canon, sh = CanonicalForm(), Shingling()

    def sketch(text: str) -> MinHash:
        m = MinHash(num_perm=128)
        m.update_batch([int(x).to_bytes(8, "little") for x in sh.fingerprints(canon.tokens(text))])
        return m

    lsh = MinHashLSH(threshold=0.5, num_perm=128)
    t0 = time.perf_counter()
    for d in docs:
        lsh.insert(d.id, sketch(d.text))
    build = time.perf_counter() - t0
    lat = []
    for q in qs:
        t = time.perf_counter()
        lsh.query(sketch(q))
        lat.append(time.perf_counter() - t)
    return {
        "add_docs_per_s": round(len(docs) / build, 1),
        "check_p50_ms": pct(lat, 50),
        "check_p99_ms": pct(lat, 99),
        "check_per_s": round(len(qs) / sum(lat), 1),
    }


def main() -> None:
    """Run the benchmark and print (and optionally write) a JSON table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument("--no-sqlite", action="store_true")
    ap.add_argument("--no-lexical", action="store_true")
    ap.add_argument(
        "--only-recompute", action="store_true", help="only the tf-ridf add + recompute"
    )
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    rows = []
    for n in args.sizes:
        docs = load(args.corpus, n)
        qs = queries(docs, args.queries)
        with tempfile.TemporaryDirectory() as tmp:
            dbs = {} if args.no_sqlite else {"sqlite": f"sqlite:///{tmp}/bench.db"}
            if not args.no_pg:
                dbs["postgresql"] = args.pg
            for db, url in dbs.items():
                lexical = not args.no_lexical or args.only_recompute
                timings = bench_db(url, docs, qs, lexical, args.only_recompute)
                row = {"n": n, "db": db, **timings}
                print(json.dumps(row), flush=True)
                rows.append(row)
        if args.only_recompute:
            continue
        row = {"n": n, "db": "datasketch (memory)", **bench_datasketch(docs, qs)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
