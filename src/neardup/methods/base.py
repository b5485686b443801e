"""The stage boundary between prepared documents and detection methods.

Every method is a small object with keyword-only, validated parameters that implements
:class:`Method`. The job (``dedup``), ``compare``, collections and evaluation use only
this protocol, so any method works everywhere by its registry name.

A :class:`Signature` records how it was made (:class:`SignatureKey`: method name,
parameters, seeds and the canonical-form version) and refuses comparison with a signature
made differently (:class:`~neardup.errors.IncompatibleSignatureError`).

Stored bytes (:meth:`Signature.to_bytes`), format version 1, little-endian::

    offset  size  field
    0       4     magic b"NDSG"
    4       1     format version (1)
    5       1     dtype code: 1=uint8 2=uint32 3=uint64 4=float32 5=int64
    6       2     reserved (0)
    8       4     n = length in bytes of the key (UTF-8 JSON, sorted keys)
    12      n     key JSON {"method", "params", "canonical"}
    12+n    ...   payload array, C order, little-endian
"""

from __future__ import annotations

import json
import struct
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import Field, dataclass, field
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

import numpy as np

from neardup.errors import (
    FormatError,
    IncompatibleSignatureError,
    ParameterError,
    UsageError,
    check_choice,
)
from neardup.methods.decision import EQUAL_SIGNATURE, VERIFIED, DecisionRule
from neardup.methods.keys import GroupKeys, KeyRows, slot_keys
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling
from neardup.params import Constraint, validate_parameters
from neardup.text.canonical import CanonicalForm

MAGIC = b"NDSG"
FORMAT_VERSION = 1
_DTYPES: dict[int, str] = {1: "<u1", 2: "<u4", 3: "<u8", 4: "<f4", 5: "<i8"}
_CODES = {np.dtype(v).str: k for k, v in _DTYPES.items()}


@dataclass(frozen=True, slots=True)
class Prepared:
    """A document after the text stage: its clean text and canonical tokens.

    Attributes:
        id: document id.
        text: clean text (markup removed), the text offsets refer to.
        tokens: canonical tokens (:class:`neardup.text.CanonicalForm`).
    """

    id: str
    text: str
    tokens: tuple[str, ...] | list[str]


@dataclass(frozen=True, slots=True)
class TermBags:
    """Documents as bags of words: per-document term counts, grouped by document (a
    collection's stored ``nd_doc_terms`` rows, or token lists counted).

    Attributes:
        names: the terms; position = term index.
        row_doc: int64 (r,), the document (0 .. count-1) of each row, non-decreasing.
        row_term: int64 (r,), index into ``names`` of each row (-1: no term, skipped).
        row_count: int64 (r,), the term's count in the document (> 0).
        count: number of documents (a document may have no row).
    """

    names: list[str]
    row_doc: np.ndarray
    row_term: np.ndarray
    row_count: np.ndarray
    count: int

    @classmethod
    def from_token_lists(cls, token_lists: Sequence[Sequence[str]]) -> TermBags:
        """Bags of token lists (rows of a document in first-seen term order)."""
        index: dict[str, int] = {}
        doc: list[int] = []
        term: list[int] = []
        count: list[int] = []
        for i, tokens in enumerate(token_lists):
            bag: dict[int, int] = {}
            for t in tokens:
                k = index.setdefault(t, len(index))
                bag[k] = bag.get(k, 0) + 1
            doc.extend([i] * len(bag))
            term.extend(bag)
            count.extend(bag.values())
        return cls(
            list(index),
            np.array(doc, dtype=np.int64),
            np.array(term, dtype=np.int64),
            np.array(count, dtype=np.int64),
            len(token_lists),
        )

    def slice(self, lo: int, hi: int) -> TermBags:
        """Documents ``lo .. hi-1`` (renumbered from 0), the same names."""
        a, b = np.searchsorted(self.row_doc, [lo, hi]).tolist()
        return TermBags(
            self.names,
            self.row_doc[a:b] - lo,
            self.row_term[a:b],
            self.row_count[a:b],
            max(0, min(hi, self.count) - lo),
        )

    def token_lists(self) -> list[list[str]]:
        """Each document's tokens: its terms repeated by count, in row order (rows without
        a term, or with the empty term, left out)."""
        out: list[list[str]] = [[] for _ in range(self.count)]
        names = self.names
        doc, term, count = self.row_doc.tolist(), self.row_term.tolist(), self.row_count.tolist()
        for d, t, c in zip(doc, term, count, strict=True):
            if t >= 0 and names[t]:
                out[d].extend([names[t]] * c)
        return out


