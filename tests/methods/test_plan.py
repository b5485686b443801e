"""The plan of each method (:func:`neardup.methods.plan.plan_for`): how it is prepared,
signed, grouped into candidates and decided, decided once from its capabilities."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from neardup.errors import ParameterError
from neardup.job.pipeline import DedupOptions
from neardup.methods.base import Signatures
from neardup.methods.plan import MethodPlan, PlanOptions, PrepareConfig, plan_for
from neardup.methods.registry import make_method, method_names
from neardup.methods.shingle_methods import MinHashLSH, ShinglesFull

#: Each built-in method's plan under the default options: signing, Dask candidates,
#: decision, index keys, group limit, then the flags needs_fit, signs_from_sets, streams,
#: signs_at_add, signs_from_text, keep_tokens, keep_texts, exact_key, keeps_signature,
#: content_key (1: True).
PLANS: dict[str, tuple[str, str, str, str, int | None, str]] = {
    "anchor-words": ("fitted", "whole", "own", "rows", None, "1000011100"),
    "imatch": ("fitted", "groups", "own", "groups", None, "1000011100"),
    "imatch-random": ("fitted", "groups", "own", "groups", None, "1000011100"),
    "megashingles": ("sets", "groups", "own", "groups", None, "0110000101"),
    "minhash-lsh": ("rows", "groups", "verified", "groups", 5000, "0110000001"),
    "shingles-dice": ("sets", "whole", "own", "rows", None, "0110000001"),
    "shingles-full": ("sets", "prefix", "verified", "rows", 5000, "0110000001"),
    "shingles-min": ("sets", "postings", "own", "rows", 5000, "0110000001"),
    "shingles-mod": ("sets", "prefix", "own", "rows", 5000, "0110000011"),
    "simhash": ("documents", "whole", "own", "none", None, "0001101011"),
    "sl-st": ("documents", "whole", "own", "rows", None, "0001101011"),
    "spotsigs": ("documents", "whole", "own", "rows", None, "0001011011"),
    "tf-ridf": ("fitted", "groups", "own", "groups", None, "1000011100"),
}
FLAGS = (
    "needs_fit",
    "signs_from_sets",
    "streams",
    "signs_at_add",
    "signs_from_text",
    "keep_tokens",
    "keep_texts",
    "exact_key",
    "keeps_signature",
    "content_key",
)


def _row(plan: MethodPlan) -> tuple[str, str, str, str, int | None, str]:
    flags = "".join("1" if getattr(plan, f) else "0" for f in FLAGS)
    return plan.signing, plan.candidates, plan.decision, plan.keys, plan.group_limit, flags


@pytest.mark.parametrize("name", sorted(PLANS))
def test_each_built_in_methods_plan(name: str) -> None:
    plan = plan_for(name)
    assert _row(plan) == PLANS[name]
    assert plan.method.name == name and plan.min_tokens == 3 and plan.threshold == 0.5
    assert plan.measure == "resemblance" and plan.rule is type(plan.method).decision_rule
    assert plan.set_keys == (plan.candidates if plan.candidates in ("prefix", "postings") else None)
    assert plan.runs_by_key == (plan.candidates != "whole")
    assert plan.has_index_keys == (name != "simhash")


def test_every_built_in_method_has_a_plan_in_the_table() -> None:
    builtin = {n for n in method_names() if make_method(n).__module__.startswith("neardup.")}
    assert builtin == set(PLANS)


def test_a_method_by_name_and_by_object_have_the_same_plan() -> None:
    meth = make_method("shingles-mod")
    by_object = plan_for(meth)
    by_name = plan_for("shingles-mod")
    assert by_object.method is meth
    assert dataclasses.replace(by_name, method=meth) == by_object


def test_containment_runs_over_the_whole_corpus_on_dask() -> None:
    plan = plan_for("minhash-lsh", PlanOptions(measure="containment"))
    assert plan.candidates == "whole" and not plan.runs_by_key
    full = plan_for("shingles-full", PlanOptions(measure="containment", threshold=0.8))
    # the sets' keys are the method's, whatever the measure; the Dask engine does not use them
    assert full.candidates == "whole" and full.set_keys == "prefix" and full.threshold == 0.8


def test_the_decision_is_resolved_once() -> None:
    assert plan_for("minhash-lsh", PlanOptions(decision="own")).decision == "own"
    assert plan_for("tf-ridf", PlanOptions(decision="verified")).decision == "verified"
    with pytest.raises(ParameterError) as err:
        plan_for("shingles-min", PlanOptions(measure="containment"))
    assert err.value.name == "measure"


def test_job_options_are_plan_settings() -> None:
    plan = plan_for(make_method("spotsigs"), DedupOptions(min_tokens=7, threshold=0.9))
    assert (plan.min_tokens, plan.threshold, plan.decision) == (7, 0.9, "own")


def test_bad_plan_options_are_refused_naming_the_option() -> None:
    with pytest.raises(ParameterError) as err:
        PlanOptions(min_tokens=0)
    assert err.value.name == "min_tokens"
    with pytest.raises(ParameterError) as err:
        meth = make_method("shingles-full")
        PrepareConfig(canonical=meth.canonical, shingling=meth.shingling, min_tokens=0)
    assert err.value.name == "min_tokens"


def test_the_too_short_rule() -> None:
    plan = plan_for("shingles-full", PlanOptions(min_tokens=3))
    assert plan.too_short(2) == "2 canonical tokens < min_tokens=3"
    assert plan.too_short(0) == "0 canonical tokens < min_tokens=3"
    assert plan.too_short(3) is None


def test_the_prepare_config_of_a_method_signing_rows() -> None:
    plan = plan_for("minhash-lsh", PlanOptions(min_tokens=4))
    meth = plan.method
    signed = plan.prepare_config(rows=True)
    assert signed.signer is meth and signed.min_tokens == 4
    assert signed.canonical == meth.canonical and signed.shingling == meth.shingling
    assert not signed.keep_tokens and not signed.keep_texts and signed.read is None
    assert plan.prepare_config().signer is None
    # a set method has no rows to sign in the prepare stage
    assert plan_for("shingles-full").prepare_config(rows=True).signer is None


@pytest.mark.parametrize(
    ("name", "texts", "tokens", "kept_texts"),
    [
        ("sl-st", True, False, True),  # signs from the text alone
        ("spotsigs", True, True, True),  # from the canonical tokens of prepared documents
        ("spotsigs", False, True, False),  # a collection signs at add: it has the texts
        ("tf-ridf", True, True, True),  # fitted on the tokens, then signed from them
        ("tf-ridf", False, True, False),  # the Dask engine's by-key partitions
        ("shingles-full", True, False, False),  # the sets only
    ],
)
def test_what_the_prepare_stage_keeps(
    name: str, texts: bool, tokens: bool, kept_texts: bool
) -> None:
    config = plan_for(name).prepare_config(texts=texts)
    assert (config.keep_tokens, config.keep_texts) == (tokens, kept_texts)


@dataclass(frozen=True, kw_only=True)
class _OwnCandidates(ShinglesFull):
    """shingles-full finding its candidates otherwise: not by prefix keys."""

    name = "test-own-candidates"

    def candidates(self, sigs: Signatures) -> np.ndarray:
        return np.zeros((0, 2), np.int64)


@dataclass(frozen=True, kw_only=True)
class _OtherRows(MinHashLSH):
    """MinHash-LSH rows reduced otherwise: the prepare kernel cannot sketch them."""

    name = "test-other-rows"

    def _reduce(self, sets: Any) -> np.ndarray:
        return np.asarray(MinHashLSH._reduce(self, sets)) + np.uint64(1)


def test_a_subclass_with_its_own_candidates_runs_over_the_whole_corpus() -> None:
    plan = plan_for(_OwnCandidates())
    assert plan.set_keys is None and plan.candidates == "whole" and plan.group_limit is None
    assert plan_for(ShinglesFull()).set_keys == "prefix"


def test_the_prepare_kernel_sketches_for_minhash_lsh_only() -> None:
    assert isinstance(MinHashLSH().row_hasher(), type(MinHashLSH().hasher))
    assert _OtherRows().row_hasher() is None
    assert ShinglesFull().row_hasher() is None


def test_a_collection_stores_the_lsh_banding() -> None:
    # recall banding (P(candidate at t) >= 0.995) by default; the balanced one without it
    assert MinHashLSH(threshold=0.5).resolved_params() == {"bands": 40, "rows": 3}
    balanced = MinHashLSH(threshold=0.5, candidate_probability=None)
    assert balanced.resolved_params() == {"bands": 25, "rows": 5}
    assert ShinglesFull().resolved_params() == {}


def _outside_the_methods() -> Iterator[tuple[str, ast.AST]]:
    """``(path:line, node)`` of every AST node of the package's modules outside
    ``neardup/methods/``."""
    import neardup

    root = Path(neardup.__file__).parent
    for path in sorted(root.rglob("*.py")):
        if path.parent.name == "methods" and path.parent.parent == root:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            yield f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}", node


def test_no_module_outside_the_methods_reads_capabilities() -> None:
    """Callers ask the plan (``plan_for``): an attribute read ``<x>.capabilities`` outside
    ``neardup/methods/`` is a second place deciding how a method runs."""
    readers = [
        at
        for at, node in _outside_the_methods()
        if isinstance(node, ast.Attribute) and node.attr == "capabilities"
    ]
    assert readers == []


def _method_classes() -> set[str]:
    """The names of MethodBase and every subclass of it defined in the package."""
    from neardup.methods.base import MethodBase

    method_names()  # every built-in method's module imported
    seen: set[str] = set()
    todo: list[type] = [MethodBase]
    while todo:
        cls = todo.pop()
        if cls.__module__.startswith("neardup.") and cls.__name__ not in seen:
            seen.add(cls.__name__)
            todo.extend(cls.__subclasses__())
    return seen


def _class_names(node: ast.expr) -> list[str]:
    """The class names an ``isinstance`` second argument names (``C``, ``m.C``, tuples)."""
    if isinstance(node, ast.Tuple):
        return [n for elt in node.elts for n in _class_names(elt)]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    return [node.id] if isinstance(node, ast.Name) else []


def test_no_module_outside_the_methods_branches_on_a_method_class() -> None:
    """Callers ask the plan or a method hook: ``isinstance(x, MinHashLSH)`` (or
    ``issubclass``) outside ``neardup/methods/`` decides by class what a hook should say,
    and a subclass or plugin would not follow."""
    classes = _method_classes()
    assert {"MethodBase", "MinHashLSH", "ShinglesFull", "TFRIDF"} <= classes  # the walk sees them
    branches = [
        at
        for at, node in _outside_the_methods()
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("isinstance", "issubclass")
        and len(node.args) == 2
        and set(_class_names(node.args[1])) & classes
    ]
    assert branches == []


def test_the_plan_says_when_sketches_prefilter() -> None:
    """Verified resemblance with MinHash-LSH: its ``num_perm`` slots; the own rule,
    containment and the other methods: None. A subclass keeps the hook."""
    assert plan_for(MinHashLSH(num_perm=64)).prefilter_slots == 64
    assert plan_for(_OtherRows()).prefilter_slots == 128
    assert plan_for("minhash-lsh", PlanOptions(decision="own")).prefilter_slots is None
    assert plan_for("minhash-lsh", PlanOptions(measure="containment")).prefilter_slots is None
    assert [n for n in sorted(PLANS) if plan_for(n).prefilter_slots is not None] == ["minhash-lsh"]


def test_a_shingle_method_makes_its_shingling_once() -> None:
    """``shingling`` is kept on the (frozen) method: the same object each time, equal to the
    one its parameters describe, and a method with other parameters has its own."""
    from neardup.methods.registry import make_method
    from neardup.methods.shingles import Shingling

    meth = make_method("minhash-lsh", shingle_size=4, seed=7)
    first = meth.shingling
    assert meth.shingling is first
    assert first == Shingling(size=4, step=1, unit="word", fingerprint="xxh64", seed=7)
    other = make_method("minhash-lsh", shingle_size=3)
    assert other.shingling == Shingling(size=3) and other.shingling is not first
