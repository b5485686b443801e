"""A labelled text-alignment set made from real text: passages planted at known offsets.

The construction of the PAN plagiarism corpora (Potthast et al. 2010, "An Evaluation
Framework for Plagiarism Detection"), on texts no one here wrote: a passage of a *source*
document is copied, obfuscated, and inserted at a paragraph break of another real document,
the *suspicious* one; the gold records both places as character offsets. Obfuscation levels
(random edits of whitespace-separated words, in the spirit of PAN's "random obfuscation"):

* ``none`` -- verbatim copy;
* ``replace`` -- 20 % of the words replaced by words of the suspicious document;
* ``edit`` -- 10 % of the words deleted and as many words of the suspicious document inserted;
* ``reorder`` -- the heaviest: words shuffled inside windows of 4 (half of the windows),
  plus 10 % replaced, 5 % deleted and 5 % inserted.

Every draw comes from one ``random.Random(seed)``, so a set is the same for the same inputs
and seed. A pair is used only when the two documents share no 8-word shingle before planting
(lower-cased ``\\w+`` words), so that every shared passage is a planted one. About one pair in
five gets no passage (a negative pair, for precision).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from neardup.errors import InputError, ParameterError, check_int

#: Obfuscation levels, lightest first.
LEVELS: tuple[str, ...] = ("none", "replace", "edit", "reorder")

_WORD = re.compile(r"(\S+)(\s*)")
_SHINGLE_WORD = re.compile(r"\w+")
#: Line breaks before a non-blank: a run of them tried from its first one, possessively
#: (``\n+(?=\S)`` rescanned a run ending the text from each of its breaks: quadratic).
_LINE_BREAKS = re.compile(r"(?<!\n)\n++(?=\S)")


@dataclass(frozen=True, slots=True)
class Obfuscation:
    """Rates of the random word edits of one level (fractions of the passage's words)."""

    replace: float = 0.0
    delete: float = 0.0
    insert: float = 0.0
    shuffle: float = 0.0  # fraction of the 4-word windows whose words are shuffled


OBFUSCATIONS: dict[str, Obfuscation] = {
    "none": Obfuscation(),
    "replace": Obfuscation(replace=0.2),
    "edit": Obfuscation(delete=0.1, insert=0.1),
    "reorder": Obfuscation(replace=0.1, delete=0.05, insert=0.05, shuffle=0.5),
}


@dataclass(frozen=True, slots=True)
class PlantedCase:
    """One planted passage: ``a`` (suspicious) and ``b`` (source) document ids with offsets."""

    a: str
    b: str
    a_offset: int
    a_length: int
    b_offset: int
    b_length: int
    level: str = "none"
    language: str = ""

    def as_dict(self) -> dict[str, object]:
        """The gold JSONL row."""
        return {
            "a": self.a,
            "b": self.b,
            "a_offset": self.a_offset,
            "a_length": self.a_length,
            "b_offset": self.b_offset,
            "b_length": self.b_length,
            "level": self.level,
            "language": self.language,
        }


@dataclass(frozen=True, slots=True)
class PlantedPair:
    """A suspicious/source pair with its planted cases (``()`` for a negative pair)."""

    a: str
    b: str
    a_text: str
    b_text: str
    level: str
    language: str
    cases: tuple[PlantedCase, ...]


def obfuscate(text: str, level: str, rng: random.Random, vocabulary: Sequence[str]) -> str:
    """``text`` with the random word edits of ``level`` (see the module docstring).

    Words are whitespace-separated chunks; each keeps the whitespace that followed it.

    Args:
        text: a passage starting and ending with a non-space character.
        level: one of :data:`LEVELS`.
        rng: the random source.
        vocabulary: words to insert or replace with (real words of another text).

    Returns:
        The edited passage, starting and ending with a non-space character.

    Raises:
        ParameterError: an unknown ``level`` or an empty ``vocabulary`` for an editing level.
    """
    if level not in OBFUSCATIONS:
        raise ParameterError("level", level, "one of " + ", ".join(LEVELS))
    ob = OBFUSCATIONS[level]
    pieces = [(m.group(1), m.group(2) or " ") for m in _WORD.finditer(text)]
    if level == "none" or not pieces:
        return text
    if not vocabulary:
        raise ParameterError("vocabulary", vocabulary, "a non-empty list of words")
    words = [w for w, _ in pieces]
    seps = [s for _, s in pieces]
    if ob.shuffle:
        for lo in range(0, len(words) - 3, 4):
            if rng.random() < ob.shuffle:
                window = words[lo : lo + 4]
                rng.shuffle(window)
                words[lo : lo + 4] = window
    out: list[str] = []
    for word in words:
        r = rng.random()
        if r < ob.delete:
            continue
        out.append(rng.choice(vocabulary) if r < ob.delete + ob.replace else word)
        if rng.random() < ob.insert:
            out.append(rng.choice(vocabulary))
    if not out:
        out = [words[0]]
    return "".join(w + seps[i % len(seps)] for i, w in enumerate(out)).rstrip()


def shares_text(a: str, b: str, size: int = 8) -> bool:
    """Whether ``a`` and ``b`` share a ``size``-word shingle of lower-cased ``\\w+`` words."""

    def grams(text: str) -> set[tuple[str, ...]]:
        words = _SHINGLE_WORD.findall(text.lower())
        return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}

    return not grams(a).isdisjoint(grams(b))


