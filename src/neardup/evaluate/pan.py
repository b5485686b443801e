"""PAN's character-level measures of text alignment (Potthast et al. 2010).

Potthast, Stein, Barron-Cedeno & Rosso 2010, "An Evaluation Framework for Plagiarism
Detection" (COLING), as computed by PAN's ``perfmeasures.py``:

* a case ``s`` (gold) and a detection ``r`` are *passages*: character ranges in a
  suspicious document ``a`` and a source document ``b``; ``|s|`` counts the characters of
  both ranges;
* ``r`` *detects* ``s`` when both belong to the same ``(a, b)`` pair and overlap in ``a``
  and in ``b``;
* macro recall ``R = mean_s |union_{r detects s} (s & r)| / |s|``; macro precision ``P`` is
  the same with cases and detections exchanged;
* granularity ``G = mean over detected cases of the number of detections detecting it``
  (1 is best);
* ``plagdet = F1(P, R) / log2(1 + G)``.

Edge cases follow ``perfmeasures.py``: no cases and no detections give ``R = P = 1``; one
of them empty gives 0; granularity is 1 when nothing is detected.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neardup.errors import FormatError, InputError


@dataclass(frozen=True, slots=True)
class Span:
    """A passage of pair ``(a, b)``: ``[a_offset, a_offset + a_length)`` in ``a``, same in ``b``."""

    a: str
    b: str
    a_offset: int
    a_length: int
    b_offset: int
    b_length: int

    @property
    def chars(self) -> int:
        """``|s|``: characters in both documents."""
        return self.a_length + self.b_length

    def overlaps(self, other: Span) -> bool:
        """PAN's ``is_overlapping``: same pair, overlapping in ``a`` and in ``b``."""
        return (
            self.a == other.a
            and self.b == other.b
            and _cross(self.a_offset, self.a_length, other.a_offset, other.a_length)
            and _cross(self.b_offset, self.b_length, other.b_offset, other.b_length)
        )


@dataclass(frozen=True, slots=True)
class CaseScore:
    """One gold case: its recall (share of its characters detected) and detections."""

    case: Span
    recall: float
    detections: int


@dataclass(frozen=True, slots=True)
class PanScores:
    """Macro precision, recall, granularity and plagdet of detections against cases."""

    precision: float
    recall: float
    granularity: float
    plagdet: float
    cases: int
    detections: int
    per_case: tuple[CaseScore, ...] = ()

    def as_dict(self, *, per_case: bool = False) -> dict[str, object]:
        """JSON-ready figures (``per_case`` adds one row per gold case)."""
        out: dict[str, object] = {
            "precision": self.precision,
            "recall": self.recall,
            "granularity": self.granularity,
            "plagdet": self.plagdet,
            "cases": self.cases,
            "detections": self.detections,
        }
        if per_case:
            out["per_case"] = [
                {**_span_dict(c.case), "recall": c.recall, "detections": c.detections}
                for c in self.per_case
            ]
        return out


def _cross(o1: int, l1: int, o2: int, l2: int) -> bool:
    return o2 + l2 > o1 and o2 < o1 + l1


def _span_dict(s: Span) -> dict[str, object]:
    return {
        "a": s.a,
        "b": s.b,
        "a_offset": s.a_offset,
        "a_length": s.a_length,
        "b_offset": s.b_offset,
        "b_length": s.b_length,
    }


def _union_length(ranges: list[tuple[int, int]]) -> int:
    total, reach = 0, None
    for lo, hi in sorted(ranges):
        if reach is None or lo >= reach:
            total += hi - lo
            reach = hi
        elif hi > reach:
            total += hi - reach
            reach = hi
    return total


def _covered(target: Span, others: list[Span]) -> int:
    """Characters of ``target`` (both sides) inside the union of ``others``."""
    a_parts, b_parts = [], []
    for o in others:
        lo, hi = (
            max(target.a_offset, o.a_offset),
            min(target.a_offset + target.a_length, o.a_offset + o.a_length),
        )
        if hi > lo:
            a_parts.append((lo, hi))
        lo, hi = (
            max(target.b_offset, o.b_offset),
            min(target.b_offset + target.b_length, o.b_offset + o.b_length),
        )
        if hi > lo:
            b_parts.append((lo, hi))
    return _union_length(a_parts) + _union_length(b_parts)


