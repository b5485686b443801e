"""Refresh ``tests/file_seconds.json``, the seconds each test file took, from a JUnit XML
report (``pytest --junitxml=FILE``): ``python tests/file_seconds.py FILE`` (``make
test-seconds`` runs the suite and this).

``tests/conftest.py`` starts the longest files first under pytest-xdist (longest
processing time first), so that a long file does not start last and leave one worker
running it alone at the end of the run.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

#: The seconds of each test file, ``{"tests/x/test_y.py": 12.3}``.
SECONDS = Path(__file__).with_name("file_seconds.json")


def module_path(classname: str) -> str:
    """``tests/crash/test_kill.py`` of a JUnit ``classname`` such as
    ``tests.crash.test_kill`` or ``tests.test_x.TestClass``."""
    parts = classname.split(".")
    last = max((i for i, p in enumerate(parts) if p.startswith("test_")), default=len(parts) - 1)
    return "/".join(parts[: last + 1]) + ".py"


def file_seconds(report: Path) -> dict[str, float]:
    """Seconds of each test file in a JUnit XML report (setup, call and teardown of each
    of its tests, as pytest reports them), rounded to 0.1 s, by path."""
    seconds: dict[str, float] = defaultdict(float)
    for case in ET.parse(report).iter("testcase"):
        seconds[module_path(case.get("classname", ""))] += float(case.get("time", 0))
    return {path: round(s, 1) for path, s in sorted(seconds.items())}


if __name__ == "__main__":
    SECONDS.write_text(json.dumps(file_seconds(Path(sys.argv[1])), indent=1) + "\n")
