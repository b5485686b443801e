"""What kind of input a file is, and what markup a field of records holds.

Kinds by file name (a trailing ``.gz``, ``.zst``, ``.bz2`` or ``.xz`` is looked through):

=========== =====================================================================
kind        names
=========== =====================================================================
jsonl       ``.jsonl``, ``.ndjson``, ``.json`` (one object a line)
parquet     ``.parquet``, ``.pq``
csv         ``.csv``
arrow       ``.arrow``, ``.feather``, ``.ipc`` (Arrow IPC file or stream)
pdf         ``.pdf`` (text layer, pypdf)
docx        ``.docx`` (paragraphs and tables, python-docx)
document    :data:`DOCUMENT_SUFFIXES`: one text, HTML or wiki document a file
unknown     anything else: named on the command line it is read as one document; met
            in a directory walk it is a ``unsupported`` skip row
=========== =====================================================================

A Hugging Face ``datasets`` folder (``save_to_disk``: ``state.json`` beside Arrow files, or
``dataset_dict.json`` over split folders) is read as the records of its Arrow files.

The content type of a record's text (``--content-type auto``) is sniffed per record
(:func:`neardup.text.sniff.sniff_content_type`), after a check that costs a few substring
searches: a text holding none of ``<``, ``[[``, ``{{``, ``==``, ``\'\'\'``, ``{|`` cannot be
HTML or wiki by the sniffing rules, so plain text pays nothing for the regular expressions.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

InputKind = Literal["jsonl", "parquet", "csv", "arrow", "pdf", "docx", "document", "unknown"]

#: Document files read one document a file.
DOCUMENT_SUFFIXES: tuple[str, ...] = (
    ".txt", ".text", ".md", ".markdown", ".rst", ".asc", ".adoc", ".asciidoc",
    ".html", ".htm", ".xhtml", ".wiki", ".mediawiki",
)  # fmt: skip
COMPRESSION_SUFFIXES: tuple[str, ...] = (".gz", ".zst", ".bz2", ".xz")
_KINDS: dict[str, InputKind] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".arrow": "arrow",
    ".feather": "arrow",
    ".ipc": "arrow",
    ".pdf": "pdf",
    ".docx": "docx",
    **{s: "document" for s in DOCUMENT_SUFFIXES},
}
#: Kinds that cannot be read through a compression suffix (they need random access).
_SEEKABLE = ("parquet", "arrow", "pdf", "docx")


def strip_compression(name: str) -> str:
    """``name`` (lower case) without one trailing compression suffix."""
    lower = name.lower()
    for suffix in COMPRESSION_SUFFIXES:
        if lower.endswith(suffix):
            return lower[: -len(suffix)]
    return lower


def input_kind(name: str) -> InputKind:
    """The kind of the file called ``name`` (see the module docstring)."""
    base = strip_compression(name)
    suffix = base[base.rfind(".") :] if "." in base else ""
    kind = _KINDS.get(suffix, "unknown")
    if kind in _SEEKABLE and base != name.lower():
        return "unknown"
    return kind


def is_datasets_folder(path: Path) -> bool:
    """Whether ``path`` is a folder written by ``datasets``' ``save_to_disk``."""
    return (path / "state.json").is_file() or (path / "dataset_dict.json").is_file()


@dataclass(frozen=True, slots=True)
class DatasetsEntryError:
    """An entry of a ``datasets`` folder that is not read: ``path`` (shown in the skip
    row), ``name`` (its id) and the ``reason``."""

    path: Path
    name: str
    reason: str


def datasets_files(root: Path, prefix: str = "") -> Iterator[tuple[Path, str] | DatasetsEntryError]:
    """``(arrow file, id prefix)`` of a ``datasets`` folder, in the saved order, and a
    :class:`DatasetsEntryError` for each entry not read: a split or file name that is
    absolute, holds ``..`` or names the folder itself (a split ``"."`` would recurse
    forever), a file that resolves outside ``root``, a malformed ``state.json`` or
    ``dataset_dict.json``. Ids are ``prefix/relative path`` (``root.name/...`` for a plain
    dataset read alone, ``split/...`` for a dict read alone, as before)."""
    top = root.resolve()
    yield from _datasets_files(root, top, prefix, root.name, 0)


def _datasets_files(
    root: Path, top: Path, prefix: str, label: str, depth: int
) -> Iterator[tuple[Path, str] | DatasetsEntryError]:
    meta = root / "dataset_dict.json"
    is_dict = meta.is_file()
    try:
        doc = json.loads((meta if is_dict else root / "state.json").read_text("utf-8"))
        names = doc.get("splits", []) if is_dict else doc.get("_data_files", [])
        if not isinstance(names, list):
            raise ValueError("not a list")
    except (OSError, ValueError, AttributeError) as exc:
        yield DatasetsEntryError(root, prefix or label, f"bad datasets metadata: {exc}")
        return
    for entry in names:
        name = entry if is_dict else (entry.get("filename") if isinstance(entry, dict) else None)
        target = _inside(root, top, name, want_dir=is_dict)
        shown = f"{prefix}/{name}" if prefix else (str(name) if is_dict else f"{label}/{name}")
        if isinstance(target, str):
            yield DatasetsEntryError(root, shown, target)
        elif is_dict:
            if depth >= 1:
                yield DatasetsEntryError(target, shown, "a split that is itself a dictionary")
            else:
                inner = shown if prefix else ""
                yield from _datasets_files(target, top, inner, str(name), depth + 1)
        else:
            yield target, shown


def _inside(root: Path, top: Path, name: object, *, want_dir: bool) -> Path | str:
    """``root / name`` if it is a plain relative name that stays inside ``top`` and is not
    ``top`` itself, else the reason it is refused."""
    if not isinstance(name, str) or not name:
        return f"entry {name!r} is not a file name"
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts or rel.parts in ((), (".",)):
        return f"entry {name!r} leaves the datasets folder or names it again"
    target = root / rel
    try:
        real = target.resolve()
    except (OSError, RuntimeError) as exc:
        return f"entry {name!r}: {exc}"
    if real == top or not real.is_relative_to(top):
        return f"entry {name!r} leaves the datasets folder or names it again"
    if want_dir != real.is_dir():
        return f"entry {name!r} is not a {'folder' if want_dir else 'file'}"
    return target
