"""Hugging Face ``datasets`` folders (``save_to_disk``: ``state.json`` beside Arrow files,
or ``dataset_dict.json`` over split folders), read as the records of their Arrow files
(:mod:`neardup.text.formats.arrow`), in the saved order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


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
