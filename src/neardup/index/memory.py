"""An in-memory, incremental near-duplicate index: insert, query, remove, save, load.

Like datasketch's ``MinHashLSH``, but it returns verified matches with resemblance and
containment, finds a small document inside a large one, and removes documents.

A document becomes canonical tokens (:class:`~neardup.text.canonical.CanonicalForm`),
then word shingles with 64-bit fingerprints (Broder 1997; Zagorulko et al. 2013). Candidates
come from MinHash-LSH buckets (``measure="resemblance"``: ``b`` bands of ``r`` rows chosen
by :func:`~neardup.methods.lsh.optimal_params` for the threshold; Leskovec et al., MMDS
§3.4) or from fingerprint postings (``measure="containment"``: every stored document that
shares a shingle, postings longer than ``max_df`` passed over). Every candidate is then
verified on the exact shingle sets, as collections and ``dedup`` do: a match has
``resemblance >= threshold``, or ``max(containment both ways) >= threshold``.

Memory: the fingerprint set of every document (8 bytes a shingle) plus its LSH keys or
postings. Not thread-safe: one writer at a time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Literal

import numpy as np

from neardup.decide import Decision, decide
from neardup.errors import (
    FormatError,
    InputError,
    ParameterError,
    check_choice,
    check_float,
    check_int,
)
from neardup.methods.lsh import LSHParams, band_keys, optimal_params
from neardup.methods.measures import intersection_sizes
from neardup.methods.minhash import MinHasher
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling
from neardup.prepare import PrepareConfig, Shingled, shingle_texts
from neardup.tables import rows_to_arrow, rows_to_pandas
from neardup.text.canonical import CanonicalForm

#: What :meth:`Index.insert` did: stored it, the id was there already, too few tokens.
Inserted = Literal["added", "exists", "too-short"]
_FORMAT = "neardup-index/1"
_BATCH = 2048


@dataclass(frozen=True, slots=True)
class IndexMatch:
    """A stored document that the queried one duplicates.

    Attributes:
        id: the stored document's id.
        resemblance: Jaccard of the exact shingle sets, in [0, 1].
        containment_query: share of the query's shingles found in the stored document;
        containment_doc: share of the stored document's shingles found in the query.
        shared: shingles in common.
        score: the value that decided (the resemblance, or the larger containment under
            ``measure="containment"``; :func:`neardup.decide.decide`).
        rule: the rule that decided, with its bar (``resemblance >= 0.5 verified``).
    """

    id: str
    resemblance: float
    containment_query: float
    containment_doc: float
    shared: int
    score: float = 0.0
    rule: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready row, measures rounded to 6 decimals."""
        return {
            "id": self.id,
            "resemblance": round(self.resemblance, 6),
            "containment_query": round(self.containment_query, 6),
            "containment_doc": round(self.containment_doc, 6),
            "shared": self.shared,
            "score": round(self.score, 6),
            "rule": self.rule,
        }


@dataclass(frozen=True, slots=True)
class QueryResult:
    """Verified matches of one query, best first, and the counts behind them.

    Attributes:
        matches: the matches; candidates: documents the index proposed (all verified);
        tokens: canonical tokens of the query; measure, threshold: the decision rule.
    """

    matches: tuple[IndexMatch, ...]
    candidates: int
    tokens: int
    measure: str
    threshold: float

    @property
    def ids(self) -> list[str]:
        """Ids of the matches, best first."""
        return [m.id for m in self.matches]

    @property
    def duplicate(self) -> bool:
        """True when at least one stored document matches."""
        return bool(self.matches)

    def rows(self) -> list[dict[str, Any]]:
        """One JSON-ready dict per match."""
        return [m.as_dict() for m in self.matches]

    def to_arrow(self) -> Any:
        """The matches as a ``pyarrow.Table`` (columns of :meth:`IndexMatch.as_dict`).

        Raises:
            InputError: pyarrow is not installed.
        """
        return rows_to_arrow(self.rows(), MATCH_COLUMNS)

    def to_pandas(self) -> Any:
        """The matches as a ``pandas.DataFrame`` (columns of :meth:`IndexMatch.as_dict`).

        Raises:
            InputError: pandas is not installed.
        """
        return rows_to_pandas(self.rows(), MATCH_COLUMNS)


