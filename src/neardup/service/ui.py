"""The web UI of seed 004 (§5, Fig. 4-7): the crawl queue, document checks, collection stats.

Pages (HTML, server-rendered with Jinja2, autoescaped; not in the OpenAPI schema):

* ``GET /``: the queue: every library's address, stage, pages found and fetched, documents
  added, updated live (``/static/app.js`` polls ``GET /queue/live`` every second); forms
  to add a library (address, clarifications, collection) and to stop, resume or remove one;
* ``GET /check``, ``POST /check``: check a pasted text or an uploaded file against a
  library's collection: "No duplicates", or the duplicates with their scores and the
  shared passages marked side by side (:mod:`neardup.service.highlight`);
* ``GET /collections`` and ``GET /collections/{name}`` answer a browser (``Accept:
  text/html``) with the collection list and the stats page, and API clients with JSON as
  before (:func:`neardup.service.web.wants_html`).

Every form is a plain ``POST`` answered with a redirect (303) or with the page and its
error, so the UI works without JavaScript; the script only adds live progress, a
confirmation before removal and scrolling between matched passages.

Write forms (add, stop, resume, remove) need the service's API token when one is configured:
entered once in the page's "API token" bar, it opens a session whose ``HttpOnly``,
``SameSite=Strict`` cookie (``neardup_session``) holds a nonce and its HMAC under the token,
never the token itself. Every write form carries a CSRF token (hidden field ``csrf``, an
HMAC of the session's nonce); a post relying on the cookie without it gets 403. Cross-site
posts (``Sec-Fetch-Site`` other than ``same-origin``, or an ``Origin`` of another host or
port) get 403 whatever they carry, also on a service without a token. Checks are open, as
in the JSON API.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode, urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from neardup.crawl.queue import collection_methods, method_label
from neardup.errors import CollectionNotFound, InputError, NeardupError
from neardup.methods.plan import plan_for
from neardup.methods.registry import method_names
from neardup.options import OPTIONS
from neardup.service import limits, rules, web
from neardup.service.highlight import SideBySide, side_by_side
from neardup.service.sources import SourceFetcher, StoredText, stored_texts
from neardup.store import CheckResult, Store

if TYPE_CHECKING:
    from neardup.crawl import CrawlQueue, Dispatcher, LibraryStatus

#: The session cookie (never the API token itself; see :func:`_session`).
COOKIE = "neardup_session"
ACTIVE = ("link search", "pattern detection", "in work")
#: Matches shown side by side (the others are listed with their scores).
SIDE_BY_SIDE = 5
_SPLIT = re.compile(r"[,\n\r]+")
#: The method of a collection created from the pages without one (the declared default).
_DEFAULT_METHOD: str = OPTIONS["collection_method"].default
#: The word-form choices of the forms creating a collection (value, label); ``""``: the
#: method's own canonical form.
MORPHOLOGY_CHOICES = (
    ("", "the method's own (TF-RIDF: stems)"),
    ("none", "none: words as written"),
    ("stem", "stem: Snowball stems"),
    ("lemma", "lemma: pymorphy3 lemmas (Russian, as Romanov 2019)"),
)


@dataclass(slots=True)
class UiState:
    """What the pages work on.

    Attributes:
        store: the collection store.
        queue: the crawl queue.
        dispatcher: the running dispatcher (``None``: crawling is off in this process).
        token: the API token write forms need, or ``None``.
        fetcher: fetches sources again for the side-by-side view (``None``: off).
        max_body_bytes: the upload limit, shown on the check page.
        cpu_budget: seconds a request's CPU-bound work may take (:mod:`.limits`).
    """

    store: Store
    queue: CrawlQueue
    dispatcher: Dispatcher | None
    token: str | None
    fetcher: SourceFetcher | None
    max_body_bytes: int
    methods: tuple[str, ...] = field(default_factory=method_names)
    cpu_budget: float = limits.DEFAULT_BUDGET


def install(api: FastAPI, state: UiState) -> None:
    """Mount ``/static`` and add the UI pages to ``api``."""
    api.mount("/static", StaticFiles(directory=web.STATIC), name="static")
    _queue_routes(api, state)
    _check_routes(api, state)
    _collection_routes(api, state)
    _document_routes(api, state)


# -- queue ----------------------------------------------------------------------------------
def _queue_routes(api: FastAPI, state: UiState) -> None:
    @api.get("/", include_in_schema=False)
    async def queue_page(request: Request) -> HTMLResponse:
        return await _queue_page(request, state)

    @api.get("/queue/live", include_in_schema=False)
    async def queue_live(request: Request) -> HTMLResponse:
        libraries = await run_in_threadpool(state.queue.libraries)
        return web.fragment(
            "_queue_live.html", csrf=csrf_token(state, request), **_queue_context(state, libraries)
        )

    @api.post("/queue/add", include_in_schema=False)
    async def queue_add(request: Request) -> Response:
        async with request.form() as form:  # closes its uploads' temporary files
            values = {k: str(form.get(k, "")) for k in ("url", "clarifications", "collection")}
            values["method"] = str(form.get("method", "")) or _DEFAULT_METHOD
            values["morphology"] = str(form.get("morphology", ""))
            status, denied = _check_token(state, request, form)
            if denied:
                return await _queue_page(request, state, status, error=denied, values=values)
            try:
                added = await run_in_threadpool(_add_library, state.queue, values)
            except NeardupError as exc:
                return await _queue_page(
                    request, state, _status(exc), error=_detail(exc), values=values
                )
            if state.dispatcher is not None:
                state.dispatcher.wake()
            return _redirect(request, state, form, "/", done="added", id=added.id)

    @api.post("/token", include_in_schema=False)
    async def remember_token(request: Request) -> Response:
        async with request.form() as form:  # closes its uploads' temporary files
            nxt = str(form.get("next", "/"))
            if not nxt.startswith("/") or nxt.startswith("//"):
                nxt = "/"
            status, denied = _check_token(state, request, form)
            if denied or not str(form.get("token", "")):
                return await _queue_page(
                    request, state, status or 401, error=denied or "enter the token"
                )
            return _redirect(request, state, form, nxt)

    for action in ("stop", "resume", "remove"):
        _queue_action(api, state, action)


def _queue_action(api: FastAPI, state: UiState, action: str) -> None:
    async def run(library_id: int, request: Request) -> Response:
        async with request.form() as form:  # closes its uploads' temporary files
            status, denied = _check_token(state, request, form)
            if denied:
                return await _queue_page(request, state, status, error=denied)
            try:
                await run_in_threadpool(getattr(state.queue, action), library_id)
            except NeardupError as exc:
                return await _queue_page(request, state, _status(exc), error=_detail(exc))
            if action == "resume" and state.dispatcher is not None:
                state.dispatcher.wake()
            done = {"stop": "stopped", "resume": "resumed", "remove": "removed"}[action]
            return _redirect(request, state, form, "/", done=done, id=library_id)

    api.add_api_route(
        f"/queue/{{library_id}}/{action}",
        run,
        methods=["POST"],
        include_in_schema=False,
        name=f"queue_{action}",
    )


def _add_library(queue: CrawlQueue, values: Mapping[str, str]) -> LibraryStatus:
    url = values["url"].strip()
    if not url:
        raise InputError("enter the library's home page address")
    clarifications = [c.strip() for c in _SPLIT.split(values["clarifications"]) if c.strip()]
    collection = values["collection"].strip() or None
    method = values.get("method", "").strip() or _DEFAULT_METHOD
    morphology = values.get("morphology", "").strip() or None
    return queue.add(
        url, clarifications, collection=collection, method=method, morphology=morphology
    )


async def _queue_page(
    request: Request,
    state: UiState,
    status: int = 200,
    *,
    error: str = "",
    values: Mapping[str, str] | None = None,
) -> HTMLResponse:
    libraries = await run_in_threadpool(state.queue.libraries)
    return web.render(
        request,
        "queue.html",
        status,
        form_error=error if values is not None else "",
        banner_error=error if values is None else "",
        values=values
        or {
            "url": "",
            "clarifications": "",
            "collection": "",
            "method": _DEFAULT_METHOD,
            "morphology": "",
        },
        method_options=[(m, method_label(m)) for m in collection_methods()],
        morphologies=MORPHOLOGY_CHOICES,
        default_method=_DEFAULT_METHOD,
        notice=_notice(request),
        need_token=_need_token(state, request),
        csrf=csrf_token(state, request),
        crawling=state.dispatcher is not None,
        built=await run_in_threadpool(_built, state, libraries),
        **_queue_context(state, libraries),
    )


def _queue_context(state: UiState, libraries: list[LibraryStatus]) -> dict[str, Any]:
    running = [lib for lib in libraries if lib.stage in ACTIVE]
    waiting = [lib for lib in libraries if lib.stage == "queued"]
    return {
        "libraries": libraries,
        "running": running,
        "waiting": waiting,
        "active_stages": ACTIVE,
    }


def _notice(request: Request) -> str:
    done = request.query_params.get("done", "")
    ident = request.query_params.get("id", "")
    if done not in ("added", "stopped", "resumed", "removed") or not ident.isdigit():
        return ""
    return f"Library #{ident} {done}" + (" to the queue." if done == "added" else ".")


# -- check ----------------------------------------------------------------------------------
def _check_routes(api: FastAPI, state: UiState) -> None:
    @api.get("/check", include_in_schema=False)
    async def check_form(request: Request) -> HTMLResponse:
        chosen = request.query_params.get("collection", "")
        return await _check_page(request, state, chosen=chosen)

    @api.get("/check/about", include_in_schema=False)
    async def check_about(request: Request) -> HTMLResponse:
        chosen = request.query_params.get("collection", "")
        about = await run_in_threadpool(_about, state, chosen)
        return web.fragment("_about.html", about=about)

    @api.post("/check", include_in_schema=False)
    async def check_submit(request: Request) -> HTMLResponse:
        async with request.form() as form:  # closes its uploads' temporary files
            chosen = str(form.get("collection", ""))
            pasted = str(form.get("text", ""))
            try:
                text = await _submitted_text(pasted, form.get("file"), state.cpu_budget)
                result = await run_in_threadpool(state.store.check, chosen, text, limit=50)
                views = await _side_by_side(state, result, text)
            except NeardupError as exc:
                return await _check_page(
                    request, state, _status(exc), chosen=chosen, text=pasted, error=_detail(exc)
                )
            return await _check_page(
                request, state, chosen=chosen, text=pasted, result=result, views=views
            )


async def _submitted_text(pasted: str, upload: object, budget: float) -> str:
    """The pasted text, or the uploaded file's clean text when a file was chosen (read in
    a worker process within ``budget`` seconds, :func:`neardup.service.limits.bounded`)."""
    if isinstance(upload, UploadFile) and upload.filename:
        if pasted.strip():
            raise InputError("paste a text or choose a file, not both")
        try:
            data = await upload.read()
        finally:
            await upload.close()  # its spooled temporary file (a ResourceWarning otherwise)
        return await limits.bounded(
            limits.upload_text, data, upload.filename, budget=budget, what="reading the upload"
        )
    if not pasted.strip():
        raise InputError("paste the document's text or choose a file")
    return pasted


@dataclass(frozen=True, slots=True)
class MatchView:
    """One duplicate as shown: where its text came from and the marked texts (or ``None``)."""

    stored: StoredText
    pair: SideBySide | None


async def _side_by_side(state: UiState, result: CheckResult, text: str) -> list[MatchView]:
    shown = list(result.matches[:SIDE_BY_SIDE])
    texts = await stored_texts(state.store, result.collection, shown, state.fetcher)
    views: list[MatchView] = []
    for st in texts:
        pair = None
        if st.text is not None:
            pair = await limits.bounded(
                side_by_side, text, st.text, budget=state.cpu_budget, what="marking the passages"
            )
        views.append(MatchView(st, pair))
    return views


async def _check_page(
    request: Request,
    state: UiState,
    status: int = 200,
    *,
    chosen: str = "",
    text: str = "",
    error: str = "",
    result: CheckResult | None = None,
    views: list[MatchView] | None = None,
) -> HTMLResponse:
    options = await run_in_threadpool(_options, state)
    names = [o["name"] for o in options]
    if chosen not in names:
        chosen = await run_in_threadpool(default_collection, state, names)
    about = await run_in_threadpool(_about, state, chosen) if chosen else None
    decisions: list[str] = []
    reason = ""
    if result is not None and about is not None and about["stats"]["name"] == result.collection:
        stats = about["stats"]
        decisions = [rules.match_decision(stats, m) for m in result.matches]
        reason = rules.no_match_reason(stats, result.candidates)
    return web.render(
        request,
        "check.html",
        status,
        decisions=decisions,
        reason=reason,
        options=options,
        chosen=chosen,
        text=text,
        error=error,
        result=result,
        views=views or [],
        about=about,
        max_upload=state.max_body_bytes,
        accept=upload_accept(records=False),
    )


def _options(state: UiState) -> list[dict[str, str]]:
    """Collections to check against, libraries first (labelled with their address)."""
    by_collection = {lib.collection: lib for lib in state.queue.libraries()}
    out: list[dict[str, str]] = []
    for info in state.store.collections():
        lib = by_collection.get(info.name)
        label = f"{lib.url} ({info.name})" if lib else info.name
        out.append({"name": info.name, "label": label, "group": "lib" if lib else "col"})
    out.sort(key=lambda o: (o["group"] != "lib", o["label"]))
    return out


def default_collection(state: UiState, names: list[str]) -> str:
    """The collection the check page preselects: the first of ``names`` (libraries first)
    that holds documents, so an empty one left by a failed crawl is not the default; the
    first name when all are empty; ``""`` when there are none."""
    for name in names:
        try:
            if state.store.stats(name)["documents"] > 0:
                return name
        except CollectionNotFound:  # deleted meanwhile
            continue
    return names[0] if names else ""


# -- collection pages -------------------------------------------------------------------------
def _about(state: UiState, name: str) -> dict[str, Any] | None:
    """Stats of a collection and its library (``None`` when there is no such collection)."""
    try:
        stats = state.store.stats(name)
    except CollectionNotFound:
        return None
    libraries = [lib for lib in state.queue.libraries() if lib.collection == name]
    lexical = plan_for(stats["method"]).needs_fit
    return {
        "stats": stats,
        "libraries": libraries,
        "lexical": lexical,
        "label": method_label(stats["method"]),
        "decision": rules.decision_line(stats),
        "compared_in": rules.compared_in(stats),
    }


async def collection_page(request: Request, state: UiState, name: str) -> HTMLResponse:
    """The stats page of collection ``name`` (404 page when it does not exist)."""
    about = await run_in_threadpool(_about, state, name)
    if about is None:
        return web.render(request, "missing.html", 404, name=name)
    return await _documents_view(request, state, name, about)


async def collections_page(
    request: Request,
    state: UiState,
    status: int = 200,
    *,
    error: str = "",
    values: Mapping[str, str] | None = None,
) -> HTMLResponse:
    """All collections with their method, documents and library, and the form creating
    one (its ``error`` and submitted ``values`` when it was refused)."""

    def rows() -> list[dict[str, Any]]:
        out = []
        for info in state.store.collections():
            about = _about(state, info.name)
            if about is not None:
                out.append(about)
        return out

    return web.render(
        request,
        "collections.html",
        status,
        rows=await run_in_threadpool(rows),
        form_error=error,
        values=values or {"name": "", "method": _DEFAULT_METHOD, "threshold": "", "morphology": ""},
        method_options=[(m, method_label(m)) for m in collection_methods()],
        default_method=_DEFAULT_METHOD,
        default_threshold=OPTIONS["threshold"].default,
        morphologies=MORPHOLOGY_CHOICES,
        need_token=_need_token(state, request),
        csrf=csrf_token(state, request),
    )


def _create_collection(store: Store, values: Mapping[str, str]) -> Any:
    """Create the collection the form describes, validated by the store as ``POST
    /collections`` is (name, method, threshold, canonical form).

    Raises:
        InputError: no name.
        ParameterError, UnsupportedMethod: a value is not allowed.
        CollectionExists: the name is taken.
    """
    from neardup.errors import ParameterError

    name = values["name"].strip()
    if not name:
        raise InputError("enter the new collection's name")
    raw = values["threshold"].strip()
    try:
        threshold = float(raw) if raw else OPTIONS["threshold"].default
    except ValueError:
        raise ParameterError("threshold", raw, "a number in (0, 1]") from None
    morphology = values["morphology"].strip()
    params = {"canonical": {"morphology": morphology}} if morphology else None
    method = values["method"].strip() or _DEFAULT_METHOD
    return store.create_collection(name, method, params, threshold=threshold)


def _collection_routes(api: FastAPI, state: UiState) -> None:
    @api.post("/collections/new", include_in_schema=False)
    async def create_collection(request: Request) -> Response:
        async with request.form() as form:  # closes its uploads' temporary files
            fields = ("name", "method", "threshold", "morphology")
            values = {k: str(form.get(k, "")) for k in fields}
            status, denied = _check_token(state, request, form)
            if denied:
                return await collections_page(request, state, status, error=denied, values=values)
            try:
                info = await run_in_threadpool(_create_collection, state.store, values)
            except NeardupError as exc:
                return await collections_page(
                    request, state, _status(exc), error=_detail(exc), values=values
                )
            return _redirect(request, state, form, f"/collections/{quote(info.name, safe='')}")


# -- documents of a collection (the librarian's pages) ----------------------------------------
#: Documents listed on one page of a collection.
PAGE_SIZE = 50


def upload_accept(*, records: bool = True) -> str:
    """The file picker's ``accept``: every suffix the readers take (the document formats of
    :mod:`neardup.text.formats`, and with ``records`` the record formats and compressed
    files), so the picker offers what the server reads."""
    from neardup.text.formats import COMPRESSION_SUFFIXES, FORMATS

    docs = [s for f in FORMATS if not f.records for s in f.suffixes]
    rec = [s for f in FORMATS if f.records for s in f.suffixes] + [*COMPRESSION_SUFFIXES]
    return ",".join((*docs, *(rec if records else ()), "text/plain", "text/html"))


def _built(state: UiState, libraries: list[LibraryStatus]) -> list[dict[str, Any]]:
    """Stats of the collections not filled by a crawl (built from files or the API)."""
    crawled = {lib.collection for lib in libraries}
    out = []
    for info in state.store.collections():
        if info.name in crawled:
            continue
        try:
            out.append(state.store.stats(info.name))
        except CollectionNotFound:  # deleted meanwhile
            continue
    return out


def _offset(request: Request) -> int:
    raw = request.query_params.get("offset", "0")
    return min(int(raw), 2**62) if raw.isdigit() else 0


async def _documents_view(
    request: Request,
    state: UiState,
    name: str,
    about: dict[str, Any],
    status: int = 200,
    *,
    error: str = "",
    notice: str = "",
    skipped: tuple[Any, ...] = (),
) -> HTMLResponse:
    """The collection page: stats, then its documents (paged), the remove and upload forms;
    ``notice`` and the ``skipped`` files of an upload with their reasons."""
    try:
        page = await run_in_threadpool(
            lambda: state.store.documents(name, offset=_offset(request), limit=PAGE_SIZE)
        )
    except CollectionNotFound:
        return web.render(request, "missing.html", 404, name=name)
    return web.render(
        request,
        "collection.html",
        status,
        name=name,
        about=about,
        page=page,
        doc_error=error,
        doc_notice=notice or _doc_notice(request),
        skipped=skipped,
        need_token=_need_token(state, request),
        csrf=csrf_token(state, request),
        accept=upload_accept(),
        max_upload=state.max_body_bytes,
    )


def _doc_notice(request: Request) -> str:
    q = request.query_params
    if q.get("done") == "removed":
        return f"Removed {q.get('id', '')[:200]}."
    added, skipped = q.get("added", ""), q.get("skipped", "")
    if added.isdigit() and skipped.isdigit():
        return f"{added} file(s) added, {skipped} skipped."
    return ""


async def document_page(request: Request, state: UiState, name: str, doc_id: str) -> HTMLResponse:
    """One stored document: its metadata and text (404 page when missing)."""
    from neardup.errors import DocumentNotFound, TextNotStored

    def load() -> tuple[Any, str | None]:
        info = state.store.document(name, doc_id)
        try:
            return info, state.store.document_text(name, doc_id)
        except TextNotStored:
            return info, None

    try:
        info, text = await run_in_threadpool(load)
    except (CollectionNotFound, DocumentNotFound):
        return web.render(request, "missing.html", 404, name=f"{name} › {doc_id}")
    return web.render(request, "document.html", name=name, doc=info, text=text)


def _document_routes(api: FastAPI, state: UiState) -> None:
    @api.post("/collections/{name}/remove", include_in_schema=False)
    async def remove_document(name: str, request: Request) -> Response:
        async with request.form() as form:  # closes its uploads' temporary files
            doc_id = str(form.get("id", ""))
            status, denied = _check_token(state, request, form)
            try:
                if denied:
                    raise _Refused(status, denied)
                await run_in_threadpool(state.store.remove, name, doc_id)
            except (NeardupError, _Refused) as exc:
                return await _documents_error(request, state, name, exc)
            return _redirect(
                request,
                state,
                form,
                f"/collections/{quote(name, safe='')}",
                done="removed",
                id=doc_id,
            )

    @api.post("/collections/{name}/upload", include_in_schema=False)
    async def upload_documents(name: str, request: Request) -> Response:
        async with request.form() as form:  # closes its uploads' temporary files
            status, denied = _check_token(state, request, form)
            try:
                if denied:
                    raise _Refused(status, denied)
                files = [
                    f for f in form.getlist("files") if isinstance(f, UploadFile) and f.filename
                ]
                if not files:
                    raise InputError("choose one or more files to add")
                docs = [d for f in files for d in await _uploaded(f, state.cpu_budget)]
                report = await run_in_threadpool(state.store.add, name, docs)
            except (NeardupError, _Refused) as exc:
                return await _documents_error(request, state, name, exc)
            if report.skipped:  # shown with their reasons (a redirect could not carry them)
                about = await run_in_threadpool(_about, state, name)
                if about is not None:
                    notice = f"{report.added} file(s) added, {len(report.skipped)} skipped:"
                    return await _documents_view(
                        request, state, name, about, notice=notice, skipped=report.skipped
                    )
            return _redirect(
                request,
                state,
                form,
                f"/collections/{quote(name, safe='')}",
                added=report.added,
                skipped=len(report.skipped),
            )


class _Refused(Exception):
    """A write form refused by :func:`_check_token` (status and message shown)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def _uploaded(upload: UploadFile, budget: float) -> list[Any]:
    """The documents of an uploaded file, read by :func:`read_upload` in a worker process
    within ``budget`` seconds (:func:`neardup.service.limits.bounded`)."""
    filename = str(upload.filename).replace("\\", "/").rsplit("/", 1)[-1] or "upload"
    data = await upload.read()
    return await limits.bounded(
        read_upload, data, filename, budget=budget, what=f"reading {filename}"
    )


