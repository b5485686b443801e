"""Issue 29 items 1-2: a library runs Romanov 2019's own method (TF-RIDF) unless told
otherwise, and the pages name the rule that decided, with the value it decided on."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from neardup.crawl import CrawlQueue, CrawlSettings
from neardup.errors import ParameterError
from neardup.job.compare import compare
from neardup.service import ServiceConfig, create_app
from neardup.store import Store
from neardup.text.types import Document
from shared_data import load_docs

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
SETTINGS = CrawlSettings(allow_private=True, delay=0)
LIBRARY = "http://127.0.0.1:9/library/"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    st = Store(f"sqlite:///{tmp_path / 'rules.db'}")
    yield st
    st.close()


@pytest.fixture
def client(store: Store) -> Iterator[TestClient]:
    with TestClient(
        create_app(ServiceConfig(crawl=False, crawl_settings=SETTINGS), store=store)
    ) as c:
        yield c


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def edited(text: str, every: int) -> str:
    """``text`` with an invented word put after every ``every``-th word (a light edit that
    moves TF-RIDF's top words: a new word repeated in one document has a high RIDF)."""
    out: list[str] = []
    for i, word in enumerate(text.split()):
        out.append(word)
        if i % every == every - 1:
            out.append("квазиморфизм")
    return " ".join(out)


@pytest.fixture
def progit(store: Store) -> list[Document]:
    """A TF-RIDF collection ``progit`` of 30 Pro Git chapters (Russian), first revision."""
    docs = [d for d in load_docs("progit-ru-revisions") if len(d.text) > 2000][:30]
    store.create_collection("progit", method="tf-ridf")
    store.add("progit", docs)
    return docs


# -- item 1: the library's method ----------------------------------------------------------------
def test_queue_add_defaults_to_tf_ridf_and_takes_a_method(store: Store) -> None:
    queue = CrawlQueue(store, SETTINGS)
    try:
        queue.add(LIBRARY, ["post"], collection="plain")
        assert store.collection("plain").method == "tf-ridf"
        assert store.collection("plain").decision == "own"
        queue.add(LIBRARY, ["post"], collection="lsh", method="megashingles")
        assert store.collection("lsh").method == "megashingles"
        with pytest.raises(ParameterError, match="tf-ridf"):
            queue.add(LIBRARY, ["post"], collection="bad", method="simhash")
    finally:
        queue.close()


def test_ui_form_offers_the_methods_and_defaults_to_tf_ridf(
    client: TestClient, store: Store
) -> None:
    page = client.get("/", headers=HTML).text
    options = re.findall(r'<option value="([^"]+)"( selected)?>', page)
    assert options[0] == ("tf-ridf", " selected")
    assert {"minhash-lsh", "megashingles", "imatch", "anchor-words"} <= {o for o, _ in options}
    assert {"sl-st", "spotsigs"} <= {o for o, _ in options}  # their index keys (issue 29)
    assert "simhash" not in {o for o, _ in options}  # cannot back a collection
    assert "TF-RIDF signature, Romanov 2019" in _text(page)

    form = {"url": LIBRARY, "clarifications": "post", "collection": "romanov"}
    assert client.post("/queue/add", data=form, follow_redirects=False).status_code == 303
    assert store.collection("romanov").method == "tf-ridf"
    about = _text(client.get("/collections/romanov", headers=HTML).text)
    assert "TF-RIDF signature, Romanov 2019 tf-ridf" in about
    assert "Decision equal TF-RIDF signature: CRC-32 of the top 6 words" in about

    form = {**form, "collection": "broder", "method": "minhash-lsh"}
    assert client.post("/queue/add", data=form, follow_redirects=False).status_code == 303
    assert store.collection("broder").method == "minhash-lsh"
    r = client.post("/queue/add", data={**form, "collection": "x", "method": "simhash"})
    assert r.status_code == 400 and "tf-ridf" in _text(r.text)


def test_api_library_defaults_to_tf_ridf(client: TestClient, store: Store) -> None:
    body = {"url": LIBRARY, "clarifications": ["post"], "collection": "api-lib"}
    assert client.post("/libraries", json=body).status_code == 201
    assert store.collection("api-lib").method == "tf-ridf"
    body = {**body, "collection": "api-mod", "method": "shingles-mod"}
    assert client.post("/libraries", json=body).status_code == 201
    assert store.collection("api-mod").method == "shingles-mod"


# -- item 2: the rule that decided -------------------------------------------------------------
def test_check_page_names_the_tf_ridf_rule_for_a_match(
    client: TestClient, progit: list[Document]
) -> None:
    page = _text(client.post("/check", data={"collection": "progit", "text": progit[3].text}).text)
    assert "1 duplicate found" in page
    assert "Decided by equal TF-RIDF signature: CRC-32 of the top 6 words" in page
    assert "the signatures are equal" in page
    assert "resemblance ≥" not in page
    assert "compared by its 6 words of highest TF-RIDF weight" in page
    assert "five-word shingles" not in page


def test_check_page_gives_the_tf_ridf_reason_for_a_text_at_089(
    client: TestClient, progit: list[Document]
) -> None:
    text = edited(progit[1].text, 80)
    near = compare(progit[1].text, text, method="shingles-full").overlap.resemblance
    assert 0.88 < near < 0.90  # exact resemblance 0.889 to a stored document
    page = _text(client.post("/check", data={"collection": "progit", "text": text}).text)
    assert "No duplicates" in page
    assert "no stored document has this text's TF-RIDF signature (0 candidates)" in page
    assert "below 0.5" not in page and "resemblance below" not in page


def test_verified_collections_show_the_value_that_decided(store: Store, client: TestClient) -> None:
    docs = [d for d in load_docs("progit-ru-revisions") if len(d.text) > 2000][:10]
    store.create_collection("lsh", method="minhash-lsh", threshold=0.5)
    store.add("lsh", docs)
    text = edited(docs[1].text, 80)
    page = _text(client.post("/check", data={"collection": "lsh", "text": text}).text)
    exact = compare(docs[1].text, text, method="shingles-full").overlap.resemblance
    assert f"Decided by exact resemblance of the full shingle sets ≥ 0.5 ({exact:.3f})" in page
    unrelated = "раз два три четыре пять шесть семь восемь девять десять одиннадцать"
    other = _text(client.post("/check", data={"collection": "lsh", "text": unrelated}).text)
    assert "No duplicates" in other
    assert "verified: exact resemblance of the full shingle sets below 0.5" in other


def _stats(method: str, **kw: object) -> dict[str, object]:
    from neardup.index.methods import creation_params

    params, canonical = creation_params(method, {}, 0.5)
    base = {"method": method, "decision": "own", "measure": "resemblance", "threshold": 0.5}
    return {**base, "params": params, "canonical": canonical, **kw}


class _M:
    def __init__(self, decision: object, score: object, res: float = 0.4) -> None:
        self.evidence = {"decision": decision, "score": score}
        self.resemblance, self.containment_query, self.containment_doc = res, 0.8, 0.5


def test_rule_words_follow_each_method() -> None:
    from neardup.service import rules

    mega = _stats("megashingles")
    assert rules.decision_line(mega) == "one shared mega-shingle (Fetterly, Manasse & Najork 2003)"
    assert rules.match_decision(mega, _M("own", 1.0)).endswith(": they share one")
    assert "shares a mega-shingle" in rules.no_match_reason(mega, 0)
    assert rules.compared_in(mega) == "mega-shingles of five-word shingles"
    mod = _stats("shingles-mod", measure="containment")
    assert rules.decision_line(mod).startswith("containment: ")
    assert rules.decision_line(mod).endswith("≥ 0.5")
    assert rules.match_decision(mod, _M("own", 0.8)).endswith(": 0.800")
    full = _stats("shingles-full", decision="verified", measure="containment")
    assert rules.match_decision(full, _M("verified", None)) == (
        "exact containment (the larger) of the full shingle sets ≥ 0.5 (0.800)"
    )
    assert "always a duplicate" in rules.match_decision(full, _M("identical", None))
    dice = _stats("shingles-dice", params={"threshold": 0.7, "shingle_size": 10})
    assert rules.decision_line(dice).endswith("percent similarity) ≥ 0.7")
    assert rules.compared_in(dice) == "ten-word shingles"
    # a decision given as a mapping (rule name and the value it decided on) is shown too
    assert rules.match_decision(mod, _M({"rule": "own", "value": 0.61}, None)).endswith("0.610")
