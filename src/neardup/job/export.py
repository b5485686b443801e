"""Write the deduplicated corpus: the kept (or removed) records with all their fields.

``neardup dedup in.parquet --kept out.parquet`` is the whole job of text-dedup or
datatrove users: a second, streaming pass over the inputs writes every record whose
document was kept (``--kept``) or dropped as a near-duplicate (``--removed``), in the
format the output's name asks for:

* ``.jsonl`` / ``.ndjson`` (optionally ``.gz`` or ``.zst``): JSONL input lines are copied
  byte for byte; other records become one JSON object a line with all their fields.
* ``.parquet``: Parquet and Arrow inputs keep their schema (record batches are filtered,
  not rebuilt); records of different fields (JSONL beside text files, Parquet files of
  other columns) share one schema, the union of their fields with a missing field null
  and types unified (a field whose types do not unify is text: :func:`unified_schema`).
* ``.csv`` (optionally ``.gz`` or ``.zst``): a header row and one row a record; CSV input
  keeps its header and every field (a CSV round trip), other records give their fields
  (a nested value as JSON). The header is the first written batch's fields, then each
  field a later record brings (earlier rows get an empty cell there).

Records are matched by document id, read by the same reader as the job, so ids agree. A
record whose id repeats an earlier record's was given its place (``FILE:LINE``) as id by
the job (:class:`neardup.text.units.UniqueIds`), so a record is taken when its own id or
its place is wanted, each wanted id once: every kept record is written, with its original
fields (and id) unchanged; a record that does not hold the id the job gave it (renamed,
or without an id field) gets that id in one more field, :data:`ID_FIELD`, so every id the
job's outputs name is found in the written records. Documents that
were skipped (too short, empty, unreadable...) are in neither output: they are listed in
``skipped.jsonl``. Document files (a directory of ``.txt``/``.html``/``.pdf``...) become
records ``{"id", "text", "source"}`` with the clean text.

Each output is written to a temporary name and renamed into place when complete.
"""

from __future__ import annotations

import glob
import gzip
import json
import os
import re
import sys
import tempfile
from collections.abc import Container, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import IO, Any, Literal

from neardup.errors import ParameterError
from neardup.progress import NullProgress, Progress
from neardup.text.formats import Format, format_named, format_of
from neardup.text.formats.datasets import DatasetsEntryError, datasets_files, is_datasets_folder
from neardup.text.formats.format import Batch
from neardup.text.formats.jsonl import loads_record
from neardup.text.inputs import (
    InputRepeats,
    Spool,
    group_names,
    planned_bytes,
    resolve_inputs,
    walk,
)
from neardup.text.read import read_unit
from neardup.text.types import Document
from neardup.text.units import BATCH_ROWS, READ_ERRORS, FilesUnit, ReadOptions, field_of, file_size

OutputFormat = Literal["jsonl", "parquet", "csv"]
#: Document files read at once when their records are written.
_FILES = 64
_JSONL = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz", ".jsonl.zst", ".ndjson.zst")
_CSV = (".csv", ".csv.gz", ".csv.zst")


def output_format(path: str | os.PathLike[str]) -> OutputFormat:
    """The format an output path asks for.

    Raises:
        ParameterError: a name that is neither JSONL nor Parquet.
    """
    name = Path(path).name.lower()
    if name.endswith(_JSONL):
        return "jsonl"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith(_CSV):
        return "csv"
    raise ParameterError(
        "output", os.fspath(path), "a .jsonl[.gz|.zst], .csv[.gz|.zst] or .parquet file name"
    )