#: Longest suffix of a client's file name kept on the temporary copy (``.jsonl.gz``).
_SUFFIX_CHARS = 24


def read_upload(data: bytes, filename: str) -> list[Any]:
    """The documents of an uploaded file, read as ``neardup add`` reads the same file
    (:func:`~neardup.text.read.read_corpus`): a document file (text, HTML, wiki, PDF,
    DOCX) is one :class:`~neardup.text.types.Document` (id and source: ``filename``), a
    record file (JSONL, CSV, Parquet, Arrow) its records (sources ``FILENAME:LINE``); a
    compressed file (``.gz``, ``.zst``, ``.bz2``, ``.xz``) is decompressed as ``neardup add``
    does. What cannot be read is a :class:`~neardup.text.types.Skipped` with its reason.

    The bytes are read from a temporary copy whose name is ``upload`` plus the suffixes of
    ``filename`` that pick the reader: the client's name is never a path (a 300-character
    name gave 500, ``ENAMETOOLONG``; issue 41).
    """
    import dataclasses
    import re
    import tempfile
    from pathlib import Path

    from neardup.text.read import read_corpus
    from neardup.text.types import Document

    suffix = "".join(Path(filename).suffixes[-2:]).lower()
    if len(suffix) > _SUFFIX_CHARS or not re.fullmatch(r"(\.[a-z0-9]{1,10}){0,2}", suffix):
        suffix = Path(filename).suffix.lower()
        if len(suffix) > _SUFFIX_CHARS or not re.fullmatch(r"(\.[a-z0-9]{1,10})?", suffix):
            suffix = ""
    with tempfile.TemporaryDirectory(prefix="neardup-upload-") as tmp:
        path = Path(tmp) / f"upload{suffix}"
        path.write_bytes(data)
        items = list(read_corpus([path]))
    where, name = str(path), path.name

    def client(value: str) -> str:
        for own in (where, name):
            if value == own or value.startswith(own + ":"):
                return filename + value[len(own) :]
        return value

    out: list[Any] = []
    for item in items:
        item = dataclasses.replace(item, id=client(item.id), source=client(item.source))
        if isinstance(item, Document) and item.title == name:  # the file name as title
            item = dataclasses.replace(item, title=filename)
        out.append(item)
    return out