def plant_pair(
    a_id: str,
    host: str,
    b_id: str,
    source: str,
    *,
    level: str,
    cases: int,
    rng: random.Random,
    language: str = "",
    min_words: int = 40,
    max_words: int = 300,
    rewrite: Callable[[str, random.Random], str] | None = None,
) -> PlantedPair:
    """Plant ``cases`` passages of ``source`` into ``host`` at paragraph breaks.

    Passages are ``min_words``-``max_words`` whitespace-separated words of the source,
    non-overlapping, each obfuscated at ``level`` with words of the host; each goes in at a
    distinct line break of the host, followed by a blank line. The order of the passages in
    the suspicious document is random (not the source's order). ``rewrite(passage, rng)``,
    when given, replaces the random word edits of ``level`` (which then only names the set),
    e.g. :func:`neardup.evaluate.paraphrase.paraphrase`.

    Returns:
        The pair; each case's offsets are exact (``a_text[a_offset:a_offset + a_length]`` is
        the planted passage, ``b_text[b_offset:b_offset + b_length]`` its original).

    Raises:
        ParameterError: ``cases`` out of 0-5, or the texts too short for that many cases.
    """
    check_int("cases", cases, low=0, high=5)
    if cases == 0:
        return PlantedPair(a_id, b_id, host, source, level, language, ())
    words = [m.span() for m in re.finditer(r"\S+", source)]
    spans = _source_spans(words, cases, rng, min_words, max_words)
    breaks = _host_breaks(host, cases, rng)
    vocabulary = re.findall(r"\S+", host)
    rng.shuffle(spans)
    parts: list[str] = []
    planted: list[PlantedCase] = []
    last = 0
    length = 0
    for at, (b0, b1) in zip(breaks, spans, strict=True):
        parts.append(host[last:at])
        length += at - last
        if rewrite is not None:
            piece = rewrite(source[b0:b1], rng).strip()
        else:
            piece = obfuscate(source[b0:b1], level, rng, vocabulary)
        planted.append(PlantedCase(a_id, b_id, length, len(piece), b0, b1 - b0, level, language))
        parts.append(piece + "\n\n")
        length += len(piece) + 2
        last = at
    parts.append(host[last:])
    return PlantedPair(a_id, b_id, "".join(parts), source, level, language, tuple(planted))


def _source_spans(
    words: list[tuple[int, int]], cases: int, rng: random.Random, low: int, high: int
) -> list[tuple[int, int]]:
    """``cases`` non-overlapping character spans of ``low``-``high`` words, 20+ words apart."""
    n = len(words)
    lengths = [rng.randint(low, high) for _ in range(cases)]
    slack = n - sum(lengths) - 20 * (cases + 1)
    if slack < 0:
        raise ParameterError("source", f"{n} words", f"at least {n - slack} words")
    cuts = sorted(rng.randint(0, slack) for _ in range(cases))
    out, pos, used = [], 20, 0
    for cut, size in zip(cuts, lengths, strict=True):
        start = pos + (cut - used)
        out.append((words[start][0], words[start + size - 1][1]))
        pos, used = start + size + 20, cut
    return out


