"""Set-wise recompute == signing in memory, byte for byte (SQLite + PostgreSQL).

The store re-signs lexical collections from the term counts in the database (the
methods' ``sign_counts`` hook: TF-RIDF vectorised, I-Match and anchor words from bags of
words); every stored signature and index
key must equal what the method makes in memory, fitted on ``CorpusStatistics`` of the same
documents' canonical tokens.
"""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import text

from neardup.index.methods import build_method
from neardup.methods.base import Prepared
from neardup.methods.corpus_stats import CorpusStatistics
from neardup.methods.keys import key_rows, slot_keys
from neardup.methods.tfridf import TFRIDF, crc_signature
from neardup.store import Store
from neardup.store.recompute import TermCounts
from neardup.text.types import Document
from shared_data import load_docs
from store._db import unique


def _stored(store: Store, name: str) -> tuple[dict[str, bytes], set[tuple[str, int, int]]]:
    cid = store.collection(name).id
    with store._read() as conn:
        sigs = conn.execute(
            text(
                "SELECT d.doc_id, s.payload FROM nd_signatures s "
                "JOIN nd_documents d ON d.id = s.document_id WHERE d.collection_id = :c"
            ),
            {"c": cid},
        ).all()
        keys = conn.execute(
            text(
                "SELECT d.doc_id, i.band, i.key FROM nd_index i "
                "JOIN nd_documents d ON d.id = i.document_id WHERE i.collection_id = :c"
            ),
            {"c": cid},
        ).all()
    return {r[0]: bytes(r[1]) for r in sigs}, {(r[0], int(r[1]), int(r[2])) for r in keys}


def _in_memory(
    store: Store, name: str, docs: list[Document]
) -> tuple[dict[str, bytes], set[tuple[str, int, int]]]:
    info = store.collection(name)
    meth = build_method(info.method, info.params, info.canonical)
    canonical = meth.canonical
    prepared = [Prepared(d.id, d.text, canonical.tokens(d.text)) for d in docs]
    prepared = [p for p in prepared if len(p.tokens) >= info.min_tokens]
    meth.fit(CorpusStatistics.from_token_lists(p.tokens for p in prepared))
    sigs = meth.sign(prepared)
    keys = key_rows(meth.keys(sigs))
    payloads = {p.id: meth.signature(sigs, i).to_bytes() for i, p in enumerate(prepared)}
    rows = zip(keys.row.tolist(), keys.band.tolist(), keys.key.tolist(), strict=True)
    return payloads, {(prepared[r].id, b, k) for r, b, k in rows}


def _check_identical(store: Store, name: str, docs: list[Document]) -> None:
    stored, stored_keys = _stored(store, name)
    memory, memory_keys = _in_memory(store, name, docs)
    assert stored.keys() == memory.keys()
    assert [d for d in memory if stored[d] != memory[d]] == []
    assert stored_keys == memory_keys


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.parametrize("method", ["tf-ridf", "imatch", "anchor-words"])
def test_recompute_equals_memory_signing_on_real_text(db_url: str, method: str) -> None:
    docs = load_docs("progit-ru-revisions")[:100]
    name = unique(method[:6])
    with Store(db_url) as store:
        store.create_collection(name, method, threshold=0.5)
        store.add(name, docs[:70], recompute_stats=False)
        store.add(name, docs[70:])  # recompute over all, part of them signed already
        _check_identical(store, name, docs)
        store.remove(name, docs[7].id)  # statistics change: every signature is redone
        rep = store.recompute(name)
        assert rep is not None and rep.documents == len(docs) - 1
        assert set(rep.seconds) >= {"read", "counts", "sign", "apply", "total"}
        _check_identical(store, name, docs[:7] + docs[8:])
        store.delete_collection(name)


@pytest.mark.slow
@pytest.mark.data
def test_tfridf_recompute_equals_memory_on_chinese_text(db_url: str) -> None:
    docs = load_docs("linux-doc-zh-revisions")[:100]
    name = unique("zh")
    with Store(db_url) as store:
        store.create_collection(name, "tf-ridf", threshold=0.5)
        store.add(name, docs)
        _check_identical(store, name, docs)
        store.delete_collection(name)


def test_tfridf_ties_are_broken_like_in_memory(db_url: str) -> None:
    """Many equal weights: the top-6 choice hinges on word order and 12-decimal rounding."""
    words = [f"word{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(120)]
    docs = []
    for i in range(40):
        picked = [words[(i * 7 + j * j) % len(words)] for j in range(12)]
        repeat = [picked[0]] * (i % 3)  # some documents with a single largest count
        docs.append(Document(f"t{i}", " ".join(picked + repeat)))
    name = unique("ties")
    with Store(db_url) as store:
        store.create_collection(name, "tf-ridf", threshold=0.5, min_tokens=1)
        store.add(name, docs)
        _check_identical(store, name, docs)
        store.delete_collection(name)


def test_tfridf_sign_counts_near_ties_path() -> None:
    """Weights closer than the rounding margin are ordered as ``top_words`` orders them."""
    meth = TFRIDF(top=2, min_length=1)
    names = ["a", "b", "c", "d"]
    stats = CorpusStatistics.from_token_lists([["a", "b", "c", "d"], ["a", "b"], ["c"]])
    meth.fit(stats)
    docs = [["a", "b", "c", "d"], ["d", "c", "b", "a", "a"], ["c"], []]
    counts = TermCounts(
        doc_ids=np.arange(len(docs), dtype=np.int64),
        names=names,
        term_ids=np.arange(len(names), dtype=np.int64),
        row_doc=np.array([i for i, d in enumerate(docs) for _ in set(d)], dtype=np.int64),
        row_term=np.array([names.index(t) for d in docs for t in sorted(set(d))], np.int64),
        row_count=np.array([d.count(t) for d in docs for t in sorted(set(d))], np.int64),
    )
    got = meth.sign_counts(counts.bags()).data
    want = [crc_signature(meth.words(d)) if d else 0 for d in docs]  # top_words per document
    assert got.tolist() == want
    assert got[3] == 0
    assert meth.sign_counts(counts.bags().slice(1, 3)).data.tolist() == want[1:3]


def test_slot_keys_vectorised_equal_per_document() -> None:
    rng = np.random.default_rng(3)
    for dtype, size in ((np.uint32, 1), (np.uint64, 4), (np.uint8, 60)):
        payloads = [rng.integers(0, 3, size=size).astype(dtype) for _ in range(30)]
        payloads[4][:] = 0
        stacked = slot_keys(payloads)
        loop = slot_keys([*payloads, np.zeros(2 * size, dtype)])  # per document
        n = stacked.key.size
        assert np.array_equal(stacked.row, loop.row[:n])
        assert np.array_equal(stacked.band, loop.band[:n])
        assert np.array_equal(stacked.key, loop.key[:n])
