"""How a method decides that two documents are duplicates: its own rule, or verification.

Each method carries a :class:`DecisionRule` object (``decision_rule`` class attribute): the
rule its paper defines, whether that rule or exact verification is its default, and the
measures the rule can decide on. The object decides: its :meth:`~DecisionRule.bar`,
:meth:`~DecisionRule.accepts` and :meth:`~DecisionRule.describe` are what the pair decision
(:mod:`neardup.job.decide`) calls, so no caller branches on a method or a rule kind. One class
per kind:

* ``equal-signature`` (:class:`EqualSignature`): I-Match (Chowdhury et al. 2002) and its
  randomised form (Kołcz et al. 2004: some signature equal), TF-RIDF (Romanov 2019, §4.4),
  anchor words (Ilyinsky et al. 2002): the score is 1 for equal signatures, else 0; no
  threshold.
* ``shared-mega-shingle`` (:class:`SharedMegaShingle`): mega-shingles (Fetterly et al.
  2003): one shared mega-shingle.
* ``hamming`` (:class:`HammingAtMost`): SimHash (Charikar 2002; Manku et al. 2007):
  ``hamming <= max_hamming``.
* ``similarity`` (:class:`SimilarityAtLeast`): SL+ST (Feng 2015) and SpotSigs (Theobald et
  al. 2008): the method's own Jaccard ``>= threshold`` (the method's ``threshold``
  parameter).
* ``sample`` (:class:`SampleEstimate`): Broder's samples (Broder 1997): resemblance
  (formula 1) or, for the mod-m sample only, containment (formula 2) estimated on the
  sample ``>= threshold``.
* ``exact`` (:class:`ExactMeasure`): the full shingle sets (shingles-full; MinHash-LSH's
  sketch estimate when it decides on its own): exact resemblance or containment
  ``>= threshold``.

``verified`` decides every method's candidates the same way: exact resemblance (or the
larger containment) of the full shingle sets ``>= threshold``. Identical documents (equal
full shingle sets) are always paired, whatever the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np

from neardup.errors import ParameterError, check_choice
from neardup.options import DECISIONS as DECISIONS

#: Names written in each pair row (``decision``): which rule accepted the pair.
DECIDED_BY: tuple[str, ...] = ("verified", "own", "identical")

RuleKind = Literal[
    "equal-signature", "shared-mega-shingle", "hamming", "similarity", "sample", "exact"
]


@dataclass(frozen=True, slots=True)
class DecisionRule:
    """A method's own duplicate rule, as its paper defines it: an object the pair decision
    (:func:`neardup.job.decide.decide`) asks for the bar a pair's score must reach
    (:meth:`bar`), which pairs pass (:meth:`accepts`) and the rule's words in a pair row
    (:meth:`describe`). Each kind is a subclass (:class:`EqualSignature`,
    :class:`SharedMegaShingle`, :class:`HammingAtMost`, :class:`SimilarityAtLeast`,
    :class:`SampleEstimate`, :class:`ExactMeasure`); a method carries one as its
    ``decision_rule``.

    Attributes:
        text: the rule in words, with the paper it follows (shown by ``neardup methods``).
        default: ``own`` or ``verified``: the decision a job uses unless told otherwise.
        measures: the measures the own rule decides on (``resemblance``, ``containment``).
        label: the rule in a few words, a :meth:`str.format` template of the method's
            parameters, ``name``, ``measure`` and ``bar`` (the score the rule needs), shown
            in a pair's ``rule`` field (:meth:`describe`); default: the kind's
            :attr:`default_label`.

    Class attributes:
        kind: the rule's kind (``equal-signature``, ``shared-mega-shingle``, ``hamming``,
            ``similarity``, ``sample``, ``exact``; see the module docstring).
        default_label: the kind's :attr:`label` when a rule gives none.
        threshold_free: True when the outcome does not depend on the job's threshold.
    """

    kind: ClassVar[RuleKind]
    default_label: ClassVar[str]
    threshold_free: ClassVar[bool] = False

    text: str
    default: Literal["own", "verified"] = "own"
    measures: tuple[str, ...] = ("resemblance",)
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.default_label)

    def bar(self, method: Any, threshold: float) -> float:
        """The score a pair needs under this rule, given the job's ``threshold``: the
        method's ``threshold`` parameter when it has one (not None), else ``threshold``."""
        own = getattr(method, "threshold", None)
        return float(threshold if own is None else own)

    def accepts(self, method: Any, score: np.ndarray, threshold: float) -> np.ndarray:
        """bool (p,): the pairs whose ``score`` (the method's own, float (p,)) reaches
        :meth:`bar` (1e-12 slack)."""
        return np.asarray(score, dtype=float) >= self.bar(method, threshold) - 1e-12

    def describe(self, method: Any, measure: str, threshold: float) -> str:
        """The rule in a few words with its bar, as a pair's ``rule`` field shows it: the
        :attr:`label` formatted with the method's parameters, ``name``, ``measure`` and
        ``bar`` (:meth:`bar`, shortest form), e.g. ``TF-RIDF equal signature``,
        ``containment on mod-25 samples >= 0.5``."""
        bar = f"{self.bar(method, threshold):g}"
        return self.label.format(**method.params(), name=method.name, measure=measure, bar=bar)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{kind, rule, default, measures}``."""
        return {
            "kind": self.kind,
            "rule": self.text,
            "default": self.default,
            "measures": list(self.measures),
        }


@dataclass(frozen=True, slots=True)
class EqualSignature(DecisionRule):
    """Equal signatures are duplicates (I-Match, TF-RIDF, anchor words): scores are 0 or 1,
    the bar is 1 whatever the threshold."""

    kind: ClassVar[RuleKind] = "equal-signature"
    default_label: ClassVar[str] = "{name} equal signature"
    threshold_free: ClassVar[bool] = True

    def bar(self, method: Any, threshold: float) -> float:
        """1.0: the signatures are equal."""
        return 1.0


@dataclass(frozen=True, slots=True)
class SharedMegaShingle(DecisionRule):
    """One shared mega-shingle is a duplicate (Fetterly et al. 2003): scores are 0 or 1, the
    bar is 1 whatever the threshold."""

    kind: ClassVar[RuleKind] = "shared-mega-shingle"
    default_label: ClassVar[str] = "{name} shared mega-shingle"
    threshold_free: ClassVar[bool] = True

    def bar(self, method: Any, threshold: float) -> float:
        """1.0: a mega-shingle is shared."""
        return 1.0


@dataclass(frozen=True, slots=True)
class HammingAtMost(DecisionRule):
    """``hamming <= k`` of ``bits``-bit fingerprints (SimHash: Charikar 2002; Manku et al.
    2007), ``k`` the method's parameter ``parameter``; on the score ``1 - hamming / bits``
    the bar is ``1 - k / bits`` whatever the job's threshold.

    Attributes:
        parameter: the name of the method's field holding ``k``.
        bits: fingerprint width.
    """

    kind: ClassVar[RuleKind] = "hamming"
    default_label: ClassVar[str] = "{name} score >= {bar}"
    threshold_free: ClassVar[bool] = True

    parameter: str = "max_hamming"
    bits: int = 64

    def bar(self, method: Any, threshold: float) -> float:
        """``1 - k / bits``, ``k`` the method's :attr:`parameter`."""
        return 1.0 - int(getattr(method, self.parameter)) / self.bits


