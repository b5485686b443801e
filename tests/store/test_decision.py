"""A collection stores its decision rule; ``check`` decides by it (own vs verified)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from neardup.errors import ParameterError
from neardup.store import Store
from neardup.text.types import Document
from shared_data import paragraphs
from store._db import unique


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    st = Store(db_url)
    yield st
    st.close()


def _shuffled(text: str) -> str:
    words = text.split()
    random.Random(7).shuffle(words)
    return " ".join(words)


@pytest.mark.data
def test_shuffled_copy_matches_a_tfridf_collection_under_own_only(store: Store) -> None:
    texts = paragraphs("progit-ru-revisions", 30, min_words=40)
    docs = [Document(str(i), t) for i, t in enumerate(texts)]
    own, verified = unique(), unique()
    assert store.create_collection(own, "tf-ridf").decision == "own"  # the method's default
    info = store.create_collection(verified, "tf-ridf", decision="verified")
    assert info.decision == "verified" and store.collection(verified).decision == "verified"
    for name in (own, verified):
        store.add(name, docs)
    query = _shuffled(texts[3])
    hit = store.check(own, query)
    match = next(m for m in hit.matches if m.doc_id == "3")
    assert match.evidence["decision"] == "own" and match.evidence["score"] == 1.0
    assert match.resemblance < 0.2
    assert "3" not in {m.doc_id for m in store.check(verified, query).matches}
    same = store.check(verified, texts[5])  # an identical text matches under either rule
    assert [m.doc_id for m in same.matches][:1] == ["5"]


def test_measure_the_own_rule_cannot_decide_is_refused(store: Store) -> None:
    with pytest.raises(ParameterError) as err:
        store.create_collection(unique(), "tf-ridf", measure="containment")
    assert err.value.name == "measure"
    info = store.create_collection(unique(), "shingles-mod", measure="containment")
    assert info.decision == "own"
