"""A conformance kit for detection methods: :func:`check_method` runs the checks every
method must pass, on texts given or on a small built-in sample.

The checks (each fails with an ``AssertionError`` naming the method and what broke):

1. **invalid parameters**: every declared parameter refuses the values its constraint
   lists as invalid (:meth:`~neardup.params.Interval.invalid_values`) with a
   :class:`~neardup.errors.ParameterError` naming that parameter;
2. **determinism**: two fresh method objects sign the same documents to the same bytes,
   and a document signed alone gets the signature it gets in a batch (a collection signs
   one document at a time);
3. **byte round trip**: ``Signature.from_bytes(sig.to_bytes()) == sig`` and it compares as
   the original does;
4. **refusal across keys**: :meth:`~neardup.methods.base.Method.compare` of signatures made
   with other parameters, another canonical form or by another method raises
   :class:`~neardup.errors.IncompatibleSignatureError`;
5. **compare == similarity**: the score of two signatures equals the batch score of the pair
   (:meth:`~neardup.methods.base.Method.similarity`) for every pair of the sample;
6. **keys agreeing with candidates** (methods with index keys: ``keys`` not ``none`` in
   their capabilities, :attr:`~neardup.methods.plan.MethodPlan.keys`):
   :meth:`~neardup.methods.base.Method.keys` gives the form the capabilities declare
   (:class:`~neardup.methods.keys.GroupKeys` for ``groups``,
   :class:`~neardup.methods.keys.KeyRows` for ``rows``), a document's keys are the same
   signed alone and in a batch, and every candidate pair the method's own rule accepts
   shares a key, so a collection (and the Dask engine) finds what the dedup job finds.

Lexical methods (``needs_fit``) are fitted on the sample's statistics first; methods that
sign from shingle sets sign the default shingle sets of the canonical tokens, as the job does.

Example:
    >>> from neardup.methods.registry import method_class
    >>> from neardup.testing import check_method
    >>> check_method(method_class("shingles-full"))
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from neardup.errors import IncompatibleSignatureError, ParameterError
from neardup.methods.base import Method, MethodBase, Prepared, Signature, SignatureKey, Signatures
from neardup.methods.corpus_stats import CorpusStatistics
from neardup.methods.decision import own_accepts
from neardup.methods.keys import GroupKeys, KeyRows, key_rows
from neardup.methods.plan import plan_for

__all__ = ["SAMPLE", "check_method", "sample_texts"]

#: Public-domain English prose (Dickens 1859; Lincoln 1863; Melville 1851), the sample's
#: seed texts.
SAMPLE: tuple[str, ...] = (
    "It was the best of times, it was the worst of times, it was the age of wisdom, it was "
    "the age of foolishness, it was the epoch of belief, it was the epoch of incredulity. "
    "It was the season of Light, it was the season of Darkness. It was the spring of hope, "
    "it was the winter of despair. We had everything before us, we had nothing before us. "
    "We were all going direct to Heaven, we were all going direct the other way. In short, "
    "the period was so far like the present period, that some of its noisiest authorities "
    "insisted on its being received, for good or for evil, in the superlative degree of "
    "comparison only.",
    "Four score and seven years ago our fathers brought forth on this continent, a new "
    "nation, conceived in Liberty, and dedicated to the proposition that all men are created "
    "equal. Now we are engaged in a great civil war, testing whether that nation, or any "
    "nation so conceived and so dedicated, can long endure. We are met on a great "
    "battle-field of that war. We have come to dedicate a portion of that field, as a final "
    "resting place for those who here gave their lives that that nation might live. It is "
    "altogether fitting and proper that we should do this.",
    "Call me Ishmael. Some years ago, never mind how long precisely, having little or no "
    "money in my purse, and nothing particular to interest me on shore, I thought I would "
    "sail about a little and see the watery part of the world. It is a way I have of "
    "driving off the spleen and regulating the circulation. Whenever I find myself growing "
    "grim about the mouth; whenever it is a damp, drizzly November in my soul; then, I "
    "account it high time to get to sea as soon as I can. This is my substitute for pistol "
    "and ball.",
)


def sample_texts(texts: Sequence[str] = SAMPLE) -> list[str]:
    """The checked documents: each text, a copy with every 13th word replaced, and its
    first two thirds (near-duplicates and a partial copy of every text), in that order."""
    out: list[str] = []
    for text in texts:
        words = text.split()
        edited = " ".join("zzyzx" if i % 13 == 12 else w for i, w in enumerate(words))
        out += [text, edited, " ".join(words[: 2 * len(words) // 3])]
    return out


def check_method(
    cls: type[MethodBase],
    *,
    texts: Sequence[str] | None = None,
    params: Mapping[str, Any] | None = None,
    threshold: float = 0.5,
) -> None:
    """Run the conformance checks (module docstring) on a method class.

    Args:
        cls: the method class (registered or not).
        texts: the documents to sign (clean text); by default :func:`sample_texts`.
        params: init parameters of the method checked (default: its defaults).
        threshold: the job threshold the own rule is checked at, in (0, 1].

    Raises:
        AssertionError: a check failed (the message names the method and the check).
    """
    params = dict(params or {})
    docs = list(texts) if texts is not None else sample_texts()
    _check_invalid_parameters(cls, params)
    meth, sigs, prepared = _signed(cls, params, docs)
    _check_determinism(cls, params, docs, meth, sigs, prepared)
    _check_round_trip(meth, sigs)
    _check_refusal(cls, params, meth, sigs)
    _check_compare_is_similarity(meth, sigs)
    if plan_for(meth).has_index_keys:
        _check_keys(meth, sigs, prepared, threshold)


# -- the checks ------------------------------------------------------------------------------
def _check_invalid_parameters(cls: type[MethodBase], params: dict[str, Any]) -> None:
    defaults = cls(**params)
    for name, constraint in cls.parameter_constraints.items():
        for value in constraint.invalid_values(defaults):
            try:
                cls(**{**params, name: value})
            except ParameterError as err:
                assert err.name == name, (
                    f"{cls.name}: {name}={value!r} refused naming {err.name!r}, not {name!r}"
                )
            else:
                raise AssertionError(f"{cls.name}: {name}={value!r} was accepted")


def _check_determinism(
    cls: type[MethodBase],
    params: dict[str, Any],
    docs: list[str],
    meth: Method,
    sigs: Signatures,
    prepared: list[Prepared],
) -> None:
    _, again, _ = _signed(cls, params, docs)
    for i in range(sigs.count):
        one, two = meth.signature(sigs, i).to_bytes(), meth.signature(again, i).to_bytes()
        assert one == two, f"{cls.name}: document {i} signed twice gives other bytes"
        alone = meth.signature(_sign(meth, [prepared[i]]), 0).to_bytes()
        assert alone == one, f"{cls.name}: document {i} signed alone differs from its batch"


def _check_round_trip(meth: Method, sigs: Signatures) -> None:
    for i in range(sigs.count):
        sig = meth.signature(sigs, i)
        back = Signature.from_bytes(sig.to_bytes())
        assert back == sig, f"{meth.name}: document {i}'s signature changed in a byte round trip"
        assert _same(meth.compare(back, sig), meth.compare(sig, sig)), (
            f"{meth.name}: a round-tripped signature compares otherwise"
        )


def _check_refusal(
    cls: type[MethodBase], params: dict[str, Any], meth: Method, sigs: Signatures
) -> None:
    sig = meth.signature(sigs, 0)
    made = sig.key.as_dict()
    p, c = made["params"], made["canonical"]
    others = [
        SignatureKey.make(made["method"], {**p, "~other": 1}, c),
        SignatureKey.make(made["method"], p, {**c, "~other": 1}),
        SignatureKey.make(made["method"] + "~other", p, c),
    ]
    fields = {f.name for f in dataclasses.fields(cls) if f.init}
    if "seed" in fields and not plan_for(meth).needs_fit:  # a real key, another parameter
        other = cls(**{**params, "seed": int(getattr(meth, "seed", 0)) + 1})
        others.append(other.key())
    for other_key in others:
        try:
            meth.compare(sig, Signature(other_key, sig.payload))
        except IncompatibleSignatureError:
            continue
        raise AssertionError(f"{cls.name}: compare accepted a signature made as {other_key}")


def _check_compare_is_similarity(meth: Method, sigs: Signatures) -> None:
    pairs = np.array(list(itertools.combinations(range(sigs.count), 2)), np.int64).reshape(-1, 2)
    batch = np.asarray(meth.similarity(sigs, pairs), dtype=float)
    for (i, j), want in zip(pairs.tolist(), batch.tolist(), strict=True):
        got = meth.compare(meth.signature(sigs, i), meth.signature(sigs, j))
        assert _same(got, want), f"{meth.name}: compare({i}, {j}) = {got}, similarity {want}"


def _check_keys(meth: Method, sigs: Signatures, prepared: list[Prepared], threshold: float) -> None:
    found = meth.keys(sigs)
    form = plan_for(meth).keys
    want = GroupKeys if form == "groups" else KeyRows
    assert isinstance(found, want), (
        f"{meth.name}: keys() gave {type(found).__name__}, its capabilities declare {form!r}"
    )
    if isinstance(found, GroupKeys):
        n = found.keys.shape[0]
        assert found.valid.shape == found.keys.shape and n == sigs.count, (
            f"{meth.name}: grouping keys of shape {found.keys.shape} (valid "
            f"{found.valid.shape}) for {sigs.count} documents"
        )
    rows = key_rows(found)
    keys = [set(rows.for_row(i).tolist()) for i in range(sigs.count)]
    for i, doc in enumerate(prepared):
        alone = set(key_rows(meth.keys(_sign(meth, [doc]))).for_row(0).tolist())
        assert alone == keys[i], f"{meth.name}: document {i}'s keys alone differ from its batch"
    cand = np.asarray(meth.candidates(sigs), dtype=np.int64).reshape(-1, 2)
    accepted = own_accepts(meth, meth.similarity(sigs, cand), threshold)
    for i, j in cand[accepted].tolist():
        assert keys[i] & keys[j], (
            f"{meth.name}: pair ({i}, {j}) passes the own rule but shares no index key"
        )


# -- signing as the job does -----------------------------------------------------------------
def _signed(
    cls: type[MethodBase], params: dict[str, Any], docs: list[str]
) -> tuple[Method, Signatures, list[Prepared]]:
    meth = cls(**params)
    prepared = [Prepared(str(i), t, meth.canonical.tokens(t)) for i, t in enumerate(docs)]
    if plan_for(meth).needs_fit:
        meth.fit(CorpusStatistics.from_token_lists(p.tokens for p in prepared))
    return meth, _sign(meth, prepared), prepared


def _sign(meth: Method, prepared: list[Prepared]) -> Signatures:
    if plan_for(meth).signs_from_sets:
        return meth.from_sets(meth.shingling.batch([p.tokens for p in prepared]))
    return meth.sign(prepared)


def _same(a: float, b: float) -> bool:
    return bool(np.isclose(a, b, rtol=0.0, atol=1e-9) or (np.isnan(a) and np.isnan(b)))
