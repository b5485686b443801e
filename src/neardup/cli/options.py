"""Canonical-form options shared by ``dedup``, ``compare``, ``evaluate`` and
``collection create`` (Typer annotations; no import cost)."""

from __future__ import annotations

from typing import Annotated

import typer

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
        help="A paper's canonical form and shingling: rodnenko-2009 (29 stop words, stop "
        "symbols, 10-word shingles, CRC-32). Other options override it.",
    ),
]