@dataclass(frozen=True, slots=True)
class SimilarityAtLeast(DecisionRule):
    """The method's own similarity ``>= threshold`` (SL+ST, SpotSigs, Dice)."""

    kind: ClassVar[RuleKind] = "similarity"
    default_label: ClassVar[str] = "{name} similarity >= {bar}"


@dataclass(frozen=True, slots=True)
class SampleEstimate(DecisionRule):
    """Resemblance (or containment) estimated on a sample ``>= threshold`` (Broder 1997)."""

    kind: ClassVar[RuleKind] = "sample"
    default_label: ClassVar[str] = "{name} estimated {measure} >= {bar}"


@dataclass(frozen=True, slots=True)
class ExactMeasure(DecisionRule):
    """The exact measure of the full shingle sets ``>= threshold`` (Broder 1997)."""

    kind: ClassVar[RuleKind] = "exact"
    default_label: ClassVar[str] = "{measure} >= {bar}"


#: The rule classes, one per kind.
RULES: tuple[type[DecisionRule], ...] = (
    EqualSignature,
    SharedMegaShingle,
    HammingAtMost,
    SimilarityAtLeast,
    SampleEstimate,
    ExactMeasure,
)
#: Rule kinds whose outcome does not depend on the job's threshold.
THRESHOLD_FREE: frozenset[str] = frozenset(r.kind for r in RULES if r.threshold_free)

#: The default rule of a method with ``exact_key`` and no rule of its own.
EQUAL_SIGNATURE = EqualSignature("equal signatures")
#: The default rule of any other method: exact verification.
VERIFIED = ExactMeasure("exact resemblance of the full shingle sets >= threshold", "verified")


def rule_of(method: Any) -> DecisionRule:
    """The :class:`DecisionRule` a method (class or instance) carries (``decision_rule``;
    :class:`~neardup.methods.base.MethodBase` defaults it to :data:`EQUAL_SIGNATURE` when
    its capabilities have ``exact_key``, else :data:`VERIFIED`)."""
    rule: DecisionRule = method.decision_rule
    return rule


def resolve_decision(method: Any, decision: str | None, measure: str) -> str:
    """The decision a job uses: ``decision`` if given, else the method's default.

    Raises:
        ParameterError: ``decision`` is not ``own``/``verified``, or the method's own rule
            cannot decide on ``measure`` (the message names the measures it can).
    """
    rule = rule_of(method)
    mode = rule.default if decision is None else check_choice("decision", decision, DECISIONS)
    if mode == "own" and measure not in rule.measures:
        raise ParameterError(
            "measure",
            measure,
            f"{' or '.join(rule.measures)} with {method.name}'s own decision ({rule.text}); "
            "use --decision verified to decide on the exact shingle sets",
        )
    return mode


def own_threshold(method: Any, threshold: float) -> float:
    """The score a pair needs under the method's own rule: its rule's
    :meth:`~DecisionRule.bar` at the job's ``threshold``."""
    return float(rule_of(method).bar(method, threshold))


def own_accepts(method: Any, score: np.ndarray, threshold: float) -> np.ndarray:
    """bool (p,): the pairs whose ``score`` passes the method's own rule
    (:meth:`DecisionRule.accepts`)."""
    return rule_of(method).accepts(method, score, threshold)
