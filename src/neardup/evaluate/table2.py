"""Zagorulko et al.'s (2013) Table 2 in form: duplicates found and type-I error % per shingle
method and t.

Zagorulko et al. (2013), Table 2: shingles with a "mod m" sample (m = 25), with the n
smallest fingerprints (n = 160, compared by the paper's formula (1) on the two samples,
``estimator="zagorulko"``) and with the full fingerprint sets, shingle length w = 4,
32-bit Rabin fingerprints (:mod:`neardup.methods.rabin`), t = 0.5 ... 1.0: the parameters
of the preset ``zagorulko-2013`` (:mod:`neardup.methods.presets`); each method decides on
its own sample (``decision="own"``). Over several collections
(:func:`table2_collections`) a total row follows each threshold's collections, as in the
paper ("Итого"). Columns per method:
"к. д." (pairs found) and "о. п. р., %" (type-I error: share of found pairs that are not
duplicates, in %). Mega-shingles were run at t = 0.95 only (reported in the text), on
5-word shingles with 64-bit Karp-Rabin fingerprints (``rabin64``; Zagorulko et al. 2013,
Romanov 2019), as here; beside their measured recall the table gives the recall formula (3)
expects on the gold duplicate pairs (:func:`megashingle_expected_recall`).

Scope: with ``scope="all"`` (the default) a found pair the gold does not list counts as a
type-I error, whether it was judged or not; on a gold that is not exhaustive that overstates
the error, and the table says so (:func:`scope_note`). ``scope="labelled"`` scores the
judged pairs only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from neardup.evaluate.gold import GoldStandard, Scope
from neardup.evaluate.run import EvalConfig, EvalRow, Evaluation
from neardup.text.types import Document

#: The preset of the paper's parameters (:mod:`neardup.methods.presets`).
PRESET = "zagorulko-2013"


def _paper_params(method: str) -> dict[str, Any]:
    """The preset's parameters of ``method`` but its canonical form (``common`` gives it)."""
    from neardup.methods.presets import preset

    return {k: v for k, v in preset(PRESET).params_for(method).items() if k != "canonical"}


