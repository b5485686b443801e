"""Code run in a fresh interpreter (start-up, import and process tests), on the import path
of the test session, so that it imports the neardup these tests import."""

from __future__ import annotations

import os
import subprocess
import sys


def python_env() -> dict[str, str]:
    """This process's environment with ``PYTHONPATH`` set to its ``sys.path``."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def run_code(code: str, *, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """``python -c code`` in a fresh interpreter (:func:`python_env`); its exit code and
    output (text) are the caller's to check."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=python_env(),
        timeout=timeout,
    )  # fmt: skip
