"""Options shared by the commands, defined once: the database, ``--json``, the options of
:func:`neardup.text.read.read_corpus` (id and text fields, content type, size limit) and the
canonical-form options of ``dedup``, ``compare``, ``evaluate`` and ``collection create``
(a user's stop words, stop symbols, a paper's preset); and the job and collection options
(``--measure``, ``--threshold``, ``--decision``, ``--min-tokens``, ``--keep``,
``--keep-order``), a check's (``--limit``, ``--top``), an add's (``--batch-size``) and the
read options' help and defaults, with help texts and defaults from their one declaration,
:data:`neardup.options.OPTIONS`. Their values are checked there too (by
``DedupOptions``, ``Store.create_collection``...): a bad one exits 2 with the library's
message.

Only Typer, typing and that declaration (no numpy) are imported here: every command module
imports this one, and ``neardup --help`` must stay fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from neardup.options import OPTIONS

DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db", envvar="NEARDUP_DB", help="Database URL (sqlite:///FILE, postgresql://...)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")]


def _help(name: str) -> str:
    return str(OPTIONS[name].help)


IdFieldOpt = Annotated[str, typer.Option(help=_help("id_field"))]
TextFieldOpt = Annotated[str, typer.Option(help=_help("text_field"))]
ContentTypeOpt = Annotated[str, typer.Option(help=_help("content_type"))]
MaxBytesOpt = Annotated[int, typer.Option(help=_help("max_bytes"))]
#: The defaults of the read options (the declaration's, :func:`neardup.text.read.read_corpus`'s).
ID_FIELD: str = OPTIONS["id_field"].default
TEXT_FIELD: str = OPTIONS["text_field"].default
CONTENT_TYPE: str = OPTIONS["content_type"].default
MAX_BYTES: int = OPTIONS["max_bytes"].default
IncludeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--include",
        metavar="GLOB",
        help="Read only the files of input folders matching this pattern (repeatable; "
        "'*' matches '/' too; a pattern without '/' matches the file name).",
    ),
]
ExcludeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude", metavar="GLOB", help="Leave out the files matching this (repeatable)."
    ),
]
RecursiveOpt = Annotated[
    bool,
    typer.Option(
        "--recursive/--no-recursive", help="Walk the subfolders of input folders (default)."
    ),
]
LimitOpt = Annotated[
    int | None,
    typer.Option(
        "--limit",
        metavar="N",
        help="Read the first N records only (documents and skipped ones, in input order).",
    ),
]


def read_options(
    *,
    id_field: str,
    text_field: str,
    content_type: str,
    max_bytes: int | None = None,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    recursive: bool = True,
    limit: int | None = None,
) -> dict[str, Any]:
    """The keyword arguments of :func:`neardup.text.read.read_corpus` given by the shared
    read options (``max_bytes`` and the file selection left out when not given)."""
    opts: dict[str, Any] = {
        "id_field": id_field,
        "text_field": text_field,
        "content_type": content_type,
    }
    if max_bytes is not None:
        opts["max_bytes"] = max_bytes
    if include:
        opts["include"] = tuple(include)
    if exclude:
        opts["exclude"] = tuple(exclude)
    if not recursive:
        opts["recursive"] = False
    if limit is not None:
        opts["limit"] = limit
    return opts


def check_fields(inputs: list[str] | list[Path], options: dict[str, Any]) -> None:
    """Refuse, before anything is read or written, a ``--text-field`` (or a ``--id-field``
    other than ``id``) that the first record file of ``inputs`` does not have
    (:func:`neardup.text.inputs.check_fields`; ``options``: ``read_corpus`` keywords).

    Raises:
        ParameterError: the field, the file and the fields it has, in one line.
    """
    from neardup.text.inputs import check_fields as check
    from neardup.text.read import read_options as make_read_options

    opts = make_read_options(**options)
    check([str(p) for p in inputs], opts, check_id=opts.id_field != "id")


def read_inputs(inputs: list[Path], **options: Any) -> Any:
    """``read_corpus`` over the command's INPUT arguments with :func:`read_options`, after
    :func:`check_fields`.

    Returns:
        the lazy iterator of :class:`~neardup.text.Document` and
        :class:`~neardup.text.Skipped` items.

    Raises:
        NeardupError: an input does not exist, an option is out of range, or the text
            field is not a field of the first record file.
    """
    from neardup.text.read import read_corpus

    opts = read_options(**options)
    check_fields(inputs, opts)
    return read_corpus([str(p) for p in inputs], **opts)


StopOpt = Annotated[
    str | None,
    typer.Option(
        "--stop-words",
        metavar="FILE|snowball",
        help="Drop these stop words: a file with one word a line, or 'snowball' (the Russian "
        "and English lists). Default: the method's canonical form.",
    ),
]
NoStopOpt = Annotated[
    bool, typer.Option("--no-stop-words", help="Keep every word (no stop-word list).")
]
StopSymOpt = Annotated[
    str | None,
    typer.Option(
        "--stop-symbols",
        help="Split words at whitespace and strip these characters from their ends "
        "(Rodnenko 2009's canonize; \\n, \\r, \\t understood), instead of taking runs of "
        "letters and digits.",
    ),
]
PresetOpt = Annotated[
    str | None,
    typer.Option(
        "--preset",
        help="A paper's canonical form, shingling and method (the method when --method is "
        "not given): rodnenko-2009 (29 stop words, stop symbols, 10-word CRC-32 shingles, "
        "shingles-dice), zagorulko-2013 (4-word rabin32 shingles, m = 25, n = 160, "
        "mega-shingles on rabin64; shingles-mod). Other options override it.",
    ),
]


MeasureOpt = Annotated[str, typer.Option("--measure", help=_help("measure"))]
ThresholdOpt = Annotated[float, typer.Option("--threshold", "-t", help=_help("threshold"))]
DecisionOpt = Annotated[str | None, typer.Option("--decision", help=_help("decision"))]
MinTokensOpt = Annotated[int, typer.Option("--min-tokens", help=_help("min_tokens"))]
MaxDfOpt = Annotated[int, typer.Option("--max-df", help=_help("max_df"))]
KeepOpt = Annotated[str, typer.Option("--keep", help=_help("keep"))]
KeepOrderOpt = Annotated[str, typer.Option("--keep-order", help=_help("keep_order"))]
CheckLimitOpt = Annotated[int, typer.Option("--limit", help=_help("limit"))]
TopOpt = Annotated[int | None, typer.Option("--top", metavar="K", help=_help("k"))]
BatchSizeOpt = Annotated[int, typer.Option("--batch-size", help=_help("batch_size"))]
#: The defaults of those options (the declaration's).
MEASURE: str = OPTIONS["measure"].default
THRESHOLD: float = OPTIONS["threshold"].default
MIN_TOKENS: int = OPTIONS["min_tokens"].default
MAX_DF: int = OPTIONS["max_df"].default
KEEP: str = OPTIONS["keep"].default
KEEP_ORDER: str = OPTIONS["keep_order"].default
CHECK_LIMIT: int = OPTIONS["limit"].default
BATCH_SIZE: int = OPTIONS["batch_size"].default
DEDUP_METHOD: str = OPTIONS["dedup_method"].default
COLLECTION_METHOD: str = OPTIONS["collection_method"].default


def check_declared(flag: str, name: str, value: object) -> None:
    """Check ``value`` of command-line option ``flag`` against option ``name``'s declared
    constraint before anything is read (so a bad one exits 2 naming ``flag``, as the library
    would name ``name``).

    Raises:
        ParameterError: the value is not allowed.
    """
    OPTIONS[name].constraint.check(flag, value, None)


#: The method options of ``dedup`` and ``compare``.
MethodOpt = Annotated[
    str | None,
    typer.Option(
        "--method",
        "-m",
        help="Detection method (see `neardup methods`); default: the preset's, else "
        f"{DEDUP_METHOD}.",
    ),
]
ShingleOpt = Annotated[
    int | None, typer.Option("--shingle-size", "-w", help="Words per shingle (default 5).")
]
ParamOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--param", "-p", help="Method parameter KEY=VALUE (repeatable), e.g. num_perm=256."
    ),
]
MorphOpt = Annotated[
    str | None,
    typer.Option("--morphology", help="none | stem (Snowball) | lemma (pymorphy3)."),
]
