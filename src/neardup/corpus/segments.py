"""A text split into units (lines or paragraphs), each normalised and hashed.

The unit of CCNet (Wenzek et al. 2020) and of datatrove's line dedup is the line (text
split at ``\\n``); the paragraph (text split at blank lines) is Dolma's. A unit's key is
the XXH64 (seed 0) of the UTF-8 bytes of its normal form: the canonical form's steps 1-2
(:func:`neardup.text.canonical.normalize`: NFKC, lower case, ``ё`` -> ``е``) with every run
of whitespace folded to one space and the ends stripped. A unit whose normal form is
shorter than ``min_chars`` characters (a blank line, a lone bullet) has no key: it is
never counted and never cut; nor, unless ``symbols``, is a unit without a letter or a
digit (``};``, ``=====``, ``---``, ``* * *``): code and markup repeat such lines in every
document, and cutting them breaks the text without removing any boilerplate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import xxhash

from neardup.errors import check_choice
from neardup.text.canonical import normalize

UNIT_KINDS: tuple[str, ...] = ("line", "paragraph")

#: Separators: a newline; a blank line (a newline, spaces, a newline) and the whitespace after.
_SEPARATORS = {"line": re.compile(r"\n"), "paragraph": re.compile(r"\n[^\S\n]*\n\s*")}
#: A letter or a digit (any script): one character class, so a search is linear.
_WORD_CHAR = re.compile(r"[^\W_]")


@dataclass(frozen=True, slots=True)
class Unit:
    """One line or paragraph of a text.

    Attributes:
        start: character offset of the unit in the text.
        end: character offset just past its content (its separator excluded).
        next: character offset of the next unit (its separator included: cutting the unit
            cuts ``text[start:next]``).
        key: XXH64 of the normal form, or ``None`` when that is shorter than ``min_chars``.
    """

    start: int
    end: int
    next: int
    key: int | None


def normal_form(content: str) -> str:
    """The unit's normal form: :func:`~neardup.text.canonical.normalize`, whitespace folded.

    >>> normal_form("  Cookie   POLICY\\t ")
    'cookie policy'
    """
    return " ".join(normalize(content).split())


def split_units(text: str, unit: str, *, min_chars: int = 1, symbols: bool = False) -> list[Unit]:
    """``text`` as consecutive units covering it (``units[0].start == 0``, each unit's
    ``next`` the following one's ``start``, the last one's ``len(text)``).

    Args:
        text: any string.
        unit: ``line`` (split after every ``\\n``) or ``paragraph`` (split at blank lines).
        min_chars: shortest normal form that gets a key (>= 1).
        symbols: also give a key to units without a letter or a digit (punctuation,
            symbols, rules: ``};``, ``=====``); by default they have none.

    Raises:
        ParameterError: an unknown ``unit``.
    """
    check_choice("unit", unit, UNIT_KINDS)
    if unit == "line":
        fast = _lines(text, min_chars, symbols)
        if fast is not None:
            return fast
    out: list[Unit] = []
    for start, nxt in _spans(text, _SEPARATORS[unit]):
        content = text[start:nxt].rstrip()
        out.append(
            Unit(start, start + len(content), nxt, _key(normal_form(content), min_chars, symbols))
        )
    return out


def _key(norm: str, min_chars: int, symbols: bool) -> int | None:
    """The key of a unit's normal form, or None: shorter than ``min_chars``, or (unless
    ``symbols``) without a letter or a digit."""
    if len(norm) < min_chars or not (symbols or _WORD_CHAR.search(norm)):
        return None
    return xxhash.xxh64_intdigest(norm.encode("utf-8", "surrogatepass"))


def _lines(text: str, min_chars: int, symbols: bool) -> list[Unit] | None:
    """:func:`split_units` for lines with the whole text normalised at once (NFKC and
    lower case keep every newline, so line k of the normal text is the normal form of line
    k); None, for the unit-by-unit path, if the line counts ever differ."""
    pieces = text.split("\n")
    normal = normalize(text).split("\n")
    if len(normal) != len(pieces):
        return None
    if not pieces[-1]:
        pieces.pop()
    out: list[Unit] = []
    pos = 0
    last = len(text)
    for piece, norm in zip(pieces, normal, strict=False):
        key = _key(" ".join(norm.split()), min_chars, symbols)
        nxt = min(pos + len(piece) + 1, last)
        out.append(Unit(pos, pos + len(piece.rstrip()), nxt, key))
        pos = nxt
    return out


def _spans(text: str, separator: re.Pattern[str]) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for m in separator.finditer(text):
        spans.append((pos, m.end()))
        pos = m.end()
    if pos < len(text):
        spans.append((pos, len(text)))
    return spans


def cut(text: str, units: list[Unit], drop: list[bool]) -> str:
    """``text`` without the units flagged in ``drop`` (each with its separator)."""
    if not any(drop):
        return text
    return "".join(text[u.start : u.next] for u, d in zip(units, drop, strict=True) if not d)