THRESHOLDS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: Shingle length w = 4, 32-bit Rabin fingerprints ("алгоритм Рабина – Карпа"), m = 25,
#: n = 160 with formula (1) on the two samples.
METHODS: tuple[tuple[str, dict[str, Any]], ...] = tuple(
    (name, _paper_params(name)) for name in ("shingles-mod", "shingles-min", "shingles-full")
)
SHINGLE_SIZE: int = METHODS[0][1]["shingle_size"]
FINGERPRINT: str = METHODS[0][1]["fingerprint"]
MEGASHINGLES = "megashingles"
MEGASHINGLES_T = 0.95
#: Mega-shingles as Zagorulko et al. 2013 and Romanov 2019 build them: 5-word shingles with
#: 64-bit Karp-Rabin fingerprints (84 maps, 6 super-shingles: the method's defaults).
MEGASHINGLES_PARAMS: dict[str, Any] = _paper_params(MEGASHINGLES)
#: Key of :func:`megashingle_expected_recall`'s result in an evaluation's ``meta``.
FORMULA3 = "megashingles_formula3"


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

    params = {name: {**(common or {}), **p} for name, p in METHODS}
    methods = [name for name, _ in METHODS]
    extra: dict[str, tuple[float, ...]] = {}
    if MEGASHINGLES in method_names():
        methods.append(MEGASHINGLES)
        params[MEGASHINGLES] = {**(common or {}), **MEGASHINGLES_PARAMS}
        extra[MEGASHINGLES] = (MEGASHINGLES_T,)
    return EvalConfig(
        methods=tuple(methods),
        thresholds=THRESHOLDS,
        decision="own",
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
    return {
        "found": row.found,
        "type_i_pct": round(100 * row.scores.type_i, 1),
        "recall": round(row.scores.recall, 4),
    }


def megashingle_expected_recall(
    docs: Sequence[Document], gold: GoldStandard, params: Mapping[str, Any]
) -> dict[str, Any] | None:
    """Formula (3) of Zagorulko et al. 2013 on the gold duplicate pairs: the recall the
    mega-shingles are expected to reach, ``mean P(p)`` over the gold positive pairs with
    ``p`` the pair's exact resemblance on the method's own shingles (5-word ``rabin64`` by
    :data:`MEGASHINGLES_PARAMS`) and ``P = 1 - (1 - p^r)^s - s p^r (1 - p^r)^(s-1)``
    (:func:`neardup.methods.megashingles.recall_curve`, ``r = num_maps / s``).

    Args:
        docs: the corpus. gold: its gold standard. params: the mega-shingle parameters.

    Returns:
        ``{pairs, expected_recall, r, s, shingle_size, fingerprint}`` (``pairs``: gold
        positives with both documents in ``docs``), or ``None`` when there is none.

    Raises:
        ParameterError: bad ``params``.
    """
    from neardup.methods.measures import overlap
    from neardup.methods.megashingles import Megashingles, recall_curve
    from neardup.methods.registry import make_method

    meth = cast(Megashingles, make_method(MEGASHINGLES, **params))  # the registry's class
    by_id = {d.id: d for d in docs}
    pairs = sorted(k for k in gold.positives if k[0] in by_id and k[1] in by_id)
    if not pairs:
        return None
    ids = sorted({i for k in pairs for i in k})
    row = {d: i for i, d in enumerate(ids)}
    sets = meth.shingling.batch([meth.canonical.tokens(by_id[d].text) for d in ids])
    p = np.array([overlap(sets.get(row[a]), sets.get(row[b])).resemblance for a, b in pairs])
    r, s = meth.num_maps // meth.supershingles, meth.supershingles
    expected = np.asarray(recall_curve(p, r=r, s=s))
    return {
        "pairs": len(pairs),
        "expected_recall": round(float(expected.mean()), 4),
        "r": r,
        "s": s,
        "shingle_size": meth.shingle_size,
        "fingerprint": meth.fingerprint,
    }


def with_expected_recall(
    evaluation: Evaluation, docs: Sequence[Document], gold: GoldStandard, config: EvalConfig
) -> Evaluation:
    """``evaluation`` with formula (3)'s expected mega-shingle recall in ``meta[FORMULA3]``
    (unchanged when mega-shingles were not run)."""
    if MEGASHINGLES not in config.methods:
        return evaluation
    found = megashingle_expected_recall(docs, gold, config.method_params.get(MEGASHINGLES, {}))
    return Evaluation(evaluation.rows, {**evaluation.meta, FORMULA3: found})


def formula3_note(evaluation: Evaluation) -> str:
    """One line: the mega-shingles' measured recall beside formula (3)'s expectation
    (``""`` when mega-shingles were not run or no expectation was computed)."""
    expected = evaluation.meta.get(FORMULA3)
    rows = [r for r in evaluation.rows if r.method == MEGASHINGLES and r.error is None]
    if not expected or not rows:
        return ""
    measured = rows[0].scores.recall
    return (
        f"mega-shingles ({expected['shingle_size']}-word {expected['fingerprint']} shingles, "
        f"r = {expected['r']}, s = {expected['s']}): recall measured {measured:.3f}, "
        f"formula (3) expects {expected['expected_recall']:.3f} over the "
        f"{expected['pairs']} gold duplicate pairs (Zagorulko et al. 2013)"
    )


def scope_note(scope: str) -> str:
    """What the type-I column counts under ``scope``."""
    if scope == "all":
        return (
            "scope all: a found pair the gold does not list counts as a type-I error, "
            "judged or not (use --scope labelled when the gold is not exhaustive)"
        )
    return "scope labelled: only the pairs the gold judges are scored"


#: Name of the total row of :func:`table2_collections` (the paper's "Итого").
TOTAL = "total"


def table2_collections(results: Sequence[tuple[str, Evaluation]]) -> list[dict[str, Any]]:
    """Table 2 over several collections, as in Zagorulko et al. (2013): per threshold, one row
    per collection, then the total row.

    The total row sums the pairs found ("к. д.") over the collections and gives the type-I
    error of the pooled pairs, ``100 * sum(fp) / sum(found)``. (The paper's own totals are
    not all sums of its rows: at t = 0.5, 49 + 136 + 79 + 72 = 336 pairs for the mod-m
    sample where it prints 356.)

    Args:
        results: ``(collection name, evaluation)`` pairs, each run with the same Table 2
            config (:func:`table2_config`).

    Returns:
        Rows ``{t, collection, <method>: {found, type_i_pct} | {error} | None}``, thresholds
        ascending, the collections in the given order, ``collection == "total"`` last.
    """
    methods = list(dict.fromkeys(m for _, ev in results for m in ev.methods()))
    thresholds = sorted({r.threshold for _, ev in results for r in ev.rows})
    cells = {(name, r.method, r.threshold): r for name, ev in results for r in ev.rows}
    out: list[dict[str, Any]] = []
    for t in thresholds:
        for name, _ in results:
            row: dict[str, Any] = {"t": t, "collection": name}
            for m in methods:
                r = cells.get((name, m, t))
                row[m] = None if r is None else _cell(r)
            out.append(row)
        total: dict[str, Any] = {"t": t, "collection": TOTAL}
        for m in methods:
            runs = [cells.get((name, m, t)) for name, _ in results]
            total[m] = _total([r for r in runs if r is not None])
        out.append(total)
    return out


def _total(runs: list[EvalRow]) -> dict[str, Any] | None:
    if not runs:
        return None
    failed = [r.error for r in runs if r.error is not None]
    if failed:
        return {"error": failed[0]}
    found = sum(r.found for r in runs)
    fp = sum(r.scores.fp for r in runs)
    return {"found": found, "type_i_pct": round(100 * fp / found, 1) if found else 0.0}


# -- Table 3 ----------------------------------------------------------------------------------
#: Table 3's thresholds (Zagorulko et al. 2013: "t in [0.5; 0.6]").
TABLE3_THRESHOLDS: tuple[float, ...] = (0.5, 0.6)
#: Texts sampled per collection (the paper: 25 from each of 4 collections, 100 in all).
TABLE3_SAMPLE = 25


def table3_config(**kwargs: Any) -> EvalConfig:
    """Table 3's :class:`EvalConfig`: Table 2's shingle methods (``w = 4``, ``rabin32``, own
    decision) at t = 0.5 and 0.6, without mega-shingles (the paper reports their recall in
    the text). ``kwargs`` as for :func:`table2_config`."""
    import dataclasses

    base = table2_config(**kwargs)
    methods = tuple(m for m in base.methods if m != MEGASHINGLES)
    params = {m: p for m, p in base.method_params.items() if m in methods}
    return dataclasses.replace(
        base,
        methods=methods,
        thresholds=TABLE3_THRESHOLDS,
        method_params=params,
        method_thresholds={},
    )


def table3_sample(
    docs: Sequence[Document], gold: GoldStandard, *, size: int = TABLE3_SAMPLE, seed: int = 0
) -> tuple[list[Document], GoldStandard]:
    """Table 3's sample: ``size`` texts drawn (seeded, uniformly) from the documents the gold
    judges, and the gold restricted to pairs inside the sample, so every duplicate pair of
    the sample is known (the paper's experts read all 100 sampled texts).

    Raises:
        ParameterError: ``size`` < 2.
    """
    from neardup.errors import check_int
    from neardup.evaluate.metrics import Gold

    check_int("size", size, low=2, high=10_000_000)
    judged = sorted(d.id for d in docs if d.id in gold.ids)
    rng = np.random.default_rng(seed)
    chosen = set(rng.choice(judged, size=min(size, len(judged)), replace=False).tolist())
    sample = [d for d in docs if d.id in chosen]
    inside = frozenset(k for k in gold.positives if k[0] in chosen and k[1] in chosen)
    negatives = frozenset(k for k in gold.pairs.negatives if k[0] in chosen and k[1] in chosen)
    restricted = GoldStandard(
        Gold(inside, negatives), gold.kind, frozenset(chosen), None, gold.source
    )
    return sample, restricted


def table3_rows(results: Sequence[tuple[str, Evaluation]]) -> list[dict[str, Any]]:
    """Table 3 rows: per threshold ``{t, collection, pairs, <method>: type-II % | None}``,
    one row per collection and the total (missed duplicates of the pooled samples over
    their duplicate pairs), as Zagorulko et al. 2013 report it for the 100-text sample."""
    methods = list(dict.fromkeys(m for _, ev in results for m in ev.methods()))
    out: list[dict[str, Any]] = []
    for t in TABLE3_THRESHOLDS:
        fn = dict.fromkeys(methods, 0)
        positives = dict.fromkeys(methods, 0)
        for name, ev in results:
            row: dict[str, Any] = {"t": t, "collection": name}
            row["pairs"] = int(ev.meta.get("gold_positives", 0))
            for m in methods:
                r = next((x for x in ev.rows if x.method == m and x.threshold == t), None)
                if r is None or r.error is not None:
                    row[m] = None
                    continue
                missed, total = r.scores.fn, r.scores.tp + r.scores.fn
                fn[m] += missed
                positives[m] += total
                row[m] = round(100 * missed / total, 1) if total else None
            out.append(row)
        total_row: dict[str, Any] = {"t": t, "collection": TOTAL}
        total_row["pairs"] = sum(int(ev.meta.get("gold_positives", 0)) for _, ev in results)
        for m in methods:
            total_row[m] = round(100 * fn[m] / positives[m], 1) if positives[m] else None
        out.append(total_row)
    return out
