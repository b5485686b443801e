"""The REST API (FastAPI; OpenAPI at ``/openapi.json``, docs at ``/docs``).

Routes (``{name}``: collection, ``{doc_id}``: document id, may contain ``/``):

* ``GET /health``
* ``GET /collections``, ``POST /collections`` (201), ``GET /collections/{name}`` (stats),
  ``DELETE /collections/{name}`` (204), ``POST /collections/{name}/recompute``
* ``POST /collections/{name}/documents`` (one, 201), ``POST .../documents/batch`` (many),
  ``GET .../documents/{doc_id}``, ``DELETE .../documents/{doc_id}`` (204)
* ``POST /collections/{name}/check`` (JSON ``{"text"}``),
  ``POST /collections/{name}/check/file`` (multipart upload, field ``file``)

Write routes need ``Authorization: Bearer <token>`` when a token is configured (compared
with :func:`hmac.compare_digest`); 401 otherwise. Request bodies over ``max_body_bytes``
get 413. Errors are RFC 9457 problem details (:mod:`neardup.service.problems`).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, FastAPI, File, Path, Response, UploadFile
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field

from neardup._version import __version__
from neardup.errors import InputError
from neardup.service import problems
from neardup.service.limits import BodyLimit
from neardup.store import Store
from neardup.text.types import Document

DEFAULT_MAX_BODY = 10 * 1024 * 1024
MAX_BATCH = 1000
_TEXT_MAX = 20_000_000


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """Service settings.

    Attributes:
        db: database URL (``None``: ``$NEARDUP_DB`` or the default SQLite file).
        token: API token required by write routes, or ``None`` (open).
        max_body_bytes: largest request body (JSON or upload), bytes.
    """

    db: str | None = None
    token: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY


class CollectionIn(BaseModel):
    """A collection to create."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=200, pattern=r"^[^/\x00-\x1f\x7f]+$")
    method: str = Field(default="minhash-lsh", max_length=64)
    params: dict[str, int | float | str | bool | None] = Field(default_factory=dict)
    canonical: dict[str, int | str | bool] | None = Field(
        default=None, description="CanonicalForm fields: stop_words, morphology, ..."
    )
    threshold: float = Field(default=0.5, gt=0.0, le=1.0)
    measure: str = Field(default="resemblance", pattern="^(resemblance|containment)$")
    min_tokens: int = Field(default=3, ge=1, le=1_000_000)


class DocumentIn(BaseModel):
    """A document to add."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=2000)
    text: str = Field(max_length=_TEXT_MAX)
    source: str = Field(default="", max_length=2000)


class BatchIn(BaseModel):
    """Documents to add in one request."""

    model_config = ConfigDict(extra="forbid")
    documents: list[DocumentIn] = Field(min_length=1, max_length=MAX_BATCH)


class CheckIn(BaseModel):
    """A text to check."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(max_length=_TEXT_MAX)
    limit: int = Field(default=20, ge=1, le=1000)


Name = Annotated[str, Path(min_length=1, max_length=200)]
DocId = Annotated[str, Path(min_length=1, max_length=2000)]
_bearer = HTTPBearer(auto_error=False, description="API token (when the service has one).")
_PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"description": desc, "content": {problems.PROBLEM: {}}}
    for code, desc in (
        (400, "Bad parameter"),
        (401, "Missing or wrong API token"),
        (404, "No such collection or document"),
        (409, "Collection exists"),
        (413, "Body too large"),
        (422, "Invalid request"),
        (503, "Database unavailable"),
    )
}


def create_app(config: ServiceConfig | None = None, *, store: Store | None = None) -> Any:
    """The ASGI application (FastAPI wrapped in the body-size limit).

    Args:
        config: settings; defaults if omitted.
        store: an open :class:`Store` to use (else one is opened on ``config.db``).

    Returns:
        An ASGI app; the FastAPI instance is its ``.app`` attribute's target
        (``app.fastapi``).
    """
    cfg = config or ServiceConfig()
    st = store if store is not None else Store(cfg.db)
    api = FastAPI(
        title="neardup",
        version=__version__,
        description="Near-duplicate document collections: add documents, check new ones.",
        responses=_PROBLEM_RESPONSES,
    )
    problems.install(api)
    require = _token_dependency(cfg.token)
    _routes(api, st, require)
    wrapped = BodyLimit(api, cfg.max_body_bytes)
    wrapped.fastapi = api  # type: ignore[attr-defined]
    wrapped.store = st  # type: ignore[attr-defined]
    return wrapped