def _host_breaks(host: str, cases: int, rng: random.Random) -> list[int]:
    """``cases`` distinct offsets just after a line break of ``host`` (or, in a text of
    fewer than 10 lines, after a sentence end), sorted."""
    breaks = [m.end() for m in _LINE_BREAKS.finditer(host)]
    if len(breaks) < 10:
        breaks = [m.end() for m in re.finditer(r"(?<=[.!?])\s+(?=\S)", host)]
    if len(breaks) < cases:
        raise ParameterError("host", f"{len(breaks)} line breaks", f"at least {cases}")
    return sorted(rng.sample(breaks, cases))


def build_set(
    texts: Mapping[str, Sequence[tuple[str, str]]],
    *,
    pairs_per_level: int,
    levels: Sequence[str] = LEVELS,
    seed: int = 19,
) -> list[PlantedPair]:
    """Planted pairs for each language and level.

    Args:
        texts: language code -> ``(id, text)`` documents (real text, 2+ documents, each long
            enough for 3 passages of 300 words).
        pairs_per_level: pairs per language and level, 1-10,000; every fifth is negative.
        levels: levels from :data:`LEVELS`.
        seed: the random seed.

    Returns:
        Pairs with ids ``{language}-{level}-{k}-a`` (suspicious) and ``...-b`` (source).

    Raises:
        ParameterError: a bad level, count, or too few documents that share no text.
    """
    check_int("pairs_per_level", pairs_per_level, low=1, high=10_000)
    for level in levels:
        if level not in OBFUSCATIONS:
            raise ParameterError("levels", level, "one of " + ", ".join(LEVELS))
    rng = random.Random(seed)
    out: list[PlantedPair] = []
    for language in sorted(texts):
        docs = list(texts[language])
        if len(docs) < 2:
            raise ParameterError("texts", language, "2 or more documents per language")
        for level in levels:
            for k in range(pairs_per_level):
                host, source = _unrelated(docs, rng)
                n_cases = 0 if k % 5 == 4 else rng.randint(1, 3)
                prefix = f"{language}-{level}-{k}"
                out.append(
                    plant_pair(
                        f"{prefix}-a",
                        host,
                        f"{prefix}-b",
                        source,
                        level=level,
                        cases=n_cases,
                        rng=rng,
                        language=language,
                    )
                )
    return out


def _unrelated(docs: list[tuple[str, str]], rng: random.Random) -> tuple[str, str]:
    """Two different documents' texts that share no 8-word shingle (100 tries)."""
    for _ in range(100):
        (_, host), (_, source) = rng.sample(docs, 2)
        if not shares_text(host, source):
            return host, source
    raise ParameterError("texts", f"{len(docs)} documents", "documents that share no text")


def shared_texts(
    data: Path, *, per_language: int = 120, max_words: int = 5000
) -> dict[str, list[tuple[str, str]]]:
    """Real documents from the shared data: English linux docs and Russian RusLit prose.

    English: the 6.1 documents of ``linux-doc-revisions/docs.jsonl`` with 1,500+ words
    (markup kept, as users feed them); Russian: RusLit prose works of 1,500+ words. Each is
    cut after the last line break before ``max_words`` words. The first ``per_language`` of
    each, in id / file order.

    Raises:
        InputError: a file cannot be read.
    """
    import json

    out: dict[str, list[tuple[str, str]]] = {"en": [], "ru": []}
    try:
        with (data / "linux-doc-revisions" / "docs.jsonl").open(encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
        for row in sorted(rows, key=lambda r: r["id"]):
            if row["id"].startswith("6.1/") and len(out["en"]) < per_language:
                text = _cut(row["text"], max_words)
                if text is not None:
                    out["en"].append((row["id"], text))
        for path in sorted((data / "ruslit" / "prose").rglob("*.txt")):
            if len(out["ru"]) >= per_language:
                break
            text = _cut(path.read_text(encoding="utf-8"), max_words)
            if text is not None:
                out["ru"].append((str(path.relative_to(data)), text))
    except (OSError, ValueError) as exc:
        raise InputError(f"{data}: cannot read the shared texts ({exc})") from None
    return out


def _cut(text: str, max_words: int, min_words: int = 1500) -> str | None:
    """``text`` up to the last line break before ``max_words`` words; ``None`` if too short."""
    words = list(re.finditer(r"\S+", text))
    if len(words) < min_words:
        return None
    if len(words) <= max_words:
        return text.strip()
    end = words[max_words - 1].end()
    cut = text.rfind("\n", 0, end)
    return text[: cut if cut > 0 else end].strip()
