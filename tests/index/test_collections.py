"""One collection API over every storage backend: the same behaviour tests on memory
(`neardup.Index`), SQLite and PostgreSQL (`Store.open_collection`), on real text (the
Chekhov stories of examples/corpus, a web copy of one, an excerpt of another, a wiki copy).
Every test taking `make` runs on the three backends (the collection core,
`neardup.index.core`, over each storage): adding, re-adding (`exists`, `changed`),
too-short documents, near-duplicates found with their exact scores and unrelated texts with
none (minhash-lsh, shingles-full, tf-ridf), thresholds and measures, the ``max_df`` cut,
identical documents, remove then check, top-k.

`test_same_matches_on_every_backend` checks every method with index keys under both
decision modes and each measure it can decide on: the memory index and a database
collection give the same matches (ids, score, rule, decision, exact measures).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import neardup
from neardup.errors import DocumentNotFound, InputError, ParameterError
from neardup.index.codec import content_hash
from neardup.index.core import Collection
from neardup.index.memory import Index
from neardup.methods.decision import rule_of
from neardup.methods.registry import method_class, method_names
from neardup.store import Store
from neardup.text.types import Document, Skipped

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
STORIES = [d for d in neardup.read_corpus(CORPUS / "chekhov") if isinstance(d, Document)]
BY_ID = {d.id: d for d in STORIES}
WEB_VANKA = next(
    d.text for d in neardup.read_corpus(CORPUS / "web" / "vanka.html") if isinstance(d, Document)
)
WIKI_TOSKA = next(
    d.text for d in neardup.read_corpus(CORPUS / "wiki" / "Тоска.wiki") if isinstance(d, Document)
)
EXCERPT = (CORPUS / "excerpts" / "Хамелеон (начало).txt").read_text(encoding="utf-8")
QUERIES = {
    "web Ванька": WEB_VANKA,
    "wiki Тоска": WIKI_TOSKA,
    "excerpt Хамелеон": EXCERPT,
    "identical Хирургия": BY_ID["Хирургия.txt"].text,
}

Factory = Callable[..., Collection]


def _memory(**kw: Any) -> Collection:
    method = kw.pop("method", "minhash-lsh")
    params = kw.pop("params", None)
    return Index(method=method, method_params=params, **kw)


def _store_factory(url: str, opened: list[Store] | None = None) -> Factory:
    store = Store(url)
    if opened is not None:
        opened.append(store)  # closed by the fixture (its pool, psycopg connections)

    def make(**kw: Any) -> Collection:
        name = f"c-{uuid.uuid4().hex[:10]}"
        store.create_collection(
            name,
            kw.pop("method", "minhash-lsh"),
            kw.pop("params", None),
            **kw,
        )
        return store.open_collection(name)

    return make


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Factory:
    """A factory of empty collections on one backend, taking ``Store.create_collection``'s
    arguments (``method``, ``params``, ``threshold``, ``measure``, ``min_tokens``,
    ``decision``)."""
    if request.param == "memory":
        return _memory
    opened: list[Store] = []
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'neardup.db'}"
    else:
        url = str(request.getfixturevalue("pg_database"))

    def close_all() -> None:  # before the database goes
        for st in opened:
            st.close()

    request.addfinalizer(close_all)
    return _store_factory(url, opened)


def _seen(result: neardup.CheckResult) -> list[tuple[str, float, str, str, float, float]]:
    return [
        (
            m.doc_id,
            m.evidence["score"],
            m.evidence["rule"],
            m.evidence["decision"],
            round(m.resemblance, 9),
            round(max(m.containment_query, m.containment_doc), 9),
        )
        for m in result.matches
    ]


def test_each_backend_is_a_collection(make: Factory) -> None:
    coll = make()
    assert isinstance(coll, Collection)
    report = coll.add(STORIES)
    assert report.added == len(STORIES) == len(coll) == 16
    info = coll.get("Ванька.txt")
    assert (info.doc_id, info.title, info.source) == (
        "Ванька.txt",
        BY_ID["Ванька.txt"].title,
        BY_ID["Ванька.txt"].source,
    )
    assert info.content_hash == content_hash(BY_ID["Ванька.txt"].text).hex()
    assert info.length > 500 and info.shingles > 500


def test_add_reports_the_same_skips(make: Factory) -> None:
    coll = make(min_tokens=5)
    first = coll.add(STORIES[:3])
    assert (first.added, first.skipped) == (3, ())
    again = coll.add(
        [
            STORIES[0],  # same id, same text
            Document(STORIES[1].id, "other words entirely, five or more of them here"),
            Document("tiny", "три слова всего"),
            Skipped("broken.bin", "broken.bin", "binary", "NUL bytes"),
            *STORIES[3:5],
        ]
    )
    assert again.added == 2 and len(coll) == 5
    assert [(s.id, s.reason) for s in again.skipped] == [
        ("broken.bin", "binary"),
        (STORIES[0].id, "exists"),
        (STORIES[1].id, "changed"),
        ("tiny", "too-short"),
    ]
    assert again.skipped[3].detail == "1 canonical tokens < min_tokens=5"  # stop words go


def test_check_finds_the_known_pairs_with_exact_measures(make: Factory) -> None:
    coll = make(threshold=0.5)
    coll.add(STORIES)
    res = coll.check(WEB_VANKA)
    assert [m.doc_id for m in res.matches] == ["Ванька.txt"] and res.duplicate
    exact = neardup.compare(WEB_VANKA, BY_ID["Ванька.txt"].text)
    m = res.matches[0]
    assert m.resemblance == pytest.approx(exact.resemblance, abs=1e-6)
    assert m.evidence["decision"] == "verified"
    assert m.evidence["rule"] == "resemblance >= 0.5 verified"
    assert m.title == BY_ID["Ванька.txt"].title and res.method == "minhash-lsh"
    info = coll.get("Ванька.txt")
    assert info.doc_id == "Ванька.txt" and info.shingles == m.size_doc
    with pytest.raises(InputError, match="too short"):
        coll.check("два слова")


def test_containment_finds_the_excerpt(make: Factory) -> None:
    coll = make(method="shingles-full", threshold=0.8, measure="containment")
    coll.add(STORIES)
    (m,) = coll.check(EXCERPT).matches
    assert m.doc_id == "Хамелеон.txt" and m.containment_query == 1.0 and m.resemblance < 0.8
    assert m.evidence["score"] == 1.0
    assert m.evidence["rule"] == "containment >= 0.8 verified"


def test_an_identical_document_matches_at_threshold_1(make: Factory) -> None:
    # Under the own rule (one shared mega-shingle) at the strictest threshold, the stored
    # copy is found with score 1 (a pair the own rule misses is still recorded as
    # ``identical`` by decide(): tests/test_decide.py).
    coll = make(method="megashingles", decision="own", threshold=1.0)
    coll.add(STORIES)
    (m,) = coll.check(BY_ID["Хирургия.txt"].text).matches
    assert m.doc_id == "Хирургия.txt" and m.resemblance == 1.0
    assert m.evidence["decision"] in ("own", "identical") and m.evidence["score"] == 1.0


#: What each method finds for each text with Хирургия.txt left out of the collection
#: (threshold 0.5): ``(id, evidence score, rule)`` of every match. The web and wiki copies
#: are near-duplicates of their stories; the excerpt of Хамелеон is a third of it
#: (resemblance 0.63); Хирургия.txt shares no story's words enough. TF-RIDF decides by its
#: own rule (equal signatures), which the excerpt does not meet.
EXPECTED: dict[str, dict[str, list[tuple[str, float, str]]]] = {
    "minhash-lsh": {
        "web Ванька": [("Ванька.txt", 0.998674, "resemblance >= 0.5 verified")],
        "wiki Тоска": [("Тоска.txt", 0.998914, "resemblance >= 0.5 verified")],
        "excerpt Хамелеон": [("Хамелеон.txt", 0.627451, "resemblance >= 0.5 verified")],
        "unrelated Хирургия": [],
    },
    "shingles-full": {
        "web Ванька": [("Ванька.txt", 0.998674, "resemblance >= 0.5 verified")],
        "wiki Тоска": [("Тоска.txt", 0.998914, "resemblance >= 0.5 verified")],
        "excerpt Хамелеон": [("Хамелеон.txt", 0.627451, "resemblance >= 0.5 verified")],
        "unrelated Хирургия": [],
    },
    "tf-ridf": {
        "web Ванька": [("Ванька.txt", 1.0, "TF-RIDF equal signature")],
        "wiki Тоска": [("Тоска.txt", 1.0, "TF-RIDF equal signature")],
        "excerpt Хамелеон": [],
        "unrelated Хирургия": [],
    },
}


@pytest.mark.parametrize("method", sorted(EXPECTED))
def test_each_method_finds_the_near_duplicates_and_nothing_else(make: Factory, method: str) -> None:
    coll = make(method=method, threshold=0.5)
    report = coll.add(d for d in STORIES if d.id != "Хирургия.txt")
    assert (report.added, report.skipped) == (15, ())
    texts = {**QUERIES, "unrelated Хирургия": BY_ID["Хирургия.txt"].text}
    del texts["identical Хирургия"]
    for name, want in EXPECTED[method].items():
        res = coll.check(texts[name])
        got = [(m.doc_id, m.evidence["score"], m.evidence["rule"]) for m in res.matches]
        assert got == want, name
        assert res.duplicate == bool(want) and res.method == method
    assert coll.check(texts["unrelated Хирургия"]).candidates == 0


def test_the_threshold_and_measure_decide(make: Factory) -> None:
    """The excerpt of Хамелеон (a third of the story): resemblance 0.627451 passes 0.6 and
    fails 0.7; its containment in the story is 1, which passes 0.9."""
    found = {}
    for measure, threshold in (("resemblance", 0.6), ("resemblance", 0.7), ("containment", 0.9)):
        coll = make(method="shingles-full", measure=measure, threshold=threshold)
        coll.add(STORIES)
        found[measure, threshold] = [
            (m.doc_id, m.evidence["score"], m.evidence["rule"]) for m in coll.check(EXCERPT).matches
        ]
    assert found == {
        ("resemblance", 0.6): [("Хамелеон.txt", 0.627451, "resemblance >= 0.6 verified")],
        ("resemblance", 0.7): [],
        ("containment", 0.9): [("Хамелеон.txt", 1.0, "containment >= 0.9 verified")],
    }


def test_adding_the_same_documents_again_adds_nothing(make: Factory) -> None:
    coll = make(method="tf-ridf")
    assert coll.add(STORIES).added == 16
    again = coll.add(STORIES)
    assert again.added == 0 and len(coll) == 16
    assert [(s.id, s.reason) for s in again.skipped] == [(d.id, "exists") for d in STORIES]
    assert [m.doc_id for m in coll.check(WEB_VANKA).matches] == ["Ванька.txt"]


def test_keys_of_more_than_max_df_documents_give_no_candidates(make: Factory) -> None:
    """Ванька.txt and three copies: each of its keys is shared by 4 documents. Under
    ``max_df=3`` they are passed over (no copy found); under ``max_df=4`` all 4 match."""
    vanka = BY_ID["Ванька.txt"]
    copies = [Document(f"copy-{i}", vanka.text) for i in range(3)]
    found = {}
    for max_df in (3, 4):
        coll = make(method="shingles-full", max_df=max_df)
        coll.add([*STORIES, *copies])
        found[max_df] = [m.doc_id for m in coll.check(vanka.text).matches]
    assert found == {3: [], 4: ["copy-0", "copy-1", "copy-2", "Ванька.txt"]}


def test_remove_then_check(make: Factory) -> None:
    coll = make()
    coll.add(STORIES)
    coll.remove("Ванька.txt")
    assert len(coll) == 15 and coll.check(WEB_VANKA).matches == ()
    with pytest.raises(DocumentNotFound, match=r"Ванька\.txt"):
        coll.remove("Ванька.txt")
    with pytest.raises(DocumentNotFound):
        coll.get("Ванька.txt")
    assert coll.add([BY_ID["Ванька.txt"]]).added == 1
    assert [m.doc_id for m in coll.check(WEB_VANKA).matches] == ["Ванька.txt"]


def test_top_k_ranks_by_decided_score_then_id(make: Factory) -> None:
    # Two exact copies and a web copy of Ванька: the copies score 1 (tie: by id), the web
    # copy its exact resemblance; k=2 keeps the copies, k=1 the first id.
    coll = make(method="shingles-full", threshold=0.3)
    vanka = BY_ID["Ванька.txt"]
    coll.add(
        [
            *STORIES,
            Document("b-copy", vanka.text),
            Document("a-copy", vanka.text),
            Document("web", WEB_VANKA),
        ]
    )
    full = coll.check(vanka.text, k=10)
    ids = [m.doc_id for m in full.matches]
    assert ids == ["a-copy", "b-copy", "Ванька.txt", "web"]
    scores = [m.evidence["score"] for m in full.matches]
    assert scores[:3] == [1.0, 1.0, 1.0] and 0.3 <= scores[3] < 1.0
    assert [m.doc_id for m in coll.check(vanka.text, k=2).matches] == ["a-copy", "b-copy"]
    assert [m.doc_id for m in coll.check(WEB_VANKA, k=1).matches] == ["web"]
    for bad in (0, -1, 1.5, True, "3"):
        with pytest.raises(ParameterError, match="k"):
            coll.check(vanka.text, k=bad)  # type: ignore[arg-type]


def _combinations() -> list[Any]:
    out = []
    for name in method_names():
        cls = method_class(name)
        if not cls.capabilities.has_index_keys:
            continue
        for decision in ("own", "verified"):
            both = ("resemblance", "containment")
            measures = rule_of(cls).measures if decision == "own" else both
            for measure in measures:
                marks = [pytest.mark.slow] if cls.capabilities.needs_fit else []
                out.append(pytest.param(name, decision, measure, marks=marks))
    return out


@pytest.mark.parametrize(("method", "decision", "measure"), _combinations())
def test_same_matches_on_every_backend(
    db_url: str, method: str, decision: str, measure: str
) -> None:
    """Every method with index keys, both decisions, each measure: memory == database."""
    kw = {"method": method, "decision": decision, "measure": measure, "threshold": 0.5}
    opened: list[Store] = []
    memory, stored = _memory(**kw), _store_factory(db_url, opened)(**kw)
    try:
        _same_matches(memory, stored, verified=decision == "verified")
    finally:
        opened.pop().close()


def _same_matches(memory: Collection, stored: Collection, *, verified: bool) -> None:
    for coll in (memory, stored):
        report = coll.add(STORIES)
        assert report.added == len(STORIES)
    found = 0
    for name, text in QUERIES.items():
        a, b = memory.check(text), stored.check(text)
        assert _seen(a) == _seen(b), name
        assert (a.tokens, a.candidates) == (b.tokens, b.candidates), name
        assert _seen(memory.check(text, k=3)) == _seen(stored.check(text, k=3)), name
        found += len(a.matches)
    if verified:  # at least the identical story and the web copy
        assert found >= 2


@pytest.mark.data
def test_an_identical_document_without_a_spot_signature_is_found(make: Factory) -> None:
    """SpotSigs keys nothing in Chinese text (its antecedents are English and Russian stop
    words), yet the job pairs identical documents whatever the rule: each document's
    content-key row lets a check find its copy (decision ``identical``), the copy alone;
    after ``remove`` it is gone. The text is a Linux documentation translation (zh_CN)."""
    from neardup.methods.base import Prepared
    from neardup.methods.keys import key_rows
    from neardup.methods.registry import make_method
    from shared_data import load_docs

    spot = make_method("spotsigs", threshold=0.5)

    def keys(doc: Document) -> int:
        tokens = spot.canonical.tokens(doc.text)
        return int(key_rows(spot.keys(spot.sign([Prepared(doc.id, doc.text, tokens)]))).key.size)

    keyless = [d for d in load_docs("linux-doc-zh-revisions") if keys(d) == 0][:3]
    assert len(keyless) == 3
    coll = make(method="spotsigs", threshold=0.5)
    assert coll.add([*keyless, BY_ID["Ванька.txt"]]).added == 4
    copy = "  " + keyless[1].text.replace("\n", "\n\n") + "\n"  # the same canonical tokens
    (m,) = coll.check(copy).matches
    assert (m.doc_id, m.resemblance, m.evidence["decision"]) == (keyless[1].id, 1.0, "identical")
    assert m.evidence["score"] == 1.0 and m.evidence["index_hits"] == 1
    assert [x.doc_id for x in coll.check(BY_ID["Ванька.txt"].text).matches] == ["Ванька.txt"]
    coll.remove(keyless[1].id)
    assert coll.check(copy).matches == ()
