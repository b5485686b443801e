"""The API's response models (derived from the result types) have exactly the keys the
results' ``as_dict`` gives, on real results, and the routes answer through them."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from neardup.service import ServiceConfig, create_app
from neardup.service import schemas as sc
from neardup.service.api import document_with_text
from neardup.store import Store
from neardup.text.types import Document

TEXT = "the quick brown fox jumps over the lazy dog near the river bank today at noon"


def _keys(model: type) -> list[str]:
    return list(model.model_fields)  # type: ignore[attr-defined]


def test_models_have_the_keys_of_real_results(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        info = store.create_collection("news", "tf-ridf", threshold=0.5)
        added = store.add("news", [Document("a", TEXT), Document("b", "too short")])
        assert added.added == 1 and [s.reason for s in added.skipped] == ["too-short"]
        checked = store.check("news", TEXT)
        assert checked.duplicate and checked.matches[0].doc_id == "a"
        page = store.documents("news", offset=0, limit=10)
        report = store.recompute("news")
        assert report is not None
        pairs = [
            (sc.CollectionOut, info.as_dict()),
            (sc.AddReportOut, added.as_dict()),
            (sc.SkippedOut, added.skipped[0].as_dict()),
            (sc.CheckOut, checked.as_dict()),
            (sc.MatchOut, checked.matches[0].as_dict()),
            (sc.DocumentPageOut, page.as_dict()),
            (sc.PageDocumentOut, page.as_dict()["documents"][0]),
            (sc.DocumentOut, document_with_text(store, "news", "a")),
            (sc.RecomputeOut, report.as_dict()),
        ]
        for model, data in pairs:
            assert sorted(_keys(model)) == sorted(data), model.__name__
            # validating and dumping gives the same JSON back (no key lost or renamed)
            assert model.model_validate(data).model_dump(mode="json") == data
    finally:
        store.close()


def test_routes_answer_through_the_models(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    app = create_app(ServiceConfig(crawl=False), store=store)
    try:
        with TestClient(app) as client:
            created = client.post("/collections", json={"name": "c", "method": "shingles-full"})
            assert created.status_code == 201, created.text
            assert created.json() == store.collection("c").as_dict()
            assert client.get("/collections").json() == [created.json()]
            assert client.post("/collections/c/recompute").json() == {
                "documents": 0,
                "terms": 0,
                "seconds": {},
            }
            schema = client.get("/openapi.json").json()
            ok = schema["paths"]["/collections/{name}/check"]["post"]["responses"]["200"]
            ref = ok["content"]["application/json"]["schema"]["$ref"]
            assert ref == "#/components/schemas/CheckResult"
            props = schema["components"]["schemas"]["CollectionIn"]["properties"]
            assert props["min_tokens"]["maximum"] == 1_000_000
            assert props["measure"]["enum"] == ["resemblance", "containment"]
    finally:
        store.close()
