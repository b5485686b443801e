"""``--kept`` for the jobs that cut inside documents: the records with all their fields, the
text field of each changed document rewritten.

The records are selected and written by :mod:`neardup.job.export` (the same selection by id, the
same JSONL and Parquet writers, the same atomic rename). A record whose document lost
nothing is written as ``dedup --kept`` writes it (JSONL lines byte for byte); a record whose
document lost units or spans gets, in its text field, the document's text as neardup read
it (markup removed, for HTML or wiki) less what was cut; a record whose document lost all
its text is left out. The new texts wait in a temporary SQLite file (:class:`Rewrites`), so
memory does not grow with the corpus.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import tempfile
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from neardup.job import export
from neardup.text.inputs import Spool, resolve_inputs
from neardup.text.units import ReadOptions


class Rewrites:
    """New texts by document id, in a temporary SQLite file (deleted on :meth:`close`).

    Args:
        spill_dir: directory of the file (None: the system's temporary directory).
    """

    def __init__(self, *, spill_dir: str | None = None) -> None:
        fd, self._path = tempfile.mkstemp(prefix="neardup-rewrites-", suffix=".db", dir=spill_dir)
        os.close(fd)
        self._db = sqlite3.connect(self._path)
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute("CREATE TABLE t (id TEXT PRIMARY KEY, text TEXT) WITHOUT ROWID")
        self.count = 0

    def put(self, doc_id: str, text: str) -> None:
        """Record ``text`` as the new text of ``doc_id`` (the first one given wins)."""
        cur = self._db.execute("INSERT OR IGNORE INTO t VALUES (?, ?)", (doc_id, text))
        self.count += cur.rowcount

    def get(self, doc_id: str) -> str | None:
        """The new text of ``doc_id``, or None when it was not rewritten."""
        row = self._db.execute("SELECT text FROM t WHERE id = ?", (doc_id,)).fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        """Delete the file."""
        self._db.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._path)


class _Recorder:
    """The id set handed to the export's selection: records, in order, each id it lets
    through (the export asks once per record, in the order it writes them)."""

    def __init__(self, ids: set[str]) -> None:
        self._ids = ids
        self._seen: set[str] = set()
        self.order: deque[str] = deque()

    def __contains__(self, doc_id: object) -> bool:
        if doc_id in self._ids and doc_id not in self._seen:
            assert isinstance(doc_id, str)
            self._seen.add(doc_id)
            self.order.append(doc_id)
            return True
        return False


def write_kept(
    inputs: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    ids: set[str],
    options: ReadOptions,
    rewrites: Rewrites,
    *,
    named_with: Sequence[Path] = (),
) -> int:
    """Write the records of ``inputs`` whose id is in ``ids`` to ``out``, the text field of
    those in ``rewrites`` replaced; ``named_with``: the other inputs the job read (a second
    corpus), for the ids' common parent (:func:`neardup.text.inputs.group_names`).

    Returns:
        The number of records written.

    Raises:
        ParameterError: a bad output name. OSError: the output cannot be written.
    """
    export.output_format(out)
    spool = Spool()
    try:
        paths = resolve_inputs([os.fspath(p) for p in inputs], spool)
        recorder = _Recorder(ids)
        selected = export.select_batches(paths, recorder, options, named_with=named_with)
        return export.write_batches(
            out, _rewritten(selected, recorder, rewrites, options.text_field)
        )
    finally:
        spool.close()


def _rewritten(
    batches: Iterator[tuple[str, Any]], recorder: _Recorder, rewrites: Rewrites, field: str
) -> Iterator[tuple[str, Any]]:
    for kind, data in batches:
        n = data.num_rows if kind == "arrow" else len(data)
        ids = [recorder.order.popleft() for _ in range(n)]
        texts = [rewrites.get(i) for i in ids]
        if all(t is None for t in texts):
            yield kind, data
        elif kind == "lines":
            yield kind, [_line(line, t, field) for line, t in zip(data, texts, strict=True)]
        elif kind == "rows":
            key = field if data and field in data[0] else "text"
            yield (
                kind,
                [r if t is None else {**r, key: t} for r, t in zip(data, texts, strict=True)],
            )
        else:
            yield kind, _arrow(data, texts, field)


def _line(line: bytes, text: str | None, field: str) -> bytes:
    if text is None:
        return line
    obj = json.loads(line)
    obj[field] = text
    return export.record_line(obj)


def _arrow(batch: Any, texts: list[str | None], field: str) -> Any:
    import pyarrow as pa

    names = batch.schema.names
    at = names.index(field)
    old = batch.column(at).to_pylist()
    new = pa.array([o if t is None else t for o, t in zip(old, texts, strict=True)])
    columns = [batch.column(i) for i in range(batch.num_columns)]
    columns[at] = new.cast(batch.schema.field(at).type)
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema)
