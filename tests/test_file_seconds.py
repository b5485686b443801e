"""The seconds of each test file, read from a JUnit XML report (tests/file_seconds.py), by
which tests/conftest.py orders the files under pytest-xdist."""

from __future__ import annotations

import json
from pathlib import Path

from file_seconds import SECONDS, file_seconds, module_path


def test_module_path_of_functions_and_classes() -> None:
    assert module_path("tests.crash.test_kill") == "tests/crash/test_kill.py"
    assert module_path("tests.test_view.TestPairs") == "tests/test_view.py"


def test_seconds_sum_by_file(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_a" name="x" time="1.26"/>'
        '<testcase classname="tests.test_a.TestB" name="y" time="2.0"/>'
        '<testcase classname="tests.store.test_c" name="z[1]" time="0.04"/>'
        "</testsuite></testsuites>"
    )
    assert file_seconds(report) == {"tests/store/test_c.py": 0.0, "tests/test_a.py": 3.3}


def test_the_recorded_files_exist() -> None:
    """Every file in tests/file_seconds.json is a test file of this tree (a renamed file's
    old name would weigh nothing; refresh with ``make test-seconds``)."""
    root = SECONDS.parent.parent
    recorded = json.loads(SECONDS.read_text(encoding="utf-8"))
    assert [p for p in recorded if not (root / p).is_file()] == []
