"""The keep/drop decision of a cluster, shared by the local engine (:mod:`neardup.dedup`)
and the Dask engine (:mod:`neardup.distributed`): which documents are contained in others,
and the reason written for each dropped document.
"""

from __future__ import annotations

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
    return f"near-duplicate of the kept document (resemblance {row[2]:.3f})"
