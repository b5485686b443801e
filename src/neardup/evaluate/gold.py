"""Gold standards for ``neardup evaluate``: labelled pairs or clusters, JSONL or CSV.

Two shapes are accepted, one per file:

* pairs: rows ``{a, b, label}`` (``label`` 1 = duplicate, 0 = not; a missing label means 1),
  extra fields (``kind``...) ignored. The labelled scope counts only the listed pairs.
* clusters: rows ``{id, cluster}``; documents sharing a ``cluster`` value are duplicates of
  each other, documents in different clusters are not. The labelled scope counts pairs whose
  two documents are both listed.

Files ending in ``.csv`` are read as CSV with a header row naming those columns; anything
else is read as JSON lines (blank lines skipped).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, Literal

from neardup.errors import FormatError, InputError
from neardup.evaluate.metrics import Gold, PairKey, pair_key, scoped_pairs

GoldKind = Literal["pairs", "clusters"]
Scope = Literal["all", "labelled"]


@dataclass(frozen=True)
class GoldStandard:
    """A loaded gold standard.

    Attributes:
        pairs: :class:`~neardup.evaluate.metrics.Gold` (positives; negatives are the listed
            label-0 pairs, empty for cluster gold).
        kind: ``pairs`` or ``clusters``.
        ids: every document id named in the file.
        clusters: for cluster gold, ``{id: cluster label}``; ``None`` for pair gold.
        source: the file it was read from (``""`` when built in memory).
    """

    pairs: Gold
    kind: GoldKind
    ids: frozenset[str]
    clusters: dict[str, str] | None = None
    source: str = ""

    @property
    def positives(self) -> frozenset[PairKey]:
        """Unordered duplicate pairs."""
        return self.pairs.positives

    def scoped(self, predicted: Iterable[tuple[str, str]], scope: Scope) -> set[PairKey]:
        """Predicted pairs that count in ``scope`` (``all`` or ``labelled``), as sorted keys."""
        if self.kind == "pairs":
            return scoped_pairs(predicted, self.pairs, scope=scope)
        keys = {pair_key(a, b) for a, b in predicted}
        if scope == "labelled":
            keys = {k for k in keys if k[0] in self.ids and k[1] in self.ids}
        return keys

    @classmethod
    def from_pairs(cls, rows: Iterable[tuple[str, str, int]], source: str = "") -> GoldStandard:
        """Build from ``(a, b, label)`` triples.

        Raises:
            FormatError: a self-pair, or a pair labelled both 1 and 0.
        """
        labels: dict[PairKey, int] = {}
        for n, (a, b, label) in enumerate(rows, 1):
            _check_pair(a, b, label, labels, f"{source or 'gold'} row {n}")
        pos = frozenset(k for k, v in labels.items() if v == 1)
        neg = frozenset(k for k, v in labels.items() if v == 0)
        ids = frozenset(i for k in labels for i in k)
        return cls(Gold(pos, neg), "pairs", ids, None, source)

    @classmethod
    def from_clusters(cls, rows: Iterable[tuple[str, str]], source: str = "") -> GoldStandard:
        """Build from ``(id, cluster)`` pairs.

        Raises:
            FormatError: one id listed in two different clusters.
        """
        clusters: dict[str, str] = {}
        for n, (doc, cluster) in enumerate(rows, 1):
            if clusters.setdefault(doc, cluster) != cluster:
                raise FormatError(f"{source or 'gold'} row {n}: {doc!r} is in two clusters")
        members: dict[str, list[str]] = {}
        for doc, cluster in clusters.items():
            members.setdefault(cluster, []).append(doc)
        pos = frozenset(pair_key(a, b) for m in members.values() for a, b in combinations(m, 2))
        return cls(Gold(pos, frozenset()), "clusters", frozenset(clusters), clusters, source)


def _check_pair(a: str, b: str, label: int, labels: dict[PairKey, int], where: str) -> None:
    if a == b:
        raise FormatError(f"{where}: a pair of a document with itself ({a!r})")
    if label not in (0, 1):
        raise FormatError(f"{where}: label {label!r} is not 0 or 1")
    if labels.setdefault(pair_key(a, b), label) != label:
        raise FormatError(f"{where}: pair ({a!r}, {b!r}) is labelled both 0 and 1")


def load_gold(path: str | Path) -> GoldStandard:
    """Read a gold file (pairs or clusters, JSONL or CSV; see the module docstring).

    Args:
        path: the file.

    Returns:
        :class:`GoldStandard`.

    Raises:
        InputError: the file does not exist or cannot be read.
        FormatError: malformed JSON, missing columns, a row of the other shape, bad labels,
            or no row at all (the message names the line).
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: gold file not found")
    rows = list(_rows(p))
    if not rows:
        raise FormatError(f"{p}: no gold rows")
    kind = _kind(rows[0][1], f"{p}:{rows[0][0]}")
    if kind == "pairs":
        return GoldStandard.from_pairs(_pair_rows(rows, p), str(p))
    return GoldStandard.from_clusters(_cluster_rows(rows, p), str(p))


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, row)`` of a CSV (header = line 1) or JSONL file."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            if path.name.lower().endswith(".csv"):
                for n, row in enumerate(csv.DictReader(fh), 2):
                    yield n, dict(row)
                return
            for n, line in enumerate(fh, 1):
                if line.strip():
                    yield n, _json_row(line, f"{path}:{n}")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the gold file ({exc})") from exc


def _json_row(line: str, where: str) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except ValueError as exc:
        raise FormatError(f"{where}: malformed JSON ({exc})") from None
    if not isinstance(row, dict):
        raise FormatError(f"{where}: not a JSON object")
    return row


def _kind(row: dict[str, Any], where: str) -> GoldKind:
    if "a" in row and "b" in row:
        return "pairs"
    if "id" in row and "cluster" in row:
        return "clusters"
    raise FormatError(f"{where}: a gold row needs fields a, b[, label] or id, cluster")


def _pair_rows(
    rows: list[tuple[int, dict[str, Any]]], path: Path
) -> Iterator[tuple[str, str, int]]:
    for n, row in rows:
        where = f"{path}:{n}"
        if _kind(row, where) != "pairs":
            raise FormatError(f"{where}: a cluster row in a file of pairs")
        yield _text(row["a"], where), _text(row["b"], where), _label(row.get("label"), where)


def _cluster_rows(rows: list[tuple[int, dict[str, Any]]], path: Path) -> Iterator[tuple[str, str]]:
    for n, row in rows:
        where = f"{path}:{n}"
        if _kind(row, where) != "clusters":
            raise FormatError(f"{where}: a pair row in a file of clusters")
        yield _text(row["id"], where), _text(row["cluster"], where)


def _text(value: Any, where: str) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise FormatError(f"{where}: an empty id")
    return value if isinstance(value, str) else json.dumps(value)


def _label(value: Any, where: str) -> int:
    if value is None or value == "":
        return 1
    if isinstance(value, bool):
        return int(value)
    try:
        return int(str(value).strip())
    except ValueError:
        raise FormatError(f"{where}: label {value!r} is not 0 or 1") from None
