"""An in-memory, incremental near-duplicate index: the memory backend of the collection API
(:mod:`neardup.index.core`): add, check, remove, get, save, load.

Like datasketch's ``MinHashLSH``, but it returns verified matches with resemblance and
containment, finds a small document inside a large one, removes documents, and ranks the
top ``k``. It holds one collection as a :class:`neardup.Store` collection does, with the
same vocabulary and values (``add`` / ``check`` / ``remove`` / ``get``, :class:`AddReport`,
:class:`CheckResult`, :class:`Match`), the same methods (every registered method with index
keys: ``minhash-lsh``, ``shingles-*``, ``megashingles``, ``imatch``, ``tf-ridf``,
``anchor-words``...), both measures, both decision modes and identical-document handling:
its ``add`` and ``check`` are the collection core's (:mod:`neardup.index.core`), the SQLite
and PostgreSQL backends' code, over a storage of dicts (documents by id, postings lists of
index keys).

A document becomes canonical tokens (:class:`~neardup.text.canonical.CanonicalForm`),
then word shingles with 64-bit fingerprints (Broder 1997; Zagorulko et al. 2013), then the
method's index keys. Without ``method``, the index keeps its original setup: under
``measure="resemblance"`` MinHash-LSH (``minhash-lsh``, ``b`` bands of ``r`` rows chosen by
:func:`~neardup.methods.lsh.recall_params` for the threshold, so a pair at it becomes a
candidate with probability >= 0.995; Leskovec et al., MMDS §3.4),
under ``measure="containment"`` every shingle fingerprint (``shingles-full``), each candidate
verified on the exact shingle sets (``decision="verified"``). A match has
``resemblance >= threshold``, or ``max(containment both ways) >= threshold``.

Memory: the 64-bit fingerprint set of every document (8 bytes a shingle), its index keys
and postings; lexical methods also keep each document's canonical tokens and signature.
Not thread-safe: one writer at a time.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np

from neardup._array import sorted_unique
from neardup.errors import (
    DocumentNotFound,
    FormatError,
    InputError,
    NeardupError,
    ParameterError,
    UnsupportedMethod,
    check_int,
)
from neardup.frames import documents_of
from neardup.index import core
from neardup.index.codec import (
    fingerprint_shift,
    scrub,
    term_key,
    title,
    verification_set,
)
from neardup.index.core import Signed
from neardup.index.methods import (
    KeyRows,
    build_method,
    canonical_form,
    collection_keys,
    creation_params,
)
from neardup.index.results import AddReport, CheckResult, CollectionInfo, DocumentInfo
from neardup.index.verify import (
    MAX_CANDIDATES,
    Candidate,
)
from neardup.methods.base import Method, Signature, TermBags
from neardup.methods.corpus_stats import CorpusStatistics
from neardup.methods.decision import resolve_decision
from neardup.methods.plan import PlanOptions, plan_for
from neardup.methods.registry import method_class
from neardup.methods.sets import ShingleSets
from neardup.options import (
    COLLECTION_OPTIONS,
    INDEX_METHOD_BY_MEASURE,
    OPTIONS,
    check_options,
    validate_options,
)
from neardup.text.canonical import CanonicalForm

_FORMAT = "neardup-index/2"
_FORMAT_1 = "neardup-index/1"


@dataclass(slots=True)
class _Doc:
    """One stored document: its order of addition, full shingle set (uint64, sorted,
    unique), index keys, metadata and (lexical methods) term keys of its tokens."""

    seq: int
    fps: np.ndarray
    keys: np.ndarray
    source: str
    title: str
    content_hash: bytes
    length: int
    added_at: datetime
    tokens: list[str] | None = None
    signature: Signature | None = None


@dataclass(eq=False)
class Index:
    """An in-memory collection of documents (see the module docstring).

    Args:
        measure: ``resemblance`` or ``containment`` (the larger of the two directions).
        threshold: decision threshold in (0, 1]; also the method's own threshold (LSH
            tuning) unless ``method_params`` sets one.
        shingle_size: words per shingle, 1-64 (without ``method``).
        num_perm: MinHash sketch length for ``measure="resemblance"``, 1-4096 (without
            ``method``).
        canonical: how text becomes tokens (stop words, morphology); with ``method``, a
            non-default one is used unless ``method_params`` gives one (the method's own
            default otherwise).
        min_tokens: documents with fewer canonical tokens are not stored (``too-short``),
            1 to 1,000,000.
        max_df: index keys shared by more than this many documents give no candidates, >= 2.
        method: a registry name with index keys (:func:`neardup.method_names`), as
            :meth:`neardup.Store.create_collection` takes; ``None``: the original setup
            (module docstring).
        method_params: the method's parameters (``canonical`` may be a ``CanonicalForm`` or
            a dict); only with ``method``, which then takes its shingle size and sketch
            length from here, not from ``shingle_size`` / ``num_perm``.
        decision: ``own``, ``verified`` or ``None`` (the method's default; ``verified``
            without ``method``), :mod:`neardup.methods.decision`.
        name: the collection's name in results (``CheckResult.collection``).

    Raises:
        ParameterError: a parameter is out of range (the message names it; the options
            measure, threshold, min_tokens, max_df and decision as
            :data:`neardup.options.OPTIONS` declares them), or
            ``shingle_size`` / ``num_perm`` set together with ``method``.
        UnsupportedMethod: the method has no index keys (``simhash``, ``sl-st``,
            ``spotsigs``).

    Example:
        >>> idx = Index(threshold=0.5)
        >>> idx.add([("a", "the quick brown fox jumps over the lazy dog again")]).added
        1
        >>> idx.check("the quick brown fox jumps over the lazy dog").matches[0].doc_id
        'a'
    """

    measure: Literal["resemblance", "containment"] = OPTIONS["measure"].default
    threshold: float = OPTIONS["threshold"].default
    shingle_size: int = 5
    num_perm: int = 128
    canonical: CanonicalForm = field(default_factory=CanonicalForm)
    min_tokens: int = OPTIONS["min_tokens"].default
    max_df: int = OPTIONS["max_df"].default
    method: str | None = OPTIONS["index_method"].default
    method_params: dict[str, Any] | None = None
    decision: str | None = OPTIONS["decision"].default
    name: str = "memory"
    _docs: dict[str, _Doc] = field(default_factory=dict, init=False, repr=False)
    _postings: dict[int, list[str]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        validate_options(self, COLLECTION_OPTIONS)
        check_int("shingle_size", self.shingle_size, low=1, high=64)
        check_int("num_perm", self.num_perm, low=1, high=4096)
        if not isinstance(self.canonical, CanonicalForm):
            raise ParameterError("canonical", self.canonical, "a CanonicalForm")
        if not isinstance(self.name, str) or not self.name:
            raise ParameterError("name", self.name, "a non-empty string")
        name, given = self._method_choice()
        init, canonical = creation_params(name, given, self.threshold)
        cls = method_class(name)
        default = "verified" if self.method is None else None
        self._mode: str = resolve_decision(cls, self.decision or default, self.measure)
        self._name, self._init, self._canonical = name, init, canonical
        self._meth: Method = build_method(name, init, canonical)
        self._fitted: Method | None = None  # lexical: fitted on the current statistics
        self._seq = 0
        options = PlanOptions(
            measure=self.measure,
            threshold=self.threshold,
            min_tokens=self.min_tokens,
            decision=self._mode,
        )
        self._plan = plan_for(self._meth, options)
        self._prepare = self._plan.prepare_config()
        self._shift = fingerprint_shift(self._meth.shingling.fingerprint)

    def _method_choice(self) -> tuple[str, dict[str, Any]]:
        """The method's registry name and its given parameters."""
        if self.method is None:
            if self.method_params is not None:
                raise ParameterError("method_params", self.method_params, "None without method")
            params: dict[str, Any] = {
                "shingle_size": self.shingle_size,
                "canonical": self.canonical,
            }
            name = INDEX_METHOD_BY_MEASURE[self.measure]
            if self.measure == "resemblance":  # MinHash-LSH
                return name, {**params, "num_perm": self.num_perm}
            return name, params
        if not isinstance(self.method, str):
            raise ParameterError("method", self.method, "a method name")
        for name, default in (("shingle_size", 5), ("num_perm", 128)):
            if getattr(self, name) != default:
                raise ParameterError(name, getattr(self, name), "set in method_params")
        params = dict(self.method_params or {})
        if "canonical" not in params and self.canonical != CanonicalForm():
            params["canonical"] = self.canonical  # else the method's own default
        if not plan_for(self.method).has_index_keys:
            raise UnsupportedMethod(
                f"method {self.method!r} cannot back a collection yet (no exact or LSH index "
                "key); use minhash-lsh, shingles-*, megashingles, imatch, tf-ridf or "
                "anchor-words"
            )
        return self.method, params

    # -- container --------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._docs

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._docs))

    @property
    def info(self) -> CollectionInfo:
        """The collection's configuration, as a store collection's (``id`` 0)."""
        return CollectionInfo(
            0,
            self.name,
            self._name,
            dict(self._init),
            dict(self._canonical),
            self.measure,
            float(self.threshold),
            self.min_tokens,
            self._fitted is None and self._plan.needs_fit and bool(self._docs),
            datetime.fromtimestamp(0, UTC),
            self._mode,
            self.max_df,
        )

    def params(self) -> dict[str, Any]:
        """JSON-ready parameters (saved with the index)."""
        out: dict[str, Any] = {
            "measure": self.measure,
            "threshold": self.threshold,
            "min_tokens": self.min_tokens,
            "max_df": self.max_df,
            "decision": self._mode,
            "name": self.name,
        }
        if self.method is None:
            canonical = self.canonical.params()
            out["shingle_size"] = self.shingle_size
            out["num_perm"] = self.num_perm
            out["canonical"] = {k: v for k, v in canonical.items() if k != "version"}
        else:
            out["method"] = self.method
            out["method_params"] = {**self._init, "canonical": dict(self._canonical)}
        return out

    # -- writes -----------------------------------------------------------------------
    def add(
        self,
        items: Any,
        *,
        batch_size: int = OPTIONS["batch_size"].default,
        texts: bool | None = None,
    ) -> AddReport:
        """Store documents, ``batch_size`` at a time (prepared vectorised): the collection
        core's add (:func:`neardup.index.core.add`), as :meth:`neardup.Store.add`.

        Args:
            items: what :func:`neardup.dedup` takes (:func:`neardup.frames.documents_of`):
                documents (and text-stage skips, reported back), e.g.
                :func:`neardup.read_corpus`; texts (ids ``"0"``, ``"1"``, ...); ``(id,
                text)`` pairs; a data frame or table; input paths (a ``pathlib.Path`` is
                read as a file or folder).
            batch_size: documents prepared at once, 1-100,000.
            texts: True: strings are texts; False: paths; None: decide as ``dedup`` does
                (one plain string is a path).

        Returns:
            :class:`AddReport`: documents added; the skipped ones (``exists``: same id and
            content stored already; ``changed``: same id, other content, remove it first;
            ``too-short``; ``unreadable`` ids; the text-stage skips given).

        Raises:
            ParameterError: ``batch_size`` out of range; an item of ``items`` that is
                neither a text, a Document nor an ``(id, text)`` pair.
            InputError: a missing input path.
        """
        check_options(batch_size=batch_size)
        return core.add(
            _Memory(self),
            self._meth,
            documents_of(items, texts=texts),
            min_tokens=self.min_tokens,
            batch_size=batch_size,
        )

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def remove(self, doc_id: str) -> None:
        """Remove document ``doc_id``.

        Raises:
            DocumentNotFound: no document ``doc_id`` (an :class:`InputError`).
        """
        doc = self._docs.pop(doc_id, None) if isinstance(doc_id, str) else None
        if doc is None:
            raise DocumentNotFound(self.name, str(doc_id))
        self._unpost(doc_id, doc.keys)
        if self._plan.needs_fit:
            self._fitted = None

    def get(self, doc_id: str) -> DocumentInfo:
        """A stored document's metadata (``shingles``: size of its verification set).

        Raises:
            DocumentNotFound: no such document.
        """
        doc = self._docs.get(doc_id) if isinstance(doc_id, str) else None
        if doc is None:
            raise DocumentNotFound(self.name, str(doc_id))
        size = int(verification_set(doc.fps, shift=self._shift).shape[0])
        return DocumentInfo(
            doc_id,
            doc.source,
            doc.title,
            doc.content_hash.hex(),
            doc.length,
            size,
            doc.added_at,
        )

    # -- reads ------------------------------------------------------------------------
    def check(
        self, text_: str, *, limit: int = OPTIONS["limit"].default, k: int | None = None
    ) -> CheckResult:
        """Which stored documents does ``text_`` duplicate? The collection core's check
        (:func:`neardup.index.core.check`), as :meth:`neardup.Store.check`: candidates share
        index keys (most shared first, at most :data:`~neardup.index.verify.MAX_CANDIDATES`;
        keys of more than ``max_df`` documents passed over), each decided by
        :func:`neardup.job.decide.decide` under the index's measure, threshold and decision; an
        identical document always matches.

        Args:
            text_: the document's text.
            limit: at most this many matches, 1-1,000, best first by resemblance, then the
                larger containment, then id.
            k: top-k instead of ``limit``: the ``k`` matches with the highest decided score
                (``evidence["score"]``), ties by id, 1-1,000 (only decided matches:
                :mod:`neardup.index.core`).

        Raises:
            ParameterError: ``text_`` is not a string; ``limit`` or ``k`` out of range.
            InputError: ``text_`` has fewer than ``min_tokens`` canonical tokens.
        """
        check_options(limit=limit, k=k)
        meth = self._query_method()
        return core.check(_Memory(self), meth, self.info, text_, limit=limit, k=k)

    def _query_method(self) -> Method:
        """The method; lexical methods fitted on the current statistics (signatures and
        index keys of every document recomputed after a change, as the store's
        ``recompute``)."""
        if not self._plan.needs_fit:
            return self._meth
        if self._fitted is None:
            self._fitted = self._recompute()
        return self._fitted

    def _recompute(self) -> Method:
        ids = list(self._docs)
        lists = [self._docs[d].tokens or [] for d in ids]
        meth = build_method(self._name, self._init, self._canonical)
        stats = CorpusStatistics.from_token_lists(lists)
        batches = core.refit(meth, stats, TermBags.from_token_lists(lists))
        self._postings.clear()
        for lo, sigs, rows in batches:
            for i in range(sigs.count):
                doc = self._docs[ids[lo + i]]
                doc.signature = meth.signature(sigs, i)
                doc.keys = rows.for_row(i)
                self._post(ids[lo + i], doc.keys)
        return meth

    # -- files ------------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the index to ``path`` (a ``.npz`` file: parameters, ids, metadata and
        fingerprint sets, and the term keys of lexical methods; index keys are recomputed
        by :meth:`load`). Written to a temporary name, then renamed.

        Raises:
            OSError: the file cannot be written.
        """
        out = Path(path)
        ids = list(self._docs)
        docs = [self._docs[i] for i in ids]
        offsets = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum([d.fps.shape[0] for d in docs], out=offsets[1:])
        values = np.concatenate([d.fps for d in docs]) if docs else np.zeros(0, dtype=np.uint64)
        header = {
            "format": _FORMAT,
            "params": self.params(),
            "ids": ids,
            "documents": [
                [d.source, d.title, d.content_hash.hex(), d.length, d.added_at.isoformat()]
                for d in docs
            ],
            "tokens": [d.tokens for d in docs] if self._plan.needs_fit else None,
            # methods signing at add (SL+ST, SpotSigs): their signatures, as no text is kept
            "signatures": (
                [
                    None if d.signature is None else [d.signature.to_bytes().hex(), d.keys.tolist()]
                    for d in docs
                ]
                if self._plan.signs_at_add
                else None
            ),
        }
        tmp = out.with_name(f".{out.name}.tmp")
        with open(tmp, "wb") as fh:
            np.savez(fh, header=np.array(json.dumps(header)), values=values, offsets=offsets)
        os.replace(tmp, out)
        return out

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Index:
        """Read an index written by :meth:`save` (this format or ``neardup-index/1``).

        Every part is checked before use (:func:`_check_saved`): a file changed after it
        was saved (any byte) loads as a consistent index or is refused, never read past
        its arrays.

        Raises:
            InputError: the file cannot be read. FormatError: it is not a saved index, or
                a part of it is damaged (the message names the part).
        """
        header, values, offsets = _read_saved(path)
        _check_saved(header, values, offsets, path)
        try:
            return cls._from_saved(header, values, offsets)
        except FormatError as exc:
            raise FormatError(f"{path}: damaged saved index ({exc})") from None
        except (
            NeardupError,
            TypeError,
            ValueError,
            KeyError,
            IndexError,
            AttributeError,
            OverflowError,
        ) as exc:
            # parameters or metadata that pass the shape checks but not the constructors
            # (a threshold of 5, an unknown method, a date that is not one)
            raise FormatError(f"{path}: damaged saved index ({exc})") from None

    @classmethod
    def _from_saved(cls, header: dict[str, Any], values: np.ndarray, offsets: np.ndarray) -> Index:
        """The index of a checked saved file (:meth:`load`)."""
        params = dict(header["params"])
        if "canonical" in params:
            params["canonical"] = CanonicalForm(**params["canonical"])
        if "method_params" in params:
            params["method_params"] = dict(params["method_params"])
            params["method_params"]["canonical"] = canonical_form(
                params["method_params"]["canonical"]
            )
        index = cls(**params)
        n = len(header["ids"])
        meta = header.get("documents") or [["", "", "", 0, None]] * n
        tokens = header.get("tokens") or [None] * n
        sets = [values[offsets[i] : offsets[i + 1]].astype(np.uint64) for i in range(n)]
        keys, signatures = index._loaded_keys(sets, header.get("signatures"))
        for i, doc_id in enumerate(header["ids"]):
            source, shown, digest, length, added = meta[i]
            index._store(
                doc_id,
                _Doc(
                    index._next_seq(),
                    sets[i],
                    np.zeros(0, np.int64) if keys is None else keys[i],
                    source,
                    shown,
                    bytes.fromhex(digest),
                    int(length),
                    datetime.fromisoformat(added) if added else datetime.fromtimestamp(0, UTC),
                    tokens[i],
                    signatures[i],
                ),
            )
        return index

    def _loaded_keys(
        self, sets: list[np.ndarray], saved: list[Any] | None
    ) -> tuple[list[np.ndarray] | None, list[Signature | None]]:
        """Index keys and kept signatures of loaded documents: signed again from their
        sets, or as saved (methods signing at add: ``[signature hex, keys]`` a document)."""
        meth, n = self._meth, len(sets)
        if saved is not None and self._plan.signs_at_add:
            none = np.zeros(0, np.int64)
            keys = [none if e is None else np.array(e[1], dtype=np.int64) for e in saved]
            kept = [None if e is None else Signature.from_bytes(bytes.fromhex(e[0])) for e in saved]
            if any(k is not None and k.key != meth.key() for k in kept):
                raise FormatError("a signature made by other parameters than the index's")
            return keys, kept
        if not self._plan.streams or not n:
            return None, [None] * n
        stacked = ShingleSets.from_arrays(sets)
        sigs = meth.from_sets(stacked)
        keep = self._plan.keeps_signature
        kept = [meth.signature(sigs, i) if keep else None for i in range(n)]
        return _per_document(collection_keys(meth, sigs, stacked), n), kept

    # -- internals --------------------------------------------------------------------
    def _store(self, doc_id: str, doc: _Doc) -> None:
        self._docs[doc_id] = doc
        self._post(doc_id, doc.keys)

    def _post(self, doc_id: str, keys: np.ndarray) -> None:
        for key in keys.tolist():
            self._postings.setdefault(key, []).append(doc_id)

    def _unpost(self, doc_id: str, keys: np.ndarray) -> None:
        for key in keys.tolist():
            posting = self._postings.get(key)
            if posting is None:
                continue
            posting.remove(doc_id)
            if not posting:
                del self._postings[key]


def _read_saved(path: str | os.PathLike[str]) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """The header and arrays of a saved index file.

    Raises:
        InputError: the file cannot be read. FormatError: it is not a ``.npz`` of a
            header and two arrays (a damaged archive included).
    """
    import io

    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            values, offsets = data["values"], data["offsets"]
    except Exception as exc:
        # the bytes are in memory, so whatever numpy's archive and array parsers raise on
        # them (BadZipFile, ValueError, SyntaxError, tokenize.TokenError, EOFError,
        # MemoryError on a claimed shape ...) says the file is not a saved index
        raise FormatError(f"{path}: not a saved neardup index ({exc})") from None
    if not isinstance(header, dict):
        raise FormatError(f"{path}: not a saved neardup index (the header is not an object)")
    return header, values, offsets


def _check_saved(
    header: dict[str, Any], values: np.ndarray, offsets: np.ndarray, path: str | os.PathLike[str]
) -> None:
    """Refuse a saved index whose parts do not fit together: the format, the ids (unique
    strings), the offsets (``n + 1`` non-decreasing integers from 0 to ``len(values)``),
    each fingerprint set (sorted, unique), and one entry per document in the metadata,
    token and signature lists, each of its saved shape.

    Raises:
        FormatError: the first part that does not fit, named.
    """

    def bad(what: str) -> FormatError:
        return FormatError(f"{path}: damaged saved index ({what})")

    if header.get("format") not in (_FORMAT, _FORMAT_1):
        raise FormatError(f"{path}: format {header.get('format')!r}, expected {_FORMAT!r}")
    if not isinstance(header.get("params"), dict):
        raise bad("params is not an object")
    ids = header.get("ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise bad("ids is not a list of strings")
    if len(set(ids)) != len(ids):
        raise bad("an id is repeated")
    n = len(ids)
    if values.ndim != 1 or values.dtype.kind not in "ui":
        raise bad(f"values: {values.dtype} of {values.ndim} dimensions, not integers")
    if offsets.ndim != 1 or offsets.dtype.kind not in "ui" or offsets.shape[0] != n + 1:
        raise bad(f"offsets: {offsets.shape[0]} of {offsets.dtype}, not {n + 1} integers")
    off = offsets.astype(np.int64)
    if off[0] != 0 or off[-1] != values.shape[0] or (n and np.any(np.diff(off) < 0)):
        raise bad(f"offsets do not cut the {values.shape[0]} values in order")
    if values.dtype.kind == "i" and values.size and int(values.min()) < 0:
        raise bad("a negative fingerprint")
    rises = values[1:].astype(np.uint64) > values[:-1].astype(np.uint64)
    starts = np.zeros(values.shape[0], dtype=bool)
    starts[off[1:-1][off[1:-1] < values.shape[0]]] = True
    if values.shape[0] > 1 and not np.all(rises | starts[1:]):
        raise bad("a fingerprint set is not sorted and unique")
    _check_list(header.get("documents"), n, _saved_meta, bad, "documents")
    _check_list(header.get("tokens"), n, _saved_tokens, bad, "tokens")
    _check_list(header.get("signatures"), n, _saved_signature, bad, "signatures")


def _check_list(items: Any, n: int, ok: Any, bad: Any, name: str) -> None:
    """``items`` is absent or a list of ``n`` entries that ``ok`` accepts."""
    if items is None:
        return
    if not isinstance(items, list) or len(items) != n:
        raise bad(f"{name} is not a list of {n} entries")
    for i, item in enumerate(items):
        if not ok(item):
            raise bad(f"{name}[{i}]")


def _saved_meta(item: Any) -> bool:
    """``[source, title, content hash hex, length, added ISO date or null]``."""
    if not isinstance(item, list) or len(item) != 5:
        return False
    source, shown, digest, length, added = item
    return (
        isinstance(source, str)
        and isinstance(shown, str)
        and isinstance(digest, str)
        and all(c in "0123456789abcdef" for c in digest)
        and len(digest) % 2 == 0
        and isinstance(length, int)
        and not isinstance(length, bool)
        and length >= 0
        and (added is None or isinstance(added, str))
    )


def _saved_tokens(item: Any) -> bool:
    return item is None or (isinstance(item, list) and all(isinstance(t, str) for t in item))


def _saved_signature(item: Any) -> bool:
    """``None`` or ``[signature hex, index keys]``."""
    if item is None:
        return True
    return (
        isinstance(item, list)
        and len(item) == 2
        and isinstance(item[0], str)
        and isinstance(item[1], list)
        and all(isinstance(k, int) and not isinstance(k, bool) for k in item[1])
    )


def _per_document(rows: KeyRows, n: int) -> list[np.ndarray]:
    """The index keys of each of ``n`` documents, from their rows (row ``j``: document
    ``j``; :func:`neardup.index.methods.collection_keys`)."""
    order = np.argsort(rows.row, kind="stable")
    bounds = np.searchsorted(rows.row[order], np.arange(n + 1))
    key = rows.key[order]
    return [key[bounds[j] : bounds[j + 1]].copy() for j in range(n)]


class _Memory:
    """The storage of an :class:`Index` (:class:`neardup.index.core.Storage`): its
    documents in a dict, its index keys in postings lists."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def stored_hashes(self, ids: list[str]) -> dict[str, bytes]:
        docs = self.index._docs
        return {i: docs[i].content_hash for i in ids if i in docs}

    def encode(self, batch: Signed) -> Signed:
        return batch

    def write(self, batch: Signed) -> AddReport:
        index = self.index
        n = len(batch.ready)
        keys = None if batch.keys is None else _per_document(batch.keys, n)
        needs_fit = index._plan.needs_fit
        sets, now = batch.sets, datetime.now(UTC)
        for j, r in enumerate(batch.ready):
            tokens = [term_key(t) for t in r.tokens] if needs_fit and r.tokens is not None else None
            index._store(
                r.doc.id,
                _Doc(
                    index._next_seq(),
                    sets.values[sets.offsets[j] : sets.offsets[j + 1]].copy(),
                    np.zeros(0, np.int64) if keys is None else keys[j],
                    scrub(r.doc.source or ""),
                    scrub(r.doc.title) or scrub(title(r.doc.text)),
                    r.content_hash,
                    r.length,
                    now,
                    tokens,
                    None if batch.signatures is None else batch.signatures[j],
                ),
            )
        if needs_fit:
            index._fitted = None
        return AddReport(n, (), 1)

    def candidates(self, keys: np.ndarray) -> list[Candidate]:
        """The documents sharing the most index keys with the query (the store's order:
        most shared keys first, then order of addition); keys of more than ``max_df``
        documents passed over."""
        index = self.index
        hits: Counter[str] = Counter()
        for key in sorted_unique(keys).tolist():
            posting = index._postings.get(key)
            if posting is not None and len(posting) <= index.max_df:
                hits.update(posting)
        docs = index._docs
        best = sorted(hits, key=lambda d: (-hits[d], docs[d].seq))[:MAX_CANDIDATES]
        return [
            Candidate(
                d,
                docs[d].source,
                docs[d].title,
                verification_set(docs[d].fps, shift=index._shift),
                docs[d].signature,
                hits[d],
            )
            for d in best
        ]
