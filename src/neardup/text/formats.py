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


def datasets_files(root: Path) -> Iterator[tuple[Path, str]]:
    """``(arrow file, id prefix)`` of a ``datasets`` folder, in the saved order."""
    if (root / "dataset_dict.json").is_file():
        splits = json.loads((root / "dataset_dict.json").read_text("utf-8")).get("splits", [])
        for split in splits:
            yield from datasets_files(root / split)
        return
    state = json.loads((root / "state.json").read_text("utf-8"))
    for entry in state.get("_data_files", []):
        name = entry["filename"]
        yield root / name, f"{root.name}/{name}"
