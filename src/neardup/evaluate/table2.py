"""Zagorulko et al.'s (2013) Table 2 in form: duplicates found and type-I error % per shingle
method and t.

Zagorulko et al. (2013), Table 2: shingles with a "mod m" sample (m = 25), with the n
smallest fingerprints (n = 160) and with the full fingerprint sets, shingle length w = 4,
t = 0.5 ... 1.0; each method decides on its own sample (``verify=False``). Columns per method:
"к. д." (pairs found) and "о. п. р., %" (type-I error: share of found pairs that are not
duplicates, in %). Mega-shingles were run at t = 0.95 only (reported in the text).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from neardup.evaluate.gold import Scope
from neardup.evaluate.run import EvalConfig, EvalRow, Evaluation

SHINGLE_SIZE = 4
THRESHOLDS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
METHODS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("shingles-mod", {"m": 25}),
    ("shingles-min", {"n": 160}),
    ("shingles-full", {}),
)
MEGASHINGLES = "megashingles"
MEGASHINGLES_T = 0.95


def table2_config(
    *,
    scope: Scope = "all",
    common: Mapping[str, Any] | None = None,
    memory: str = "rss",
    replicates: int = 1000,
    seed: int = 0,
) -> EvalConfig:
    """The :class:`EvalConfig` of Table 2 (mega-shingles added when registered).

    Args:
        scope: scoring scope. common: parameters given to every method (``canonical``).
        memory, replicates, seed: as in :class:`EvalConfig`.
    """
    from neardup.methods.registry import method_names

    params = {name: {**(common or {}), "shingle_size": SHINGLE_SIZE, **p} for name, p in METHODS}
    methods = [name for name, _ in METHODS]
    extra: dict[str, tuple[float, ...]] = {}
    if MEGASHINGLES in method_names():
        methods.append(MEGASHINGLES)
        params[MEGASHINGLES] = {**(common or {}), "shingle_size": SHINGLE_SIZE}
        extra[MEGASHINGLES] = (MEGASHINGLES_T,)
    return EvalConfig(
        methods=tuple(methods),
        thresholds=THRESHOLDS,
        verify=False,
        scope=scope,
        method_params=params,
        method_thresholds=extra,
        memory=memory,
        replicates=replicates,
        seed=seed,
    )


def table2_rows(evaluation: Evaluation) -> list[dict[str, Any]]:
    """Table 2 rows: one per threshold, ``{t, <method>: {found, type_i_pct} | None}``.

    Methods not run at a threshold (mega-shingles outside 0.95) get ``None``; failed runs
    get ``{"error": ...}``.
    """
    cells: dict[tuple[str, float], EvalRow] = {(r.method, r.threshold): r for r in evaluation.rows}
    thresholds = sorted({r.threshold for r in evaluation.rows})
    out: list[dict[str, Any]] = []
    for t in thresholds:
        row: dict[str, Any] = {"t": t}
        for m in evaluation.methods():
            r = cells.get((m, t))
            row[m] = None if r is None else _cell(r)
        out.append(row)
    return out


def _cell(row: EvalRow) -> dict[str, Any]:
    if row.error is not None:
        return {"error": row.error}
    return {"found": row.found, "type_i_pct": round(100 * row.scores.type_i, 1)}
