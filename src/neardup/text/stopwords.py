"""Stop-word lists: the Snowball lists for English and Russian, and a user's own list.

Source: the lists published with the Snowball stemmers,
https://snowballstem.org/algorithms/english/stop.txt and
https://snowballstem.org/algorithms/russian/stop.txt (3-clause BSD licence, Copyright (c)
2001 Dr Martin Porter, (c) 2002 Richard Boulton). The package data files
``data/stopwords-<lang>.txt`` hold them with the comments stripped, one word a line, Russian
``ё`` already folded to ``е`` (as :func:`neardup.text.canonical.normalize` does).

Snowball's English list has contractions ("doesn't", "it's"); the canonical tokenizer
splits at the apostrophe, so each contraction's parts ("doesn", "t", "s") are stop words too
(but "can" and "won", which are words of their own).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from os import PathLike
from pathlib import Path

from neardup.errors import InputError, ParameterError

#: Parts of contractions that are words of their own ("can't" -> "can", "won't" -> "won"),
#: left out because Snowball keeps "can" out of the list on purpose.
_CONTENT_PARTS = frozenset({"can", "won"})

#: Languages that have a stop-word list.
LANGUAGES: tuple[str, ...] = ("en", "ru")


def stop_words(languages: tuple[str, ...] = ("en", "ru")) -> frozenset[str]:
    """The union of the stop-word lists of ``languages``, lower case (cached).

    Args:
        languages: language codes, each one of :data:`LANGUAGES`; ``()`` gives an empty set.

    Returns:
        The stop words (English: 174 words plus contraction parts, Russian: 159 words).

    Raises:
        ParameterError: a language has no list, or ``languages`` is not a tuple of strings.
    """
    if isinstance(languages, str) or not isinstance(languages, tuple | list):
        raise ParameterError("languages", languages, "a tuple of language codes")
    for lang in languages:
        if lang not in LANGUAGES:
            raise ParameterError("languages", lang, "one of " + ", ".join(LANGUAGES))
    return _union(tuple(sorted(set(languages))))


@lru_cache(maxsize=16)
def _union(languages: tuple[str, ...]) -> frozenset[str]:
    words: set[str] = set()
    for lang in languages:
        words |= _load(lang)
    return frozenset(words)


@lru_cache(maxsize=len(LANGUAGES))
def _load(lang: str) -> frozenset[str]:
    """Read ``data/stopwords-<lang>.txt`` (``#`` lines are comments)."""
    text = (
        resources.files("neardup.text")
        .joinpath("data", f"stopwords-{lang}.txt")
        .read_text(encoding="utf-8")
    )
    words = {w for line in text.splitlines() if (w := line.strip()) and not w.startswith("#")}
    parts = {p for w in words if "'" in w for p in w.split("'") if p} - _CONTENT_PARTS
    return frozenset(words | parts)


def read_stop_words(path: str | PathLike[str]) -> tuple[str, ...]:
    """A user's stop-word list from a UTF-8 text file: one word a line, ``#`` lines and
    blank lines ignored (the format of the Snowball lists).

    Args:
        path: the file.

    Returns:
        The words, sorted and unique (as given; :class:`~neardup.text.CanonicalForm` folds
        them as it folds the text).

    Raises:
        InputError: the file cannot be read or is not UTF-8.
        ParameterError: the file holds no word.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the stop-word list ({exc})") from None
    words = {w for line in text.splitlines() if (w := line.strip()) and not w.startswith("#")}
    if not words:
        raise ParameterError("stop_words", str(path), "a file with at least one word")
    return tuple(sorted(words))
