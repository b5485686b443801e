"""The pair decision: candidate pairs -> decided pairs, the value that decided, the rule.

One function, :func:`decide`, decides every candidate pair of every engine: the local job
(:func:`neardup.job.pipeline.dedup`), the Dask partitions
(:mod:`neardup.distributed.partition`), and a collection check on every backend
(:mod:`neardup.index.verify`, a batch of one query: memory :class:`neardup.Index`, SQLite
and PostgreSQL :mod:`neardup.store.checking`).

The rules (:class:`Decision` holds the job's measure, threshold and mode):

* ``verified``: the exact measure of the full shingle sets, ``resemblance >= t`` (Broder
  1997, formula 1) or ``max(containment_ab, containment_ba) >= t`` (formula 2);
* ``own``: the method's own rule, the :class:`~neardup.methods.decision.DecisionRule`
  object it carries: its score (:meth:`~neardup.methods.base.Method.similarity`, or the
  larger estimated containment under ``measure="containment"``) at or above the rule's bar
  (:meth:`DecisionRule.accepts <neardup.methods.decision.DecisionRule.accepts>`; the
  rule's words in the pair row by :meth:`~neardup.methods.decision.DecisionRule.describe`);
* ``identical``: documents with equal non-empty full shingle sets are paired whatever the
  rule (a pair the mode's rule accepts is recorded under that rule).

A decided pair's ``score`` is the value that decided it: the exact resemblance or larger
containment (``verified``), the method's score (``own``), 1.0 (``identical``). Each pair
carries the code of its :class:`Rule` (index into :data:`DECIDED`), whose ``label`` names
the rule with its bar (``containment >= 0.5 verified``, ``TF-RIDF equal signature``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from neardup.errors import check_choice, check_float
from neardup.methods.base import Method, Signatures
from neardup.methods.decision import DECISIONS, rule_of
from neardup.methods.measures import MEASURES, intersection_sizes
from neardup.methods.plan import MethodPlan
from neardup.methods.sets import ShingleSets

#: The decisions a pair can be recorded under (index = the stored code).
DECIDED: tuple[str, ...] = ("verified", "own", "identical")
#: Label of the identical-document rule.
IDENTICAL_LABEL = "identical shingle sets"

#: ``(pairs int64 (p, 2)) -> float64 (p,)``: the method's own score of each pair on the
#: measure decided on.
OwnScores = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True, slots=True)
class Rule:
    """The rule that decided a pair.

    Attributes:
        decision: ``verified``, ``own`` or ``identical`` (the ``decision`` field of a pair).
        label: the rule with its bar, as written in the ``rule`` field of a pair
            (``resemblance >= 0.5 verified``, ``TF-RIDF equal signature``,
            ``identical shingle sets``).
    """

    decision: Literal["verified", "own", "identical"]
    label: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """How candidate pairs are decided.

    Args:
        measure: ``resemblance`` or ``containment`` (the larger of the two directions).
        threshold: the bar of ``verified`` (and of an own rule that takes the job's
            threshold), in (0, 1].
        mode: ``own`` (the method's own rule) or ``verified`` (exact shingle sets).

    Raises:
        ParameterError: a value out of its range.
    """

    measure: Literal["resemblance", "containment"] = "resemblance"
    threshold: float = 0.5
    mode: Literal["own", "verified"] = "verified"

    def __post_init__(self) -> None:
        check_choice("measure", self.measure, MEASURES)
        check_float("threshold", self.threshold, low=0.0, high=1.0, low_open=True)
        check_choice("decision", self.mode, DECISIONS)

    def rules(self, method: Method | None) -> tuple[Rule, Rule, Rule]:
        """The three rules indexed by :data:`DECIDED` code (``method`` names the own one;
        None when ``mode="verified"`` and no method is at hand)."""
        verified = Rule("verified", f"{self.measure} >= {self.threshold:g} verified")
        if method is None:
            own = Rule("own", "own rule")
        else:
            own = Rule("own", rule_of(method).describe(method, self.measure, self.threshold))
        return verified, own, Rule("identical", IDENTICAL_LABEL)


@dataclass(frozen=True, eq=False)
class Decided:
    """The pairs a :func:`decide` call accepted, as columns (one row per pair, in the order
    of the candidates).

    Attributes:
        pairs: int64 (p, 2): the candidate pairs accepted.
        resemblance, containment_ab, containment_ba: float64 (p,): exact measures of the
            full shingle sets.
        score: float64 (p,): the value that decided each pair.
        codes: uint8 (p,): index into :data:`DECIDED` (and :attr:`rules`) of the rule.
        rules: the three :class:`Rule` values of the decision.
        candidates: how many candidate pairs were decided.
    """

    pairs: np.ndarray
    resemblance: np.ndarray
    containment_ab: np.ndarray
    containment_ba: np.ndarray
    score: np.ndarray
    codes: np.ndarray
    rules: tuple[Rule, Rule, Rule]
    candidates: int

    def __len__(self) -> int:
        return int(self.pairs.shape[0])

    @property
    def labels(self) -> tuple[str, ...]:
        """The rules' labels, indexed by code."""
        return tuple(r.label for r in self.rules)

    def rows(self) -> np.ndarray:
        """float64 (p, 6): ``a, b, resemblance, containment_ab, containment_ba, score``."""
        return np.column_stack([
            self.pairs[:, 0], self.pairs[:, 1], self.resemblance,
            self.containment_ab, self.containment_ba, self.score,
        ]) if len(self) else np.zeros((0, 6))  # fmt: skip

    def values(self) -> np.ndarray:
        """float64 (p, 4): ``resemblance, containment_ab, containment_ba, score``."""
        return self.rows()[:, 2:6]


def signature_scores(
    method: Method, sigs: Signatures, measure: str, *, chunk: int = 50_000
) -> OwnScores:
    """The method's own scores from its signatures of a batch: :meth:`Method.similarity`
    for resemblance, the larger of :meth:`Method.containment` for containment (formula 2;
    methods whose rule does not estimate containment are refused before, by
    :func:`~neardup.methods.decision.resolve_decision`), ``chunk`` pairs at a time (bounds
    the temporaries)."""

    def chunk_scores(pairs: np.ndarray) -> np.ndarray:
        if measure == "containment":
            cab, cba = method.containment(sigs, pairs)
            return np.maximum(np.asarray(cab, float), np.asarray(cba, float))
        return np.asarray(method.similarity(sigs, pairs), dtype=float)

    def scores(pairs: np.ndarray) -> np.ndarray:
        if pairs.shape[0] == 0:
            return np.zeros(0)
        return np.concatenate(
            [chunk_scores(pairs[i : i + chunk]) for i in range(0, pairs.shape[0], chunk)]
        )

    return scores


def sketch_prefilter(
    plan: MethodPlan,
    sigs: Signatures,
    cand: np.ndarray,
    sizes: np.ndarray,
    *,
    low: bool = False,
) -> np.ndarray:
    """The candidates an exact verification compares: when the plan has
    :attr:`~neardup.methods.plan.MethodPlan.prefilter_slots` (verified resemblance with
    MinHash-LSH), those whose sketches agree on enough slots
    (:meth:`~neardup.methods.shingle_methods.MinHashLSH.prefilter`: a pair at the threshold
    is dropped with probability <= 0.001); every candidate otherwise (the own rule reads the
    sketches itself; containment is not estimated by them).

    Args:
        plan: the job's plan; sigs: its method's signatures of the documents ``cand``
        indexes; cand: int64 (p, 2) candidate pairs; sizes: int (n,) shingles of each
        document (a small set's sketch holds fewer trials);
        low: ``sigs.data`` holds the sketches' low bytes
        (:func:`~neardup.methods.lsh.low_bytes`; the Dask job's candidate task, before any
        set is fetched): the rows kept are the same, since the prefilter counts the low
        bytes whatever it is given.

    Returns:
        int64 (q, 2): the kept rows of ``cand``, in order.
    """
    if plan.prefilter_slots is None or cand.shape[0] == 0:
        return cand
    keep = plan.method.prefilter(sigs, cand, plan.threshold, sizes=sizes, low=low)
    kept: np.ndarray = cand[keep]
    return kept


def prefilter_summary(plan: MethodPlan) -> dict[str, Any]:
    """``{"prefilter": {"min_agreeing_slots", "slots", "miss_at_t"}}`` when
    :func:`sketch_prefilter` applies (the floor of a pair whose sets both have at least
    ``slots`` shingles, and ``miss_at_t``, the probability that such a pair at the threshold
    is dropped; smaller sets have lower floors), for a job's ``summary.json``; ``{}``
    otherwise."""
    from neardup.methods.lsh import PREFILTER_MISS, agreement_floor, agreement_miss

    slots = plan.prefilter_slots
    if slots is None:
        return {}
    floor = agreement_floor(plan.threshold, slots, miss=PREFILTER_MISS)
    miss = agreement_miss(plan.threshold, slots, floor)
    return {"prefilter": {"min_agreeing_slots": floor, "slots": slots,
                          "miss_at_t": round(miss, 6)}}  # fmt: skip


def decide(
    sets: ShingleSets,
    cand: np.ndarray,
    *,
    decision: Decision,
    method: Method | None = None,
    own_scores: OwnScores | None = None,
    content_keys: np.ndarray | None = None,
) -> Decided:
    """Decide candidate pairs.

    Args:
        sets: the full shingle sets of the documents ``cand`` indexes (exact measures).
        cand: int64 (p, 2): candidate pairs (document numbers in ``sets``).
        decision: measure, threshold and mode.
        method: the method whose own rule decides (``mode="own"``) and names the rule.
        own_scores: the method's own score of pairs on ``decision.measure``
            (:func:`signature_scores`); needed when ``mode="own"``.
        content_keys: optional uint64 (n,) content keys of ``sets``
            (:meth:`ShingleSets.content_keys`): under ``own``, only pairs the rule accepts
            or with equal keys are measured exactly (without them, every candidate is).

    Returns:
        :class:`Decided`, the accepted pairs in candidate order.

    Raises:
        ValueError: ``mode="own"`` without ``method`` and ``own_scores``.
    """
    cand = np.asarray(cand, dtype=np.int64).reshape(-1, 2)
    rules = decision.rules(method)
    if decision.mode == "verified":
        return _verified(sets, cand, decision, rules)
    if method is None or own_scores is None:
        raise ValueError("decision mode 'own' needs the method and its own scores")
    score = own_scores(cand)
    accepted = rule_of(method).accepts(method, score, decision.threshold)
    maybe = accepted | _maybe_identical(sets, cand, content_keys)
    cand, score, accepted = cand[maybe], score[maybe], accepted[maybe]
    res, cab, cba = exact_measures(sets, cand)
    identical = (res >= 1.0) & (sets.sizes[cand[:, 0]] > 0)
    ok = accepted | identical
    score = np.where(accepted, score, res)
    return _decided(cand, res, cab, cba, score, ok, accepted, 1, rules, maybe.shape[0])


def _verified(
    sets: ShingleSets, cand: np.ndarray, decision: Decision, rules: tuple[Rule, Rule, Rule]
) -> Decided:
    res, cab, cba = exact_measures(sets, cand)
    value = res if decision.measure == "resemblance" else np.maximum(cab, cba)
    accepted = value >= decision.threshold
    # an identical pair passes any threshold in (0, 1]: no other rule can accept it here
    return _decided(cand, res, cab, cba, value, accepted, accepted, 0, rules, cand.shape[0])


def _decided(
    cand: np.ndarray,
    res: np.ndarray,
    cab: np.ndarray,
    cba: np.ndarray,
    score: np.ndarray,
    ok: np.ndarray,
    accepted: np.ndarray,
    code: int,
    rules: tuple[Rule, Rule, Rule],
    candidates: int,
) -> Decided:
    codes = np.where(accepted[ok], code, DECIDED.index("identical")).astype(np.uint8)
    return Decided(cand[ok], res[ok], cab[ok], cba[ok], score[ok], codes, rules, candidates)


def _maybe_identical(sets: ShingleSets, cand: np.ndarray, keys: np.ndarray | None) -> np.ndarray:
    """bool (p,): pairs that may be identical (equal content keys of non-empty sets; every
    pair when no keys are given)."""
    if keys is None:
        return np.ones(cand.shape[0], dtype=bool)
    if cand.size == 0:
        return np.zeros(0, dtype=bool)
    a, b = cand[:, 0], cand[:, 1]
    same: np.ndarray = (keys[a] == keys[b]) & (sets.sizes[a] > 0)
    return same


def exact_measures(sets: ShingleSets, cand: np.ndarray) -> tuple[np.ndarray, ...]:
    """Resemblance and both containments of each pair on the full shingle sets:
    three float64 (p,) arrays (0 where a set is empty)."""
    if cand.shape[0] == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    shared = intersection_sizes(sets, cand).astype(float)
    size_a = sets.sizes[cand[:, 0]].astype(float)
    size_b = sets.sizes[cand[:, 1]].astype(float)
    union = size_a + size_b - shared
    res = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
    cab = np.divide(shared, size_a, out=np.zeros_like(shared), where=size_a > 0)
    cba = np.divide(shared, size_b, out=np.zeros_like(shared), where=size_b > 0)
    return res, cab, cba


def decision_summary(method: Method, decision: Decision, codes: np.ndarray) -> dict[str, Any]:
    """``summary["decision"]``: the mode, the method's rule, the labels of the rules and the
    pairs each rule decided."""
    rule = rule_of(method)
    rules = decision.rules(method)
    counts = np.bincount(codes, minlength=len(DECIDED)) if codes.size else np.zeros(3, int)
    text = rule.text if decision.mode == "own" else _VERIFIED_TEXT
    return {
        "mode": decision.mode,
        "rule": text,
        "kind": rule.kind,
        "rules": {r.decision: r.label for r in rules},
        "pairs_by_rule": {name: int(counts[i]) for i, name in enumerate(DECIDED)},
    }


_VERIFIED_TEXT = (
    "exact resemblance (or the larger containment) of the full shingle sets >= threshold"
)
