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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from neardup.errors import FormatError, IncompatibleSignatureError
from neardup.methods.params import Constraint, validate_parameters

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
    """Collection statistics a lexical method fits on (see :mod:`neardup.methods.stats`)."""

    @property
    def num_docs(self) -> int: ...

    def df(self, term: str) -> int: ...

    def cf(self, term: str) -> int: ...


@runtime_checkable
class Method(Protocol):
    """A near-duplicate detection method (the one interface of the methods stage).

    Class attributes:
        name: registry name (``shingles-full``, ``minhash-lsh``, ...).
        source: the paper or seed followed, with the equation used.
        needs_fit: True when :meth:`fit` must run on collection statistics first.
        exact_key: True when equal signatures *are* the decision (I-Match, TF-RIDF, ...).

    Contract:
        * :meth:`sign` maps prepared documents to :class:`Signatures` (deterministic: the
          same input and parameters give equal signatures, byte for byte);
        * :meth:`candidates` returns pairs ``(i, j)``, ``i < j``, that may be duplicates
          (an index never decides; verification does);
        * :meth:`similarity` gives the method's own score in [0, 1] for given pairs;
          a pair is a duplicate by the method's own rule when the score >= ``threshold``.
    """

    name: ClassVar[str]
    source: ClassVar[str]
    needs_fit: ClassVar[bool]
    exact_key: ClassVar[bool]

    def params(self) -> dict[str, Any]: ...

    def fit(self, stats: CorpusStats) -> None: ...

    def sign(self, docs: Sequence[Prepared]) -> Signatures: ...

    def candidates(self, sigs: Signatures) -> np.ndarray: ...

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray: ...

    def signature(self, sigs: Signatures, i: int) -> Signature: ...

    def compare(self, a: Signature, b: Signature) -> float: ...


class MethodBase:
    """Shared behaviour of the method classes: parameters validated from their declared
    constraints (:mod:`neardup.methods.params`), once, before the method's own rules.

    A method dataclass declares ``parameter_constraints`` (parameter -> constraint, a
    subclass extending its base's) and, when it has rules across parameters, a
    ``__post_init__`` that calls ``super().__post_init__()`` first.
    """

    parameter_constraints: ClassVar[Mapping[str, Constraint]] = {}

    def __post_init__(self) -> None:
        validate_parameters(self, type(self).parameter_constraints)
