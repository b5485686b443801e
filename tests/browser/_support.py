"""Helpers of the browser tests (importable as ``browser._support``; tests/ is on the path)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


@dataclass
class Service:
    """The running service: its base URL and the ASGI app (``.store``, ``.queue``)."""

    base_url: str
    app: Any


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot as a test artifact: ``tests/browser/artifacts/NAME.png``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
