"""The API documentation pages, served from installed files: Swagger UI at ``/docs`` and
ReDoc at ``/redoc`` work offline (FastAPI's own pages load both from a CDN).

The Swagger UI and ReDoc bundles are the ones the ``fastapi-offline`` package ships; they
are served under ``/docs-assets/``. The pages hold no inline script (Swagger UI is started
by ``/docs-assets/neardup-swagger.js``, ReDoc by its ``<redoc spec-url>`` element), so
they carry a Content-Security-Policy that allows scripts from this origin only.
"""

from __future__ import annotations

import html
from importlib import resources
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

ASSETS_URL = "/docs-assets"
#: Swagger UI and ReDoc inject styles and (ReDoc) start a worker from a blob: URL.
DOCS_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
_SWAGGER_INIT = """\
window.addEventListener("DOMContentLoaded", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.openapi,
    dom_id: "#swagger-ui",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
    layout: "BaseLayout",
  });
});
"""


def assets_dir() -> Path:
    """The directory holding ``swagger-ui-bundle.js``, ``swagger-ui.css``,
    ``redoc.standalone.js`` and ``favicon.png`` (from the ``fastapi-offline`` package)."""
    return Path(str(resources.files("fastapi_offline") / "static"))


def install(api: FastAPI) -> None:
    """Serve ``/docs``, ``/redoc`` and ``/docs-assets/*`` on ``api`` (create ``api`` with
    ``docs_url=None, redoc_url=None``)."""
    openapi_url = api.openapi_url or "/openapi.json"

    @api.get(f"{ASSETS_URL}/neardup-swagger.js", include_in_schema=False)
    def swagger_init() -> Response:  # before the mount, which would answer 404 for it
        return Response(_SWAGGER_INIT, media_type="text/javascript", headers=DOCS_HEADERS)

    api.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs-assets")

    @api.get("/docs", include_in_schema=False)
    def swagger(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        page = _swagger_page(api.title, root, f"{root}{openapi_url}")
        return HTMLResponse(page, headers=DOCS_HEADERS)

    @api.get("/redoc", include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        page = _redoc_page(api.title, root, f"{root}{openapi_url}")
        return HTMLResponse(page, headers=DOCS_HEADERS)


def _swagger_page(title: str, root: str, openapi: str) -> str:
    a = html.escape(f"{root}{ASSETS_URL}")
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)} - Swagger UI</title>"
        f"<link rel='icon' href='{a}/favicon.png'>"
        f"<link rel='stylesheet' href='{a}/swagger-ui.css'></head><body>"
        f"<div id='swagger-ui' data-openapi='{html.escape(openapi)}'></div>"
        f"<script src='{a}/swagger-ui-bundle.js'></script>"
        f"<script src='{a}/neardup-swagger.js'></script></body></html>"
    )


def _redoc_page(title: str, root: str, openapi: str) -> str:
    a = html.escape(f"{root}{ASSETS_URL}")
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)} - ReDoc</title>"
        f"<link rel='icon' href='{a}/favicon.png'></head><body>"
        f"<redoc spec-url='{html.escape(openapi)}'></redoc>"
        f"<script src='{a}/redoc.standalone.js'></script></body></html>"
    )
