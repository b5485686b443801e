"""The REST API (FastAPI; OpenAPI at ``/openapi.json``, docs at ``/docs``).

Routes (``{name}``: collection, ``{doc_id}``: document id, may contain ``/`` and line
breaks, see :class:`DocIdConvertor`):

* ``GET /health``
* ``GET /collections``, ``POST /collections`` (201), ``GET /collections/{name}`` (stats),
  ``DELETE /collections/{name}`` (204), ``POST /collections/{name}/recompute``
* ``POST /collections/{name}/documents`` (one, 201), ``POST .../documents/batch`` (many),
  ``GET .../documents`` (a page: ``?offset=&limit=``), ``GET .../documents/{doc_id}`` (with
  its text), ``DELETE .../documents/{doc_id}`` (204)
* ``POST /collections/{name}/check`` (JSON ``{"text"}``),
  ``POST /collections/{name}/check/file`` (multipart upload, field ``file``)
* ``GET /libraries``, ``POST /libraries`` (201), ``GET /libraries/{id}``,
  ``DELETE /libraries/{id}`` (204), ``POST /libraries/{id}/stop``, ``POST .../resume``: the
  crawl queue of digital libraries (Romanov 2019; :mod:`neardup.crawl`)

The web UI (:mod:`neardup.service.ui`) is served by the same app: ``/`` (queue), ``/check``,
and ``/collections[/{name}]`` for browsers (``Accept: text/html``); API clients get JSON
there as before. The crawl :class:`~neardup.crawl.Dispatcher` runs in the app's lifespan.

Write routes need ``Authorization: Bearer <token>`` when a token is configured (compared
with :func:`hmac.compare_digest`); 401 otherwise. Request bodies over ``max_body_bytes``
get 413. Errors are RFC 9457 problem details (:mod:`neardup.service.problems`).
The hot routes (check, add one document) return a ready :class:`JSONResponse`: FastAPI
would otherwise validate the returned dict in a second thread-pool hop per request.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import re
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, FastAPI, File, Path, Query, Request, Response, UploadFile
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor

from neardup._version import __version__
from neardup.errors import ParameterError
from neardup.options import MAX_ID_BYTES, OPTIONS, id_too_long
from neardup.params import Interval, Options, Text
from neardup.service import docs, limits, problems, ui
from neardup.service import schemas as sc
from neardup.service.limits import AllowedHosts, AuthThrottle, BodyLimit, NoSniff
from neardup.service.web import wants_html
from neardup.store import Store
from neardup.store.recompute import RecomputeReport
from neardup.text.types import Document

if TYPE_CHECKING:
    import httpx

    from neardup.crawl import CrawlQueue, CrawlSettings, Dispatcher
    from neardup.index.results import CheckResult

DEFAULT_MAX_BODY = 10 * 1024 * 1024
MAX_BATCH = 1000
#: JSON request bodies up to this size are parsed on the event loop (see
#: :class:`OffLoopJsonRoute`): ~0.1 ms of parsing at most.
INLINE_JSON_BYTES = 64 * 1024
#: Checks of texts up to this many characters run on the event loop when the collection's
#: checks only read (:func:`checked`): a few milliseconds of work at most.
INLINE_CHECK_CHARS = 20_000
_TEXT_MAX = 20_000_000


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """Service settings.

    Attributes:
        db: database URL (``None``: ``$NEARDUP_DB`` or the default SQLite file).
        token: API token required by write routes, or ``None`` (open). An empty or
            blank token raises :class:`~neardup.errors.ParameterError`.
        max_body_bytes: largest request body (JSON or upload), bytes.
        crawl: run the crawl dispatcher in this process (``False``: the queue is shown and
            edited, another process such as ``neardup crawl`` does the crawling).
        crawl_settings: the crawler's settings (``None``: ``CrawlSettings()``); its
            ``allow_private``, ``user_agent``, ``timeout`` and ``max_page_bytes`` also apply
            when the check page fetches a matched document's source again.
        fetch_sources: the check page may fetch a matched document's ``http(s)`` source
            again to show the shared passages side by side (the store keeps no texts).
        allowed_hosts: the ``Host`` names served (:class:`~neardup.service.limits.
            AllowedHosts`; others get 421, a guard against DNS rebinding), or ``None``: no
            check (an app behind a proxy that checks; ``neardup serve`` always sets it,
            by default to the bound address and the local names).
        max_inflight_bytes: most request-body bytes buffered over all requests at once
            (``None``: 4 x ``max_body_bytes``); past it 503 with ``Retry-After``.
        body_timeout: seconds a request body may take to arrive (408 after).
        auth_failures: wrong or missing tokens (401 answers) a client address may get in
            a minute before its writes and credentialed requests get 429.
        cpu_budget: seconds (> 0) a request's CPU-bound work may take (reading an upload,
            marking passages; run in worker processes, :mod:`neardup.service.limits`); past
            it the request gets 422.
    """

    db: str | None = None
    token: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY
    crawl: bool = True
    crawl_settings: CrawlSettings | None = None
    fetch_sources: bool = True
    allowed_hosts: tuple[str, ...] | None = None
    max_inflight_bytes: int | None = None
    body_timeout: float = 60.0
    auth_failures: int = 10
    cpu_budget: float = limits.DEFAULT_BUDGET

    def __post_init__(self) -> None:
        if not self.cpu_budget > 0:
            raise ParameterError("cpu_budget", self.cpu_budget, "seconds > 0")
        if self.token is not None and not self.token.strip():
            raise ParameterError(
                "token",
                self.token,
                "a non-empty API token, or None for an open service (an empty token would "
                "let every request in)",
            )


#: Most entries in a free-form object (``params``, ``canonical``) of a request body.
MAX_MAP_KEYS = 64
#: Unknown field names quoted in the error about them (the rest are counted).
_UNKNOWN_SHOWN = 5


def _unknown_fields(data: Any, allowed: frozenset[str]) -> None:
    """Refuse unknown fields in one error, however many there are.

    Pydantic's ``extra="forbid"`` makes one error per unknown key: a 4 MB object of 400,000
    keys gave 400,000 errors, a 26 MB answer and 15 s of work on the event loop. This check
    runs first and costs one set difference.

    Raises:
        ValueError: ``data`` is an object with keys outside ``allowed`` (names the first
            few and counts all).
    """
    if not isinstance(data, dict) or (len(data) <= len(allowed) and data.keys() <= allowed):
        return
    unknown = [k for k in data if k not in allowed]
    if unknown:
        shown = ", ".join(repr(str(k)[:100]) for k in unknown[:_UNKNOWN_SHOWN])
        more = len(unknown) - _UNKNOWN_SHOWN
        rest = f" and {more} more" if more > 0 else ""
        raise ValueError(
            f"{len(unknown)} unknown field(s): {shown}{rest}; allowed: {', '.join(sorted(allowed))}"
        )


def _small_map(value: Any) -> Any:
    """Refuse a free-form object of more than :data:`MAX_MAP_KEYS` entries before its
    entries are validated one by one."""
    if isinstance(value, dict) and len(value) > MAX_MAP_KEYS:
        raise ValueError(f"{len(value)} entries: at most {MAX_MAP_KEYS} allowed")
    return value


#: A user's stop-word list in a request (``canonical.stop_word_list``): bounded in size.
_StopWordList = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=100)]], Field(max_length=10_000)
]


def option_field(name: str) -> Any:
    """The request field of option ``name`` from its declaration
    (:data:`neardup.options.OPTIONS`): its default, its range (``ge``/``gt``/``le``)
    or choices (a pattern, and ``enum`` in the schema) and its help as the description. A
    value out of it is a 422 naming the field, with the library's message
    (:meth:`_Body._declared_options`)."""
    spec = OPTIONS[name]
    c = spec.constraint
    kw: dict[str, Any] = {"default": spec.default, "description": spec.help}
    if isinstance(c, Interval):
        if isinstance(c.low, int | float):
            kw["gt" if c.low_open else "ge"] = c.low
        if isinstance(c.high, int | float):
            kw["le"] = c.high
    elif isinstance(c, Options):
        kw["pattern"] = "^(" + "|".join(re.escape(x) for x in c.choices) + ")$"
        kw["json_schema_extra"] = {"enum": [*c.choices, *([None] if c.optional else [])]}
    elif isinstance(c, Text):
        kw["min_length"] = 1
    return Field(**kw)


class _Body(BaseModel):
    """A request body: unknown fields refused in one error (see :func:`_unknown_fields`)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _known_fields_only(cls, data: Any) -> Any:
        _unknown_fields(data, frozenset(cls.model_fields))
        return data

    @field_validator("*", mode="before")
    @classmethod
    def _declared_options(cls, value: Any, info: ValidationInfo) -> Any:
        """A field named as a declared option (:func:`option_field`) is checked by the
        declaration first: a bad value gets the message ``dedup``, ``Index`` and the store
        give (``min_tokens=-1 is not allowed: an integer in [1, 1000000]``)."""
        spec = OPTIONS.get(info.field_name or "")
        if spec is not None:
            try:
                spec.check(value)
            except ParameterError as exc:
                raise ValueError(str(exc)) from None
        return value


