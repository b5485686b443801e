"""Rendering of the web UI's pages: the Jinja2 environment, filters and response headers.

Autoescape is on for every template (``.html``): any stored or submitted text, however it
is marked up, is shown as text. Pages carry a strict Content-Security-Policy (scripts and
styles from this origin only, no inline script), so even markup that slipped past escaping
could not run.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse

from neardup._version import __version__

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"

#: Headers of every UI page.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


@functools.cache
def environment() -> jinja2.Environment:
    """The Jinja2 environment of the UI templates (autoescape on, undefined names fail)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = when
    env.filters["iso"] = iso
    env.filters["pct"] = pct
    env.filters["num"] = num
    env.filters["q"] = lambda s: quote(str(s), safe="")
    env.filters["is_url"] = is_url
    env.globals["version"] = __version__
    return env


def preload() -> None:
    """Compile every template now (the app's start-up, in a thread): compiling one on its
    first page took the event loop for a tenth of a second and more."""
    env = environment()
    for name in env.list_templates(extensions=["html"]):
        env.get_template(name)


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """An HTML response of ``template`` with ``context`` and the security headers.

    Args:
        request: the request (its path marks the current page in the navigation).
        template: file name under ``templates/``.
        status_code: HTTP status.
        context: template variables.
    """
    html = environment().get_template(template).render(path=request.url.path, **context)
    return HTMLResponse(html, status_code=status_code, headers=SECURITY_HEADERS)


def fragment(template: str, **context: Any) -> HTMLResponse:
    """A partial page (for live updates), not cached."""
    html = environment().get_template(template).render(**context)
    return HTMLResponse(html, headers={**SECURITY_HEADERS, "Cache-Control": "no-store"})


def wants_html(request: Request) -> bool:
    """True when the client asks for HTML first (a browser), False for API clients.

    Browsers send ``Accept: text/html,...``; curl, httpx and the OpenAPI clients send
    ``*/*`` or ``application/json``, so the JSON API answers them unchanged; ``?format=json``
    asks for JSON from a browser.
    """
    if request.query_params.get("format") == "json":
        return False
    accept = request.headers.get("accept", "")
    html = accept.find("text/html")
    if html < 0:
        return False
    json_at = accept.find("application/json")
    return json_at < 0 or html < json_at


def when(value: datetime | str | None) -> str:
    """A time as ``YYYY-MM-DD HH:MM UTC`` (``—`` for none)."""
    if value is None or value == "":
        return "—"
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def iso(value: datetime | str | None) -> str:
    """A time in ISO 8601 (for ``<time datetime=...>``); ``""`` for none."""
    if value is None:
        return ""
    return value if isinstance(value, str) else value.isoformat()


def pct(value: float) -> str:
    """A ratio in [0, 1] as a percentage with one decimal: ``0.8734`` -> ``87.3%``."""
    return f"{100.0 * float(value):.1f}%"


def num(value: int) -> str:
    """An integer with thin-space thousands separators: ``12345`` -> ``12 345``."""
    return f"{int(value):,}".replace(",", "\u202f")


def is_url(value: str) -> bool:
    """True for ``http://`` and ``https://`` addresses (shown as links)."""
    return value.startswith(("http://", "https://"))
