"""What :func:`neardup.dedup` accepts besides input paths: texts, documents, ``(id, text)``
pairs, data frames and tables.

:func:`adapt_source` turns a ``source`` into :class:`~neardup.text.types.Document` objects
(or ``None`` when ``source`` is input paths or already documents, which ``dedup`` reads as
before). Accepted:

* an iterable of ``str``: the texts themselves, ids ``"0"``, ``"1"``, ... (positions);
* an iterable of :class:`~neardup.text.types.Document`;
* an iterable of ``(id, text)`` pairs (ids converted with ``str``);
* a pandas or polars ``DataFrame``, a ``pyarrow.Table`` or a Hugging Face
  ``datasets.Dataset``: the ``text_field`` column (default ``"text"``) holds the texts,
  the ``id_field`` column (default ``"id"``) the ids; without that column, the row
  positions ``"0"``, ``"1"``, ... are the ids. A row whose text is missing (null) or not
  a string is skipped (``no-text``, in ``DedupResult.skipped``); it costs that row only.

Paths or texts? A list of ``str`` was always read as input paths, so it still is when any
item is an ``os.PathLike`` (``pathlib.Path``), or when its first string names an existing
file or directory or looks like a path (``-``, or one word with a ``/`` or a file extension
such as ``notes.txt``): a missing path is then the usual
:class:`~neardup.errors.InputError`, as before. Otherwise the strings are texts. Only the
first string is looked up on the file system, so a million texts cost one ``stat``.
``texts=True`` (or ``False``) says it outright, for texts that could be file names.

Given a frame or table, :func:`annotate` gives it back with two columns added (replacing
columns of those names): ``cluster`` (the cluster number, null for a row in no cluster)
and ``duplicate_of`` (the id of the kept document of its cluster for a dropped row, else
null); ``dedup`` sets it as ``DedupResult.frame``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from neardup.errors import InputError, ParameterError
from neardup.options import OPTIONS
from neardup.text.types import Document, Skipped
from neardup.text.units import UniqueIds, field_of

#: A file extension at the end of a one-word string (``notes.txt``, ``dump.jsonl.gz``).
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
#: Strings longer than this, or holding a line break, are texts without asking the file system.
_PATH_LIMIT = 4096


class DocumentStream(Iterable[Document | Skipped]):
    """Documents already adapted: :func:`adapt_source` passes them through as they are."""

    def __init__(self, items: Iterable[Document | Skipped]) -> None:
        self._items = items

    def __iter__(self) -> Iterator[Document | Skipped]:
        return iter(self._items)


@dataclass(frozen=True, eq=False)
class Adapted:
    """A source turned into documents.

    Attributes:
        documents: documents (and :class:`~neardup.text.types.Skipped` rows) in input order.
        frame: the frame or table given, or None.
        row_ids: per row of ``frame``, the id its document got (None without a frame).
        text_field: the frame's text column.
    """

    documents: DocumentStream
    frame: Any = None
    row_ids: tuple[str, ...] | None = None
    text_field: str = OPTIONS["text_field"].default

    def field_reader(self, field: str) -> Callable[[set[str]], dict[str, Any]]:
        """The keep-by reader of a frame's column ``field`` (``a.b``: field ``b`` of the
        structs or dicts in column ``a``): ``(wanted ids) -> {id: value}``, ids as the
        job gives them (a repeated id becomes the row's place, ``pandas row 7``).

        Raises:
            ParameterError: no frame (texts and documents have no fields), or no such
                column.
        """
        if self.frame is None or self.row_ids is None:
            raise ParameterError(
                "keep_by",
                field,
                "given with input paths or a DataFrame/Table (documents and texts have no "
                "fields to keep by)",
            )
        kind = _frame_kind(self.frame) or "arrow"
        names, column = _columns(self.frame, kind)
        top = field if field in names else field.split(".", 1)[0]
        if top not in names:
            raise ParameterError("keep_by", field, f"a column of the table: {names}")
        values = [field_of({top: v}, field) for v in column(top)]
        ids = _job_ids(self.row_ids, column(self.text_field), kind)
        return lambda wanted: {i: v for i, v in zip(ids, values, strict=True) if i in wanted}

    def finish(self, result: Any) -> Any:
        """``result`` with ``frame`` set to the annotated frame (when one was given)."""
        if self.frame is not None and self.row_ids is not None:
            result.frame = annotate(self.frame, result, row_ids=self.row_ids)
        return result


def _job_ids(row_ids: Sequence[str], texts: list[Any], kind: str) -> list[str]:
    """The ids the job gives a frame's rows, in row order (the corpus-wide rule of
    :class:`neardup.text.units.UniqueIds`: a repeated id becomes the row's place; a row
    without a text is skipped, its id counting as seen)."""
    unique, out = UniqueIds(), []
    for i, (doc_id, text) in enumerate(zip(row_ids, texts, strict=True)):
        if isinstance(text, str):
            out.append(unique.claim(doc_id, f"{kind} row {i}"))
        else:
            unique.note(doc_id)
            out.append(doc_id)
    return out


def adapt_source(
    source: Any,
    *,
    texts: bool | None = None,
    id_field: str = OPTIONS["id_field"].default,
    text_field: str = OPTIONS["text_field"].default,
) -> Adapted | None:
    """Documents for ``source``, or None when ``source`` is input paths or a sequence of
    documents (what :func:`neardup.dedup` read before).

    Args:
        source: see the module docstring.
        texts: True: strings are texts; False: strings are paths; None: decide (module
            docstring).
        id_field, text_field: column names in a frame or table.

    Raises:
        ParameterError: ``text_field`` is not a column; an item that is neither a string,
            a Document nor an ``(id, text)`` pair (the message names its position and type).
    """
    for name, value in (("id_field", id_field), ("text_field", text_field)):
        if not isinstance(value, str) or not value:
            raise ParameterError(name, value, "a non-empty column name")
    if texts is not None and not isinstance(texts, bool):
        raise ParameterError("texts", texts, "True, False or None")
    if isinstance(source, DocumentStream):
        return None
    kind = _frame_kind(source)
    if kind is not None:
        return _from_frame(source, kind, id_field, text_field)
    if isinstance(source, str | os.PathLike):  # one string: a text only when told so
        return Adapted(DocumentStream([Document("0", os.fspath(source))])) if texts else None
    if isinstance(source, Sequence):
        if not source or texts is False or _all_documents(source):
            return None
        if texts is None and _are_paths(source):
            return None
        return Adapted(DocumentStream(_documents(source, texts=True)))
    return Adapted(DocumentStream(_documents(source, texts=texts is not False)))


def documents_of(
    source: Any,
    *,
    texts: bool | None = None,
    id_field: str = OPTIONS["id_field"].default,
    text_field: str = OPTIONS["text_field"].default,
) -> Iterable[Document | Skipped]:
    """The documents of any source :func:`neardup.dedup` takes (module docstring): texts,
    documents, ``(id, text)`` pairs, frames and tables as :func:`adapt_source` adapts them,
    and input paths (one path, or a sequence of them) read by
    :func:`neardup.text.read.read_corpus` with its defaults.

    Returns:
        Documents and skip rows, in input order (read lazily).

    Raises:
        ParameterError: as :func:`adapt_source`. InputError: a missing input path (when
            read).
    """
    adapted = adapt_source(source, texts=texts, id_field=id_field, text_field=text_field)
    if adapted is not None:
        return adapted.documents
    if isinstance(source, DocumentStream):
        return source
    if isinstance(source, Sequence) and not isinstance(source, str) and _all_documents(source):
        return source
    from neardup.text.read import read_corpus

    return read_corpus(source)


def names_path(text: str) -> bool:
    """True when ``text`` (one line, at most 4,096 characters) names an existing file or
    directory: one ``stat``."""
    return _names_path(text)


def _all_documents(items: Sequence[Any]) -> bool:
    return all(isinstance(x, Document) for x in items)


def _are_paths(items: Sequence[Any]) -> bool:
    """The compatibility rule (module docstring): all str/PathLike, and some PathLike, or
    the first string names an existing path or looks like one."""
    if not all(isinstance(x, str | os.PathLike) for x in items):
        return False
    if any(isinstance(x, os.PathLike) for x in items):
        return True
    first = items[0]
    return _names_path(first) or _looks_like_path(first)


def _names_path(text: str) -> bool:
    if len(text) > _PATH_LIMIT or "\n" in text or not text.strip():
        return False
    return os.path.exists(text)


def _looks_like_path(text: str) -> bool:
    """``-`` (standard input), or one word with a directory separator or a file extension."""
    if text == "-":
        return True
    if len(text) > _PATH_LIMIT or any(c.isspace() for c in text):
        return False
    return "/" in text or os.sep in text or _EXTENSION.search(text) is not None


def _documents(items: Iterable[Any], *, texts: bool) -> Iterator[Document | Skipped]:
    for i, item in enumerate(items):
        if isinstance(item, Document | Skipped):  # a reader's stream: skip rows pass through
            yield item
        elif isinstance(item, str) and texts:
            yield Document(str(i), item)
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], str):
            yield Document(str(item[0]), item[1])
        else:
            raise ParameterError(
                f"source[{i}]",
                _short(item),
                f"a text (str), a Document or an (id, text) pair; got {type(item).__name__}",
            )


def _short(item: Any) -> str:
    text = repr(item)
    return text if len(text) <= 60 else text[:57] + "..."


# -- frames and tables -----------------------------------------------------------------------
def _frame_kind(source: Any) -> str | None:
    """``pandas``, ``polars``, ``arrow`` or ``datasets`` for such an object, else None
    (by the class's module: none of these packages is imported here)."""
    kinds = {
        ("pandas", "DataFrame"): "pandas",
        ("polars", "DataFrame"): "polars",
        ("pyarrow", "Table"): "arrow",
        ("datasets", "Dataset"): "datasets",
    }
    for cls in type(source).__mro__:
        package = cls.__module__.split(".", 1)[0]  # pandas says "pandas", not pandas.core...
        kind = kinds.get((package, cls.__name__))
        if kind is not None:
            return kind
    return None


def _columns(frame: Any, kind: str) -> tuple[list[str], Callable[[str], list[Any]]]:
    if kind == "pandas":
        return [str(c) for c in frame.columns], lambda c: frame[c].tolist()
    if kind == "polars":
        return list(frame.columns), lambda c: frame[c].to_list()
    if kind == "arrow":
        return list(frame.column_names), lambda c: frame.column(c).to_pylist()
    return list(frame.column_names), lambda c: list(frame[c])


def _from_frame(frame: Any, kind: str, id_field: str, text_field: str) -> Adapted:
    names, column = _columns(frame, kind)
    if text_field not in names:
        raise ParameterError("text_field", text_field, f"a column of the table: {names}")
    values = column(text_field)
    ids = (
        [str(v) for v in column(id_field)]
        if id_field in names
        else [str(i) for i in range(len(values))]
    )
    return Adapted(DocumentStream(_rows(ids, values, kind)), frame, tuple(ids), text_field)


def _rows(ids: list[str], values: list[Any], kind: str) -> Iterator[Document | Skipped]:
    for i, (doc_id, text) in enumerate(zip(ids, values, strict=True)):
        if isinstance(text, str):
            yield Document(doc_id, text, source=f"{kind} row {i}")
        else:
            detail = f"the text is {type(text).__name__}, not a string"
            yield Skipped(doc_id, f"{kind} row {i}", "no-text", detail)


def annotate(frame: Any, result: Any, *, row_ids: Sequence[str]) -> Any:
    """``frame`` with ``cluster`` and ``duplicate_of`` columns (module docstring).

    Args:
        frame: the pandas/polars DataFrame, pyarrow Table or datasets.Dataset given to dedup.
        result: its :class:`~neardup.job.pipeline.DedupResult`.
        row_ids: per row of ``frame``, its document id.

    Returns:
        A new frame of the same kind (the given one is not changed).

    Raises:
        InputError: ``frame`` is none of the accepted kinds.
    """
    kind = _frame_kind(frame)
    cluster_of = {m: c.cluster for c in result.clusters for m in c.members}
    kept_of = {d.id: d.kept for d in result.dropped}
    clusters = [cluster_of.get(i) for i in row_ids]
    dups = [kept_of.get(i) for i in row_ids]
    if kind == "pandas":
        import pandas as pd

        return frame.assign(
            cluster=pd.array(clusters, dtype="Int64"), duplicate_of=pd.array(dups, dtype="string")
        )
    if kind == "polars":
        import polars as pl

        return frame.with_columns(
            pl.Series("cluster", clusters, dtype=pl.Int64),
            pl.Series("duplicate_of", dups, dtype=pl.String),
        )
    if kind == "arrow":
        import pyarrow as pa

        keep = [c for c in frame.column_names if c not in ("cluster", "duplicate_of")]
        table = frame.select(keep)
        table = table.append_column("cluster", pa.array(clusters, pa.int64()))
        return table.append_column("duplicate_of", pa.array(dups, pa.string()))
    if kind == "datasets":
        old = [c for c in ("cluster", "duplicate_of") if c in frame.column_names]
        ds = frame.remove_columns(old) if old else frame
        return ds.add_column("cluster", clusters).add_column("duplicate_of", dups)
    raise InputError(f"cannot annotate a {type(frame).__name__}: not a DataFrame or Table")