def _by_pair(spans: Iterable[Span]) -> dict[tuple[str, str], list[Span]]:
    out: dict[tuple[str, str], list[Span]] = defaultdict(list)
    for s in spans:
        out[(s.a, s.b)].append(s)
    return out


def _macro_recall(cases: Sequence[Span], detections: Sequence[Span]) -> tuple[float, list[float]]:
    if not cases and not detections:
        return 1.0, []
    if not cases or not detections:
        return 0.0, [0.0] * len(cases)
    index = _by_pair(detections)
    per = []
    for s in cases:
        hits = [r for r in index.get((s.a, s.b), []) if s.overlaps(r)]
        per.append(_covered(s, hits) / s.chars if s.chars else 0.0)
    return sum(per) / len(per), per


def pan_scores(cases: Sequence[Span], detections: Sequence[Span]) -> PanScores:
    """PAN's macro precision, recall, granularity and plagdet (see the module docstring).

    Args:
        cases: gold passages (all pairs pooled).
        detections: detected passages (all pairs pooled).

    Returns:
        :class:`PanScores` with one :class:`CaseScore` per case, in ``cases`` order.
    """
    recall, per = _macro_recall(cases, detections)
    precision, _ = _macro_recall(detections, cases)
    index = _by_pair(detections)
    counts = [sum(s.overlaps(r) for r in index.get((s.a, s.b), [])) for s in cases]
    detected = [c for c in counts if c > 0]
    granularity = sum(detected) / len(detected) if detected else 1.0
    if precision + recall == 0:
        plagdet = 0.0
    else:
        plagdet = (2 * precision * recall / (precision + recall)) / math.log2(1 + granularity)
    return PanScores(
        precision,
        recall,
        granularity,
        plagdet,
        len(cases),
        len(detections),
        tuple(CaseScore(s, r, c) for s, r, c in zip(cases, per, counts, strict=True)),
    )


@dataclass(frozen=True, slots=True)
class PassageGold:
    """A passage gold standard: the pairs to align and the cases (gold passages)."""

    pairs: tuple[tuple[str, str], ...]
    cases: tuple[Span, ...]


_FIELDS = ("a_offset", "a_length", "b_offset", "b_length")


def load_passage_gold(path: Path) -> PassageGold:
    """Read a passage gold file: JSONL, or a directory / file of PAN XML.

    JSONL: one row a case, ``{"a", "b", "a_offset", "a_length", "b_offset", "b_length"}``
    (``a`` the suspicious document, offsets in characters); a row with only ``a`` and ``b``
    names a pair to align that has no case (a negative pair). PAN XML (PAN 2012-2015 text
    alignment): ``<document reference="A">`` with ``<feature name="plagiarism"
    this_offset this_length source_reference source_offset source_length/>``; a document
    without such a feature is a negative pair only when its file name is
    ``A-B.xml`` (PAN's naming, ``.txt`` added back).

    Raises:
        InputError: the path cannot be read.
        FormatError: a malformed row (the message gives the line) or XML.
    """
    if path.is_dir():
        return _merge_gold([_load_xml(p) for p in sorted(path.glob("*.xml"))])
    if path.suffix.lower() == ".xml":
        return _load_xml(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    pairs: dict[tuple[str, str], None] = {}
    cases = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            a, b = str(row["a"]), str(row["b"])
            pairs[(a, b)] = None
            if all(row.get(f) is None for f in _FIELDS):
                continue
            values = [row[f] for f in _FIELDS]
        except (ValueError, KeyError, TypeError) as exc:
            raise FormatError(f"{path}:{no}: not a passage row ({exc})") from None
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values):
            raise FormatError(f"{path}:{no}: offsets and lengths must be integers >= 0")
        cases.append(Span(a, b, *values))
    return PassageGold(tuple(pairs), tuple(cases))


def _merge_gold(parts: list[PassageGold]) -> PassageGold:
    pairs: dict[tuple[str, str], None] = {}
    cases: list[Span] = []
    for g in parts:
        pairs.update(dict.fromkeys(g.pairs))
        cases += g.cases
    return PassageGold(tuple(pairs), tuple(cases))


