"""The ``data`` marker is derived from the use of ../shared/data (tests/conftest.py):
:func:`shared_data.uses_shared_data` follows a test's code into the helpers it calls."""

from __future__ import annotations

import os

import pytest

from shared_data import DATA, data_path, paragraphs, require, uses_shared_data


def _helper() -> list[str]:
    return paragraphs("progit-ru-revisions", 1)


def _indirect() -> int:
    return len(_helper())


def _plain(text: str) -> int:
    return len(text.split())


class _Loader:
    def load(self) -> object:
        return data_path("ruslit")


def test_direct_and_transitive_use_is_found() -> None:
    assert uses_shared_data(lambda: data_path("x"))
    assert uses_shared_data(_helper)
    assert uses_shared_data(_indirect)
    assert uses_shared_data(lambda: [_indirect() for _ in range(2)])  # nested code
    assert uses_shared_data(_Loader)
    assert uses_shared_data(lambda: DATA / "x")


def test_no_use_is_not_marked() -> None:
    assert not uses_shared_data(_plain)
    assert not uses_shared_data(lambda: _plain("a b"))
    assert not uses_shared_data(len)  # not defined under tests/: not followed


@pytest.fixture
def may_read_data() -> int:
    """A fixture that would read ../shared/data (never here: the variable is not set)."""
    return len(_helper()) if os.environ.get("NEARDUP_NEVER_SET") else 0


def test_a_test_using_such_a_fixture_is_marked(
    may_read_data: int, request: pytest.FixtureRequest
) -> None:
    assert may_read_data == 0
    assert request.node.get_closest_marker("data") is not None


def test_a_test_using_no_data_is_not_marked(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("data") is None


def test_require_imports_or_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    assert require("json").dumps([1]) == "[1]"
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="not installed"):
        require("no_such_module_neardup")
    monkeypatch.setenv("CI", "")
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        require("no_such_module_neardup")