def export_records(
    inputs: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    ids: set[str],
    options: ReadOptions,
    *,
    progress: Progress | None = None,
    stage: str = "write",
    named_with: Sequence[str | os.PathLike[str]] = (),
) -> int:
    """Write the records of ``inputs`` whose document id is in ``ids`` to ``out``.

    Args:
        inputs: the job's inputs (standard input cannot be read twice: pass the spooled
            copy, see :func:`neardup.text.inputs.resolve_inputs`).
        out: the output path; its name decides the format (:func:`output_format`).
        ids: the document ids to write.
        options: the read options the job used (same ids).
        progress: receives the stage ``stage``, in bytes of the inputs read again (the
            planned total: :func:`neardup.text.inputs.planned_bytes`).
        stage: the name of that stage (the CLI's ``kept`` and ``removed`` bars).
        named_with: inputs the job read before ``inputs`` and that are not read here
            (``dedup B --against A``: A), for the ids' common parent
            (:func:`neardup.text.inputs.group_names`).

    Returns:
        The number of records written.

    Raises:
        ParameterError: a bad output name.
        OSError: the output cannot be written.
    """
    fmt = output_format(out)
    spool = Spool()
    try:
        paths = resolve_inputs([os.fspath(p) for p in inputs], spool)
        others = [Path(os.fspath(p)) for p in named_with]
        names = group_names([others, paths])[1]
        prog = progress or NullProgress()
        prog.start(stage, planned_bytes(paths, options), unit="bytes")
        batches = _selected(paths, ids, options, names, partial(prog.advance, stage))
        n = _WRITERS[fmt](Path(out), batches)
        prog.finish(stage)
        return n
    finally:
        spool.close()


def field_values(
    inputs: Sequence[str | os.PathLike[str]],
    ids: Container[str],
    field: str,
    options: ReadOptions,
) -> dict[str, Any]:
    """The value of one field of each record of ``inputs`` whose document id is in ``ids``
    (the keep-by field of :class:`neardup.job.pipeline.DedupOptions`), read by the same streaming
    pass as :func:`export_records`.

    Args:
        inputs: the job's inputs (local paths; standard input spooled, as for
            :func:`export_records`).
        ids: the job's document ids wanted.
        field: a field name; ``a.b`` reaches field ``b`` of the object in field ``a`` when
            no field is named ``a.b``. Document files have ``id``, ``text``, ``source`` and
            ``mtime`` (the file's modification time, POSIX seconds).
        options: the job's read options (same ids).

    Returns:
        ``{id: value}`` for every wanted record read (value None when it has no such field).
    """
    want = _Want(ids, record=True, file_mtime=True)
    spool = Spool()
    out: dict[str, Any] = {}
    try:
        paths = resolve_inputs([os.fspath(p) for p in inputs], spool)
        for kind, data in _selected(paths, ids, options, group_names([paths])[0], want=want):
            keys = want.matched or []  # the batch's records' ids, in order
            out.update(zip(keys, _field_of(kind, data, field), strict=True))
            keys.clear()
    finally:
        spool.close()
    return out


def _field_of(kind: str, data: Any, field: str) -> list[Any]:
    """``field`` of each record of a selected batch."""
    if kind == "arrow":
        names = data.schema.names
        top = field if field in names else field.split(".", 1)[0]
        if top not in names:
            return [None] * data.num_rows
        column = data.column(names.index(top)).to_pylist()
        return [field_of({top: v}, field) for v in column]
    rows = [json.loads(x) for x in data] if kind == "lines" else data
    return [field_of(r, field) for r in rows]


#: The columns a marked output adds to every record (:func:`export_marked`).
MARK_COLUMNS: tuple[str, ...] = ("cluster", "duplicate_of")


def export_marked(
    inputs: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    marks: dict[str, tuple[int | None, str | None]],
    options: ReadOptions,
) -> int:
    """Mark, don't drop: write every record of ``inputs`` that the job read (the documents
    and the skipped records that could be read) to ``out`` with two fields added (replacing
    fields of those names): ``cluster``, the number of its cluster (null for a record in no
    cluster), and ``duplicate_of``, the id of its cluster's kept document for a record the
    job would drop (null for the kept one and for records in no cluster). The same columns
    as :func:`neardup.frames.annotate` adds to a DataFrame; text-dedup's
    ``skip_filtering`` and NeMo Curator's duplicate groups give the same choice.

    Args:
        inputs, options: as for :func:`export_records`.
        out: the output path (``.jsonl[.gz|.zst]`` or ``.parquet``).
        marks: ``{id: (cluster, duplicate_of)}`` for every record to write
            (:meth:`neardup.job.pipeline.DedupResult.marks`).

    Returns:
        The number of records written.

    Raises:
        ParameterError: a bad output name. OSError: the output cannot be written.
    """
    fmt = output_format(out)
    want = _Want(marks, record=True)
    spool = Spool()
    try:
        paths = resolve_inputs([os.fspath(p) for p in inputs], spool)
        selected = _selected(paths, marks, options, group_names([paths])[0], want=want)
        return _WRITERS[fmt](Path(out), _marked(selected, want, marks))
    finally:
        spool.close()


