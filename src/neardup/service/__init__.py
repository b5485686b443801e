"""The neardup REST service (FastAPI): collections, documents and duplicate checks."""

from neardup.service.api import ServiceConfig, create_app

__all__ = ["ServiceConfig", "create_app"]
