"""`neardup.dedup` on texts, documents, (id, text) pairs, data frames and tables (issue 30,
item 19): each input kind gives the same pairs as the same documents written as files, and
a frame comes back with `cluster`/`duplicate_of` columns. Real text from examples/corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import neardup
from neardup.errors import InputError, ParameterError
from neardup.text.types import Document
from shared_data import require

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"
NAMES = [
    ("chekhov", "Ванька.txt"),
    ("chekhov", "Тоска.txt"),
    ("chekhov", "Хамелеон.txt"),
    ("excerpts", "Хамелеон (начало).txt"),
]
#: «Ванька» twice (a second copy with one word changed), «Тоска», «Хамелеон», its excerpt
TEXTS = [CORPUS.joinpath(*p).read_text(encoding="utf-8") for p in NAMES]
TEXTS.insert(1, TEXTS[0].replace("Ванька", "Ваня"))
OPTS = neardup.DedupOptions(measure="containment", threshold=0.5)


def _values(column: Any) -> list[object]:
    """A pandas column as a list, nulls as None."""
    import pandas as pd

    return [None if pd.isna(v) else v for v in column.tolist()]


def _pairs(result: neardup.DedupResult) -> list[tuple[str, str, float, float, float]]:
    return [(p.a, p.b, p.resemblance, p.containment_ab, p.containment_ba) for p in result.pairs]


@pytest.fixture(scope="module")
def from_files(
    tmp_path_factory: pytest.TempPathFactory,
) -> list[tuple[str, str, float, float, float]]:
    """The reference: the five texts as files named 0.txt ... 4.txt, ids mapped back to
    positions (a file's id is its relative path)."""
    root = tmp_path_factory.mktemp("files")
    for i, text in enumerate(TEXTS):
        (root / f"{i}.txt").write_text(text, encoding="utf-8")
    result = neardup.dedup([root], options=OPTS)
    strip = lambda s: s.removesuffix(".txt").rsplit("/", 1)[-1]  # noqa: E731
    pairs = [(strip(a), strip(b), r, x, y) for a, b, r, x, y in _pairs(result)]
    assert {(a, b) for a, b, *_ in pairs} == {("0", "1"), ("3", "4")}
    return pairs


def test_strings_are_texts_with_position_ids(
    from_files: list[tuple[str, str, float, float, float]],
) -> None:
    # before: read as paths, InputError "no such file"
    assert _pairs(neardup.dedup(TEXTS, options=OPTS)) == from_files
    assert _pairs(neardup.dedup(iter(TEXTS), options=OPTS)) == from_files  # a generator


def test_documents_and_id_text_pairs(
    from_files: list[tuple[str, str, float, float, float]],
) -> None:
    docs = [Document(str(i), t) for i, t in enumerate(TEXTS)]
    assert _pairs(neardup.dedup(docs, options=OPTS)) == from_files
    assert _pairs(neardup.dedup(list(enumerate(TEXTS)), options=OPTS)) == from_files


def test_paths_stay_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.txt").write_text(TEXTS[0], encoding="utf-8")
    (tmp_path / "b.txt").write_text(TEXTS[1], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for source in (["a.txt", "b.txt"], [Path("a.txt"), Path("b.txt")], ["."]):
        result = neardup.dedup(source, options=OPTS)
        assert [(p.a, p.b) for p in result.pairs] == [("a.txt", "b.txt")], source
    with pytest.raises(InputError):  # one existing path: a list of paths, the missing one named
        neardup.dedup(["a.txt", "missing.txt"], options=OPTS)
    with pytest.raises(InputError):
        neardup.dedup([Path("missing.txt")], options=OPTS)
    with pytest.raises(InputError):  # missing, but a file name: a path, as before
        neardup.dedup(["missing.txt", "a.txt"], options=OPTS)
    with pytest.raises(InputError):
        neardup.dedup(["sub/dir"], options=OPTS)
    # told outright: the file names are texts (two one-word documents: too short)
    told = neardup.dedup(["a.txt", "b.txt"], texts=True, options=OPTS)
    assert told.ids == [] and [s.reason for s in told.skipped] == ["too-short", "too-short"]


def test_a_bad_item_is_named() -> None:
    with pytest.raises(ParameterError, match=r"source\[1\].*got int"):
        neardup.dedup(["some text here", 42], options=OPTS)


def test_pandas_frame_with_and_without_an_id_column(
    from_files: list[tuple[str, str, float, float, float]],
) -> None:
    pd = require("pandas")
    frame = pd.DataFrame({"body": TEXTS, "lang": ["ru"] * 5})
    result = neardup.dedup(frame, text_field="body", options=OPTS)
    assert _pairs(result) == from_files
    out = result.frame
    assert list(out.columns) == ["body", "lang", "cluster", "duplicate_of"]
    assert _values(out["cluster"]) == [0, 0, None, 1, 1]
    assert _values(out["duplicate_of"]) == [None, "0", None, None, "3"]
    assert list(frame.columns) == ["body", "lang"]  # the given frame is not changed
    named = pd.DataFrame({"id": [f"d{i}" for i in range(5)], "text": TEXTS})
    res2 = neardup.dedup(named, options=OPTS)
    assert [(p.a, p.b) for p in res2.pairs] == [("d0", "d1"), ("d3", "d4")]
    assert _values(res2.frame["duplicate_of"]) == [None, "d0", None, None, "d3"]
    with pytest.raises(ParameterError, match=r"text_field='content'.*a column"):
        neardup.dedup(named, text_field="content", options=OPTS)


def test_a_null_text_costs_its_row_only() -> None:
    pd = require("pandas")
    frame = pd.DataFrame({"text": [TEXTS[0], None, TEXTS[1]]})
    result = neardup.dedup(frame, options=OPTS)
    assert [(p.a, p.b) for p in result.pairs] == [("0", "2")]
    assert [(s.id, s.reason) for s in result.skipped] == [("1", "no-text")]
    assert _values(result.frame["cluster"]) == [0, None, 0]


def test_arrow_table(from_files: list[tuple[str, str, float, float, float]]) -> None:
    pa = require("pyarrow")
    table = pa.table({"id": [str(i) for i in range(5)], "text": TEXTS})
    result = neardup.dedup(table, options=OPTS)
    assert _pairs(result) == from_files
    assert result.frame.column("cluster").to_pylist() == [0, 0, None, 1, 1]
    assert result.frame.column("duplicate_of").to_pylist() == [None, "0", None, None, "3"]
    assert result.frame.column_names == ["id", "text", "cluster", "duplicate_of"]


def test_polars_frame(from_files: list[tuple[str, str, float, float, float]]) -> None:
    pl = require("polars")
    result = neardup.dedup(pl.DataFrame({"text": TEXTS}), options=OPTS)
    assert _pairs(result) == from_files
    assert result.frame["cluster"].to_list() == [0, 0, None, 1, 1]


def test_datasets_dataset(from_files: list[tuple[str, str, float, float, float]]) -> None:
    datasets = require("datasets")
    ds = datasets.Dataset.from_dict({"text": TEXTS})
    result = neardup.dedup(ds, options=OPTS)
    assert _pairs(result) == from_files
    assert result.frame["duplicate_of"] == [None, "0", None, None, "3"]


def test_no_frame_without_a_frame() -> None:
    assert neardup.dedup(TEXTS[:2], options=OPTS).frame is None