async def _documents_error(
    request: Request, state: UiState, name: str, exc: Exception
) -> HTMLResponse:
    if isinstance(exc, _Refused):
        status, message = exc.status, exc.message
    else:
        assert isinstance(exc, NeardupError)
        status, message = _status(exc), _detail(exc)
    about = await run_in_threadpool(_about, state, name)
    if about is None:
        return web.render(request, "missing.html", 404, name=name)
    return await _documents_view(request, state, name, about, status, error=message)


# -- token, session and cross-site checks -------------------------------------------------------
def _session(state: UiState, request: Request) -> str | None:
    """The nonce of the browser's valid session cookie, or ``None``.

    The cookie is ``NONCE.MAC`` with ``MAC = HMAC-SHA256(token, "session:" + NONCE)``: it
    proves the token was entered here without holding it (it is no Bearer token, and a
    new token voids every cookie).
    """
    if state.token is None:
        return None
    nonce, _, mac = request.cookies.get(COOKIE, "").partition(".")
    if not nonce or not _same(mac, _mac(state.token, "session", nonce)):
        return None
    return nonce


def _mac(token: str, purpose: str, nonce: str) -> str:
    msg = f"{purpose}:{nonce}".encode()
    return hmac.new(token.encode(), msg, hashlib.sha256).hexdigest()