@dataclass(frozen=True, slots=True)
class SignatureKey:
    """How a signature was made; equal keys are required to compare signatures.

    Attributes:
        method: registry name of the method.
        params: JSON text of the method's parameters (sorted keys), seeds included.
        canonical: JSON text of the canonical form's parameters, its version included.
    """

    method: str
    params: str
    canonical: str

    @classmethod
    def make(cls, method: str, params: dict[str, Any], canonical: dict[str, Any]) -> SignatureKey:
        """Build a key from plain dicts (serialised with sorted keys)."""
        return cls(method, _json(params), _json(canonical))

    def require_same(self, other: SignatureKey) -> None:
        """Raise :class:`IncompatibleSignatureError` unless ``other`` equals ``self``."""
        if self != other:
            diff = [
                f"{name}: {getattr(self, name)} != {getattr(other, name)}"
                for name in ("method", "params", "canonical")
                if getattr(self, name) != getattr(other, name)
            ]
            raise IncompatibleSignatureError(
                "signatures made differently cannot be compared (" + "; ".join(diff) + ")"
            )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{method, params, canonical}``."""
        return {
            "method": self.method,
            "params": json.loads(self.params),
            "canonical": json.loads(self.canonical),
        }


def _json(obj: dict[str, Any]) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, eq=False)
class Signature:
    """One document's signature: a 1-D numpy payload and the key of how it was made.

    Attributes:
        key: :class:`SignatureKey`.
        payload: 1-D array (uint8, uint32, uint64, float32 or int64), method-specific.
    """

    key: SignatureKey
    payload: np.ndarray = field(repr=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Signature):
            return NotImplemented
        return self.key == other.key and np.array_equal(self.payload, other.payload)

    def __hash__(self) -> int:
        return hash((self.key, self.payload.tobytes()))

    def to_bytes(self) -> bytes:
        """Serialise in the documented format (see the module docstring)."""
        arr = np.ascontiguousarray(self.payload)
        le = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        code = _CODES.get(le.dtype.str)
        if code is None:
            raise FormatError(f"payload dtype {arr.dtype} has no stored form")
        key = json.dumps(self.key.as_dict(), sort_keys=True, ensure_ascii=False).encode()
        header = MAGIC + struct.pack("<BBHI", FORMAT_VERSION, code, 0, len(key))
        return header + key + le.tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> Signature:
        """Parse :meth:`to_bytes` output.

        Raises:
            FormatError: wrong magic, unknown version or dtype, truncated data.
        """
        if len(data) < 12 or data[:4] != MAGIC:
            raise FormatError("not a neardup signature (bad magic)")
        version, code, _, n = struct.unpack("<BBHI", data[4:12])
        if version != FORMAT_VERSION:
            raise FormatError(f"signature format version {version} is not supported")
        if code not in _DTYPES or len(data) < 12 + n:
            raise FormatError("corrupt signature header")
        try:
            meta = json.loads(data[12 : 12 + n].decode())
            key = SignatureKey.make(meta["method"], meta["params"], meta["canonical"])
            payload = np.frombuffer(data[12 + n :], dtype=_DTYPES[code]).copy()
        except (ValueError, KeyError, UnicodeDecodeError) as exc:
            raise FormatError(f"corrupt signature: {exc}") from exc
        return cls(key, payload)


@dataclass(frozen=True, eq=False)
class Signatures:
    """Signatures of a batch of documents, stored column-wise by the method.

    Attributes:
        key: how all of them were made.
        data: method-specific columnar data (a :class:`ShingleSets`, a 2-D array, ...).
        count: number of documents.
    """

    key: SignatureKey
    data: Any
    count: int

    def __len__(self) -> int:
        return self.count


class CorpusStats(Protocol):
    """Collection statistics a lexical method fits on (see :mod:`neardup.methods.corpus_stats`)."""

    @property
    def num_docs(self) -> int: ...

    def df(self, term: str) -> int: ...

    def cf(self, term: str) -> int: ...


KeyForm = Literal["none", "rows", "groups"]
#: The forms of :meth:`MethodBase.keys` a method can declare.
KEY_FORMS: tuple[str, ...] = ("none", "rows", "groups")
Layout = Literal["rows", "values", "sets"]
#: How ``Signatures.data`` can hold the documents (:attr:`MethodBase.layout`).
LAYOUTS: tuple[str, ...] = ("rows", "values", "sets")
SetKeys = Literal["prefix", "postings"]
#: How a method's candidates can come from keys of its signature sets
#: (:meth:`MethodBase.set_keys`).
SET_KEYS: tuple[str, ...] = ("prefix", "postings")
#: The boolean fields of :class:`Capabilities`.
_FLAGS = (
    "needs_fit",
    "exact_key",
    "signs_from_sets",
    "rows_per_document",
    "signs_from_text",
    "stores_signature",
)
#: Class attributes a method declared before :class:`Capabilities` (refused now).
_LEGACY_FLAGS = (*_FLAGS, "groups_by_key", "has_index_keys")


@dataclass(frozen=True, slots=True, kw_only=True)
class Capabilities:
    """What a method can do, declared once per class (``capabilities``): the callers (the
    dedup job, the Dask engine, collections) branch on these values, never on a method's
    name.

    Attributes:
        needs_fit: :meth:`MethodBase.fit` must run on collection statistics first (the
            lexical methods: I-Match, TF-RIDF, anchor words).
        exact_key: equal signatures *are* the decision (the default rule is then
            :data:`~neardup.methods.decision.EQUAL_SIGNATURE`; the Dask engine checks true
            key matches after grouping by key prefixes).
        signs_from_sets: :meth:`MethodBase.from_sets` signs from the full shingle sets
            alone (the streaming path).
        rows_per_document: :meth:`MethodBase.sign_rows` signs each document alone into
            one row (the dedup job then signs in its worker processes).
        signs_from_text: signing needs each document's text, not its tokens.
        stores_signature: a collection stores each document's signature for ``check`` to
            decide on, though it signs from the shingle sets: the own rule reads a sample
            that the stored 32-bit verification sets would change (``shingles-mod``:
            ``x mod m`` of the 64-bit fingerprints).
        keys: the form of the :meth:`MethodBase.keys` hook: ``none`` (no index keys: the
            method cannot back a collection), ``rows`` (:class:`KeyRows`: a collection's
            keys), ``groups`` (:class:`GroupKeys`: the Dask engine's grouping keys too, the
            collection's keys derived from them).

    Raises:
        ParameterError: a flag that is not a bool, or ``keys`` not one of
            :data:`KEY_FORMS`.
    """

    needs_fit: bool = False
    exact_key: bool = False
    signs_from_sets: bool = False
    rows_per_document: bool = False
    signs_from_text: bool = False
    stores_signature: bool = False
    keys: KeyForm = "none"

    def __post_init__(self) -> None:
        for name in _FLAGS:
            if not isinstance(getattr(self, name), bool):
                raise ParameterError(name, getattr(self, name), "True or False")
        check_choice("keys", self.keys, KEY_FORMS)

    @property
    def has_index_keys(self) -> bool:
        """True when the method has index keys (it can back a collection)."""
        return self.keys != "none"

    @property
    def groups_by_key(self) -> bool:
        """True when its keys are grouping keys (:class:`GroupKeys`) the Dask engine
        shuffles by."""
        return self.keys == "groups"


@runtime_checkable
class Method(Protocol):
    """A near-duplicate detection method (the one interface of the methods stage).

    Every hook a caller uses is declared here; :class:`MethodBase` gives each its documented
    default, so a method class declares only what it does differently.

    Class attributes:
        name: registry name (``shingles-full``, ``minhash-lsh``, ...).
        source: the paper or seed followed, with the equation used.
        capabilities: what the method can do (:class:`Capabilities`).
        decision_rule: the method's own duplicate rule, an object the pair decision calls
            (:class:`~neardup.methods.decision.DecisionRule`).

    Contract:
        * :meth:`sign` maps prepared documents to :class:`Signatures` (deterministic: the
          same input and parameters give equal signatures, byte for byte);
        * :meth:`candidates` returns pairs ``(i, j)``, ``i < j``, that may be duplicates
          (an index never decides; verification does);
        * :meth:`similarity` gives the method's own score in [0, 1] for given pairs;
          the decision rule says which scores make a duplicate;
        * :meth:`signature` and :meth:`compare` are the batch forms sliced to one document
          and one pair; :meth:`keys` gives the index keys in the form
          ``capabilities.keys`` declares (:func:`~neardup.methods.keys.key_rows` and
          :func:`~neardup.methods.keys.group_keys` give the other forms).
    """

    name: ClassVar[str]
    source: ClassVar[str]
    capabilities: ClassVar[Capabilities]
    decision_rule: ClassVar[DecisionRule]

    @property
    def canonical(self) -> CanonicalForm: ...

    @property
    def shingling(self) -> Shingling: ...

    @property
    def threshold(self) -> float | None: ...

    @property
    def group_limit(self) -> int | None: ...

    def params(self) -> dict[str, Any]: ...

    def key(self) -> SignatureKey: ...

    def fit(self, stats: CorpusStats) -> None: ...

    def sign(self, docs: Sequence[Prepared]) -> Signatures: ...

    def sign_counts(self, bags: TermBags) -> Signatures: ...

    def from_sets(self, sets: ShingleSets) -> Signatures: ...

    def sign_rows(self, sets: ShingleSets) -> np.ndarray: ...

    def from_rows(self, rows: np.ndarray) -> Signatures: ...

    def lean_rows(self, rows: np.ndarray) -> np.ndarray: ...

    def from_lean_rows(self, rows: np.ndarray) -> Signatures: ...

    def candidates(self, sigs: Signatures) -> np.ndarray: ...

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray: ...

    def containment(self, sigs: Signatures, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...

    def lexicon_warning(self, num_docs: int) -> str | None: ...

    def signature(self, sigs: Signatures, i: int) -> Signature: ...

    def compare(self, a: Signature, b: Signature) -> float: ...

    def keys(self, sigs: Signatures) -> GroupKeys | KeyRows: ...

    def set_keys(self) -> SetKeys | None: ...

    def row_hasher(self) -> Any: ...

    def prefilter_slots(self) -> int | None: ...

    def prefilter(
        self,
        sigs: Signatures,
        pairs: np.ndarray,
        threshold: float,
        *,
        sizes: np.ndarray,
        low: bool = False,
    ) -> np.ndarray: ...

    def resolved_params(self) -> dict[str, Any]: ...


class MethodBase(ABC):
    """Shared behaviour of the method classes, and the default of every :class:`Method` hook.

    Parameters are validated from their declared constraints
    (:mod:`neardup.params`), once, before the method's own rules: a method
    dataclass declares ``parameter_constraints`` (parameter -> constraint, a subclass
    extending its base's) and, when it has rules across parameters, a ``__post_init__``
    that calls ``super().__post_init__()`` first.

    A method must define ``name``, ``source``, :meth:`params`, :meth:`sign`,
    :meth:`candidates` and :meth:`similarity`
    (:func:`~neardup.methods.registry.register` refuses a class that leaves one out).
    Defaults of the rest:

    * ``capabilities``: ``Capabilities()`` (every flag False, *no index keys*: a method
      declares ``keys="rows"`` or ``keys="groups"`` and defines :meth:`keys`);
      :meth:`fit` does nothing;
    * ``decision_rule``: equal signatures when ``capabilities.exact_key`` is set, else
      exact verification (:data:`~neardup.methods.decision.EQUAL_SIGNATURE`,
      :data:`~.decision.VERIFIED`);
    * ``layout``: ``rows`` (``Signatures.data`` is a 2-D array, one row per document);
      :meth:`signature` and :meth:`compare` are the batch forms sliced by it
      (:meth:`payload`, :meth:`stack`, :meth:`similarity` of the pair);
    * ``canonical``: ``CanonicalForm()``; ``shingling``: ``Shingling()`` (5-word shingles,
      the sets exact verification reads); ``threshold``: None (the job's threshold);
      ``group_limit``: None (every pair of a group);
    * :meth:`key`: name, :meth:`params` and the canonical form's parameters;
    * :meth:`sign_counts`: :meth:`sign` of the bags' tokens;
    * :meth:`lexicon_warning`: None; :meth:`set_keys`: None; :meth:`row_hasher`: None;
      :meth:`prefilter_slots`: None and :meth:`prefilter`: every pair;
      :meth:`resolved_params`: ``{}``;
    * :meth:`from_sets`, :meth:`sign_rows`, :meth:`from_rows`, :meth:`keys`,
      :meth:`containment`: refused (the capabilities or decision rule say when they
      exist).

    A class declaring one of the old capability flags (``needs_fit = True``, ...) or the
    old key hooks (``index_keys``, ``group_keys``) is refused (:class:`UsageError` naming
    the replacement).
    """

    name: ClassVar[str]
    source: ClassVar[str]
    capabilities: ClassVar[Capabilities] = Capabilities()
    decision_rule: ClassVar[DecisionRule] = VERIFIED
    #: How ``Signatures.data`` holds the documents: ``rows`` (a 2-D array, document ``i``
    #: is row ``i``), ``values`` (a 1-D array, one value per document), ``sets`` (a
    #: :class:`~neardup.methods.sets.ShingleSets`, document ``i`` is ``get(i)``).
    layout: ClassVar[Layout] = "rows"
    parameter_constraints: ClassVar[Mapping[str, Constraint]] = {}
    #: Set by ``@dataclass`` on every method class (declared for the type checker only).
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    #: Class-level defaults of the dataclass fields a method may declare.
    canonical: CanonicalForm = CanonicalForm()
    threshold: float | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls)
        legacy = [f for f in _LEGACY_FLAGS if f in own]
        if legacy:
            raise UsageError(
                f"method class {cls.__qualname__} declares {', '.join(legacy)}: declare "
                "capabilities = Capabilities(...) instead"
            )
        hooks = [h for h in ("index_keys", "group_keys", "own_bar") if h in own]
        if hooks:
            raise UsageError(
                f"method class {cls.__qualname__} defines {', '.join(hooks)}: define keys() "
                "(index keys) or carry a decision_rule (its bar) instead"
            )
        check_choice("layout", cls.layout, LAYOUTS)
        if cls.capabilities.exact_key and cls.decision_rule is VERIFIED:
            cls.decision_rule = EQUAL_SIGNATURE

    def __post_init__(self) -> None:
        validate_parameters(self, type(self).parameter_constraints)

    @property
    def shingling(self) -> Shingling:
        """The shingling of the sets exact verification reads: ``Shingling()``."""
        return Shingling()

    @property
    def group_limit(self) -> int | None:
        """Group size above which a group gives a star from its earliest document only
        (``None``: all pairs of a group)."""
        return None

    @abstractmethod
    def params(self) -> dict[str, Any]:
        """JSON-ready parameters (recorded in signatures)."""

    def key(self) -> SignatureKey:
        """The :class:`SignatureKey` of signatures this method makes."""
        return SignatureKey.make(self.name, self.params(), self.canonical.params())

    def fit(self, stats: CorpusStats) -> None:  # noqa: B027 (a default, not abstract)
        """No collection statistics are needed; does nothing."""

    @abstractmethod
    def sign(self, docs: Sequence[Prepared]) -> Signatures:
        """Signatures of a batch of prepared documents."""

    def sign_counts(self, bags: TermBags) -> Signatures:
        """Signatures of documents given as bags of words (a lexical method re-signed from
        a collection's stored counts): :meth:`sign` of each bag's tokens."""
        docs = [Prepared(str(i), "", t) for i, t in enumerate(bags.token_lists())]
        return self.sign(docs)

    def from_sets(self, sets: ShingleSets) -> Signatures:
        """Signatures from full shingle sets (only when ``signs_from_sets``).

        Raises:
            UsageError: the method does not sign from shingle sets.
        """
        raise UsageError(f"method {self.name} does not sign from shingle sets")

    def sign_rows(self, sets: ShingleSets) -> np.ndarray:
        """One signature row per shingle set (only when ``rows_per_document``).

        Raises:
            ParameterError: the method does not sign one row per document.
        """
        raise ParameterError("method", self.name, "a method that signs one row per document")

    def from_rows(self, rows: np.ndarray) -> Signatures:
        """Signatures from stacked :meth:`sign_rows` (only when ``rows_per_document``).

        Raises:
            ParameterError: the method does not sign one row per document.
        """
        raise ParameterError("method", self.name, "a method that signs one row per document")

    def lean_rows(self, rows: np.ndarray) -> np.ndarray:
        """What a job whose candidates are verified exactly keeps of :meth:`sign_rows`
        ``rows`` (made in its worker processes; what :meth:`candidates` and
        :meth:`prefilter` read): ``rows`` themselves (MinHash-LSH keeps band keys and low
        bytes)."""
        return rows

    def from_lean_rows(self, rows: np.ndarray) -> Signatures:
        """Signatures from stacked :meth:`lean_rows`: :meth:`from_rows`.

        Raises:
            ParameterError: the method does not sign one row per document.
        """
        return self.from_rows(rows)

    @abstractmethod
    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Pairs that may be duplicates: int64 (p, 2), a < b."""

    @abstractmethod
    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """The method's score of each pair: float64 (p,)."""

    def containment(self, sigs: Signatures, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Estimated containments ``(A in B, B in A)`` of each pair (only when the decision
        rule's ``measures`` include containment).

        Raises:
            ParameterError: the method's own rule cannot decide on containment.
        """
        raise ParameterError("measure", "containment", f"resemblance with {self.name}")

    def lexicon_warning(self, num_docs: int) -> str | None:
        """A warning when the fitted lexicon is too small for ``num_docs`` documents: None."""
        return None

    def set_keys(self) -> SetKeys | None:
        """How the method's own :meth:`candidates` come from keys of its signature sets
        (the Dask engine then groups by them, :mod:`neardup.distributed.grouping`):
        ``prefix`` (prefix filtering over fingerprints ordered by document frequency),
        ``postings`` (every fingerprint of the sketch), or None (other candidates)."""
        return None

    def row_hasher(self) -> Any:
        """The :class:`~neardup.methods.minhash.MinHasher` whose sketches of the shingle
        sets are :meth:`sign_rows` (the prepare kernel then signs in its one pass over the
        texts), or None."""
        return None

    def prefilter_slots(self) -> int | None:
        """The sketch slots whose agreement :meth:`prefilter` counts before an exact
        comparison at a resemblance threshold (the plan's ``prefilter_slots``), or None: the
        signatures cannot prefilter, every candidate is compared."""
        return None

    def prefilter(
        self,
        sigs: Signatures,
        pairs: np.ndarray,
        threshold: float,
        *,
        sizes: np.ndarray,
        low: bool = False,
    ) -> np.ndarray:
        """bool (p,): the candidate pairs worth an exact comparison of resemblance at
        ``threshold`` (``sizes``: int (n,) shingles per document; ``low``: ``sigs`` holds
        the sketches' low bytes): every pair (only a method with :meth:`prefilter_slots`
        drops some)."""
        return np.ones(pairs.shape[0], dtype=bool)

    def resolved_params(self) -> dict[str, Any]:
        """Parameters a collection stores resolved at its creation, so that they never
        change under it (init parameter -> value): none."""
        return {}

    def payload(self, data: Any, i: int) -> np.ndarray:
        """Document ``i``'s signature payload in ``Signatures.data``, by :attr:`layout`:
        row ``i`` (``rows``), ``data[i:i+1]`` (``values``), ``data.get(i)`` (``sets``); a
        copy."""
        if self.layout == "rows":
            return np.array(data[i])
        if self.layout == "values":
            return np.array(data[i : i + 1])
        return np.array(data.get(i))

    def stack(self, payloads: Sequence[np.ndarray]) -> Any:
        """``Signatures.data`` of documents given by their payloads (the inverse of
        :meth:`payload`), by :attr:`layout`."""
        if self.layout == "rows":
            return np.stack(payloads)
        if self.layout == "values":
            return np.concatenate(payloads)
        return ShingleSets.from_arrays(payloads)

    def signature(self, sigs: Signatures, i: int) -> Signature:
        """Document ``i``'s :class:`Signature`: its :meth:`payload` and ``sigs.key``."""
        return Signature(sigs.key, self.payload(sigs.data, i))

    def compare(self, a: Signature, b: Signature) -> float:
        """The method's score of two signatures: :meth:`similarity` of the pair in the
        batch :meth:`stack` makes of their payloads.

        Raises:
            IncompatibleSignatureError: the signatures were made differently.
        """
        a.key.require_same(b.key)
        sigs = Signatures(a.key, self.stack([a.payload, b.payload]), 2)
        return float(self.similarity(sigs, _ONE_PAIR)[0])

    def keys(self, sigs: Signatures) -> GroupKeys | KeyRows:
        """Index keys of every document of ``sigs``, in the form ``capabilities.keys``
        declares: :class:`GroupKeys` (``groups``: the Dask engine's grouping keys, a
        collection's rows by :meth:`GroupKeys.rows`) or :class:`KeyRows` (``rows``: a
        collection's ``nd_index`` rows). Documents sharing a key in the same slot are
        candidates; every pair the method's own rule accepts shares a key.

        Raises:
            ParameterError: the method has no index keys (``keys="none"``).
        """
        raise ParameterError("method", self.name, "a method with index keys")

    def payload_keys(self, sigs: Signatures) -> KeyRows:
        """:func:`~neardup.methods.keys.slot_keys` of the signature payloads: the exact keys
        a method whose payload slots are its keys returns from :meth:`keys`.

        Raises:
            FormatError: a byte payload is not made of 20-byte slots.
        """
        return slot_keys([self.payload(sigs.data, i) for i in range(sigs.count)])


_ONE_PAIR = np.array([[0, 1]], dtype=np.int64)