def _marked(
    batches: Iterator[Batch], want: _Want, marks: dict[str, tuple[int | None, str | None]]
) -> Iterator[Batch]:
    """``batches`` with the mark columns added: rows of dicts, or record batches."""
    import pyarrow as pa

    for kind, data in batches:
        keys = want.matched or []
        taken = [marks[k] for k in keys]
        keys.clear()
        clusters = [c for c, _ in taken]
        dups = [d for _, d in taken]
        if kind == "arrow":
            keep = [n for n in data.schema.names if n not in MARK_COLUMNS]
            table = pa.Table.from_batches([data]).select(keep)
            table = table.append_column("cluster", pa.array(clusters, pa.int64()))
            table = table.append_column("duplicate_of", pa.array(dups, pa.string()))
            yield ("arrow", table.combine_chunks().to_batches()[0])
            continue
        rows = [json.loads(x) for x in data] if kind == "lines" else data
        marked = [
            {
                **{k: v for k, v in r.items() if k not in MARK_COLUMNS},
                "cluster": c,
                "duplicate_of": d,
            }
            for r, c, d in zip(rows, clusters, dups, strict=True)
        ]
        yield ("marked", marked)


class _Want:
    """Whether a record is wanted, by its id or its place (each wanted id once).

    Attributes:
        matched: the wanted key each taken record matched, in the order taken (the job's
            id of the record), when ``record`` is set; file_mtime: document files' rows get
            an ``mtime`` field (the file's modification time, POSIX seconds).
    """

    def __init__(self, ids: Container[str], *, record: bool = False, file_mtime: bool = False):
        self._ids = ids
        self._written: set[str] = set()
        self.matched: list[str] | None = [] if record else None
        self.file_mtime = file_mtime
        #: for each record taken since the last batch: the job's id when the record does
        #: not hold it (:data:`ID_FIELD`), else None
        self.named: list[str | None] = []

    def __call__(self, doc_id: str, place: str | None = None, own: bool = True) -> bool:
        """Whether to take the record whose id is ``doc_id`` (its own id field's value
        when ``own``, else the job's fallback id) found at ``place``."""
        for key in (doc_id, place):
            if key is not None and key in self._ids and key not in self._written:
                self._written.add(key)
                if self.matched is not None:
                    self.matched.append(key)
                self.named.append(None if own and key == doc_id else key)
                return True
        return False


def _selected(
    paths: list[Path],
    ids: Container[str],
    options: ReadOptions,
    names: list[str],
    on_bytes: Any = None,
    *,
    want: _Want | None = None,
) -> Iterator[Batch]:
    """The wanted records of ``paths`` (named ``names``), file by file in the job's order;
    ``on_bytes(n)`` as ``n`` more bytes of the inputs on disk have been read (the progress
    of the write). A record that does not hold the id the job gave it (a repeated id
    renamed ``FILE:LINE``, or no id field) gets that id in the field :data:`ID_FIELD`."""
    want = want or _Want(ids)
    for kind, data in _raw_selected(paths, options, names, on_bytes or _ignore, want):
        named = want.named
        want.named = []
        yield _with_ids(kind, data, named) if any(n is not None for n in named) else (kind, data)


#: The field a written record gets when it does not hold the id the job gave it.
ID_FIELD = "neardup_id"