class CollectionIn(_Body):
    """A collection to create."""

    name: str = Field(min_length=1, max_length=200, pattern=r"^[^/\x00-\x1f\x7f]+$")
    method: str = Field(
        default=OPTIONS["collection_method"].default,
        max_length=64,
        description="Registry name of the method; default tf-ridf, the TF-RIDF signature "
        "of Romanov 2019 (the default of every collection).",
    )
    params: Annotated[dict[str, int | float | str | bool | None], BeforeValidator(_small_map)] = (
        Field(default_factory=dict)
    )
    canonical: Annotated[
        dict[str, int | str | bool | _StopWordList] | None, BeforeValidator(_small_map)
    ] = Field(
        default=None,
        description="CanonicalForm fields: stop_words, morphology, min_token_length, "
        "stop_word_list (the user's stop words), stop_symbols (Rodnenko 2009's canonize)",
    )
    threshold: float = option_field("threshold")
    measure: str = option_field("measure")
    min_tokens: int = option_field("min_tokens")
    decision: str | None = option_field("decision")
    max_df: int = option_field("max_df")


def _id_length(doc_id: str) -> str:
    """Refuse a document id over :data:`~neardup.options.MAX_ID_BYTES` UTF-8 bytes: the
    rule of every collection (:func:`neardup.options.id_too_long`)."""
    problem = id_too_long(doc_id)
    if problem is not None:
        raise ValueError(problem)
    return doc_id