def _load_xml(path: Path) -> PassageGold:
    try:
        root = ET.parse(path).getroot()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    except ET.ParseError as exc:
        raise FormatError(f"{path}: malformed XML ({exc})") from None
    a = root.get("reference")
    if a is None:
        raise FormatError(f"{path}: <document> has no reference attribute")
    pairs: dict[tuple[str, str], None] = {}
    cases = []
    for feature in root.iter("feature"):
        if feature.get("name") not in ("plagiarism", "detected-plagiarism"):
            continue
        try:
            b = str(feature.get("source_reference"))
            values = [int(feature.get(k, "")) for k in _XML_FIELDS]
        except ValueError as exc:
            raise FormatError(f"{path}: bad feature ({exc})") from None
        pairs[(a, b)] = None
        cases.append(Span(a, b, *values))
    stem = path.stem
    if not cases and stem.startswith(a.removesuffix(".txt") + "-"):
        pairs[(a, stem[len(a.removesuffix(".txt")) + 1 :] + ".txt")] = None
    return PassageGold(tuple(pairs), tuple(cases))


_XML_FIELDS = ("this_offset", "this_length", "source_offset", "source_length")


def html_report(scores: PanScores, *, title: str) -> str:
    """A small self-contained HTML page: the four measures and the per-case table."""
    from html import escape

    head = "".join(
        f"<tr><th>{k}</th><td>{v:.3f}</td></tr>"
        for k, v in (
            ("precision", scores.precision),
            ("recall", scores.recall),
            ("granularity", scores.granularity),
            ("plagdet", scores.plagdet),
        )
    )
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{escape(str(v))}</td>"
            for v in (
                c.case.a,
                c.case.a_offset,
                c.case.a_length,
                c.case.b,
                c.case.b_offset,
                c.case.b_length,
                f"{c.recall:.3f}",
                c.detections,
            )
        )
        + "</tr>"
        for c in scores.per_case
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
        "<style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:right}</style>"
        f"</head><body><h1>{escape(title)}</h1>"
        "<p>PAN's character-level measures (Potthast et al. 2010, "
        "&ldquo;An Evaluation Framework for Plagiarism Detection&rdquo;): "
        f"{scores.cases} cases, {scores.detections} detections.</p>"
        f"<table>{head}</table><h2>Cases</h2><table><tr><th>a</th><th>a offset</th>"
        "<th>a length</th><th>b</th><th>b offset</th><th>b length</th><th>recall</th>"
        f"<th>detections</th></tr>{rows}</table></body></html>\n"
    )


def align_gold_pairs(
    texts: dict[str, str],
    gold: PassageGold,
    *,
    align: Callable[[str, str], Sequence[Any]] | None = None,
) -> PanScores:
    """Align every pair of ``gold`` and score the passages found against its cases.

    Args:
        texts: document id -> text (the strings the offsets refer to). An id of the gold
            that is not a key may match a key by its file name (``susp/x.txt`` for
            ``x.txt``), as PAN's XML names documents by file name.
        gold: from :func:`load_passage_gold`.
        align: ``(text_a, text_b) -> passages`` with ``a_start``, ``a_end``, ``b_start``,
            ``b_end``; default :func:`neardup.passages.align_passages`.

    Returns:
        PAN's measures with the per-case table.

    Raises:
        InputError: a document of the gold is not in ``texts``.
    """
    from neardup.passages import align_passages

    fn = align or align_passages
    by_name: dict[str, str] = {}
    for key in texts:
        by_name.setdefault(key.rsplit("/", 1)[-1], key)
    found: list[Span] = []
    for a, b in gold.pairs:
        ta, tb = _text_of(texts, by_name, a), _text_of(texts, by_name, b)
        found += [
            Span(a, b, p.a_start, p.a_end - p.a_start, p.b_start, p.b_end - p.b_start)
            for p in fn(ta, tb)
        ]
    return pan_scores(gold.cases, found)


def _text_of(texts: dict[str, str], by_name: dict[str, str], doc_id: str) -> str:
    if doc_id in texts:
        return texts[doc_id]
    key = by_name.get(doc_id.rsplit("/", 1)[-1])
    if key is None:
        raise InputError(f"document {doc_id!r} of the passage gold is not among the inputs")
    return texts[key]


# == PAN corpus folders (issue 32) =============================================================
#: Name of the pairs list in a PAN text-alignment corpus folder.
PAN_PAIRS_FILE = "pairs"
#: The group of a pair with no gold case and no type folder (PAN's ``01-no-plagiarism``).
NO_PLAGIARISM = "no-plagiarism"