def csrf_token(state: UiState, request: Request) -> str:
    """The CSRF token the write forms carry (field ``csrf``): an HMAC of the session's
    nonce under the API token; ``""`` without a session."""
    nonce = _session(state, request)
    return "" if nonce is None or state.token is None else _mac(state.token, "csrf", nonce)


def _need_token(state: UiState, request: Request) -> bool:
    """True when a token is configured and the browser has no valid session cookie."""
    return state.token is not None and _session(state, request) is None


def cross_site(request: Request) -> str:
    """``""`` for a same-origin request (or one without browser headers), else why not.

    A browser sends ``Sec-Fetch-Site`` and ``Origin`` with every form ``POST``: anything but
    ``same-origin`` (or ``none``, typed by the user), or an ``Origin`` whose host and port
    differ from the request's ``Host`` (another site, or another port of this host), is a
    cross-site request (CSRF). Clients that send neither (curl, scripts) are not browsers,
    and need the token anyway when one is configured.
    """
    fetch_site = request.headers.get("sec-fetch-site", "").lower()
    if fetch_site and fetch_site not in ("same-origin", "none"):
        return f"refused: a {fetch_site} form post (only this site's own pages may post here)"
    origin = request.headers.get("origin")
    if origin is None:
        return ""
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    if _host_port(origin) != _host_port(own):
        return "refused: a form post from another origin (only this site's own pages may post here)"
    return ""