#: A document id: 1 character to :data:`~neardup.options.MAX_ID_BYTES` UTF-8 bytes (in a
#: body and in a path alike).
_Id = Annotated[
    str,
    Field(min_length=1, description=f"Document id, at most {MAX_ID_BYTES} UTF-8 bytes."),
    AfterValidator(_id_length),
]


class DocumentIn(_Body):
    """A document to add."""

    id: _Id
    text: str = Field(max_length=_TEXT_MAX)
    source: str = Field(default="", max_length=2000)


class BatchIn(_Body):
    """Documents to add in one request."""

    documents: list[DocumentIn] = Field(min_length=1, max_length=MAX_BATCH)


class LibraryIn(_Body):
    """A digital library to crawl into a collection (Romanov 2019 §3.1)."""

    url: str = Field(min_length=1, max_length=2000, description="The library's home page.")
    clarifications: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list,
        max_length=50,
        description="URL substrings that mark article pages, e.g. 'post'.",
    )
    collection: str | None = Field(
        default=None, min_length=1, max_length=200, pattern=r"^[^/\x00-\x1f\x7f]+$"
    )
    method: str = Field(
        default=OPTIONS["collection_method"].default,
        max_length=64,
        description=(
            "Method of the collection when it is created here: any method that can back a "
            "collection; default tf-ridf, the TF-RIDF signature of Romanov 2019."
        ),
    )
    threshold: float = option_field("threshold")
    morphology: str | None = Field(
        default=None,
        pattern="^(none|stem|lemma)$",
        description="Word forms of a collection created here: none, stem or lemma "
        "(pymorphy3, Russian, as Romanov 2019 lemmatizes); default: the method's own.",
        json_schema_extra={"enum": ["none", "stem", "lemma", None]},
    )


