"""Issue 41 item 11: ``neardup.compare`` takes ``str | Path | Document`` as ``dedup`` does
(a ``Path`` is read as a file; a string naming an existing path is refused, not compared
as text), and ``Index.add`` takes what ``dedup`` takes (texts, ``(id, text)`` pairs,
documents, paths)."""

from __future__ import annotations

from pathlib import Path

import pytest

import neardup
from neardup.errors import InputError, ParameterError
from neardup.index.memory import Index
from neardup.text.types import Document

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"
VANKA = CORPUS / "chekhov" / "Ванька.txt"
WEB_VANKA = CORPUS / "web" / "vanka.html"


def test_compare_reads_a_path_and_takes_a_document() -> None:
    by_path = neardup.compare(VANKA, WEB_VANKA)
    text = VANKA.read_text(encoding="utf-8")
    assert by_path.resemblance > 0.9  # the story and its web page, markup removed
    same = neardup.compare(Document("a", text), VANKA)
    assert same.resemblance == 1.0 and same.tokens_a == same.tokens_b == 757


def test_compare_refuses_a_string_that_names_an_existing_path(tmp_path: Path) -> None:
    a, b = tmp_path / "a.rst", tmp_path / "b.rst"
    a.write_text("One two three four five six seven.", encoding="utf-8")
    b.write_text("One two three four five six seven.", encoding="utf-8")
    with pytest.raises(ParameterError) as err:
        neardup.compare(str(a), str(b))
    assert err.value.name == "text_a" and "pathlib.Path" in str(err.value)
    assert neardup.compare(a, b).resemblance == 1.0
    assert neardup.compare("a.rst is a name", "a.rst is a name").resemblance == 1.0
    with pytest.raises(InputError, match="not a file"):
        neardup.compare(tmp_path / "missing.rst", a)
    with pytest.raises(ParameterError):
        neardup.compare(b"bytes", "text")  # type: ignore[arg-type]


def test_index_add_takes_pairs_texts_and_paths(tmp_path: Path) -> None:
    text = VANKA.read_text(encoding="utf-8")
    idx = Index()
    report = idx.add([("vanka", text), ("other", "Совсем другой текст о собаках и кошках.")])
    assert report.added == 2 and sorted(idx) == ["other", "vanka"]
    idx2 = Index()
    assert idx2.add([text]).added == 1 and list(idx2) == ["0"]
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "v.txt").write_text(text, encoding="utf-8")
    idx3 = Index()
    assert idx3.add(folder).added == 1 and list(idx3) == ["v.txt"]
    assert [m.doc_id for m in idx3.check(WEB_VANKA.read_text(encoding="utf-8")).matches] == [
        "v.txt"
    ]
    assert [s.reason for s in idx3.add([Document("v.txt", text)]).skipped] == ["exists"]
    with pytest.raises(ParameterError, match=r"source\[0\]"):
        Index().add([42])
    with pytest.raises(InputError, match="does not exist"):  # one string is a path, as in dedup
        Index().add("не путь, а несколько слов текста")
    assert Index().add("несколько слов текста здесь", texts=True).added == 1
