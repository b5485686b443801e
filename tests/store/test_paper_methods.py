"""SL+ST (Feng 2015) and SpotSigs (Theobald et al. 2008) back a collection: their index keys
find a known near-duplicate pair after ``add``, ``check`` decides it by the method's own rule
on the stored signatures (the job's score), and ``remove`` deletes the document's keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import text

from neardup.methods.base import Prepared
from neardup.methods.registry import make_method
from neardup.store import Store
from neardup.text.types import Document
from store._db import unique

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
#: Two releases of one Pro Git chapter (real text, a near-duplicate by both methods).
OLD, NEW = "progit/2016/rerere.asc", "progit/latest/rerere.asc"
METHODS = ["sl-st", "spotsigs"]


def _doc(rel: str) -> Document:
    return Document(rel, (CORPUS / rel).read_text("utf-8"))


def _others() -> list[Document]:
    paths = sorted(CORPUS.glob("chekhov/*.txt"))
    return [Document(p.relative_to(CORPUS).as_posix(), p.read_text("utf-8")) for p in paths]


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    st = Store(db_url)
    yield st
    st.close()


def _score(method: str, a: Document, b: Document) -> float:
    meth = make_method(method, threshold=0.5)
    sigs = meth.sign([Prepared(d.id, d.text, meth.canonical.tokens(d.text)) for d in (a, b)])
    return float(meth.similarity(sigs, np.array([[0, 1]]))[0])


def _index_rows(store: Store, name: str) -> int:
    cid = store.collection(name).id
    with store._db.read() as conn:
        return int(
            conn.execute(
                text(
                    "SELECT (SELECT COUNT(*) FROM nd_index WHERE collection_id = :c) + "
                    "(SELECT COALESCE(SUM(rows), 0) FROM nd_index_runs WHERE collection_id = :c)"
                ),
                {"c": cid},
            ).scalar_one()
        )


@pytest.mark.parametrize("method", METHODS)
def test_paper_method_collection_finds_the_known_pair_after_add(store: Store, method: str) -> None:
    name = unique()
    info = store.create_collection(name, method, threshold=0.5)
    assert info.method == method and info.decision == "own"
    old, new = _doc(OLD), _doc(NEW)
    assert store.add(name, [old, *_others()]).added == 1 + len(_others())
    want = round(_score(method, new, old), 6)
    assert want >= 0.5
    result = store.check(name, new.text)
    assert [m.doc_id for m in result.matches] == [OLD]
    ev = result.matches[0].evidence
    assert ev["decision"] == "own" and ev["score"] == want and ev["index_hits"] >= 1
    label = "SL+ST Jaccard >= 0.5" if method == "sl-st" else "SpotSigs Jaccard >= 0.5"
    assert ev["rule"] == label
    # an unrelated text shares no key with the chapter
    assert OLD not in [m.doc_id for m in store.check(name, _others()[0].text).matches]


@pytest.mark.parametrize("method", METHODS)
def test_removing_a_paper_method_document_deletes_its_keys(store: Store, method: str) -> None:
    name = unique()
    store.create_collection(name, method, threshold=0.5)
    store.add(name, [_doc(OLD)])
    assert _index_rows(store, name) > 0
    store.remove(name, OLD)
    assert _index_rows(store, name) == 0
    assert store.check(name, _doc(NEW).text).matches == ()