class CheckIn(_Body):
    """A text to check."""

    text: str = Field(max_length=_TEXT_MAX)
    limit: int = option_field("limit")
    k: int | None = option_field("k")


Name = Annotated[str, Path(min_length=1, max_length=200)]
DocId = Annotated[str, Path(min_length=1), AfterValidator(_id_length)]
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


class DocIdConvertor(Convertor[str]):
    """Path convertor of a document id: any characters, ``/`` and line breaks included.

    Starlette's ``path`` convertor matches ``.*`` without ``re.DOTALL``: an id holding a
    line feed (``%0A``) could be added but GET and DELETE on it missed the route (404).
    """

    regex = "(?s:.*)"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return str(value)


register_url_convertor("docid", DocIdConvertor())


def create_app(
    config: ServiceConfig | None = None,
    *,
    store: Store | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    resolver: Callable[[str], list[str]] | None = None,
) -> Any:
    """The ASGI application (FastAPI wrapped in the body-size limit): API and web UI.

    Args:
        config: settings; defaults if omitted.
        store: an open :class:`Store` to use (else one is opened on ``config.db``).
        transport: an httpx transport for the crawler and source fetches (tests); default:
            the network.
        resolver: host name -> addresses for the address checks (tests); default: DNS.

    Returns:
        An ASGI app with attributes ``fastapi`` (the FastAPI instance), ``store``, ``queue``
        (the :class:`~neardup.crawl.CrawlQueue`) and ``dispatcher`` (``None`` when
        ``config.crawl`` is off). The dispatcher starts and stops with the app's lifespan.

    Raises:
        UsageError, StoreError: the database URL is bad or the database cannot be opened.
    """
    from neardup.crawl import CrawlQueue, CrawlSettings, Dispatcher
    from neardup.methods import kernel  # noqa: F401  checks prepare queries on it (Query.of)
    from neardup.service.sources import SourceFetcher

    cfg = config or ServiceConfig()
    st = store if store is not None else Store(cfg.db)
    settings = cfg.crawl_settings or CrawlSettings()
    queue = CrawlQueue(st, settings)
    dispatcher = Dispatcher(queue, transport=transport, resolver=resolver) if cfg.crawl else None
    fetcher = (
        SourceFetcher(
            allow_private=settings.allow_private,
            allow_hosts=settings.allow_hosts,
            user_agent=settings.user_agent,
            timeout=settings.timeout,
            max_bytes=settings.max_page_bytes,
            transport=transport,
            resolver=resolver,
        )
        if cfg.fetch_sources
        else None
    )
    api = FastAPI(
        title="neardup",
        version=__version__,
        description="Near-duplicate document collections: add documents, check new ones.",
        responses=_PROBLEM_RESPONSES,
        lifespan=_lifespan(queue, dispatcher),
        docs_url=None,  # served from the package by neardup.service.docs (offline)
        redoc_url=None,
    )
    api.router.route_class = OffLoopJsonRoute
    problems.install(api)
    docs.install(api)
    require = _token_dependency(cfg.token)
    state = ui.UiState(
        st, queue, dispatcher, cfg.token, fetcher, cfg.max_body_bytes, cpu_budget=cfg.cpu_budget
    )
    _routes(api, st, require, state, cfg.cpu_budget)
    _library_routes(api, queue, dispatcher, require)
    ui.install(api, state)
    wrapped = _guarded(api, cfg)
    wrapped.fastapi = api
    wrapped.store = st
    wrapped.queue = queue
    wrapped.dispatcher = dispatcher
    return wrapped