def _with_ids(kind: str, data: Any, named: list[str | None]) -> Batch:
    """A selected batch whose records get :data:`ID_FIELD` where ``named`` has an id."""
    if kind == "arrow":
        import pyarrow as pa

        batch = data
        if ID_FIELD in batch.schema.names:
            batch = batch.drop_columns([ID_FIELD])
        return ("arrow", batch.append_column(ID_FIELD, pa.array(named, pa.string())))
    if kind == "lines":
        return (
            "lines",
            [_line_with_id(x, n) if n else x for x, n in zip(data, named, strict=True)],
        )
    rows = [{**r, ID_FIELD: n} if n else r for r, n in zip(data, named, strict=True)]
    return (kind, rows)


def _line_with_id(line: bytes, job_id: str) -> bytes:
    """A JSONL object line with the field :data:`ID_FIELD` added at its end, its other bytes
    unchanged (the line decoded and written again when it has that field already)."""
    body = line.rstrip()
    value = json.dumps(job_id, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if b'"' + ID_FIELD.encode() + b'"' in body:
        try:
            obj = loads_record(line, ())
        except ValueError:
            obj = None
        if isinstance(obj, dict) and ID_FIELD in obj:  # not a record too deep to parse
            return _dumps({**{k: v for k, v in obj.items() if k != ID_FIELD}, ID_FIELD: job_id})
    inner = body[:-1].rstrip()
    sep = b"" if inner.endswith(b"{") else b", "
    return inner + sep + b'"' + ID_FIELD.encode() + b'": ' + value + b"}"


def _raw_selected(
    paths: list[Path], options: ReadOptions, names: list[str], done: Any, want: _Want
) -> Iterator[Batch]:
    """:func:`_selected` before the job's ids are added."""
    repeats = InputRepeats()  # a file the job read through an earlier input is passed over
    for arg, (path, name) in enumerate(zip(paths, names, strict=True)):
        again = repeats.of(arg)
        if path.is_dir() and is_datasets_folder(path):
            arrow = format_named("arrow")
            for part in datasets_files(path, name):
                if not isinstance(part, DatasetsEntryError):
                    yield from _file_batches(part[0], part[1], want, options, done, arrow)
        elif path.is_dir():
            files: list[tuple[str, str]] = []
            for entry in walk(path, options, name):
                if isinstance(entry, tuple) and again(*entry) is None:
                    fmt = format_of(entry[0].name)
                    if fmt is None or fmt.select is None:
                        files.append((str(entry[0]), entry[1]))
                        if len(files) >= _FILES:
                            yield from _documents(files, want, options, done)
                            files = []
                        continue
                    yield from _documents(files, want, options, done)
                    files = []
                    yield from _file_batches(entry[0], entry[1], want, options, done, fmt)
            yield from _documents(files, want, options, done)
        else:
            if name == "-" and path.suffix == ".stdin":
                yield from _documents([(str(path), "-")], want, options, done)
            elif again(path, name) is None:
                yield from _file_batches(path, name, want, options, done, format_of(path.name))


def _file_batches(
    path: Path, name: str, want: _Want, options: ReadOptions, done: Any, fmt: Format | None
) -> Iterator[Batch]:
    """The wanted records of one file: by its format's :attr:`~.Format.select`, or as a
    document file's record. A record file that cannot be read (not Parquet, a corrupt
    stream) gives the records read before the damage, as the job read them: the job's
    skip row names the rest, and the other files are written (it ended the output)."""
    if fmt is None or fmt.select is None:
        yield from _documents([(str(path), name)], want, options, done)
        return
    try:
        yield from fmt.select(path, name, want, options, done)
    except READ_ERRORS:  # pyarrow's ArrowInvalid is a ValueError, ArrowIOError an OSError
        return


def _ignore(n: int) -> None:
    """No progress to report."""


def _documents(
    files: list[tuple[str, str]], want: Any, options: ReadOptions, done: Any = _ignore
) -> Iterator[Batch]:
    """Document files as records ``{id, text, source}`` (clean text)."""
    if not files:
        return
    done(sum(file_size(Path(f)) for f, _ in files))
    rows: list[dict[str, Any]] = []
    for item in read_unit(FilesUnit(tuple(files)), options):
        if isinstance(item, Document) and want(item.id, item.source):
            rows.append({"id": item.id, "text": item.text, "source": item.source})
            if getattr(want, "file_mtime", False):
                rows[-1]["mtime"] = _mtime(item.source)
    if rows:
        yield ("rows", rows)


def _mtime(source: str) -> float | None:
    """The modification time of a document file (POSIX seconds), None when it is gone."""
    try:
        return os.stat(source).st_mtime
    except OSError:
        return None


# -- writers -------------------------------------------------------------------------------
@contextmanager
def _atomic(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path``, renamed onto it when the block succeeds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_temporaries(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_temporaries(path: Path) -> int:
    """Remove the temporary files a killed job left beside ``path`` (``.NAME.XXXXXXXX``,
    the names :func:`tempfile.mkstemp` makes for :func:`_atomic`); returns how many."""
    made = re.compile(re.escape(f".{path.name}.") + r"[a-z0-9_]{8}")
    count = 0
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*"):
        if made.fullmatch(tmp.name) and tmp.is_file():
            tmp.unlink(missing_ok=True)
            count += 1
    return count


def _open_text_out(path: Path, final: Path) -> IO[bytes]:
    name = final.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "wb")  # type: ignore[return-value]
    if name.endswith(".zst"):
        import zstandard

        return zstandard.ZstdCompressor().stream_writer(open(path, "wb"), closefd=True)
    return open(path, "wb")


def _open_text_in(path: Path, final: Path) -> IO[bytes]:
    """``path`` written by :func:`_open_text_out` for ``final``, opened for reading."""
    name = final.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if name.endswith(".zst"):
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)
    return open(path, "rb")


def _write_jsonl(out: Path, batches: Iterator[Batch]) -> int:
    count = 0
    with _atomic(out) as tmp, _open_text_out(tmp, out) as f:
        for kind, data in batches:
            if kind == "lines":
                lines = data
            elif kind in ("rows", "marked"):
                lines = [_dumps(r) for r in data]
            else:
                lines = [_dumps(r) for r in data.to_pylist()]
            f.write(b"\n".join(lines) + b"\n")
            count += len(lines)
    return count


def _dumps(row: dict[str, Any]) -> bytes:
    return json.dumps(row, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")


def _write_parquet(out: Path, batches: Iterator[Batch]) -> int:
    """Parquet with one schema for records of different fields (JSONL beside text files,
    Parquet files of other columns): the union of the batches' fields in the order first
    met, a field missing from a record null, types unified (``pyarrow.unify_schemas``,
    permissive: an integer beside a float is a float, null beside anything that type); a
    field whose types do not unify (a number in one file, a list in another) is written as
    text (JSON for a value that is not a string). While every batch has the first one's
    schema they go straight to the file; from the first other schema on they are spooled
    (Arrow IPC beside the output) and the file is written again at the end, in order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    count = 0
    writer = None
    schemas: list[Any] = []  # the spooled tables' schemas, after the first file's
    with _atomic(out) as tmp:
        spool_path = _temporary(out)
        spool: Any = None
        try:
            for kind, data in batches:
                table = _table_of(kind, data)
                count += table.num_rows
                if writer is None:
                    writer = pq.ParquetWriter(tmp, table.schema)
                if spool is None and table.schema.equals(writer.schema):
                    writer.write_table(table)
                    continue
                if spool is None:
                    spool = pa.OSFile(str(spool_path), "wb")
                with pa.ipc.new_stream(spool, table.schema) as stream:
                    stream.write_table(table)
                schemas.append(table.schema)
            if writer is None:  # nothing selected: an empty file with the id/text schema
                schema = pa.schema([("id", pa.string()), ("text", pa.string())])
                writer = pq.ParquetWriter(tmp, schema)
            writer.close()
            if spool is not None:
                spool.close()
                _rewrite_unified(tmp, spool_path, [writer.schema, *schemas], _temporary(out))
        finally:
            if writer is not None:
                writer.close()
            if spool is not None:
                spool.close()
            spool_path.unlink(missing_ok=True)
    return count


def _temporary(out: Path) -> Path:
    """A new empty file beside ``out`` named as :func:`remove_temporaries` finds them."""
    fd, name = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(fd)
    return Path(name)


def _rewrite_unified(tmp: Path, spool_path: Path, schemas: list[Any], final: Path) -> None:
    """Write ``tmp`` (Parquet) again, through ``final``, with the unified schema of
    ``schemas``: its own batches, then the tables spooled in ``spool_path`` (one IPC
    stream each), in order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = unified_schema(schemas)
    try:
        with pq.ParquetWriter(final, schema) as writer:
            for batch in pq.ParquetFile(tmp).iter_batches(batch_size=BATCH_ROWS):
                writer.write_table(conform(pa.Table.from_batches([batch]), schema))
            with pa.memory_map(str(spool_path)) as source:
                for _ in schemas[1:]:
                    writer.write_table(conform(pa.ipc.open_stream(source).read_all(), schema))
        os.replace(final, tmp)
    finally:
        final.unlink(missing_ok=True)


def unified_schema(schemas: Sequence[Any]) -> Any:
    """One Arrow schema for tables of ``schemas``: every field in the order first met,
    nullable, of the types unified by ``pyarrow.unify_schemas`` (permissive promotion), or
    a string where they do not unify."""
    import pyarrow as pa

    types: dict[str, dict[Any, None]] = {}
    for schema in schemas:
        for fld in schema:
            types.setdefault(fld.name, {})[fld.type] = None
    fields = []
    for name, kinds in types.items():
        try:
            parts = [pa.schema([(name, t)]) for t in kinds]
            fld = pa.unify_schemas(parts, promote_options="permissive").field(0)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            fld = pa.field(name, pa.string())
        fields.append(fld.with_nullable(True))
    return pa.schema(fields)


def conform(table: Any, schema: Any) -> Any:
    """``table`` with the fields of ``schema``: a missing field null, a column cast to the
    field's type (as text, JSON for a value that is not a string, where a cast cannot)."""
    import pyarrow as pa

    columns = []
    for fld in schema:
        if fld.name not in table.column_names:
            columns.append(pa.nulls(table.num_rows, fld.type))
            continue
        column = table.column(fld.name)
        if column.type != fld.type:
            try:
                column = column.cast(fld.type)
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
                column = pa.array([_as_text(v) for v in column.to_pylist()], fld.type)
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=schema)


def _as_text(value: Any) -> str | None:
    """A value as a text field: a string as it is, null as null, anything else as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _table_of(kind: str, data: Any) -> Any:
    """A selected batch as an Arrow table."""
    import pyarrow as pa

    if kind == "arrow":
        return pa.Table.from_batches([data])
    rows = [json.loads(x) for x in data] if kind == "lines" else data
    table = _rows_table(rows)
    return _typed_marks(table) if kind == "marked" else table


def _rows_table(rows: list[dict[str, Any]]) -> Any:
    """Records (dicts) as an Arrow table of every field any of them has, in the order first
    met, a field a record lacks null (``pyarrow.Table.from_pylist`` takes the first
    record's fields only); a field whose values have types Arrow cannot hold in one column
    (a number and a string) is a text column (:func:`_as_text`)."""
    import pyarrow as pa

    names = list(dict.fromkeys(k for r in rows for k in r))
    columns = []
    for name in names:
        values = [r.get(name) for r in rows]
        try:
            columns.append(pa.array(values))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            columns.append(pa.array([_as_text(v) for v in values], pa.string()))
    return pa.Table.from_arrays(columns, names=names)


def _write_csv(out: Path, batches: Iterator[Batch]) -> int:
    """CSV with a header row, UTF-8, ``\n`` line ends. The header is the first batch's
    fields, in order, and then each field a later record brings (records of different
    files, the job's id :data:`ID_FIELD`): rows written before it are given an empty cell
    there, by writing the file again at the end when the header grew."""
    import csv
    import io

    count = 0
    header: list[str] | None = None
    known: set[str] = set()  # the header's fields: a set, so a wide record costs its width
    first = 0  # the header's width as written first
    with _atomic(out) as tmp:
        with _open_text_out(tmp, out) as raw:
            f = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogatepass", newline="")
            writer = csv.writer(f, lineterminator="\n")
            for kind, data in batches:
                rows = _batch_rows(kind, data)
                if header is None:
                    header = list(dict.fromkeys(k for r in rows for k in r))
                    known, first = set(header), len(header)
                    writer.writerow(header)
                for row in rows:
                    for k in row:
                        if k not in known:
                            known.add(k)
                            header.append(k)
                    writer.writerow([_csv_value(row.get(k)) for k in header])
                count += len(rows)
            if header is None:  # nothing selected: the header of the id/text schema
                writer.writerow(["id", "text"])
            f.flush()
            f.detach()
        if header is not None and len(header) > first:
            _widen_csv(tmp, out, header)
    return count


def _widen_csv(tmp: Path, out: Path, header: list[str]) -> None:
    """Write the CSV ``tmp`` (compressed as ``out``'s name asks) again with ``header`` in
    place of its first row and every row given empty cells up to its width."""
    import csv
    import io

    wide = _temporary(out)
    try:
        with _open_text_in(tmp, out) as src, _open_text_out(wide, out) as raw:
            reader = csv.reader(io.TextIOWrapper(src, "utf-8", "surrogateescape", newline=""))
            f = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline="")
            writer = csv.writer(f, lineterminator="\n")
            limit = csv.field_size_limit()
            csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
            try:
                next(reader, None)
                writer.writerow(header)
                for row in reader:
                    writer.writerow(row + [""] * (len(header) - len(row)))
            finally:
                csv.field_size_limit(limit)
            f.flush()
            f.detach()
        os.replace(wide, tmp)
    finally:
        wide.unlink(missing_ok=True)


def _batch_rows(kind: str, data: Any) -> list[dict[str, Any]]:
    if kind == "lines":
        return [json.loads(x) for x in data]
    if kind in ("rows", "marked"):
        return list(data)
    return list(data.to_pylist())


def _csv_value(value: Any) -> str:
    """A field as CSV text: strings as they are, None empty, numbers and booleans as JSON
    writes them, nested values as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return json.dumps(value, ensure_ascii=False, default=str)


_WRITERS = {"jsonl": _write_jsonl, "parquet": _write_parquet, "csv": _write_csv}


def _typed_marks(table: Any) -> Any:
    """A marked batch's table with its mark columns typed (a batch of records in no
    cluster has only nulls there, which pyarrow types as null)."""
    import pyarrow as pa

    for name, kind in zip(MARK_COLUMNS, (pa.int64(), pa.string()), strict=True):
        at = table.schema.get_field_index(name)
        table = table.set_column(at, name, table.column(name).cast(kind))
    return table


# -- for the jobs that rewrite the text field (neardup.corpus.rewrite) -----------------------
def select_batches(
    paths: list[Path],
    ids: Container[str],
    options: ReadOptions,
    *,
    named_with: Sequence[Path] = (),
) -> Iterator[tuple[str, Any]]:
    """The records of ``paths`` (resolved inputs) whose id is in ``ids``, as batches
    ``("lines", raw JSONL lines)``, ``("rows", dicts)`` or ``("arrow", a record batch)``, in
    the job's order; ``ids`` is asked once per record, in that order. ``named_with``: other
    inputs the job read, for the ids' common parent (as :func:`export_records`)."""
    names = group_names([list(named_with), paths])[1]
    return _selected(paths, ids, options, names)


def write_batches(out: str | os.PathLike[str], batches: Iterator[tuple[str, Any]]) -> int:
    """Write :func:`select_batches` batches to ``out`` (format by name, renamed into place
    when complete); the number of records written.

    Raises:
        ParameterError: a bad output name. OSError: the output cannot be written.
    """
    return _WRITERS[output_format(out)](Path(out), batches)


def record_line(row: dict[str, Any]) -> bytes:
    """One JSONL line (no newline) of a record, as the JSONL writer writes it."""
    return _dumps(row)
