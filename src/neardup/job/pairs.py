"""Verified pairs: the :class:`Pair` value, the column-stored :class:`PairTable` and their
``pairs.jsonl`` lines.

A corpus job may verify tens of millions of pairs (27 million at one million documents of
the benchmark corpus); one Python object per pair costs ~200 bytes and ~1 µs to build, so
the job keeps its pairs as numpy columns and makes a :class:`Pair` only when one is asked
for. :func:`pair_lines` formats the JSONL rows straight from the columns, byte for byte
what ``json.dumps(pair.as_dict(), ensure_ascii=False)`` gives.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np

#: Names of the rules a pair can be accepted by (index = the stored code); equal to
#: :data:`neardup.methods.decision.DECIDED_BY`.
DECIDED: tuple[str, ...] = ("verified", "own", "identical")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: What ``json.dumps(s, ensure_ascii=False)`` makes of a ``str`` (its encoder's function, in C
#: where built; without the call's encoder object, about 10x faster for an id).
_encode_string = json.encoder.encode_basestring
#: Rows formatted per chunk by :func:`pair_lines` (bounds the temporary Python floats).
LINE_CHUNK = 65_536
_VALUE_COLUMNS = ("resemblance", "containment_ab", "containment_ba", "score")


@dataclass(frozen=True, slots=True)
class Pair:
    """A verified pair of near-duplicates (``pairs.jsonl`` row).

    Attributes:
        a, b: document ids (``a`` earlier in input order).
        resemblance: Jaccard of the full shingle sets, in [0, 1].
        containment_ab: share of ``a``'s shingles found in ``b``; containment_ba: the reverse.
        score: the value that decided the pair, in [0, 1]: the exact resemblance or the
            larger containment (``verified``, by the job's measure), the method's own score
            (``own``: its similarity, or its estimated containment), 1 (``identical``).
        method: method name.
        decision: the rule that accepted the pair (``own``, ``verified`` or ``identical``;
            see :mod:`neardup.job.decide`), or None when not recorded.
        rule: that rule in a few words with its bar (``containment >= 0.5 verified``,
            ``TF-RIDF equal signature``), or None when not recorded.
    """

    a: str
    b: str
    resemblance: float
    containment_ab: float
    containment_ba: float
    score: float
    method: str
    decision: str | None = None
    rule: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready row, values rounded to 6 decimals (``decision`` and ``rule`` only when
        recorded)."""
        row = {
            "a": self.a,
            "b": self.b,
            "resemblance": round(self.resemblance, 6),
            "containment_ab": round(self.containment_ab, 6),
            "containment_ba": round(self.containment_ba, 6),
            "score": round(self.score, 6),
            "method": self.method,
        }
        if self.decision is not None:
            row["decision"] = self.decision
        if self.rule is not None:
            row["rule"] = self.rule
        return row


class PairTable(Sequence[Pair]):
    """The verified pairs of a job as columns; a read-only sequence of :class:`Pair`.

    Args:
        ids: document ids; ``rows[:, 0:2]`` index into them.
        rows: float64 array of shape ``(n_pairs, 6)``: ``a, b, resemblance, containment_ab,
            containment_ba, score`` (document numbers are exact in float64 below 2**53).
        method: method name written in every row.
        decisions: optional uint8 array of shape ``(n_pairs,)``: per row, the index in
            :data:`DECIDED` of the rule that accepted the pair.
        rules: optional labels of the three rules, indexed like :data:`DECIDED` (written
            as each pair's ``rule``; only with ``decisions``).

    Raises:
        ValueError: ``rows`` is not two-dimensional with 6 columns, ``decisions`` does
            not have one entry per row, or ``rules`` without ``decisions`` or not three.
    """

    __slots__ = ("_decisions", "_ids", "_rows", "_rules", "method")

    def __init__(
        self,
        ids: Sequence[str],
        rows: np.ndarray,
        method: str,
        *,
        decisions: np.ndarray | None = None,
        rules: Sequence[str] | None = None,
    ) -> None:
        rows = np.asarray(rows, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != 6:
            raise ValueError(f"rows must have shape (n, 6), got {rows.shape}")
        if decisions is not None:
            decisions = np.asarray(decisions, dtype=np.uint8)
            if decisions.shape != (rows.shape[0],):
                raise ValueError(f"decisions must have shape ({rows.shape[0]},)")
        if rules is not None and (decisions is None or len(rules) != len(DECIDED)):
            raise ValueError(f"rules need decisions and one label per rule {DECIDED}")
        self._rules = None if rules is None else tuple(rules)
        self._ids = ids
        self._rows = rows
        self._decisions = decisions
        self.method = method

    def decision(self, i: int) -> str | None:
        """The rule that accepted pair ``i`` (``own``, ``verified``, ``identical``) or None."""
        return None if self._decisions is None else DECIDED[int(self._decisions[i])]

    def rule(self, i: int) -> str | None:
        """The label of the rule that accepted pair ``i``, or None when not recorded."""
        if self._rules is None or self._decisions is None:
            return None
        return self._rules[int(self._decisions[i])]

    @property
    def rows(self) -> np.ndarray:
        """The ``(n_pairs, 6)`` float64 columns (read-only view)."""
        view = self._rows.view()
        view.flags.writeable = False
        return view

    def __len__(self) -> int:
        return int(self._rows.shape[0])

    @overload
    def __getitem__(self, i: int) -> Pair: ...
    @overload
    def __getitem__(self, i: slice) -> list[Pair]: ...
    def __getitem__(self, i: int | slice) -> Pair | list[Pair]:
        if isinstance(i, slice):
            return [self._pair(j) for j in range(*i.indices(len(self)))]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"pair index {i} out of range for {n} pairs")
        return self._pair(i % n if n else i)

    def __iter__(self) -> Iterator[Pair]:
        for start in range(0, len(self), LINE_CHUNK):
            chunk = self._rows[start : start + LINE_CHUNK]
            for k, (a, b, r, cab, cba, s) in enumerate(chunk.tolist()):
                i = start + k
                yield Pair(
                    self._ids[int(a)], self._ids[int(b)], r, cab, cba, s, self.method,
                    self.decision(i), self.rule(i),
                )  # fmt: skip

    def __repr__(self) -> str:
        return f"PairTable({len(self)} pairs, method={self.method!r})"

    def __eq__(self, other: object) -> bool:
        """Equal to a :class:`PairTable`, list or tuple holding the same pairs in order."""
        if not isinstance(other, PairTable | list | tuple):
            return NotImplemented
        return len(self) == len(other) and all(p == q for p, q in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def _pair(self, i: int) -> Pair:
        a, b, r, cab, cba, s = self._rows[i].tolist()
        return Pair(
            self._ids[int(a)], self._ids[int(b)], r, cab, cba, s, self.method,
            self.decision(i), self.rule(i),
        )  # fmt: skip

    @classmethod
    def from_pairs(cls, pairs: Sequence[Pair], *, method: str = "") -> PairTable:
        """A table holding ``pairs`` in order (the method of the first pair, else
        ``method``; decisions kept when every pair records one).

        Raises:
            ValueError: a pair records an unknown decision, or pairs of two methods.
        """
        ids: list[str] = []
        number: dict[str, int] = {}
        for p in pairs:
            for doc in (p.a, p.b):
                if doc not in number:
                    number[doc] = len(ids)
                    ids.append(doc)
        rows = np.array(
            [(number[p.a], number[p.b], p.resemblance, p.containment_ab, p.containment_ba, p.score)
             for p in pairs],
            dtype=np.float64,
        ).reshape(-1, 6)  # fmt: skip
        methods = {p.method for p in pairs}
        if len(methods) > 1:
            raise ValueError(f"pairs of more than one method: {sorted(methods)}")
        decisions = None
        decided = [p.decision for p in pairs if p.decision is not None]
        if pairs and len(decided) == len(pairs):
            unknown = set(decided) - set(DECIDED)
            if unknown:
                raise ValueError(f"unknown decisions {sorted(unknown)}: one of {DECIDED}")
            decisions = np.array([DECIDED.index(d) for d in decided], np.uint8)
        rules = _rules_of(pairs) if decisions is not None else None
        return cls(
            ids, rows, methods.pop() if methods else method, decisions=decisions, rules=rules
        )

    def _columns(self) -> dict[str, Any]:
        rows = self._rows
        ids = self._ids
        columns: dict[str, Any] = {
            "a": [ids[int(i)] for i in rows[:, 0]],
            "b": [ids[int(i)] for i in rows[:, 1]],
        }
        for j, name in enumerate(_VALUE_COLUMNS, start=2):
            columns[name] = rows[:, j]
        columns["method"] = [self.method] * len(self)
        if self._decisions is not None:
            columns["decision"] = [DECIDED[int(d)] for d in self._decisions]
            if self._rules is not None:
                columns["rule"] = [self._rules[int(d)] for d in self._decisions]
        return columns

    def to_arrow(self) -> Any:
        """The pairs as a ``pyarrow.Table``: the columns of ``pairs.jsonl`` (``a``, ``b``
        ids; ``resemblance``, ``containment_ab``, ``containment_ba``, ``score`` float64,
        unrounded; ``method``; ``decision`` when recorded).

        Raises:
            InputError: pyarrow is not installed.
        """
        from neardup.result_tables import need

        pa = need("pyarrow", "to_arrow()")
        columns = self._columns()
        for name in _VALUE_COLUMNS:
            columns[name] = pa.array(columns[name], type=pa.float64())
        return pa.table(
            {k: v if k in _VALUE_COLUMNS else pa.array(v, type=pa.string())
             for k, v in columns.items()}
        )  # fmt: skip

    def to_pandas(self) -> Any:
        """The pairs as a ``pandas.DataFrame`` (the columns of :meth:`to_arrow`).

        Raises:
            InputError: pandas is not installed.
        """
        from neardup.result_tables import need

        pd = need("pandas", "to_pandas()")
        columns = self._columns()
        return pd.DataFrame({
            k: pd.Series(v, dtype="float64" if k in _VALUE_COLUMNS else object)
            for k, v in columns.items()
        })  # fmt: skip

    def lines(self) -> Iterator[str]:
        """``pairs.jsonl`` lines (with ``\\n``) in pair order; see :func:`pair_lines`."""
        rows = self._rows
        a = rows[:, 0].astype(np.int64)
        b = rows[:, 1].astype(np.int64)
        yield from pair_lines(
            self._ids, a, b, rows[:, 2:6], self.method, decisions=self._decisions, rules=self._rules
        )


def _rules_of(pairs: Sequence[Pair]) -> tuple[str, ...] | None:
    """The rule label of each decision when every pair records one and pairs of the same
    decision agree (a decision no pair has is labelled by its name); else None."""
    labels: dict[str, str] = {}
    for p in pairs:
        if p.rule is None or labels.setdefault(p.decision or "", p.rule) != p.rule:
            return None
    return tuple(labels.get(d, d) for d in DECIDED)


def pair_lines(
    ids: Sequence[str] | np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    values: np.ndarray,
    method: str,
    *,
    decisions: np.ndarray | None = None,
    rules: Sequence[str] | None = None,
) -> Iterator[str]:
    """JSONL lines of pairs, each equal to ``json.dumps(Pair(...).as_dict(),
    ensure_ascii=False) + "\\n"`` (a line whose ids hold lone surrogates is written with
    ``ensure_ascii=True``, as :mod:`neardup.output` does for any row).

    Args:
        ids: document ids, indexed by ``a`` and ``b``.
        a, b: int arrays of shape ``(n,)``; document numbers of each pair.
        values: float array of shape ``(n, 4)``: resemblance, containment_ab,
            containment_ba, score (rounded to 6 decimals as in :meth:`Pair.as_dict`).
        method: method name.
        decisions: optional uint8 (n,): per pair, the index in :data:`DECIDED` of the rule
            that accepted it (written as ``"decision"`` after ``"method"``).
        rules: optional labels of the rules by the same index (written as ``"rule"`` after
            ``"decision"``).

    Yields:
        One string per pair, in order.
    """
    quoted: dict[int, str] = {}
    head = f', "method": {json.dumps(method, ensure_ascii=False)}'
    if decisions is None:
        tails = [head + "}\n"]
    elif rules is None:
        tails = [f'{head}, "decision": "{d}"}}\n' for d in DECIDED]
    else:
        tails = [
            f'{head}, "decision": "{d}", "rule": {json.dumps(r, ensure_ascii=False)}}}\n'
            for d, r in zip(DECIDED, rules, strict=True)
        ]
    for start in range(0, int(a.shape[0]), LINE_CHUNK):
        stop = start + LINE_CHUNK
        va, vb = a[start:stop].tolist(), b[start:stop].tolist()
        codes = [0] * len(va) if decisions is None else decisions[start:stop].tolist()
        res, cab, cba, score = _rounded(values[start:stop])
        for i in range(len(va)):
            ja = quoted.get(va[i]) or _quote(quoted, ids, va[i])
            jb = quoted.get(vb[i]) or _quote(quoted, ids, vb[i])
            if ja[0] != '"' or jb[0] != '"':  # a lone surrogate in an id: the whole row ASCII
                ja, jb = json.dumps(ids[va[i]]), json.dumps(ids[vb[i]])
            yield (
                f'{{"a": {ja}, "b": {jb}, "resemblance": {res[i]}, '
                f'"containment_ab": {cab[i]}, "containment_ba": {cba[i]}, '
                f'"score": {score[i]}{tails[codes[i]]}'
            )


def _rounded(values: np.ndarray) -> list[list[str]]:
    """The columns of float (m, 4) ``values`` as the text of each value rounded to 6
    decimals (``repr(round(v, 6))``, as :meth:`Pair.as_dict` and ``json.dumps`` write it),
    each distinct value (by its bits) formatted once: the 328,677 pairs of ten million
    planted documents hold 12,619 distinct values among their 1.3 million."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.int64)
    distinct, at = np.unique(bits, return_inverse=True)
    texts = np.array([repr(round(v, 6)) for v in distinct.view(np.float64).tolist()], object)
    shown = texts[at.reshape(bits.shape)]
    return [shown[:, c].tolist() for c in range(bits.shape[1])]


def _quote(cache: dict[int, str], ids: Sequence[str] | np.ndarray, i: int) -> str:
    """JSON string of ``ids[i]`` (non-ASCII as itself: ``json.dumps(ensure_ascii=False)``
    by the encoder's own string function), cached; ``!``-marked when the id holds a lone
    surrogate (the caller then writes the row ASCII-escaped)."""
    doc_id = ids[i]
    text = _encode_string(doc_id)
    if _SURROGATE.search(doc_id):
        text = "!" + text
    cache[i] = text
    return text