async def checked(st: Store, name: str, text: str, limit: int, k: int | None) -> CheckResult:
    """``st.check(name, text, limit=limit, k=k)``, on the event loop when the store is
    SQLite, the text has at most :data:`INLINE_CHECK_CHARS` characters and the
    collection's checks only read (:meth:`~neardup.store.Store.check_reads_only`), else in
    the thread pool.

    A check is CPU work under the GIL either way (the loop waits for it in both); the
    thread-pool hop cost the server 1.0 ms of CPU a check at 200,000 documents (3.3-3.4
    against 2.3-2.4 ms, two interleaved pairs of 1,040 checks over http.client,
    2026-12-02), a third of the check. A long text, a lexical collection whose check may
    recompute its statistics (a write that can wait on another writer's lock), and every
    check of a PostgreSQL store (a round trip to a server that may be slow) still leave
    the loop free.
    """
    inline = st.dialect == "sqlite" and len(text) <= INLINE_CHECK_CHARS
    if inline and st.check_reads_only(name):
        return st.check(name, text, limit=limit, k=k)
    return await run_in_threadpool(st.check, name, text, limit=limit, k=k)


class OffLoopJsonRoute(APIRoute):
    """An API route that parses a JSON request body in the thread pool.

    FastAPI parses the body with :func:`json.loads` on the event loop: a body of some
    megabytes held every other request (``/health`` too) for its parse. Here a body over
    :data:`INLINE_JSON_BYTES` is parsed in a worker thread and its result is handed to
    FastAPI through Starlette's ``Request._json`` cache, so FastAPI does not parse again.
    Smaller bodies (a check's text, tens of microseconds to parse) are parsed on the loop:
    a thread-pool hop costs more than the parse. Invalid JSON is left to FastAPI, which
    answers 422.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            kind = request.headers.get("content-type", "")
            if request.method in ("POST", "PUT", "PATCH") and "json" in kind.lower():
                body = await request.body()
                if len(body) > INLINE_JSON_BYTES:
                    # invalid JSON: FastAPI parses again and answers 422 with the position
                    with contextlib.suppress(ValueError):
                        request._json = await run_in_threadpool(json.loads, body)
            return await handler(request)

        return route


def _lifespan(queue: CrawlQueue, dispatcher: Dispatcher | None) -> Any:
    """Start the crawl dispatcher with the app; at shutdown stop it (running crawls resume
    later) and release the queue's connections."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        from neardup.service.web import preload

        await run_in_threadpool(preload)
        if dispatcher is not None:
            await dispatcher.start()
        try:
            yield
        finally:
            if dispatcher is not None:
                await dispatcher.stop()
            queue.close()

    return lifespan


def _guarded(api: FastAPI, cfg: ServiceConfig) -> Any:
    """``api`` inside the service's limits (outermost first): nosniff on every answer,
    the Host check, the token-guessing throttle, the body limits."""
    app: Any = BodyLimit(
        api,
        cfg.max_body_bytes,
        max_inflight_bytes=cfg.max_inflight_bytes,
        body_timeout=cfg.body_timeout,
    )
    app = AuthThrottle(app, max_failures=cfg.auth_failures)
    if cfg.allowed_hosts is not None:
        app = AllowedHosts(app, cfg.allowed_hosts)
    return NoSniff(app)


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


