"""Options shared by the commands, defined once: the database, ``--json`` and the options of
:func:`neardup.text.read.read_corpus` (id and text fields, content type, size limit).

Only Typer and typing are imported here: every command module imports this one, and
``neardup --help`` must stay fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db", envvar="NEARDUP_DB", help="Database URL (sqlite:///FILE, postgresql://...)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]

IdFieldOpt = Annotated[str, typer.Option(help="JSONL/CSV id field.")]
TextFieldOpt = Annotated[str, typer.Option(help="JSONL/CSV text field.")]
ContentTypeOpt = Annotated[str, typer.Option(help="auto | text | html | wiki.")]
MaxBytesOpt = Annotated[
    int, typer.Option(help="Skip documents (records) larger than this many bytes.")
]
#: Default of ``--max-bytes`` (the reader's own default).
MAX_BYTES = 20_000_000


def read_options(
    *, id_field: str, text_field: str, content_type: str, max_bytes: int | None = None
) -> dict[str, Any]:
    """The keyword arguments of :func:`neardup.text.read.read_corpus` given by the shared
    read options (``max_bytes`` left out when None)."""
    opts: dict[str, Any] = {
        "id_field": id_field,
        "text_field": text_field,
        "content_type": content_type,
    }
    if max_bytes is not None:
        opts["max_bytes"] = max_bytes
    return opts


def read_inputs(inputs: list[Path], **options: Any) -> Any:
    """``read_corpus`` over the command's INPUT arguments with :func:`read_options`.

    Returns:
        the lazy iterator of :class:`~neardup.text.Document` and
        :class:`~neardup.text.Skipped` items.

    Raises:
        NeardupError: an input does not exist or an option is out of range.
    """
    from neardup.text.read import read_corpus

    return read_corpus([str(p) for p in inputs], **read_options(**options))
