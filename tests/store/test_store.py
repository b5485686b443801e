"""Store: collections, idempotent add, check, remove, set-wise statistics (SQLite + PG)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from sqlalchemy import text

from neardup.errors import (
    CollectionExists,
    CollectionNotFound,
    DocumentNotFound,
    InputError,
    ParameterError,
    UnsupportedMethod,
)
from neardup.methods.base import Signature
from neardup.methods.corpus_stats import CorpusStatistics
from neardup.methods.shingles import Shingling
from neardup.store import Store
from neardup.text.canonical import CanonicalForm
from neardup.text.types import Document
from store._db import unique

WORDS = [f"w{i}" for i in range(2000)]


def doc(i: int, shift: int = 0, n: int = 60) -> Document:
    """Document ``i``: ``n`` words starting at ``7*i + shift`` (neighbours overlap)."""
    start = 7 * i + shift
    return Document(f"d{i}", " ".join(WORDS[start : start + n]), source=f"src{i}")


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    st = Store(db_url)
    yield st
    st.close()


def test_create_list_stats_delete(store: Store) -> None:
    name = unique()
    info = store.create_collection(name, "minhash-lsh", {"num_perm": 64}, threshold=0.4)
    assert info.params["bands"] * info.params["rows"] <= 64
    assert info.params["threshold"] == 0.4
    assert name in [c.name for c in store.collections()]
    with pytest.raises(CollectionExists):
        store.create_collection(name, "minhash-lsh")
    stats = store.stats(name)
    assert stats["documents"] == 0 and stats["method"] == "minhash-lsh"
    store.delete_collection(name)
    with pytest.raises(CollectionNotFound):
        store.stats(name)
    with pytest.raises(CollectionNotFound):
        store.delete_collection(name)


@pytest.mark.parametrize(
    ("method", "params", "error"),
    [
        ("simhash", {}, UnsupportedMethod),
        ("minhash-lsh", {"nope": 1}, ParameterError),
        ("minhash-lsh", {"num_perm": 0}, ParameterError),
        ("no-such-method", {}, ParameterError),
    ],
)
def test_create_refuses_bad_methods(
    store: Store, method: str, params: dict[str, Any], error: type
) -> None:
    with pytest.raises(error):
        store.create_collection(unique(), method, params)


def test_bad_names_are_refused(store: Store) -> None:
    for bad in ("", "   ", "a/b", "x" * 201, "tab\there"):
        with pytest.raises(ParameterError):
            store.create_collection(bad, "minhash-lsh")


def test_add_is_idempotent_and_reports_changes(store: Store) -> None:
    name = unique()
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    docs = [doc(i) for i in range(30)]
    first = store.add(name, docs, batch_size=7)
    assert first.added == 30 and first.batches == 5
    again = store.add(name, docs)
    assert again.added == 0 and {s.reason for s in again.skipped} == {"exists"}
    changed = store.add(name, [Document("d0", "completely different words " * 5)])
    assert changed.skipped[0].reason == "changed"
    # a repeated id is stored under its place (here no source: the id and "#2"), not lost
    dup = store.add(name, [doc(40), doc(40), Document("short", "one two")])
    assert dup.added == 2
    assert [s.reason for s in dup.skipped] == ["too-short"]
    assert store.stats(name)["documents"] == 32
    assert store.add(name, [doc(40), doc(40)]).added == 0  # the same input: the same ids


def test_check_finds_neighbours_verified(store: Store) -> None:
    name = unique()
    store.create_collection(name, "minhash-lsh", threshold=0.5)
    store.add(name, [doc(i) for i in range(40)])
    query = doc(10, shift=2).text  # overlaps d10 most, d9 and d11 less
    result = store.check(name, query)
    assert result.duplicate
    best = result.matches[0]
    assert best.doc_id == "d10" and best.resemblance > 0.8
    assert all(m.resemblance >= 0.5 for m in result.matches)
    assert 0 < best.containment_query <= 1 and 0 < best.containment_doc <= 1
    assert best.evidence["index_hits"] >= 1 and best.evidence["score"] is not None
    far = " ".join(f"x{i}" for i in range(80))
    assert not store.check(name, far).duplicate
    with pytest.raises(InputError):
        store.check(name, "too short")


def test_remove_document(store: Store) -> None:
    name = unique()
    store.create_collection(name, "minhash-lsh")
    store.add(name, [doc(i) for i in range(5)])
    info = store.document(name, "d3")
    assert info.length == 60 and info.shingles == 56 and info.source == "src3"
    store.remove(name, "d3")
    with pytest.raises(DocumentNotFound):
        store.document(name, "d3")
    with pytest.raises(DocumentNotFound):
        store.remove(name, "d3")
    assert "d3" not in [m.doc_id for m in store.check(name, doc(3).text).matches]
    assert store.add(name, [doc(3)]).added == 1


def test_signatures_and_sets_are_stored_in_documented_formats(store: Store) -> None:
    name = unique()
    store.create_collection(name, "minhash-lsh")
    store.add(name, [doc(1)])
    lexical = unique()
    store.create_collection(lexical, "tf-ridf", threshold=0.3, min_tokens=1)
    store.add(lexical, [doc(1), doc(2)])
    cid = store.collection(name).id
    with store._read() as conn:
        signed = conn.execute(
            text(
                "SELECT COUNT(*) FROM nd_signatures s JOIN nd_documents d ON d.id = s.document_id "
                "WHERE d.collection_id = :c"
            ),
            {"c": cid},
        ).scalar_one()
        blob = conn.execute(
            text(
                "SELECT s.fingerprints FROM nd_shingles s JOIN nd_documents d "
                "ON d.id = s.document_id WHERE d.collection_id = :c"
            ),
            {"c": cid},
        ).scalar_one()
        payload = (
            conn.execute(
                text(
                    "SELECT s.payload FROM nd_signatures s JOIN nd_documents d "
                    "ON d.id = s.document_id WHERE d.collection_id = :c"
                ),
                {"c": store.collection(lexical).id},
            )
            .scalars()
            .first()
        )
    assert signed == 0  # minhash-lsh signs from the stored shingle set
    full = Shingling().fingerprints(CanonicalForm().tokens(doc(1).text))
    high = np.unique(np.asarray(full, dtype=np.uint64) >> np.uint64(32)).astype("<u4")
    assert bytes(blob) == b"\x02" + high.tobytes()  # format 2, neardup.index.codec
    assert payload is not None
    sig = Signature.from_bytes(bytes(payload))
    assert sig.key.method == "tf-ridf"


def test_other_shingle_and_exact_key_methods(store: Store) -> None:
    for method in ("shingles-mod", "megashingles"):
        name = unique()
        store.create_collection(name, method, {"shingle_size": 3}, threshold=0.3)
        store.add(name, [doc(i) for i in range(10)])
        assert store.check(name, doc(4).text).matches[0].doc_id == "d4"


def test_statistics_recompute_setwise(store: Store) -> None:
    name = unique()
    store.create_collection(name, "tf-ridf", threshold=0.3, min_tokens=1)
    texts = [
        "alpha beta gamma delta epsilon zeta theta",
        "alpha beta gamma delta omicron sigma",
        "alpha kappa lambda lambda lambda",
        "beta kappa omega omega",
    ]
    docs = [Document(f"t{i}", t) for i, t in enumerate(texts)]
    report = store.add(name, docs)
    assert report.added == 4
    info = store.collection(name)
    assert not info.stats_dirty
    meth = store._method(info)
    expected = CorpusStatistics.from_token_lists(meth.canonical.tokens(t) for t in texts)
    assert _db_stats(store, info.id) == _mem_stats(expected)
    with store._write() as conn:  # corrupt, then repair set-wise
        conn.execute(
            text("UPDATE nd_terms SET df = 99, cf = 99 WHERE collection_id = :c"), {"c": info.id}
        )
    rep = store.recompute(name)
    assert rep is not None and rep.documents == 4
    assert _db_stats(store, info.id) == _mem_stats(expected)
    store.remove(name, "t3")
    assert store.collection(name).stats_dirty
    expected.remove(meth.canonical.tokens(texts[3]))
    assert _db_stats(store, info.id) == _mem_stats(expected)
    hit = store.check(name, texts[0])
    assert not store.collection(name).stats_dirty
    assert hit.matches and hit.matches[0].doc_id == "t0"


def _db_stats(store: Store, cid: int) -> dict[str, tuple[int, int]]:
    with store._read() as conn:
        rows = conn.execute(
            text("SELECT term, df, cf FROM nd_terms WHERE collection_id = :c AND df > 0"),
            {"c": cid},
        ).all()
    return {r[0]: (int(r[1]), int(r[2])) for r in rows}


def _mem_stats(stats: CorpusStatistics) -> dict[str, tuple[int, int]]:
    return {t: (stats.df(t), stats.cf(t)) for t in stats.terms()}
