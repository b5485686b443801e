"""Run methods x thresholds on a labelled corpus, or score an existing ``dedup --out``.

One row per (method, threshold): the pairs ``dedup`` reports, scored against the gold
standard (:mod:`.metrics`, :mod:`.clusters`, :mod:`.bootstrap`), with the run's wall time and
peak memory (:mod:`.resources`).

Each (method, threshold) is one timed ``dedup`` call, except where reusing one run is exact:
a method without a ``threshold`` parameter (its signatures and candidates do not depend on
the threshold: I-Match, TF-RIDF, anchor words, mega-shingles, SimHash) under
``measure="resemblance"`` gives, at threshold ``t``, exactly the pairs of its run at the
lowest threshold whose decision value is ``>= t`` (``dedup`` decides ``value >= t`` on every
candidate; the value is the exact resemblance, or the method's score under its own rule);
under its own rule, a method whose rule has no threshold (equal signature, a shared
mega-shingle, SimHash's Hamming distance) gives the same pairs at every threshold and under
either measure: it runs once, by its own rule, and gets one row (``threshold_free``).
Reused rows are marked ``reused`` and carry the time and memory of that one run.
Methods with a ``threshold`` parameter (their index is built for it) always run anew.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from neardup.errors import FormatError, InputError, NeardupError, ParameterError, check_choice
from neardup.evaluate.bootstrap import PairIntervals, bootstrap_pairs
from neardup.evaluate.cluster_metrics import ClusterScores, cluster_scores, components
from neardup.evaluate.gold import GoldStandard, Scope
from neardup.evaluate.metrics import Scores, pair_key
from neardup.evaluate.resources import MEMORY_MODES, Usage, measure
from neardup.options import check_options
from neardup.text.types import Document

SCOPES: tuple[str, ...] = ("all", "labelled")


@dataclass(frozen=True, kw_only=True)
class EvalConfig:
    """What to run and how to score it.

    Args:
        methods: registry names, in report order.
        thresholds: decision thresholds in (0, 1], ascending.
        measure: ``resemblance`` or ``containment`` (``DedupOptions.measure``).
        decision: ``own`` (each method's own rule), ``verified`` (exact shingle sets) or
            ``None`` (each method's default: :mod:`neardup.methods.decision`).
        scope: ``all`` (unlisted pairs are non-duplicates) or ``labelled``.
        method_params: per method, keyword parameters for ``dedup`` (``shingle_size``...).
        method_thresholds: per method, thresholds replacing ``thresholds`` (Table 2 runs
            mega-shingles at 0.95 only).
        min_tokens: ``DedupOptions.min_tokens``.
        memory: ``rss``, ``tracemalloc`` or ``off`` (:mod:`.resources`).
        replicates, level, seed: bootstrap settings (:mod:`.bootstrap`).
        reuse: reuse one run across thresholds where exact (see the module docstring).
    """

    methods: tuple[str, ...]
    thresholds: tuple[float, ...]
    measure: str = "resemblance"
    decision: str | None = None
    scope: Scope = "all"
    method_params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    method_thresholds: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    min_tokens: int = 3
    memory: str = "rss"
    replicates: int = 1000
    level: float = 0.95
    seed: int = 0
    reuse: bool = True

    def __post_init__(self) -> None:
        check_choice("scope", self.scope, SCOPES)
        check_choice("memory", self.memory, MEMORY_MODES)
        check_options(measure=self.measure, decision=self.decision, min_tokens=self.min_tokens)
        if not self.methods:
            raise ParameterError("methods", self.methods, "at least one method")
        if not self.thresholds:
            raise ParameterError("thresholds", self.thresholds, "at least one threshold")

    def thresholds_for(self, method: str) -> tuple[float, ...]:
        """The thresholds ``method`` is run at."""
        return tuple(self.method_thresholds.get(method, self.thresholds))


@dataclass(frozen=True)
class EvalRow:
    """Quality and cost of one method at one threshold.

    Attributes:
        method, threshold: what ran.
        reported: pairs the method reported; scores: confusion counts of the pairs counted in
            the scope (``scores.tp + scores.fp`` of them); intervals: bootstrap intervals;
        clusters: cluster agreement; usage: wall time and peak memory of the run;
        reused: the pairs were filtered from the method's run at a lower threshold;
        threshold_free: the method decided by its own rule, which takes no threshold nor
            measure (equal signatures, a shared mega-shingle, a Hamming distance): its one
            row stands for every threshold (``threshold`` is the one it ran at);
        params: the method's and the canonical form's parameters (from the run's summary);
        error: why the run failed (other fields then zero), or ``None``.
    """

    method: str
    threshold: float
    reported: int
    scores: Scores
    intervals: PairIntervals | None
    clusters: ClusterScores | None
    usage: Usage | None
    reused: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    threshold_free: bool = False

    @property
    def found(self) -> int:
        """Pairs counted in the scope (Zagorulko et al.'s (2013) "к. д.", duplicates found)."""
        return self.scores.tp + self.scores.fp

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready row (ratios rounded to 4 decimals, seconds to 3, MiB to 1)."""
        s, ci, cl, us = self.scores, self.intervals, self.clusters, self.usage
        return {
            "method": self.method,
            "threshold": self.threshold,
            "reported": self.reported,
            "found": self.found,
            "tp": s.tp,
            "fp": s.fp,
            "fn": s.fn,
            "precision": round(s.precision, 4),
            "recall": round(s.recall, 4),
            "f1": round(s.f1, 4),
            "type_i_pct": round(100 * s.type_i, 2),
            "type_ii_pct": round(100 * s.type_ii, 2),
            "precision_ci": _ci(ci.precision if ci else None),
            "recall_ci": _ci(ci.recall if ci else None),
            "f1_ci": _ci(ci.f1 if ci else None),
            "bcubed_f1": round(cl.bcubed_f1, 4) if cl else None,
            "bcubed_precision": round(cl.bcubed_precision, 4) if cl else None,
            "bcubed_recall": round(cl.bcubed_recall, 4) if cl else None,
            "ari": round(cl.ari, 4) if cl else None,
            "seconds": round(us.seconds, 3) if us else None,
            "peak_mib": round(us.peak_mib, 1) if us and us.peak_mib is not None else None,
            "reused": self.reused,
            "threshold_free": self.threshold_free,
            "params": self.params,
            "error": self.error,
        }


def _ci(interval: Any) -> list[float] | None:
    return interval.as_list() if interval is not None else None


@dataclass
class Evaluation:
    """All rows of an evaluation and what they were measured on.

    Attributes:
        rows: :class:`EvalRow` in method order, thresholds ascending.
        meta: JSON-ready description (corpus, gold, scope, measure, decision, memory mode...).
        left_out: methods not run, as ``{"method", "reason"}`` (for example a method whose
            own rule cannot decide by containment under ``measure="containment"``).
        errors: per method, its false-positive and missed pairs at its best threshold for
            error analysis: ``{"threshold", "false_positives", "missed"}``, each pair a
            ``{"a", "b", "resemblance", "containment_ab", "containment_ba"}`` dict (exact
            word-shingle measures of the two texts, :func:`neardup.job.compare.compare`), at most
            :data:`ERROR_PAIRS` of each, ``*_total`` giving the full counts.
    """

    rows: list[EvalRow]
    meta: dict[str, Any]
    left_out: list[dict[str, str]] = field(default_factory=list)
    errors: dict[str, dict[str, Any]] = field(default_factory=dict)

    def methods(self) -> list[str]:
        """Methods in row order."""
        return list(dict.fromkeys(r.method for r in self.rows))

    def best(self) -> dict[str, EvalRow]:
        """Per method, the row of highest F1 (ties: higher threshold); failed rows skipped."""
        out: dict[str, EvalRow] = {}
        for r in self.rows:
            if r.error is not None:
                continue
            cur = out.get(r.method)
            if cur is None or (r.scores.f1, r.threshold) > (cur.scores.f1, cur.threshold):
                out[r.method] = r
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{meta, rows, best, left_out, errors}``."""
        return {
            "meta": self.meta,
            "rows": [r.as_dict() for r in self.rows],
            "best": {m: r.as_dict() for m, r in self.best().items()},
            "left_out": list(self.left_out),
            "errors": dict(self.errors),
        }


@dataclass(frozen=True)
class _Scorer:
    """Scores predicted pairs against one gold standard in one scope."""

    gold: GoldStandard
    scope: Scope
    partition: dict[str, str]
    replicates: int
    level: float
    seed: int

    @classmethod
    def make(
        cls, gold: GoldStandard, scope: Scope, replicates: int, level: float, seed: int
    ) -> _Scorer:
        """Precompute the gold partition (given clusters, or components of the positives)."""
        part = gold.clusters if gold.clusters is not None else components(gold.ids, gold.positives)
        return cls(gold, scope, dict(part), replicates, level, seed)

    def row(
        self,
        method: str,
        threshold: float,
        predicted: Sequence[tuple[str, str]],
        usage: Usage | None,
        *,
        reused: bool = False,
        params: dict[str, Any] | None = None,
        threshold_free: bool = False,
    ) -> EvalRow:
        """Score ``predicted`` as the pairs of ``method`` at ``threshold``."""
        counted = self.gold.scoped(predicted, self.scope)
        tp = len(counted & self.gold.positives)
        scores = Scores(tp=tp, fp=len(counted) - tp, fn=len(self.gold.positives) - tp)
        ci = bootstrap_pairs(
            tp,
            len(counted),
            tp,
            len(self.gold.positives),
            replicates=self.replicates,
            level=self.level,
            seed=self.seed,
        )
        clusters = cluster_scores(self.partition, sorted(counted))
        return EvalRow(
            method,
            threshold,
            len(predicted),
            scores,
            ci,
            clusters,
            usage,
            reused,
            params or {},
            threshold_free=threshold_free,
        )

    def failed(
        self, method: str, threshold: float, error: str, *, threshold_free: bool = False
    ) -> EvalRow:
        """A row for a run that raised."""
        scores = Scores(tp=0, fp=0, fn=len(self.gold.positives))
        return EvalRow(
            method,
            threshold,
            0,
            scores,
            None,
            None,
            None,
            error=error,
            threshold_free=threshold_free,
        )


def decision_value(pair: Any, measure: str, verified: bool) -> float:
    """The value ``dedup`` compares with its threshold for a reported pair.

    Args:
        pair: a :class:`~neardup.job.pairs.Pair` or a ``pairs.jsonl`` row (dict).
        measure: ``resemblance`` or ``containment``; verified: the run decided with
            ``decision="verified"`` (else ``own``).

    Returns:
        The method's score (``own``), the resemblance, or the larger containment.
    """
    get: Callable[[str], Any] = (
        pair.get if isinstance(pair, dict) else lambda k: getattr(pair, k, None)
    )
    if get("decision") == "identical":  # identical documents pass every threshold
        return 1.0
    if not verified:
        return float(get("score"))
    if measure == "resemblance":
        return float(get("resemblance"))
    return max(float(get("containment_ab")), float(get("containment_ba")))


def reusable(method: str, measure: str) -> bool:
    """True when one run of ``method`` serves every threshold exactly (module docstring)."""
    from neardup.methods.registry import method_class

    fields = {f.name for f in dataclasses.fields(method_class(method))}
    return "threshold" not in fields and measure == "resemblance"


def evaluate_corpus(
    docs: Sequence[Document],
    gold: GoldStandard,
    config: EvalConfig,
    *,
    on_row: Callable[[EvalRow], None] | None = None,
) -> Evaluation:
    """Run every method at every threshold on ``docs`` and score the pairs.

    Args:
        docs: the corpus (read once; each run prepares it anew, inside its timing).
        gold: the gold standard.
        config: :class:`EvalConfig`.
        on_row: called with each row as soon as it is scored (progress).

    Returns:
        :class:`Evaluation`. A run that raises a :class:`NeardupError` gives rows with
        ``error`` set; the other runs go on.

    Raises:
        InputError: no document id of the gold standard is in ``docs``
            (:func:`missing_gold_ids`).
    """
    missing_gold_ids(gold, docs)  # raises when none is in the corpus
    scorer = _Scorer.make(gold, config.scope, config.replicates, config.level, config.seed)
    rows: list[EvalRow] = []
    left_out = [{"method": m, "reason": r} for m in config.methods if (r := _cannot_run(m, config))]
    skipped = {x["method"] for x in left_out}
    errors: dict[str, dict[str, Any]] = {}
    texts = {d.id: d.text for d in docs}
    for method in config.methods:
        if method in skipped:
            continue
        best: tuple[EvalRow, Sequence[tuple[str, str]]] | None = None
        for row, predicted in _method_rows(docs, method, config, scorer):
            rows.append(row)
            if on_row is not None:
                on_row(row)
            if row.error is None and (best is None or _better(row, best[0])):
                best = (row, predicted)
        if best is not None:
            score = partial(_pair_scores, texts=texts)
            errors[method] = _error_pairs(best[0].threshold, best[1], scorer, score)
    meta = _meta(config, gold, docs)
    return Evaluation(rows, meta, left_out, errors)


def missing_gold_ids(gold: GoldStandard, docs: Sequence[Document]) -> list[str]:
    """The document ids the gold standard names that no document of ``docs`` has, sorted
    (their gold pairs can only count as missed).

    Raises:
        InputError: none of the gold standard's ids is in ``docs`` (every score would be 0):
            the message shows ids of both sides, so that a wrong ``--id-field`` or the gold
            of another corpus is seen.
    """
    corpus = {d.id for d in docs}
    missing = sorted(gold.ids - corpus)
    if gold.ids and len(missing) == len(gold.ids):
        theirs = ", ".join(repr(i) for i in missing[:3])
        ours = ", ".join(repr(d.id) for d in docs[:3]) or "none"
        raise InputError(
            f"none of the {len(gold.ids)} document ids of the gold standard is in the corpus "
            f"(gold: {theirs}...; corpus: {ours}...): check --id-field, or that the gold "
            "standard belongs to these documents"
        )
    return missing


def _better(row: EvalRow, than: EvalRow) -> bool:
    """Higher F1, ties to the higher threshold (as :meth:`Evaluation.best`)."""
    return (row.scores.f1, row.threshold) > (than.scores.f1, than.threshold)


#: At most this many false-positive and missed pairs per method in :attr:`Evaluation.errors`.
ERROR_PAIRS = 100


def _cannot_run(method: str, config: EvalConfig) -> str:
    """Why ``method`` cannot run under ``config``'s measure and decision, or ``""``."""
    from neardup.job.pipeline import DedupOptions
    from neardup.methods.decision import resolve_decision, rule_of
    from neardup.methods.registry import method_class

    opts = DedupOptions(
        measure=config.measure,  # type: ignore[arg-type]
        decision=config.decision,  # type: ignore[arg-type]
    )
    cls = method_class(method)
    if _own_threshold_free(method, config):
        return ""  # its own rule takes no measure: it runs under either (one row)
    try:
        resolve_decision(cls, opts.decision, config.measure)
    except ParameterError as exc:
        if exc.name != "measure":
            return str(exc)
        rule = rule_of(cls)
        return (
            f"its own rule ({rule.text}) decides by {' or '.join(rule.measures)} only; "
            f"--decision verified decides by {config.measure} on the exact shingle sets"
        )
    return ""


def _error_pairs(
    threshold: float,
    predicted: Sequence[tuple[str, str]],
    scorer: _Scorer,
    score: Callable[[str, str], dict[str, Any]],
) -> dict[str, Any]:
    """False-positive and missed pairs of one run, each as ``score(a, b)``."""
    counted = scorer.gold.scoped(predicted, scorer.scope)
    fp = sorted(counted - scorer.gold.positives)
    fn = sorted(scorer.gold.positives - counted)
    return {
        "threshold": threshold,
        "false_positives": [score(a, b) for a, b in fp[:ERROR_PAIRS]],
        "false_positives_total": len(fp),
        "missed": [score(a, b) for a, b in fn[:ERROR_PAIRS]],
        "missed_total": len(fn),
    }


def _pair_scores(a: str, b: str, *, texts: dict[str, str]) -> dict[str, Any]:
    from neardup.job.compare import compare

    out: dict[str, Any] = {"a": a, "b": b}
    if a not in texts or b not in texts:  # a gold pair naming a document not in the corpus
        return {**out, "resemblance": None, "containment_ab": None, "containment_ba": None}
    c = compare(Document(a, texts[a]), Document(b, texts[b]))  # texts, never paths
    return {
        **out,
        "resemblance": round(c.resemblance, 4),
        "containment_ab": round(c.overlap.containment_ab, 4),
        "containment_ba": round(c.overlap.containment_ba, 4),
    }


def _method_rows(
    docs: Sequence[Document], method: str, config: EvalConfig, scorer: _Scorer
) -> Iterable[tuple[EvalRow, Sequence[tuple[str, str]]]]:
    thresholds = sorted(config.thresholds_for(method))
    if _own_threshold_free(method, config):
        try:
            result, usage = _run(docs, method, thresholds[0], config)
        except NeardupError as exc:
            yield scorer.failed(method, thresholds[0], str(exc), threshold_free=True), []
            return
        pairs = [(p.a, p.b) for p in result.pairs]
        params = _params(result.summary)
        yield (
            scorer.row(method, thresholds[0], pairs, usage, params=params, threshold_free=True),
            pairs,
        )
        return
    if config.reuse and reusable(method, config.measure) and len(thresholds) > 1:
        yield from _reused_rows(docs, method, thresholds, config, scorer)
        return
    for t in thresholds:
        try:
            result, usage = _run(docs, method, t, config)
        except NeardupError as exc:
            yield scorer.failed(method, t, str(exc)), []
            continue
        pairs = [(p.a, p.b) for p in result.pairs]
        yield scorer.row(method, t, pairs, usage, params=_params(result.summary)), pairs


def _reused_rows(
    docs: Sequence[Document],
    method: str,
    thresholds: list[float],
    config: EvalConfig,
    scorer: _Scorer,
) -> Iterable[tuple[EvalRow, Sequence[tuple[str, str]]]]:
    try:
        result, usage = _run(docs, method, thresholds[0], config)
    except NeardupError as exc:
        for t in thresholds:
            yield scorer.failed(method, t, str(exc)), []
        return
    mode = result.summary.get("options", {}).get("decision", "verified")
    values = [
        (decision_value(p, config.measure, mode == "verified"), p.a, p.b) for p in result.pairs
    ]
    params = _params(result.summary)
    for i, t in enumerate(thresholds):
        pairs = [(a, b) for v, a, b in values if v >= t]
        yield scorer.row(method, t, pairs, usage, reused=i > 0, params=params), pairs


def _own_threshold_free(method: str, config: EvalConfig) -> bool:
    """True when ``method`` decides by its own rule under ``config`` and that rule takes no
    threshold (:attr:`~neardup.methods.decision.DecisionRule.threshold_free`)."""
    from neardup.methods.decision import rule_of
    from neardup.methods.registry import method_class

    rule = rule_of(method_class(method))
    mode = rule.default if config.decision is None else config.decision
    return mode == "own" and rule.threshold_free


def _run(docs: Sequence[Document], method: str, threshold: float, config: EvalConfig) -> Any:
    from neardup.job.pipeline import DedupOptions, dedup
    from neardup.methods.decision import rule_of
    from neardup.methods.registry import method_class

    measure_ = config.measure
    if _own_threshold_free(method, config):  # its rule takes no measure: one it accepts
        measures = rule_of(method_class(method)).measures
        measure_ = measure_ if measure_ in measures else measures[0]
    opts = DedupOptions(
        measure=measure_,  # type: ignore[arg-type]
        threshold=threshold,
        decision=config.decision,  # type: ignore[arg-type]
        min_tokens=config.min_tokens,
    )
    params = dict(config.method_params.get(method, {}))
    return measure(lambda: dedup(docs, method=method, options=opts, **params), config.memory)


def _params(summary: dict[str, Any]) -> dict[str, Any]:
    return {"method": summary.get("method_params", {}), "canonical": summary.get("canonical", {})}


def _meta(config: EvalConfig, gold: GoldStandard, docs: Sequence[Document]) -> dict[str, Any]:
    corpus_ids = {d.id for d in docs}
    return {
        "mode": "run",
        "documents": len(docs),
        **_gold_meta(gold, corpus_ids),
        "scope": config.scope,
        "measure": config.measure,
        "decision": config.decision,
        "methods": list(config.methods),
        "thresholds": list(config.thresholds),
        "method_thresholds": {k: list(v) for k, v in config.method_thresholds.items()},
        "memory": config.memory,
        "bootstrap": {"replicates": config.replicates, "level": config.level, "seed": config.seed},
        "reuse": config.reuse,
    }


def _gold_meta(gold: GoldStandard, corpus_ids: set[str] | None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "gold": gold.source,
        "gold_kind": gold.kind,
        "gold_positives": len(gold.positives),
        "gold_negatives": len(gold.pairs.negatives),
        "gold_ids": len(gold.ids),
    }
    if corpus_ids is not None:
        meta["gold_ids_not_in_corpus"] = len(gold.ids - corpus_ids)
    return meta


def evaluation_from_dict(data: dict[str, Any]) -> Evaluation:
    """Rebuild an :class:`Evaluation` from its :meth:`Evaluation.as_dict` (``--json``) form.

    Values come back as rounded in the JSON (4 decimals; bootstrap intervals too).

    Raises:
        FormatError: ``data`` is not such a report.
    """
    try:
        rows = [_row_from_dict(r, data["meta"]) for r in data["rows"]]
        left_out = [dict(x) for x in data.get("left_out", [])]
        return Evaluation(rows, dict(data["meta"]), left_out, dict(data.get("errors", {})))
    except (KeyError, TypeError, ValueError) as exc:
        raise FormatError(f"not a neardup evaluate JSON report ({exc!r})") from None


def _row_from_dict(r: dict[str, Any], meta: dict[str, Any]) -> EvalRow:
    from neardup.evaluate.bootstrap import Interval

    scores = Scores(tp=int(r["tp"]), fp=int(r["fp"]), fn=int(r["fn"]))
    if r.get("error"):
        return EvalRow(
            r["method"],
            float(r["threshold"]),
            0,
            scores,
            None,
            None,
            None,
            error=str(r["error"]),
            threshold_free=bool(r.get("threshold_free")),
        )
    boot = meta.get("bootstrap", {})
    ci = [Interval(*r[k]) if r.get(k) else None for k in ("precision_ci", "recall_ci", "f1_ci")]
    intervals = PairIntervals(
        ci[0],
        ci[1],
        ci[2],
        float(boot.get("level", 0.95)),
        int(boot.get("replicates", 0)),
        int(boot.get("seed", 0)),
    )
    clusters = ClusterScores(r["bcubed_precision"], r["bcubed_recall"], r["bcubed_f1"], r["ari"], 0)
    usage = None
    if r.get("seconds") is not None:
        usage = Usage(float(r["seconds"]), r.get("peak_mib"), str(meta.get("memory")))
    return EvalRow(
        r["method"],
        float(r["threshold"]),
        int(r["reported"]),
        scores,
        intervals,
        clusters,
        usage,
        bool(r.get("reused")),
        dict(r.get("params") or {}),
        threshold_free=bool(r.get("threshold_free")),
    )


# -- scoring an existing dedup output ----------------------------------------------------------
def evaluate_pairs_dir(
    pairs_dir: str | Path,
    gold: GoldStandard,
    *,
    thresholds: Sequence[float] | None = None,
    scope: Scope = "all",
    replicates: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> Evaluation:
    """Score the ``pairs.jsonl`` of a ``neardup dedup --out`` directory.

    Args:
        pairs_dir: the directory (``pairs.jsonl`` required, ``summary.json`` optional: it
            gives the method, the run's threshold, measure, decision, time and peak memory).
        gold: the gold standard.
        thresholds: re-decide at these thresholds, each >= the run's threshold, on the
            decision value of each pair (rounded to 6 decimals in the file); default: the
            run's own decision only.
        scope, replicates, level, seed: as in :class:`EvalConfig`.

    Returns:
        :class:`Evaluation` (time and memory are the run's own, from ``summary.json``; its
        memory is the process peak ``ru_maxrss``).

    Raises:
        InputError: no ``pairs.jsonl``; FormatError: a malformed row;
        ParameterError: a threshold below the run's threshold (exit code 2).
    """
    check_choice("scope", scope, SCOPES)
    root = Path(pairs_dir)
    rows = _read_pairs(root / "pairs.jsonl")
    summary = _read_summary(root / "summary.json")
    opts = summary.get("options", {})
    run_t = float(opts.get("threshold", 0.0))
    measure_ = str(opts.get("measure", "resemblance"))
    mode = opts.get("decision") or "verified"
    verified = mode == "verified"
    method = str(summary.get("method") or (rows[0]["method"] if rows else root.name))
    usage = _summary_usage(summary)
    scorer = _Scorer.make(gold, scope, replicates, level, seed)
    out: list[EvalRow] = []
    best: tuple[EvalRow, list[tuple[str, str]]] | None = None
    for t in _dir_thresholds(thresholds, run_t):
        keep = [r for r in rows if t <= run_t or decision_value(r, measure_, verified) >= t]
        pairs = [(str(r["a"]), str(r["b"])) for r in keep]
        out.append(scorer.row(method, t, pairs, usage, params=_params(summary)))
        if best is None or _better(out[-1], best[0]):
            best = (out[-1], pairs)
    meta = {
        "mode": "pairs",
        "pairs_dir": str(root),
        "documents": summary.get("documents"),
        **_gold_meta(gold, None),
        "scope": scope,
        "measure": measure_,
        "decision": mode,
        "methods": [method],
        "thresholds": [r.threshold for r in out],
        "memory": "ru_maxrss (process peak of the dedup run)" if usage else "off",
        "bootstrap": {"replicates": replicates, "level": level, "seed": seed},
    }
    errors = {}
    if best is not None:
        score = partial(_row_scores, rows={pair_key(str(r["a"]), str(r["b"])): r for r in rows})
        errors[method] = _error_pairs(best[0].threshold, best[1], scorer, score)
    return Evaluation(out, meta, [], errors)


def _row_scores(a: str, b: str, *, rows: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    """A pair's measures from its ``pairs.jsonl`` row; None for a pair the run did not report
    (the texts are not in the directory)."""
    row = rows.get((a, b), {})
    keys = ("resemblance", "containment_ab", "containment_ba")
    if row and (str(row["a"]), str(row["b"])) != (a, b):  # the row names them the other way
        row = {
            **row,
            "containment_ab": row["containment_ba"],
            "containment_ba": row["containment_ab"],
        }
    return {"a": a, "b": b, **{k: (round(float(row[k]), 4) if k in row else None) for k in keys}}


def _dir_thresholds(thresholds: Sequence[float] | None, run_t: float) -> list[float]:
    if not thresholds:
        return [run_t]
    low = [t for t in thresholds if t < run_t - 1e-12]
    if low:
        raise ParameterError(
            "--thresholds", low[0], f"thresholds >= the run's threshold {run_t} with --pairs"
        )
    return sorted(thresholds)


def _read_pairs(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError(f"{path}: not found (give a `neardup dedup --out` directory)")
    out: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise FormatError(f"{path}:{n}: malformed JSON ({exc})") from None
            if not isinstance(row, dict) or "a" not in row or "b" not in row:
                raise FormatError(f"{path}:{n}: a pair row needs fields a and b")
            out.append(row)
    return out


def _read_summary(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise FormatError(f"{path}: malformed JSON ({exc})") from None
    return data if isinstance(data, dict) else {}


def _summary_usage(summary: dict[str, Any]) -> Usage | None:
    seconds = summary.get("seconds", {}).get("total")
    if seconds is None:
        return None
    return Usage(float(seconds), summary.get("peak_memory_mib"), "ru_maxrss")