def _routes(api: FastAPI, st: Store, require: Any, state: ui.UiState, budget: float) -> None:
    @api.get("/health", tags=["service"])
    def health() -> dict[str, str]:
        """Liveness and the database dialect."""
        return {"status": "ok", "database": st.dialect}

    @api.get("/methods", tags=["service"])
    def list_methods() -> list[dict[str, Any]]:
        """The detection methods, as ``neardup methods --json``: parameters with defaults and
        what each allows (``allowed``: ranges and choices), decision rule, paper followed."""
        from neardup.methods.registry import describe, method_names

        return [describe(n) for n in method_names()]

    @api.get("/collections", tags=["collections"], response_model=sc.CollectionListOut)
    async def list_collections(request: Request) -> list[dict[str, Any]]:
        """All collections with their parameters (browsers get the HTML list)."""
        if wants_html(request):
            return await ui.collections_page(request, state)  # type: ignore[return-value]
        return [c.as_dict() for c in await run_in_threadpool(st.collections)]

    @api.post(
        "/collections",
        status_code=201,
        dependencies=[require],
        tags=["collections"],
        response_model=sc.CollectionOut,
    )
    def create_collection(body: CollectionIn) -> dict[str, Any]:
        """Create a collection (method and parameters fixed from now on)."""
        info = st.create_collection(
            body.name,
            body.method,
            {**body.params, **({"canonical": body.canonical} if body.canonical else {})},
            threshold=body.threshold,
            measure=body.measure,
            min_tokens=body.min_tokens,
            decision=body.decision,
            max_df=body.max_df,
        )
        return info.as_dict()

    @api.get("/collections/{name}", tags=["collections"])
    async def collection_stats(name: Name, request: Request) -> dict[str, Any]:
        """A collection's parameters and counts (browsers get the stats page)."""
        if wants_html(request):
            return await ui.collection_page(request, state, name)  # type: ignore[return-value]
        return await run_in_threadpool(st.stats, name)

    @api.delete(
        "/collections/{name}", status_code=204, dependencies=[require], tags=["collections"]
    )
    def delete_collection(name: Name) -> Response:
        """Delete a collection and all its documents."""
        st.delete_collection(name)
        return Response(status_code=204)

    @api.post(
        "/collections/{name}/recompute",
        dependencies=[require],
        tags=["collections"],
        response_model=sc.RecomputeOut,
    )
    def recompute(name: Name) -> dict[str, Any]:
        """Recompute word statistics and lexical signatures (Romanov 2019); a method
        without them: 0 documents."""
        report = st.recompute(name)
        return (report or RecomputeReport(0, 0, {})).as_dict()

    @api.post(
        "/collections/{name}/documents",
        status_code=201,
        dependencies=[require],
        tags=["documents"],
        response_model=sc.AddReportOut,
    )
    def add_document(name: Name, body: DocumentIn) -> JSONResponse:
        """Add one document (idempotent by id: an existing id is reported as skipped)."""
        doc = Document(body.id, body.text, body.source)
        return JSONResponse(st.add(name, [doc]).as_dict(), status_code=201)

    @api.post(
        "/collections/{name}/documents/batch",
        dependencies=[require],
        tags=["documents"],
        response_model=sc.AddReportOut,
    )
    def add_batch(name: Name, body: BatchIn) -> dict[str, Any]:
        """Add up to 1000 documents in one request: one transaction, the bulk add path."""
        docs = [Document(d.id, d.text, d.source) for d in body.documents]
        return st.add(name, docs).as_dict()

    @api.get("/collections/{name}/documents", tags=["documents"], response_model=sc.DocumentPageOut)
    def list_documents(
        name: Name,
        offset: Annotated[int, Query(ge=0, le=2**62)] = 0,
        limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    ) -> dict[str, Any]:
        """A page of the collection's documents in the order added: ``total`` and, for
        each, ``id, title, source, tokens, added_at``."""
        return st.documents(name, offset=offset, limit=limit).as_dict()

    @api.get(
        "/collections/{name}/documents/{doc_id:docid}",
        tags=["documents"],
        response_model=sc.DocumentOut,
    )
    async def get_document(name: Name, doc_id: DocId, request: Request) -> dict[str, Any]:
        """A stored document's metadata and its ``text`` as added (``null`` for documents
        added before the store kept texts; browsers get the document's page)."""
        if wants_html(request):
            return await ui.document_page(request, state, name, doc_id)  # type: ignore[return-value]
        return await run_in_threadpool(document_with_text, st, name, doc_id)

    @api.delete(
        "/collections/{name}/documents/{doc_id:docid}",
        status_code=204,
        dependencies=[require],
        tags=["documents"],
    )
    def delete_document(name: Name, doc_id: DocId) -> Response:
        """Remove one document."""
        st.remove(name, doc_id)
        return Response(status_code=204)

    @api.post("/collections/{name}/check", tags=["check"], response_model=sc.CheckOut)
    async def check(name: Name, body: CheckIn) -> JSONResponse:
        """Is this text a duplicate, and of which stored documents?"""
        return JSONResponse((await checked(st, name, body.text, body.limit, body.k)).as_dict())

    @api.post("/collections/{name}/check/file", tags=["check"], response_model=sc.CheckOut)
    async def check_file(name: Name, file: Annotated[UploadFile, File()]) -> JSONResponse:
        """Check an uploaded file (text, HTML, wiki; any encoding neardup can read). The
        file is read in a worker process under the service's CPU budget (422 past it)."""
        text = await upload_text(file, budget=budget)
        result = await checked(st, name, text, OPTIONS["limit"].default, None)
        return JSONResponse(result.as_dict())


