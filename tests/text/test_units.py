"""Read units (neardup.text.units): a planned span's pages dropped from the page cache once
read, only for a file too large to stay cached beside the job."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import neardup.text.units as units
from neardup.text.units import LinesUnit

LINES = b'{"id": "a", "text": "one two three"}\n{"id": "b", "text": "four five six"}\n'


def _advised(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    calls: list[tuple[int, int, int]] = []
    monkeypatch.setattr(os, "posix_fadvise", lambda fd, off, n, how: calls.append((off, n, how)))
    return calls


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """A JSONL file of :data:`LINES`."""
    out = tmp_path / "lines.jsonl"
    out.write_bytes(LINES)
    return out


def _span(path: Path, offset: int, length: int) -> LinesUnit:
    return LinesUnit(str(path), path.name, b"", 1, (str(path), offset, length))


def test_a_span_of_a_file_as_large_as_half_the_memory_is_dropped_once_read(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _advised(monkeypatch)
    monkeypatch.setattr("neardup._spill.physical_memory", lambda: 2 * len(LINES))  # half
    second = len(LINES.split(b"\n")[0]) + 1
    loaded = _span(path, second, len(LINES) - second).loaded()
    assert loaded.data == LINES[second:]  # the bytes read first
    assert calls == [(second, len(LINES) - second, os.POSIX_FADV_DONTNEED)]


def test_a_span_of_a_smaller_file_stays_cached(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _advised(monkeypatch)
    monkeypatch.setattr("neardup._spill.physical_memory", lambda: 2 * len(LINES) + 1)
    assert _span(path, 0, len(LINES)).loaded().data == LINES
    monkeypatch.setattr("neardup._spill.physical_memory", lambda: None)  # not known
    assert _span(path, 0, len(LINES)).loaded().data == LINES
    assert calls == []
    assert units.FORGET_SHARE == 0.5


def test_without_the_call_the_span_is_read_all_the_same(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(os, "posix_fadvise")
    monkeypatch.setattr("neardup._spill.physical_memory", lambda: 1)
    assert _span(path, 0, len(LINES)).loaded().data == LINES
