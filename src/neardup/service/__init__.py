"""The neardup service (FastAPI): the REST API (collections, documents, checks, the crawl
queue) and the web UI of Romanov 2019 (queue, check, collection stats)."""

from neardup.service.api import ServiceConfig, create_app

__all__ = ["ServiceConfig", "create_app"]