LibraryId = Annotated[int, Path(ge=1, le=2**62)]


def _library_routes(
    api: FastAPI, queue: CrawlQueue, dispatcher: Dispatcher | None, require: Any
) -> None:
    def wake() -> None:
        if dispatcher is not None:
            dispatcher.wake()

    @api.get("/libraries", tags=["libraries"])
    async def list_libraries() -> list[dict[str, Any]]:
        """The crawl queue: every library with its stage and progress, oldest first."""
        return [lib.as_dict() for lib in await run_in_threadpool(queue.libraries)]

    @api.post("/libraries", status_code=201, dependencies=[require], tags=["libraries"])
    async def add_library(body: LibraryIn) -> dict[str, Any]:
        """Queue a library: its home page and clarifications (Romanov 2019 §3.1).

        The address must be ``http(s)`` and public unless the service allows private ones.
        """
        lib = await run_in_threadpool(
            lambda: queue.add(
                body.url,
                body.clarifications,
                collection=body.collection,
                method=body.method,
                threshold=body.threshold,
                morphology=body.morphology,
            )
        )
        wake()
        return lib.as_dict()

    @api.get("/libraries/{library_id}", tags=["libraries"])
    async def get_library(library_id: LibraryId) -> dict[str, Any]:
        """One library's stage and progress."""
        return (await run_in_threadpool(queue.library, library_id)).as_dict()

    @api.delete(
        "/libraries/{library_id}", status_code=204, dependencies=[require], tags=["libraries"]
    )
    async def remove_library(library_id: LibraryId) -> Response:
        """Remove a library from the queue (its collection and documents stay)."""
        await run_in_threadpool(queue.remove, library_id)
        return Response(status_code=204)

    @api.post("/libraries/{library_id}/stop", dependencies=[require], tags=["libraries"])
    async def stop_library(library_id: LibraryId) -> dict[str, Any]:
        """Stop a queued or running crawl (it can be resumed)."""
        return (await run_in_threadpool(queue.stop, library_id)).as_dict()

    @api.post("/libraries/{library_id}/resume", dependencies=[require], tags=["libraries"])
    async def resume_library(library_id: LibraryId) -> dict[str, Any]:
        """Queue a stopped or failed crawl again; it goes on where it stopped."""
        lib = await run_in_threadpool(queue.resume, library_id)
        wake()
        return lib.as_dict()


def document_with_text(st: Store, name: str, doc_id: str) -> dict[str, Any]:
    """:meth:`Store.document` as a mapping plus ``text`` (``None``: not stored).

    Raises:
        CollectionNotFound, DocumentNotFound: no such collection or document.
        FormatError: the stored text is corrupt.
    """
    from neardup.errors import TextNotStored

    out = st.document(name, doc_id).as_dict()
    try:
        out["text"] = st.document_text(name, doc_id)
    except TextNotStored:
        out["text"] = None
    return out


async def upload_text(file: UploadFile, *, budget: float) -> str:
    """Clean text of an uploaded file (:func:`neardup.text.upload.upload_text`), read in a
    worker process (:func:`neardup.service.limits.bounded`).

    Raises:
        InputError: the file is empty, binary, undecodable, unreadable or has no text.
        WorkTooLong: reading it took longer than ``budget`` seconds.
    """
    data = await file.read()
    return await limits.bounded(
        limits.upload_text, data, file.filename, budget=budget, what="reading the upload"
    )
