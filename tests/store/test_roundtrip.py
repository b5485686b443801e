"""Round trip on labelled corpora: add every document, check each gold pair's partner.

Settings are the core job's best-F1 settings for minhash-lsh (resemblance, 5-word shingles):
``progit-ru-revisions`` t=0.3 (dedup F1 0.724), ``linux-doc-zh-revisions`` t=0.5 (F1 0.937).

Two recalls are measured: against the gold pairs, and against the pairs the core
``dedup`` job verifies at the same settings (the store must find what the job finds).
SQLite and PostgreSQL must give identical results.
"""

from __future__ import annotations

import json

import pytest

from neardup.dedup import DedupOptions, dedup
from neardup.store import Store
from shared_data import data_path, load_docs
from store._db import unique

pytestmark = pytest.mark.data

CASES = {"progit-ru-revisions": (0.3, 0.6), "linux-doc-zh-revisions": (0.5, 0.9)}
_RESULTS: dict[str, dict[str, dict[str, list[str]]]] = {}


def _gold(name: str) -> set[frozenset[str]]:
    with data_path(name, "gold.jsonl").open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return {frozenset((r["a"], r["b"])) for r in rows if r["label"] == 1}


def _recall(pairs: set[frozenset[str]], found: dict[str, list[str]]) -> float:
    hit = sum(1 for p in pairs if _found(p, found))
    return hit / len(pairs) if pairs else 1.0


def _found(pair: frozenset[str], found: dict[str, list[str]]) -> bool:
    a, b = sorted(pair)
    return b in found.get(a, ()) or a in found.get(b, ())


@pytest.mark.parametrize("corpus", sorted(CASES))
def test_roundtrip_recall(db_url: str, corpus: str) -> None:
    threshold, gold_floor = CASES[corpus]
    docs = load_docs(corpus)
    gold = _gold(corpus)
    job = dedup(docs, method="minhash-lsh", options=DedupOptions(threshold=threshold))
    job_pairs = {frozenset((p.a, p.b)) for p in job.pairs}
    name = unique(corpus[:6])
    with Store(db_url) as store:
        store.create_collection(name, "minhash-lsh", threshold=threshold)
        assert store.add(name, docs).added == len(job.ids)
        by_id = {d.id: d for d in docs}
        wanted = {x for p in gold | job_pairs for x in p}
        found = {i: [m.doc_id for m in store.check(name, by_id[i].text).matches] for i in wanted}
        store.delete_collection(name)
    job_recall, gold_recall = _recall(job_pairs, found), _recall(gold, found)
    print(
        f"{corpus} t={threshold} {db_url.split(':')[0]}: recall vs job {job_recall:.3f}, "
        f"vs gold {gold_recall:.3f}"
    )
    assert job_recall >= 0.9
    assert gold_recall >= gold_floor
    other = _RESULTS.setdefault(corpus, {})
    other[db_url.split(":")[0]] = found
    if len(other) == 2:
        assert other["sqlite"] == other["postgresql+psycopg"]
