"""Round trip on labelled corpora: add every document, check each gold pair's partner.

Every labelled pair must be found: recall >= 0.9 against the gold pairs, at settings the
core ``dedup`` job shares (and where the job itself reaches recall >= 0.9):

* ``progit-ru-revisions`` (chapters revised over years, many heavily): ``shingles-full``,
  3-word shingles, ``containment`` t=0.2. Core job: P 0.837, R 0.917, F1 0.875 (vs
  minhash-lsh resemblance t=0.3: R 0.655). Resemblance cannot reach 0.9 here without
  collapsing precision; ``minhash-lsh`` with containment misses pairs in the store because
  its LSH bands are tuned for resemblance (the job adds exact containment candidates).
* ``linux-doc-zh-revisions``: ``minhash-lsh``, 5-word shingles, resemblance t=0.5
  (low containment thresholds pair thousands of documents sharing boilerplate there).

Two recalls are measured: against the gold pairs, and against the pairs the core job
verifies at the same settings (the store must find what the job finds). SQLite and
PostgreSQL must give identical results.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from neardup.job.pipeline import DedupOptions, dedup
from neardup.store import Store
from shared_data import data_path, load_docs
from store._db import unique

pytestmark = pytest.mark.data

#: corpus -> (method, method parameters, measure, threshold)
CASES: dict[str, tuple[str, dict[str, Any], str, float]] = {
    "progit-ru-revisions": ("shingles-full", {"shingle_size": 3}, "containment", 0.2),
    "linux-doc-zh-revisions": ("minhash-lsh", {}, "resemblance", 0.5),
}
MIN_RECALL = 0.9
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


@pytest.mark.slow
@pytest.mark.parametrize("corpus", sorted(CASES))
def test_roundtrip_recall(db_url: str, corpus: str) -> None:
    method, params, measure, threshold = CASES[corpus]
    docs = load_docs(corpus)
    gold = _gold(corpus)
    options = DedupOptions(threshold=threshold, measure=measure)  # type: ignore[arg-type]
    job = dedup(docs, method=method, options=options, **params)
    job_pairs = {frozenset((p.a, p.b)) for p in job.pairs}
    assert len(job_pairs & gold) / len(gold) >= MIN_RECALL  # the settings suit the core job
    name = unique(corpus[:6])
    with Store(db_url) as store:
        store.create_collection(name, method, params, threshold=threshold, measure=measure)
        assert store.add(name, docs).added == len(job.ids)
        by_id = {d.id: d for d in docs}
        wanted = {x for p in gold | job_pairs for x in p}
        found = {i: [m.doc_id for m in store.check(name, by_id[i].text).matches] for i in wanted}
        store.delete_collection(name)
    job_recall, gold_recall = _recall(job_pairs, found), _recall(gold, found)
    print(
        f"{corpus} {method} {params} {measure} t={threshold} {db_url.split(':')[0]}: "
        f"recall vs job {job_recall:.3f}, vs gold {gold_recall:.3f}"
    )
    assert job_recall >= MIN_RECALL
    assert gold_recall >= MIN_RECALL
    other = _RESULTS.setdefault(corpus, {})
    other[db_url.split(":")[0]] = found
    if len(other) == 2:
        assert other["sqlite"] == other["postgresql+psycopg"]
