"""How the web UI words a collection's decision rule: which rule decided a match, on which
value, and why a check found no duplicate.

A collection decides a check by the method's own rule (``decision`` ``own``, the rule its
paper defines: equal TF-RIDF signatures for Romanov 2019, one shared mega-shingle for
Fetterly et al. 2003, ...) or by verification on the exact shingle sets (``verified``:
resemblance or the larger containment ``>= threshold``); identical documents always match
(:mod:`neardup.methods.decision`). The pages name that rule instead of assuming a
resemblance threshold: a TF-RIDF duplicate accepted at 43 % resemblance is shown as accepted
by equal signatures, and a text at 89 % resemblance rejected by the TF-RIDF rule is shown as
rejected by it, not as "resemblance below 0.5".

The functions take the stats mapping of :meth:`neardup.store.Store.stats` (``method``,
``decision``, ``measure``, ``threshold``, ``params``, ``canonical``) and a match's
``evidence`` (``decision``: the rule that accepted it; ``score``: the value it decided on,
when the method has one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from neardup.errors import NeardupError
from neardup.methods.decision import DecisionRule, own_threshold, rule_of
from neardup.methods.registry import method_class

#: What each method compares a text by (the check page's help line), ``{k}`` the shingle size.
_UNITS: dict[str, str] = {
    "tf-ridf": "its {top} words of highest TF-RIDF weight (stems), as one CRC-32 signature",
    "imatch": "the words of its I-Match lexicon (mid-range idf), as one SHA-1 signature",
    "imatch-random": "the words of its randomised I-Match lexicons, one SHA-1 signature each",
    "anchor-words": "the anchor words it holds, as one signature",
    "megashingles": "mega-shingles of {k}-word shingles",
    "sl-st": "the lengths of its sentences",
    "spotsigs": "spot signatures (a stop word and the words after it)",
    "simhash": "a 64-bit SimHash of its {k}-word shingles",
}


_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def method_rule(stats: Mapping[str, Any]) -> DecisionRule | None:
    """The collection method's own :class:`DecisionRule` (``None``: unknown method)."""
    try:
        return rule_of(method_class(str(stats["method"])))
    except NeardupError:
        return None


def decision_line(stats: Mapping[str, Any]) -> str:
    """The collection's rule in words, e.g. ``equal TF-RIDF signature: CRC-32 of the top 6
    words (Romanov 2019, §4.4)`` or ``exact resemblance of the full shingle sets ≥ 0.5``."""
    rule = method_rule(stats)
    if stats.get("decision") == "own" and rule is not None:
        bar = _own_bar(stats, rule)
        if bar is None:
            return rule.text
        on = f"{stats.get('measure', 'resemblance')}: " if rule.kind == "sample" else ""
        return f"{on}{_strip_bar(rule.text)} ≥ {bar:g}"
    return f"exact {_measure(stats)} of the full shingle sets ≥ {float(stats['threshold']):g}"


def compared_in(stats: Mapping[str, Any]) -> str:
    """What a checked text is compared by under this collection's method, e.g.
    ``five-word shingles`` or ``its 6 words of highest TF-RIDF weight ...``."""
    params = stats.get("params") or {}
    k = int(params.get("shingle_size", 5) or 5)
    words = dict(enumerate(_NUMBERS, start=1))
    k_text = words.get(k, str(k))
    unit = _UNITS.get(str(stats["method"]))
    if unit is None:
        return f"{k_text}-word shingles"
    return unit.format(k=k_text, top=params.get("top", 6))


def match_decision(stats: Mapping[str, Any], match: Any) -> str:
    """Which rule accepted a match and the value it decided on, in words.

    ``match`` is a :class:`~neardup.store.Match`: ``evidence["decision"]`` is the rule's
    name (``own``, ``verified``, ``identical``, or a mapping with ``rule`` and ``value``),
    ``evidence["score"]`` the method's own value; under ``verified`` the value is the exact
    resemblance (or the larger containment) of the match.
    """
    evidence: Mapping[str, Any] = match.evidence
    decided = evidence.get("decision")
    value: Any = evidence.get("score")
    name: Any = decided
    if decided == "verified":
        value = match.resemblance
        if stats.get("measure") == "containment":
            value = max(match.containment_query, match.containment_doc)
    if isinstance(decided, Mapping):
        name = decided.get("rule", decided.get("name"))
        value = decided.get("value", value)
    if name == "identical":
        return "identical shingle sets: always a duplicate, whatever the rule"
    rule = method_rule(stats)
    if name == "verified" or rule is None:
        shown = "" if value is None else f" ({_value(value)})"
        return f"{decision_line({**stats, 'decision': 'verified'})}{shown}"
    if rule.kind == "equal-signature":
        return f"{rule.text}: the signatures are equal"
    if rule.kind == "shared-mega-shingle":
        return f"{rule.text}: they share one"
    if value is None:
        return decision_line(stats)
    return f"{decision_line(stats)}: {_value(value)}"


def no_match_reason(stats: Mapping[str, Any], candidates: int) -> str:
    """Why a check found no duplicate, in the terms of the rule that decided."""
    rule = method_rule(stats)
    n = f"{candidates} candidate{'' if candidates == 1 else 's'}"
    if stats.get("decision") == "own" and rule is not None:
        if rule.kind == "equal-signature":
            label = str(stats["method"]).upper() if stats["method"] != "tf-ridf" else "TF-RIDF"
            if candidates == 0:
                return (
                    f"no stored document has this text's {label} signature ({n}); the rule "
                    f"is {rule.text}, so how many shingles the texts share does not decide"
                )
            return f"{n} shared a signature slot, none passed the rule: {rule.text}"
        if rule.kind == "shared-mega-shingle":
            return (
                f"no stored document shares a mega-shingle with it ({n}); the rule is {rule.text}"
            )
        return f"{n} checked, none passed the rule: {decision_line(stats)}"
    t = float(stats["threshold"])
    return f"{n} verified: exact {_measure(stats)} of the full shingle sets below {t:g}"


def _own_bar(stats: Mapping[str, Any], rule: DecisionRule) -> float | None:
    """The value a pair needs under the own rule, or ``None`` when it has no threshold."""
    if rule.threshold_free:
        return None
    try:
        from neardup.index.methods import build_method

        meth = build_method(str(stats["method"]), dict(stats["params"]), dict(stats["canonical"]))
        return own_threshold(meth, float(stats["threshold"]))
    except (NeardupError, KeyError, TypeError):
        return float(stats["threshold"])


def _strip_bar(text: str) -> str:
    """A rule's words without its generic ``>= threshold`` tail (the number is shown)."""
    for tail in (" >= threshold",):
        head, sep, rest = text.partition(tail)
        if sep:
            return head + rest
    return text


def _measure(stats: Mapping[str, Any]) -> str:
    return "containment (the larger)" if stats.get("measure") == "containment" else "resemblance"


def _value(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{float(value):.3f}"