#: Columns of :meth:`QueryResult.to_arrow` (the keys of :meth:`IndexMatch.as_dict`).
MATCH_COLUMNS: dict[str, str] = {
    "id": "str",
    "resemblance": "float",
    "containment_query": "float",
    "containment_doc": "float",
    "shared": "int",
    "score": "float",
    "rule": "str",
}


@dataclass(eq=False)
class Index:
    """An in-memory near-duplicate index of documents (see the module docstring).

    Args:
        measure: ``resemblance`` or ``containment``.
        threshold: decision threshold in (0, 1].
        shingle_size: words per shingle, 1-64.
        num_perm: MinHash sketch length for ``measure="resemblance"``, 1-4096.
        canonical: how text becomes tokens (stop words, morphology).
        min_tokens: documents with fewer canonical tokens are not stored (``too-short``).
        max_df: postings longer than this are not used for candidates (containment), >= 1.

    Raises:
        ParameterError: a parameter is out of range (the message names it).

    Example:
        >>> idx = Index(threshold=0.5)
        >>> idx.insert("a", "the quick brown fox jumps over the lazy dog again")
        'added'
        >>> idx.query("the quick brown fox jumps over the lazy dog").ids
        ['a']
    """

    measure: Literal["resemblance", "containment"] = "resemblance"
    threshold: float = 0.5
    shingle_size: int = 5
    num_perm: int = 128
    canonical: CanonicalForm = field(default_factory=CanonicalForm)
    min_tokens: int = 3
    max_df: int = 5000
    _sets: dict[str, np.ndarray] = field(default_factory=dict, init=False, repr=False)
    _keys: dict[str, np.ndarray] = field(default_factory=dict, init=False, repr=False)
    _buckets: dict[tuple[int, int], set[str]] = field(default_factory=dict, init=False, repr=False)
    _postings: dict[int, set[str]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        check_choice("measure", self.measure, ("resemblance", "containment"))
        check_float("threshold", self.threshold, low=0.0, high=1.0, low_open=True)
        check_int("shingle_size", self.shingle_size, low=1, high=64)
        check_int("num_perm", self.num_perm, low=1, high=4096)
        check_int("min_tokens", self.min_tokens, low=1, high=1_000_000)
        check_int("max_df", self.max_df, low=1)
        if not isinstance(self.canonical, CanonicalForm):
            raise ParameterError("canonical", self.canonical, "a CanonicalForm")
        self._shingling = Shingling(size=self.shingle_size)
        self._prepare = PrepareConfig(
            canonical=self.canonical, shingling=self._shingling, min_tokens=self.min_tokens
        )
        self._hasher = MinHasher(num_perm=self.num_perm)
        self._lsh: LSHParams = optimal_params(self.threshold, self.num_perm)

    # -- container --------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._sets)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._sets

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._sets))

    def params(self) -> dict[str, Any]:
        """JSON-ready parameters (saved with the index)."""
        return {
            "measure": self.measure,
            "threshold": self.threshold,
            "shingle_size": self.shingle_size,
            "num_perm": self.num_perm,
            "canonical": {k: v for k, v in self.canonical.params().items() if k != "version"},
            "min_tokens": self.min_tokens,
            "max_df": self.max_df,
        }

    # -- writes -----------------------------------------------------------------------
    def insert(self, doc_id: str, text: str) -> Inserted:
        """Store document ``doc_id``.

        Returns:
            ``"added"``; ``"exists"`` when ``doc_id`` is stored already (nothing changes:
            remove it first to replace it); ``"too-short"`` when ``text`` has fewer than
            ``min_tokens`` canonical tokens (not stored).

        Raises:
            ParameterError: ``doc_id`` or ``text`` is not a string.
        """
        if doc_id in self._checked_id(doc_id, self._sets):
            return "exists"
        done = shingle_texts([self._text(text)], self._prepare)
        return self._insert(doc_id, done, 0 if done.counts[0] >= self.min_tokens else None)

    def insert_many(self, docs: Iterable[tuple[str, str]]) -> dict[str, int]:
        """Insert ``(id, text)`` pairs, in order, each as :meth:`insert` would (prepared
        ``_BATCH`` documents at a time, vectorised); counts of each :data:`Inserted` outcome.

        Raises:
            ParameterError: an id or text is not a string (the documents of its batch before
                it are stored).
        """
        counts = {"added": 0, "exists": 0, "too-short": 0}
        it = iter(docs)
        while chunk := list(islice(it, _BATCH)):
            texts = []
            for doc_id, text in chunk:
                self._checked_id(doc_id, self._sets)
                if not isinstance(text, str):
                    break
                texts.append(text)
            done = shingle_texts(texts, self._prepare)
            long = done.counts >= self.min_tokens
            slot = np.cumsum(long) - 1  # each long document's set
            for k, (doc_id, _) in enumerate(chunk[: len(texts)]):
                counts[self._insert(doc_id, done, int(slot[k]) if long[k] else None)] += 1
            if len(texts) < len(chunk):
                self._text(chunk[len(texts)][1])  # raises
        return counts

    def _insert(self, doc_id: str, done: Shingled, j: int | None) -> Inserted:
        """Store a document of a prepared batch whose set is ``done.sets[j]`` (None: the
        document is too short)."""
        if doc_id in self._sets:
            return "exists"
        if j is None:
            return "too-short"
        lo, hi = done.sets.offsets[j], done.sets.offsets[j + 1]
        self._store(doc_id, done.sets.values[lo:hi].copy())
        return "added"

    @staticmethod
    def _checked_id(doc_id: object, sets: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        if not isinstance(doc_id, str):
            raise ParameterError("doc_id", doc_id, "a string")
        return sets

    def remove(self, doc_id: str) -> None:
        """Remove document ``doc_id``.

        Raises:
            InputError: no document ``doc_id``.
        """
        fps = self._sets.pop(doc_id, None)
        if fps is None:
            raise InputError(f"no document {doc_id!r} in the index")
        if self.measure == "resemblance":
            for band, key in enumerate(self._keys.pop(doc_id).tolist()):
                bucket = self._buckets[(band, key)]
                bucket.discard(doc_id)
                if not bucket:
                    del self._buckets[(band, key)]
        else:
            for fp in fps.tolist():
                posting = self._postings[fp]
                posting.discard(doc_id)
                if not posting:
                    del self._postings[fp]

    # -- reads ------------------------------------------------------------------------
    def query(self, text: str, *, limit: int = 20) -> QueryResult:
        """The stored documents that ``text`` duplicates, best first (by the measure, then
        resemblance, then id).

        Args:
            text: the document's text; limit: at most this many matches, >= 1.

        Raises:
            InputError: ``text`` has fewer than ``min_tokens`` canonical tokens.
        """
        check_int("limit", limit, low=1)
        done = shingle_texts([self._text(text)], self._prepare)
        tokens = int(done.counts[0])
        if tokens < self.min_tokens:
            raise InputError(
                f"document too short to query: {tokens} canonical tokens "
                f"< min_tokens={self.min_tokens}"
            )
        fps = done.sets.values
        candidates = self._candidates(fps)
        matches = self._decide(fps, candidates)
        matches.sort(key=lambda m: (-m.score, -m.resemblance, m.id))
        return QueryResult(
            tuple(matches[:limit]), len(candidates), tokens, self.measure, self.threshold
        )

    # -- files ------------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the index to ``path`` (a ``.npz`` file: parameters, ids and fingerprint
        sets; the LSH keys are recomputed by :meth:`load`). Written to a temporary name,
        then renamed.

        Raises:
            OSError: the file cannot be written.
        """
        out = Path(path)
        ids = list(self._sets)
        sets = [self._sets[i] for i in ids]
        offsets = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum([s.shape[0] for s in sets], out=offsets[1:])
        values = np.concatenate(sets) if sets else np.zeros(0, dtype=np.uint64)
        header = json.dumps({"format": _FORMAT, "params": self.params(), "ids": ids})
        tmp = out.with_name(f".{out.name}.tmp")
        with open(tmp, "wb") as fh:
            np.savez(fh, header=np.array(header), values=values, offsets=offsets)
        os.replace(tmp, out)
        return out

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Index:
        """Read an index written by :meth:`save`.

        Raises:
            InputError: the file cannot be read. FormatError: it is not a saved index.
        """
        try:
            with np.load(Path(path), allow_pickle=False) as data:
                header = json.loads(str(data["header"]))
                values, offsets = data["values"], data["offsets"]
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc})") from None
        except (KeyError, ValueError) as exc:
            raise FormatError(f"{path}: not a saved neardup index ({exc})") from None
        if header.get("format") != _FORMAT:
            raise FormatError(f"{path}: format {header.get('format')!r}, expected {_FORMAT!r}")
        params = dict(header["params"])
        params["canonical"] = CanonicalForm(**params["canonical"])
        index = cls(**params)
        for i, doc_id in enumerate(header["ids"]):
            index._store(doc_id, values[offsets[i] : offsets[i + 1]].astype(np.uint64))
        return index

    # -- internals --------------------------------------------------------------------
    @staticmethod
    def _text(text: str) -> str:
        if not isinstance(text, str):
            raise ParameterError("text", type(text).__name__, "a string")
        return text

    def _store(self, doc_id: str, fps: np.ndarray) -> None:
        self._sets[doc_id] = fps
        if self.measure == "resemblance":
            keys = self._band_keys(fps)
            self._keys[doc_id] = keys
            for band, key in enumerate(keys.tolist()):
                self._buckets.setdefault((band, key), set()).add(doc_id)
        else:
            for fp in fps.tolist():
                self._postings.setdefault(fp, set()).add(doc_id)

    def _band_keys(self, fps: np.ndarray) -> np.ndarray:
        sketch = self._hasher.sketches(ShingleSets.from_arrays([fps]))
        return band_keys(sketch, self._lsh)[0]

    def _candidates(self, fps: np.ndarray) -> list[str]:
        found: set[str] = set()
        if self.measure == "resemblance":
            for band, key in enumerate(self._band_keys(fps).tolist()):
                found |= self._buckets.get((band, key), set())
        else:
            for fp in fps.tolist():
                posting = self._postings.get(fp)
                if posting is not None and len(posting) <= self.max_df:
                    found |= posting
        return sorted(found)

    def _decide(self, fps: np.ndarray, candidates: list[str]) -> list[IndexMatch]:
        """The candidates the query (document 0) duplicates, decided by
        :func:`neardup.decide.decide` on the exact shingle sets."""
        stored = [self._sets[c] for c in candidates]
        sets = ShingleSets.from_arrays([fps, *stored])
        cand = np.column_stack([np.zeros(len(stored), np.int64), np.arange(1, len(stored) + 1)])
        decision = Decision(measure=self.measure, threshold=self.threshold, mode="verified")
        decided = decide(sets, cand, decision=decision)
        shared = intersection_sizes(sets, decided.pairs).tolist() if len(decided) else []
        return [
            IndexMatch(candidates[b - 1], res, cq, cd, int(n), score, decided.rules[code].label)
            for (_, b), res, cq, cd, n, score, code in zip(
                decided.pairs.tolist(),
                decided.resemblance.tolist(),
                decided.containment_ab.tolist(),
                decided.containment_ba.tolist(),
                shared,
                decided.score.tolist(),
                decided.codes.tolist(),
                strict=True,
            )
        ]