@dataclass(frozen=True, slots=True)
class PanCorpus:
    """A PAN text-alignment corpus folder (PAN 2013-2015, Potthast et al. 2013).

    The layout: ``pairs`` (one ``suspicious.txt source.txt`` line a pair), ``susp/`` and
    ``src/`` with the texts, and one folder a type (``01-no-plagiarism``,
    ``02-no-obfuscation``, ``03-random-obfuscation``, ...) with an ``A-B.xml`` truth file a
    pair. Offsets count characters of the texts read as UTF-8 with line ends kept.

    Attributes:
        root: the folder.
        pairs: ``(suspicious, source)`` file names, in the ``pairs`` file's order.
        group: the type of each pair, the folder name without its number
            (``no-obfuscation``...), :data:`NO_PLAGIARISM` for a pair in no type folder.
        cases: the gold passages (``a`` the suspicious document).
    """

    root: Path
    pairs: tuple[tuple[str, str], ...]
    group: dict[tuple[str, str], str]
    cases: tuple[Span, ...]
    order: tuple[str, ...] = (NO_PLAGIARISM,)

    @property
    def groups(self) -> list[str]:
        """The types, in folder order (:data:`NO_PLAGIARISM` first when it has no folder)."""
        return sorted(set(self.group.values()), key=self.order.index)

    def text(self, name: str, *, suspicious: bool) -> str:
        """The text of ``name`` from ``susp/`` or ``src/`` (UTF-8, line ends kept).

        Raises:
            InputError: the file cannot be read or is not UTF-8.
        """
        path = self.root / ("susp" if suspicious else "src") / name
        try:
            with path.open(encoding="utf-8", newline="") as fh:
                return fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}: cannot read ({exc})") from None


def is_pan_corpus(path: Path) -> bool:
    """True when ``path`` is a folder with a ``pairs`` file and ``susp/`` and ``src/``."""
    return (
        path.is_dir()
        and (path / PAN_PAIRS_FILE).is_file()
        and (path / "susp").is_dir()
        and (path / "src").is_dir()
    )


def load_pan_corpus(root: Path) -> PanCorpus:
    """Read a PAN text-alignment corpus folder (see :class:`PanCorpus`).

    Raises:
        InputError: ``root`` is not such a folder (no ``pairs``, ``susp/`` or ``src/``).
        FormatError: a malformed ``pairs`` line or XML truth file.
    """
    if not is_pan_corpus(root):
        raise InputError(
            f"{root}: not a PAN text-alignment corpus (a folder with 'pairs', 'susp/', 'src/')"
        )
    pairs: list[tuple[str, str]] = []
    lines = (root / PAN_PAIRS_FILE).read_text(encoding="utf-8").splitlines()
    for no, line in enumerate(lines, 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise FormatError(f"{root / PAN_PAIRS_FILE}:{no}: not 'suspicious source'")
        pairs.append((parts[0], parts[1]))
    group: dict[tuple[str, str], str] = {}
    cases: list[Span] = []
    order = [NO_PLAGIARISM]
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and _TYPE_DIR.match(p.name)):
        name = _TYPE_DIR.sub("", folder.name)
        order += [] if name in order else [name]
        for xml in sorted(folder.glob("*.xml")):
            gold = _load_xml(xml)
            for pair in gold.pairs:
                # a pair is in the folder that gives it cases; a pair without cases in
                # the first folder that lists it (in the copies of PAN 2013 the
                # summary folder repeats most no-plagiarism pairs)
                if gold.cases:
                    group[pair] = name
                else:
                    group.setdefault(pair, name)
            cases += gold.cases
    listed = set(pairs)
    return PanCorpus(
        root,
        tuple(pairs),
        {p: group.get(p, NO_PLAGIARISM) for p in pairs},
        tuple(c for c in cases if (c.a, c.b) in listed),
        tuple(order),
    )


_TYPE_DIR = re.compile(r"^\d+-")


