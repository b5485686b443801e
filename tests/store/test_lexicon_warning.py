"""An empty lexicon is reported by the store on every backend: ``AddReport.warnings`` and
``CheckResult.warnings`` of a lexical collection whose documents got no index key."""

from __future__ import annotations

import pytest

from neardup.store import Store
from neardup.text.types import Document
from shared_data import paragraphs
from store._db import unique


@pytest.mark.parametrize("method", ["imatch", "anchor-words"])
def test_empty_lexicon_warns_on_add_and_check(db_url: str, method: str) -> None:
    texts = paragraphs("progit-ru-revisions", 2, min_words=60)
    name = unique("lex")
    with Store(db_url) as store:
        store.create_collection(name, method=method)
        report = store.add(name, [Document(f"d{i}", t) for i, t in enumerate(texts)])
        (warning,) = report.warnings
        assert warning.startswith(f"{method} built 0 index keys for the 2 documents of {name}")
        result = store.check(name, texts[0])
        assert not result.duplicate and result.warnings == (warning,)
        assert result.as_dict()["warnings"] == [warning]
        assert store.add(name, []).warnings == ()  # nothing added: nothing recomputed


def test_a_text_without_lexicon_words_is_told_so(db_url: str) -> None:
    many = paragraphs("progit-ru-revisions", 60, min_words=60)
    name = unique("lexq")
    with Store(db_url) as store:
        store.create_collection(name, method="imatch")
        assert store.add(name, [Document(f"d{i}", t) for i, t in enumerate(many)]).warnings == ()
        plain = "Мама мыла раму, а папа читал газету в кресле у окна и пил чай."
        (warning,) = store.check(name, plain).warnings
        assert warning == (
            "this text has no word of the collection's imatch lexicon, so its signature is "
            "empty and it can match no document"
        )
        assert store.check(name, many[3]).duplicate and store.check(name, many[3]).warnings == ()
