"""The keep/drop decision of a cluster, shared by the local engine (:mod:`neardup.job.pipeline`)
and the Dask engine (:mod:`neardup.distributed`): which documents are contained in others,
the reason written for each dropped document, and the ranks of a keep-by field
(``keep_by``: a cluster keeps the member with the largest, or smallest, value of a record
field such as a date, as text-dedup and NeMo Curator users expect).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Any

import numpy as np


def containments(rows: np.ndarray, t: float) -> dict[int, int]:
    """``{doc: container}`` for matched pairs where one side is contained in the other
    (the first such pair in row order decides for a document)."""
    ca, cb = rows[:, 3], rows[:, 4]
    a_in_b = (ca >= t) & (ca > cb)
    b_in_a = ~a_in_b & (cb >= t) & (cb > ca)
    doc = np.where(a_in_b, rows[:, 0], rows[:, 1])[a_in_b | b_in_a].astype(np.int64)
    box = np.where(a_in_b, rows[:, 1], rows[:, 0])[a_in_b | b_in_a].astype(np.int64)
    first = np.unique(doc, return_index=True)[1]
    return dict(zip(doc[first].tolist(), box[first].tolist(), strict=True))


def drop_reason(
    doc: int,
    kept: int,
    row: np.ndarray | None,
    contained: dict[int, int],
    threshold: float,
) -> str:
    """Why ``doc`` was dropped for ``kept``, for ``dropped.jsonl``.

    Args:
        doc, kept: document indexes; row: the pair's row ``(a, b, resemblance,
            containment_ab, containment_ba, ...)`` or ``None`` when the two are not a
            direct pair (joined through other members); contained: :func:`containments`;
            threshold: the job's threshold.
    """
    if row is None:
        return "in the same cluster as the kept document (through other members)"
    if contained.get(doc) == kept and row[2] < threshold:
        share = row[3] if int(row[0]) == doc else row[4]
        return f"contained in the kept document (containment {share:.3f})"
    if contained.get(kept) == doc and row[2] < threshold:  # kept by a keep-by field
        share = row[4] if int(row[0]) == doc else row[3]
        return f"contains the kept document (containment {share:.3f})"
    return f"near-duplicate of the kept document (resemblance {row[2]:.3f})"


def value_kind(values: Iterable[Any]) -> str:
    """How the present values of a keep-by field compare: ``number`` when every one is a
    number (``bool`` counts as 0/1), ``date`` when every one is a date, a datetime or an
    ISO 8601 string (:meth:`datetime.datetime.fromisoformat`), else ``string`` (their text,
    compared lexicographically by code point). ``None`` values are missing, not counted;
    no present value at all gives ``string``."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, int | float) for v in present):
        return "number"
    if present and all(_as_datetime(v) is not None for v in present):
        return "date"
    return "string"


def field_ranks(n: int, values: dict[int, Any], *, order: str = "max") -> np.ndarray:
    """A rank per document for a keep-by field: a cluster keeps its member of highest rank,
    ties (and equal values) to the earlier document.

    Args:
        n: documents in the job; values: ``{document index: field value}`` (a document
            absent here, or with value ``None`` or NaN, has no value); order: ``max`` (the
            largest value is kept) or ``min``.

    Returns:
        int64 (n,): 0 for a document without a value (it loses to every document with
        one), else 1 + the position of its value among the distinct present values sorted
        in ``order`` (so higher is better). Values compare by :func:`value_kind`.
    """
    present = {d: v for d, v in values.items() if v is not None and v == v}  # NaN != NaN
    kind = value_kind(present.values())
    keyed = {d: _sort_key(v, kind) for d, v in present.items()}
    distinct = sorted(set(keyed.values()), reverse=order == "min")
    place = {k: i + 1 for i, k in enumerate(distinct)}
    ranks = np.zeros(n, dtype=np.int64)
    for d, k in keyed.items():
        ranks[d] = place[k]
    return ranks


def _sort_key(value: Any, kind: str) -> Any:
    if kind == "number":
        return value
    if kind == "date":
        return _as_datetime(value)
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def _as_datetime(value: Any) -> datetime | None:
    """``value`` as an aware datetime (a naive one is taken as UTC; a date at midnight), or
    None when it is not a date."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, str) and _ISO_DATE.match(value):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return None
    else:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


#: The start of an ISO 8601 date (``2016-03-01``, ``20160301``): a string must begin so to
#: be read as a date (``fromisoformat`` alone accepts times such as ``12:30``).
_ISO_DATE = re.compile(r"\d{4}-?\d{2}-?\d{2}")