@dataclass(frozen=True, slots=True)
class PanReport:
    """PAN's measures per type of a corpus folder and over all its pairs.

    Attributes:
        groups: type -> scores of its pairs (its cases against the detections in its pairs).
        overall: all pairs pooled.
        pairs: type -> number of pairs.
        flagged: type -> pairs with at least one detection.
        negatives: type -> pairs without a gold case (every detection in one is a false
            positive; PAN 2013's summary folder has such pairs too).
        flagged_negatives: type -> those of them with at least one detection.
        seconds: wall time of the alignment, all pairs.
    """

    groups: dict[str, PanScores]
    overall: PanScores
    pairs: dict[str, int]
    flagged: dict[str, int]
    negatives: dict[str, int]
    flagged_negatives: dict[str, int]
    seconds: float

    def as_dict(self) -> dict[str, object]:
        """JSON-ready figures: one row a type, then ``overall``."""
        rows: dict[str, object] = {}
        for name, s in self.groups.items():
            rows[name] = {
                "pairs": self.pairs[name],
                "flagged_pairs": self.flagged[name],
                "negative_pairs": self.negatives[name],
                "flagged_negative_pairs": self.flagged_negatives[name],
                **s.as_dict(),
            }
        rows["overall"] = {
            "pairs": sum(self.pairs.values()),
            "flagged_pairs": sum(self.flagged.values()),
            "negative_pairs": sum(self.negatives.values()),
            "flagged_negative_pairs": sum(self.flagged_negatives.values()),
            **self.overall.as_dict(),
        }
        return {"groups": rows, "seconds": round(self.seconds, 2)}


def _align_chunk(
    args: tuple[Path, list[tuple[str, str]], Callable[[str, str], Sequence[Any]] | None],
) -> list[Span]:
    root, pairs, align = args
    from neardup.passages import align_passages

    fn = align or align_passages
    corpus = PanCorpus(root, (), {}, ())
    out: list[Span] = []
    for a, b in pairs:
        found = fn(corpus.text(a, suspicious=True), corpus.text(b, suspicious=False))
        out += [
            Span(a, b, p.a_start, p.a_end - p.a_start, p.b_start, p.b_end - p.b_start)
            for p in found
        ]
    return out


def evaluate_pan_corpus(
    corpus: PanCorpus,
    *,
    align: Callable[[str, str], Sequence[Any]] | None = None,
    jobs: int = 1,
    on_progress: Callable[[int, int], None] | None = None,
) -> PanReport:
    """Align every pair of a PAN corpus folder and score each type with PAN's measures.

    Args:
        corpus: from :func:`load_pan_corpus`.
        align: ``(suspicious text, source text) -> passages`` (``a_start``... attributes);
            default :func:`neardup.passages.align_passages` with no arguments. With
            ``jobs > 1`` it must be picklable (a module-level function).
        jobs: worker processes, >= 1.
        on_progress: called with ``(pairs done, pairs)`` after each chunk.

    Returns:
        :class:`PanReport`; a type's scores pool its pairs' cases and detections, so a
        detection in a ``no-plagiarism`` pair lowers that type's precision to 0 and the
        overall precision.

    Raises:
        ParameterError: ``jobs`` < 1.
        InputError: a text cannot be read.
    """
    import time

    from neardup.job.prepare_pool import check_jobs

    workers = check_jobs(jobs)
    pairs = list(corpus.pairs)
    size = 25
    chunks = [(corpus.root, pairs[i : i + size], align) for i in range(0, len(pairs), size)]
    found: list[Span] = []
    t0 = time.perf_counter()
    if workers == 1:
        results: Iterable[list[Span]] = map(_align_chunk, chunks)
    else:
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(workers)
        results = pool.map(_align_chunk, chunks)
    try:
        for k, part in enumerate(results):
            found += part
            if on_progress is not None:
                on_progress(min((k + 1) * size, len(pairs)), len(pairs))
    finally:
        if workers > 1:
            pool.shutdown(cancel_futures=True)
    seconds = time.perf_counter() - t0
    return _report(corpus, found, seconds)


def _report(corpus: PanCorpus, found: list[Span], seconds: float) -> PanReport:
    names = corpus.groups
    groups: dict[str, PanScores] = {}
    flagged_pairs = {(s.a, s.b) for s in found}
    for name in names:
        in_group = {p for p in corpus.pairs if corpus.group[p] == name}
        groups[name] = pan_scores(
            [c for c in corpus.cases if (c.a, c.b) in in_group],
            [s for s in found if (s.a, s.b) in in_group],
        )
    count = {n: sum(corpus.group[p] == n for p in corpus.pairs) for n in names}
    flagged = {n: sum(corpus.group[p] == n for p in flagged_pairs) for n in names}
    positive = {(c.a, c.b) for c in corpus.cases}
    negatives = {
        n: sum(corpus.group[p] == n and p not in positive for p in corpus.pairs) for n in names
    }
    false = {
        n: sum(corpus.group[p] == n and p not in positive for p in flagged_pairs) for n in names
    }
    overall = pan_scores(corpus.cases, found)
    return PanReport(groups, overall, count, flagged, negatives, false, seconds)