def _host_port(url: str) -> tuple[str, int] | None:
    try:
        parts = urlsplit(url)
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None
    if not parts.hostname or port is None:
        return None
    return parts.hostname.lower(), port


def _check_token(state: UiState, request: Request, form: Mapping[str, Any]) -> tuple[int, str]:
    """``(0, "")`` when the write is allowed, else ``(HTTP status, message to show)``.

    Refused: a cross-site post (403, :func:`cross_site`); with a token configured, a post
    without the right token field or a valid session cookie (401), or one relying on the
    cookie without the form's CSRF token (403).
    """
    crossed = cross_site(request)
    if crossed:
        return 403, crossed
    if state.token is None:
        return 0, ""
    wrong = "API token missing or wrong: enter the token the service was started with."
    given = str(form.get("token", ""))
    if given:
        return (0, "") if _same(given, state.token) else (401, wrong)
    if _session(state, request) is None:
        return 401, wrong
    if not _same(str(form.get("csrf", "")), csrf_token(state, request)):
        return 403, "the form's CSRF token is missing or stale: reload the page and try again"
    return 0, ""


def _same(given: str, token: str) -> bool:
    return hmac.compare_digest(given.encode(), token.encode())


def _redirect(
    request: Request, state: UiState, form: Mapping[str, Any], path: str, **query: Any
) -> RedirectResponse:
    resp = RedirectResponse(f"{path}?{urlencode(query)}" if query else path, status_code=303)
    given = str(form.get("token", ""))
    if state.token is not None and given and _same(given, state.token):
        nonce = secrets.token_urlsafe(18)
        resp.set_cookie(
            COOKIE,
            f"{nonce}.{_mac(state.token, 'session', nonce)}",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/",
        )
    return resp


def _detail(exc: NeardupError) -> str:
    from neardup.service.problems import public_detail

    return public_detail(exc)


def _status(exc: NeardupError) -> int:
    from neardup.service.problems import status_of

    return status_of(exc)