def _token_dependency(token: str | None) -> Any:
    def require_token(
        creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    ) -> None:
        if token is None:
            return
        given = creds.credentials if creds is not None else ""
        if not hmac.compare_digest(given.encode(), token.encode()):
            from fastapi import HTTPException

            raise HTTPException(401, "missing or wrong API token")

    return Depends(require_token)


def _routes(api: FastAPI, st: Store, require: Any) -> None:
    @api.get("/health", tags=["service"])
    def health() -> dict[str, str]:
        """Liveness and the database dialect."""
        return {"status": "ok", "database": st.dialect}

    @api.get("/collections", tags=["collections"])
    def list_collections() -> list[dict[str, Any]]:
        """All collections with their parameters."""
        return [c.as_dict() for c in st.collections()]

    @api.post("/collections", status_code=201, dependencies=[require], tags=["collections"])
    def create_collection(body: CollectionIn) -> dict[str, Any]:
        """Create a collection (method and parameters fixed from now on)."""
        info = st.create_collection(
            body.name,
            body.method,
            {**body.params, **({"canonical": body.canonical} if body.canonical else {})},
            threshold=body.threshold,
            measure=body.measure,
            min_tokens=body.min_tokens,
        )
        return info.as_dict()

    @api.get("/collections/{name}", tags=["collections"])
    def collection_stats(name: Name) -> dict[str, Any]:
        """A collection's parameters and counts."""
        return st.stats(name)

    @api.delete(
        "/collections/{name}", status_code=204, dependencies=[require], tags=["collections"]
    )
    def delete_collection(name: Name) -> Response:
        """Delete a collection and all its documents."""
        st.delete_collection(name)
        return Response(status_code=204)

    @api.post("/collections/{name}/recompute", dependencies=[require], tags=["collections"])
    def recompute(name: Name) -> dict[str, Any]:
        """Recompute word statistics and lexical signatures (seed 004)."""
        report = st.recompute(name)
        return report.as_dict() if report is not None else {"documents": 0}

    @api.post(
        "/collections/{name}/documents",
        status_code=201,
        dependencies=[require],
        tags=["documents"],
    )
    def add_document(name: Name, body: DocumentIn) -> dict[str, Any]:
        """Add one document (idempotent by id: an existing id is reported as skipped)."""
        doc = Document(body.id, body.text, body.source)
        return st.add(name, [doc]).as_dict()

    @api.post("/collections/{name}/documents/batch", dependencies=[require], tags=["documents"])
    def add_batch(name: Name, body: BatchIn) -> dict[str, Any]:
        """Add up to 1000 documents in one request (one transaction per 500)."""
        docs = [Document(d.id, d.text, d.source) for d in body.documents]
        return st.add(name, docs).as_dict()

    @api.get("/collections/{name}/documents/{doc_id:path}", tags=["documents"])
    def get_document(name: Name, doc_id: DocId) -> dict[str, Any]:
        """A stored document's metadata."""
        return st.document(name, doc_id).as_dict()

    @api.delete(
        "/collections/{name}/documents/{doc_id:path}",
        status_code=204,
        dependencies=[require],
        tags=["documents"],
    )
    def delete_document(name: Name, doc_id: DocId) -> Response:
        """Remove one document."""
        st.remove(name, doc_id)
        return Response(status_code=204)

    @api.post("/collections/{name}/check", tags=["check"])
    def check(name: Name, body: CheckIn) -> dict[str, Any]:
        """Is this text a duplicate, and of which stored documents?"""
        return st.check(name, body.text, limit=body.limit).as_dict()

    @api.post("/collections/{name}/check/file", tags=["check"])
    def check_file(name: Name, file: Annotated[UploadFile, File()]) -> dict[str, Any]:
        """Check an uploaded file (text, HTML, wiki; any encoding neardup can read)."""
        return st.check(name, _upload_text(file)).as_dict()


def _upload_text(file: UploadFile) -> str:
    """Clean text of an uploaded file, through the same steps as ``read_corpus``."""
    from neardup.errors import DecodeError
    from neardup.text.encoding import decode, looks_binary
    from neardup.text.extract import extract
    from neardup.text.sniff import sniff_content_type

    data = file.file.read()
    if not data.strip():
        raise InputError("uploaded file is empty")
    if looks_binary(data):
        raise InputError("uploaded file looks binary")
    try:
        text = decode(data, source=file.filename or "upload")
    except DecodeError as exc:
        raise InputError(str(exc)) from None
    clean = extract(text, sniff_content_type(text, name=file.filename or ""))
    if not clean.strip():
        raise InputError("no text left after markup removal")
    return clean
