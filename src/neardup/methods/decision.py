"""How a method decides that two documents are duplicates: its own rule, or verification.

Each method declares a :class:`DecisionRule` (``decision_rule`` class attribute): the rule
its paper defines, whether that rule or exact verification is its default, and the
measures the rule can decide on.

* ``equal-signature``: I-Match (Chowdhury et al. 2002) and its randomised form (Kołcz et al.
  2004: some signature equal), TF-RIDF (Romanov 2019, §4.4), anchor words
  (Ilyinsky et al. 2002): the score is 1 for equal signatures, else 0; no threshold.
* ``shared-mega-shingle``: mega-shingles (Fetterly et al. 2003): one shared mega-shingle.
* ``hamming``: SimHash (Charikar 2002; Manku et al. 2007): ``hamming <= max_hamming``.
* ``similarity``: SL+ST (Feng 2015) and SpotSigs (Theobald et al. 2008): the method's own
  Jaccard ``>= threshold`` (the method's ``threshold`` parameter).
* ``sample``: Broder's samples (Broder 1997): resemblance (formula 1) or, for the mod-m
  sample only, containment (formula 2) estimated on the sample ``>= threshold``.
* ``exact``: the full shingle sets (shingles-full; MinHash-LSH's sketch estimate when it
  decides on its own): exact resemblance or containment ``>= threshold``.

``verified`` decides every method's candidates the same way: exact resemblance (or the
larger containment) of the full shingle sets ``>= threshold``. Identical documents (equal
full shingle sets) are always paired, whatever the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from neardup.errors import ParameterError, check_choice
from neardup.methods.options import DECISIONS as DECISIONS

#: Rule kinds whose outcome does not depend on the job's threshold.
THRESHOLD_FREE: frozenset[str] = frozenset({"equal-signature", "shared-mega-shingle", "hamming"})
#: Names written in each pair row (``decision``): which rule accepted the pair.
DECIDED_BY: tuple[str, ...] = ("verified", "own", "identical")

#: Default :attr:`DecisionRule.label` per rule kind.
LABELS: dict[str, str] = {
    "equal-signature": "{name} equal signature",
    "shared-mega-shingle": "{name} shared mega-shingle",
    "hamming": "{name} score >= {bar}",
    "similarity": "{name} similarity >= {bar}",
    "sample": "{name} estimated {measure} >= {bar}",
    "exact": "{measure} >= {bar}",
}

RuleKind = Literal[
    "equal-signature", "shared-mega-shingle", "hamming", "similarity", "sample", "exact"
]


@dataclass(frozen=True, slots=True)
class DecisionRule:
    """A method's own duplicate rule, as its paper defines it.

    Attributes:
        kind: one of ``equal-signature``, ``shared-mega-shingle``, ``hamming``,
            ``similarity``, ``sample``, ``exact`` (see the module docstring).
        text: the rule in words, with the paper it follows (shown by ``neardup methods``).
        default: ``own`` or ``verified``: the decision a job uses unless told otherwise.
        measures: the measures the own rule decides on (``resemblance``, ``containment``).
        label: the rule in a few words, a :meth:`str.format` template of the method's
            parameters, ``name``, ``measure`` and ``bar`` (the score the rule needs), shown
            in a pair's ``rule`` field (:func:`own_label`); default by kind
            (:data:`LABELS`).
    """

    kind: RuleKind
    text: str
    default: Literal["own", "verified"] = "own"
    measures: tuple[str, ...] = ("resemblance",)
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", LABELS[self.kind])

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{kind, rule, default, measures}``."""
        return {
            "kind": self.kind,
            "rule": self.text,
            "default": self.default,
            "measures": list(self.measures),
        }


#: The default rule of a method with ``exact_key`` and no rule of its own.
EQUAL_SIGNATURE = DecisionRule("equal-signature", "equal signatures")
#: The default rule of any other method: exact verification.
VERIFIED = DecisionRule(
    "exact", "exact resemblance of the full shingle sets >= threshold", "verified"
)


def rule_of(method: Any) -> DecisionRule:
    """The :class:`DecisionRule` a method (class or instance) declares (``decision_rule``;
    :class:`~neardup.methods.base.MethodBase` defaults it to :data:`EQUAL_SIGNATURE` when
    ``exact_key`` is true, else :data:`VERIFIED`)."""
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
    """The score a pair needs under the method's own rule: the method's
    :meth:`~neardup.methods.base.MethodBase.own_bar` of the job's ``threshold``."""
    return float(method.own_bar(threshold))


def own_accepts(method: Any, score: np.ndarray, threshold: float) -> np.ndarray:
    """bool (p,): the pairs whose ``score`` passes the method's own rule (1e-12 slack)."""
    return np.asarray(score, dtype=float) >= own_threshold(method, threshold) - 1e-12


def own_label(method: Any, measure: str, threshold: float) -> str:
    """The method's own rule in a few words with its bar, as a pair's ``rule`` field shows
    it: the rule's ``label`` formatted with the method's parameters, ``name``, ``measure``
    and ``bar`` (:func:`own_threshold`, shortest form), e.g. ``TF-RIDF equal signature``,
    ``containment on mod-25 samples >= 0.5``."""
    rule = rule_of(method)
    bar = f"{own_threshold(method, threshold):g}"
    return rule.label.format(**method.params(), name=method.name, measure=measure, bar=bar)


def check_decision(decision: str | None) -> str | None:
    """Validate an optional decision mode (``None`` = the method's default).

    Raises:
        ParameterError: not ``own``, ``verified`` or ``None``.
    """
    if decision is None:
        return None
    if not isinstance(decision, str):
        raise ParameterError("decision", decision, "own or verified")
    return check_choice("decision", decision, DECISIONS)
