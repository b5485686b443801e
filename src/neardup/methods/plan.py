"""How a method is run, decided once: :func:`plan_for` gives a :class:`MethodPlan`.

Every engine (the local job, the Dask engine), ``Store.add``/``check``, the in-memory
:class:`~neardup.Index`, ``compare`` and :mod:`neardup.testing` read a method's
capabilities through its plan, never the flags themselves, and never branch on a method's
class: a new method declares its :class:`~neardup.methods.base.Capabilities` and hooks, and
every caller follows.

The plan says:

* **how documents are prepared** (:meth:`MethodPlan.prepare_config`, a
  :class:`PrepareConfig`): the canonical form, the shingling, ``min_tokens``, and whether
  the token lists and texts are kept (a method signing from prepared documents or fitting
  collection statistics) and who signs rows in the prepare stage;
* **how signatures are made** (:attr:`MethodPlan.signing`): from the full shingle sets
  (``sets``), one row per document in the prepare stage (``rows``), from each prepared
  document's text or tokens (``documents``), or after a fit on collection statistics
  (``fitted``);
* **how candidates are found by the Dask engine** (:attr:`MethodPlan.candidates`): by the
  method's grouping keys (``groups``), by keys of its signature sets (``prefix``,
  ``postings``), or over the whole corpus in one task (``whole``);
* **the decision**: the mode (``own`` or ``verified``, the method's default when none is
  given), the method's :class:`~neardup.methods.decision.DecisionRule`, and whether its
  sketches prefilter the candidates of an exact comparison (:attr:`MethodPlan.prefilter_slots`);
* **the too-short rule**: a document with fewer than ``min_tokens`` canonical tokens gets
  no shingle set and is skipped (:func:`too_short_detail` words it, once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from neardup.errors import check_int
from neardup.methods.base import KeyForm, Method, SetKeys
from neardup.methods.decision import DecisionRule, resolve_decision, rule_of
from neardup.methods.shingles import Shingling
from neardup.options import OPTIONS, check_options
from neardup.text.canonical import CanonicalForm
from neardup.text.units import ReadOptions

__all__ = [
    "MethodPlan",
    "PlanOptions",
    "PrepareConfig",
    "Settings",
    "plan_for",
    "too_short_detail",
]

#: How signatures are made (:attr:`MethodPlan.signing`).
Signing = Literal["sets", "rows", "documents", "fitted"]
#: How the Dask engine finds candidates (:attr:`MethodPlan.candidates`).
Candidates = Literal["groups", "prefix", "postings", "whole"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PrepareConfig:
    """How documents are prepared (pickled once per worker task).

    Args:
        canonical: how text becomes canonical tokens.
        shingling: how tokens become shingle fingerprints.
        min_tokens: documents with fewer canonical tokens get no shingle set (``too-short``),
            >= 1.
        signer: a method whose ``sign_rows(sets)`` gives one signature row per document
            (``rows_per_document``), or None.
        keep_tokens: keep the canonical token lists of the documents with a set (methods
            that sign from tokens or fit collection statistics).
        keep_texts: keep the texts of the documents with a set (methods that sign from
            prepared documents).
        read: how a read unit's records become documents (:func:`prepare_unit` only).
        lean: the signer's rows are cut to what an exactly verified job reads
            (``signer.lean_rows``, :meth:`MethodPlan.prepare_config`).

    Raises:
        ParameterError: ``min_tokens`` < 1.
    """

    canonical: CanonicalForm
    shingling: Shingling
    min_tokens: int
    signer: Any = None
    keep_tokens: bool = False
    keep_texts: bool = False
    read: ReadOptions | None = None
    lean: bool = False

    def __post_init__(self) -> None:
        check_int("min_tokens", self.min_tokens, low=1)


class Settings(Protocol):
    """The options a plan reads (:class:`~neardup.DedupOptions`, a collection's
    :class:`~neardup.index.results.CollectionInfo`, :class:`PlanOptions`)."""

    @property
    def measure(self) -> str: ...

    @property
    def threshold(self) -> float: ...

    @property
    def min_tokens(self) -> int: ...

    @property
    def decision(self) -> str | None: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanOptions:
    """:class:`Settings` given by value (the defaults of :data:`~.options.OPTIONS`).

    Raises:
        ParameterError: a value its option does not allow.
    """

    measure: str = OPTIONS["measure"].default
    threshold: float = OPTIONS["threshold"].default
    min_tokens: int = OPTIONS["min_tokens"].default
    decision: str | None = OPTIONS["decision"].default

    def __post_init__(self) -> None:
        check_options(
            measure=self.measure,
            threshold=self.threshold,
            min_tokens=self.min_tokens,
            decision=self.decision,
        )


#: The options of a plan given none.
_DEFAULTS = PlanOptions()


def too_short_detail(count: int, min_tokens: int) -> str:
    """The ``too-short`` rule in words, as a skip row's detail:
    ``"2 canonical tokens < min_tokens=3"``."""
    return f"{count} canonical tokens < min_tokens={min_tokens}"


@dataclass(frozen=True, slots=True, kw_only=True)
class MethodPlan:
    """How one method is run under given options (:func:`plan_for`).

    Attributes:
        method: the method.
        min_tokens: documents with fewer canonical tokens are skipped (``too-short``).
        measure: ``resemblance`` or ``containment``; threshold: in (0, 1].
        decision: ``own`` or ``verified``, resolved (the method's default when none given).
        rule: the method's own :class:`~neardup.methods.decision.DecisionRule`.
        signing: how signatures are made: ``sets`` (``from_sets`` of the full shingle
            sets), ``rows`` (``sign_rows``, one row per document, in the prepare stage;
            ``from_rows``), ``documents`` (``sign`` of each prepared document: its text or
            tokens), ``fitted`` (``fit`` on collection statistics first, then ``sign`` or
            ``from_sets``).
        needs_fit: ``fit`` runs on collection statistics before signing (lexical methods).
        signs_from_sets: signatures come from the full shingle sets (after the fit, if
            any): ``from_sets``, else ``sign`` of prepared documents.
        streams: signatures come from the shingle sets alone (no fit): the job keeps the
            sets only, a collection signs at ``add``.
        signs_at_add: each document is signed alone from its text or tokens (neither sets
            nor statistics): a collection stores its signature and keys at ``add``.
        signs_from_text: signing reads each document's text, not its tokens.
        keep_tokens: the prepare stage keeps the token lists (a fit, or ``sign`` of tokens).
        keep_texts: the texts are kept for ``sign`` of prepared documents (the method does
            not sign from the shingle sets).
        exact_key: equal signatures are the decision; the Dask engine checks true key
            matches of grouping keys that are signature prefixes.
        keys: the form of the method's index keys (``none``, ``rows``, ``groups``).
        candidates: how the Dask engine finds candidates: ``groups`` (the method's
            grouping keys), ``prefix`` / ``postings`` (keys of its signature sets),
            ``whole`` (the whole corpus in one task: containment, or no such keys).
        set_keys: ``prefix`` or ``postings`` when the method's candidates come from keys of
            its signature sets (:meth:`~neardup.methods.base.MethodBase.set_keys`; a method
            signing from the sets, neither row by row nor after a fit), else None.
        group_limit: group size above which a key's group gives a star only (None: all
            pairs).
        prefilter_slots: the sketch slots whose agreement drops candidates before the
            exact comparison (:meth:`~neardup.methods.base.Method.prefilter`; verified
            resemblance with a method whose sketches can: MinHash-LSH's ``num_perm``), or
            None (every candidate is compared: another method, the own rule, containment).
        keeps_signature: a collection stores each document's signature for ``check``.
        content_key: a collection gives each document a content-key row (not after a
            fit: ``recompute`` rewrites the keys without the shingle sets).
    """

    method: Method
    min_tokens: int
    measure: str
    threshold: float
    decision: str
    rule: DecisionRule
    signing: Signing
    needs_fit: bool
    signs_from_sets: bool
    streams: bool
    signs_at_add: bool
    signs_from_text: bool
    keep_tokens: bool
    keep_texts: bool
    exact_key: bool
    keys: KeyForm
    candidates: Candidates
    set_keys: SetKeys | None
    group_limit: int | None
    prefilter_slots: int | None
    keeps_signature: bool
    content_key: bool

    @property
    def has_index_keys(self) -> bool:
        """The method has index keys: it can back a collection."""
        return self.keys != "none"

    @property
    def runs_by_key(self) -> bool:
        """The Dask engine runs every stage distributed, by keys (not ``whole``)."""
        return self.candidates != "whole"

    def prepare_config(
        self,
        *,
        rows: bool = False,
        texts: bool = False,
        read: ReadOptions | None = None,
        lean: bool = False,
    ) -> PrepareConfig:
        """How documents are prepared for this plan: its canonical form, shingling and
        ``min_tokens``; the token lists kept when :attr:`keep_tokens`.

        Args:
            rows: the engine signs in the prepare stage: a ``rows`` method's signature rows
                are made there (``signer``); no effect on the other methods.
            texts: the engine signs prepared documents from what this stage keeps (the
                local job, the Dask engine's whole-corpus task): their texts are kept when
                :attr:`keep_texts` (a collection has its documents' texts at hand).
            read: how a read unit's records become documents.
            lean: with ``rows``, when the sketches only prefilter candidates that are
                verified exactly (:attr:`prefilter_slots`), the rows are cut to what the
                job reads of them (the method's ``lean_rows``; the local job).
        """
        meth = self.method
        signer = meth if rows and self.signing == "rows" else None
        return PrepareConfig(
            canonical=meth.canonical,
            shingling=meth.shingling,
            min_tokens=self.min_tokens,
            signer=signer,
            keep_tokens=self.keep_tokens,
            keep_texts=texts and self.keep_texts,
            read=read,
            lean=lean and signer is not None and self.prefilter_slots is not None,
        )

    def too_short(self, count: int) -> str | None:
        """The ``too-short`` detail of a document of ``count`` canonical tokens
        (:func:`too_short_detail`), or None when it is long enough."""
        return too_short_detail(count, self.min_tokens) if count < self.min_tokens else None


def needs_fit(method: str) -> bool:
    """Whether the registered method named ``method`` signs with statistics of the whole
    collection (``plan_for(method).needs_fit``), read from its class, without building the
    method (a check asks this after every text that matched nothing).

    Raises:
        ParameterError: an unknown method.
    """
    from neardup.methods.registry import method_class

    return bool(method_class(method).capabilities.needs_fit)


def plan_for(method: Method | str, options: Settings | None = None) -> MethodPlan:
    """The plan of ``method`` (a method, or a registry name: built with its defaults)
    under ``options`` (default: :class:`PlanOptions`).

    Raises:
        ParameterError: an unknown method; the method's own rule cannot decide on
            ``options.measure`` (:func:`~neardup.methods.decision.resolve_decision`).
    """
    if isinstance(method, str):
        from neardup.methods.registry import make_method

        method = make_method(method)
    opts: Settings = _DEFAULTS if options is None else options
    caps = method.capabilities
    fit, sets = caps.needs_fit, caps.signs_from_sets
    signing: Signing
    if fit:
        signing = "fitted"
    elif not sets:
        signing = "documents"
    else:
        signing = "rows" if caps.rows_per_document else "sets"
    from_documents = not sets
    set_keys = None if fit or signing != "sets" else method.set_keys()
    candidates: Candidates = "whole"
    if opts.measure == "resemblance":
        if caps.groups_by_key:
            candidates = "groups"
        elif set_keys is not None:
            candidates = set_keys
    limit = method.group_limit
    if set_keys is not None:
        limit = int(getattr(method, "max_df"))  # noqa: B009 (a ShingleMethod field)
    decision = resolve_decision(method, opts.decision, opts.measure)
    exact_resemblance = decision == "verified" and opts.measure == "resemblance"
    return MethodPlan(
        method=method,
        min_tokens=opts.min_tokens,
        measure=opts.measure,
        threshold=opts.threshold,
        decision=decision,
        rule=rule_of(method),
        signing=signing,
        needs_fit=fit,
        signs_from_sets=sets,
        streams=sets and not fit,
        signs_at_add=from_documents and not fit,
        signs_from_text=caps.signs_from_text,
        keep_tokens=fit or (from_documents and not caps.signs_from_text),
        keep_texts=from_documents,
        exact_key=caps.exact_key,
        keys=caps.keys,
        candidates=candidates,
        set_keys=set_keys,
        group_limit=limit,
        prefilter_slots=method.prefilter_slots() if exact_resemblance else None,
        keeps_signature=(from_documents and not fit) or caps.stores_signature,
        content_key=not fit,
    )
