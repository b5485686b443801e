"""Issue 41 item 24: ``Index.load`` of a file changed after it was saved raises the
documented errors (``FormatError``, ``InputError``), never TypeError, ValueError or
BadZipFile, and never reads offsets past its arrays."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup.errors import FormatError, NeardupError
from neardup.index.memory import Index

TEXTS = {
    "a": "Один два три четыре пять шесть семь восемь девять десять одиннадцать.",
    "b": "Один два три четыре пять шесть семь восемь девять десять двенадцать.",
    "c": "Совсем другой текст о собаках, кошках и лошадях на зелёном лугу у реки.",
}


def _saved(folder: Path, method: str = "shingles-full") -> Path:
    idx = Index(method=method)
    idx.add(list(TEXTS.items()))
    return idx.save(folder / "i.npz")


def _rewrite(path: Path, **change: object) -> None:
    with np.load(path) as data:
        parts = {k: data[k] for k in data.files}
    header = json.loads(str(parts["header"]))
    for key, value in change.items():
        if key in ("values", "offsets"):
            parts[key] = np.asarray(value)
        else:
            header[key] = value
    parts["header"] = np.array(json.dumps(header))
    with open(path, "wb") as fh:
        np.savez(fh, **parts)


def test_offsets_past_the_values_are_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    with np.load(path) as data:
        n = int(data["values"].shape[0])
    _rewrite(path, offsets=[0, 3, 5, n + 40])
    with pytest.raises(FormatError, match="offsets do not cut"):
        Index.load(path)


@pytest.mark.parametrize(
    ("change", "part"),
    [
        ({"offsets": [0, 5, 3, 0]}, "offsets"),
        ({"ids": ["a", "a", "c"]}, "repeated"),
        ({"ids": ["a", 7, "c"]}, "ids"),
        ({"documents": [["", "", "zz", 1, None]] * 3}, "documents"),
        ({"params": {"threshold": 5}}, "damaged"),
        ({"params": "x"}, "params"),
        ({"values": np.arange(9, 0, -1, dtype=np.uint64)}, "offsets"),
    ],
)
def test_each_damaged_part_is_named(tmp_path: Path, change: dict[str, object], part: str) -> None:
    path = _saved(tmp_path)
    _rewrite(path, **change)
    with pytest.raises(FormatError, match=part):
        Index.load(path)


def test_unsorted_set_is_refused(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    with np.load(path) as data:
        values, offsets = data["values"].copy(), data["offsets"]
    values[offsets[0] : offsets[1]] = values[offsets[0] : offsets[1]][::-1]
    _rewrite(path, values=values)
    with pytest.raises(FormatError, match="not sorted and unique"):
        Index.load(path)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), method=st.sampled_from(["shingles-full", "sl-st"]))
def test_any_changed_byte_loads_consistently_or_is_refused(
    data: st.DataObject, method: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = _saved(Path(folder), method)
        raw = bytearray(path.read_bytes())
        for _ in range(data.draw(st.integers(1, 4))):
            at = data.draw(st.integers(0, len(raw) - 1))
            raw[at] = data.draw(st.integers(0, 255))
        cut = data.draw(st.sampled_from([len(raw), len(raw), len(raw) // 2]))
        path.write_bytes(bytes(raw[:cut]))
        try:
            idx = Index.load(path)
        except NeardupError as exc:
            assert isinstance(exc, FormatError), exc
            return
        assert len(idx) == 3
        idx.check(TEXTS["a"])  # a loaded index answers


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), method=st.sampled_from(["shingles-full", "sl-st", "tf-ridf"]))
def test_any_changed_part_inside_a_valid_archive_loads_or_is_refused(
    data: st.DataObject, method: str
) -> None:
    """The archive's checksums pass: the header's characters and the arrays' bytes are
    what changed."""
    with tempfile.TemporaryDirectory() as folder:
        path = _saved(Path(folder), method)
        with np.load(path) as saved:
            parts = {k: saved[k] for k in saved.files}
        target = data.draw(st.sampled_from(["header", "values", "offsets"]))
        if target == "header":
            text = list(str(parts["header"]))
            for _ in range(data.draw(st.integers(1, 3))):
                at = data.draw(st.integers(0, len(text) - 1))
                text[at] = data.draw(st.sampled_from(list('0123456789"[]{},:-ax ')))
            parts["header"] = np.array("".join(text))
        else:
            raw = bytearray(parts[target].tobytes())
            if raw:
                at = data.draw(st.integers(0, len(raw) - 1))
                raw[at] = data.draw(st.integers(0, 255))
            parts[target] = np.frombuffer(bytes(raw), dtype=parts[target].dtype)
        with open(path, "wb") as fh:
            np.savez(fh, **parts)
        try:
            idx = Index.load(path)
        except NeardupError as exc:
            assert isinstance(exc, FormatError), exc
            return
        idx.check(TEXTS["a"])  # a loaded index answers
