"""Values returned by collections on every backend (memory, SQLite, PostgreSQL):
collections, documents, add reports, skipped documents and check results."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class CollectionInfo:
    """A collection's fixed configuration.

    Attributes:
        id: database id; name: unique name; method: registry name of the method.
        params: the method's init parameters (JSON-ready), fixed at creation.
        canonical: canonical-form parameters, its version included.
        measure: ``resemblance`` or ``containment``: the decision of :meth:`Store.check`.
        threshold: decision threshold in (0, 1].
        min_tokens: documents with fewer canonical tokens are skipped (``too-short``).
        stats_dirty: lexical methods: signatures are older than the word statistics.
        created_at: creation time (UTC).
        decision: ``own`` (the method's own rule decides a check, as in its paper) or
            ``verified`` (the exact shingle sets; collections made before the decision was
            stored); see :mod:`neardup.methods.decision`.
        max_df: index keys shared by more documents than this give a check no candidates;
            ``None``: no cut (collections stored before migration 0007).
    """

    id: int
    name: str
    method: str
    params: dict[str, Any]
    canonical: dict[str, Any]
    measure: str
    threshold: float
    min_tokens: int
    stats_dirty: bool
    created_at: datetime
    decision: str = "verified"
    max_df: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (no database id)."""
        return {
            "name": self.name,
            "method": self.method,
            "params": self.params,
            "canonical": self.canonical,
            "measure": self.measure,
            "threshold": self.threshold,
            "min_tokens": self.min_tokens,
            "stats_dirty": self.stats_dirty,
            "created_at": self.created_at.isoformat(),
            "decision": self.decision,
            "max_df": self.max_df,
        }


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A stored document's metadata.

    Attributes:
        doc_id: id within the collection; source: file/URL it came from; title: first line.
        content_hash: XXH3-128 of the text, hex; length: canonical tokens; shingles: size
        of the exact shingle set; added_at: time added (UTC).
    """

    doc_id: str
    source: str
    title: str
    content_hash: str
    length: int
    shingles: int
    added_at: datetime

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "id": self.doc_id,
            "source": self.source,
            "title": self.title,
            "content_hash": self.content_hash,
            "length": self.length,
            "shingles": self.shingles,
            "added_at": self.added_at.isoformat(),
        }


@dataclass(frozen=True, slots=True)
class DocumentPage:
    """One page of a collection's documents, in the order they were added.

    Attributes:
        collection: the collection's name; total: documents in the collection.
        offset: documents skipped before this page (>= 0); limit: the page size asked.
        documents: ``(id, title, source, tokens, added_at)`` of each document of the page,
            as :class:`DocumentInfo` without ``content_hash`` and ``shingles`` (``""`` / 0).
    """

    collection: str
    total: int
    offset: int
    limit: int
    documents: tuple[DocumentInfo, ...]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping: ``documents`` as ``id, title, source, tokens, added_at``."""
        return {
            "collection": self.collection,
            "total": self.total,
            "offset": self.offset,
            "limit": self.limit,
            "documents": [
                {
                    "id": d.doc_id,
                    "title": d.title,
                    "source": d.source,
                    "tokens": d.length,
                    "added_at": d.added_at.isoformat(),
                }
                for d in self.documents
            ],
        }


@dataclass(frozen=True, slots=True)
class SkippedDoc:
    """An input document not added, and why.

    Attributes:
        id, source: the document; reason: a text-stage reason (``empty``, ``too-short``...),
        ``exists`` (same id and content already stored), ``changed`` (same id, other
        content: remove it first) or ``duplicate-id`` (repeated in the input).
    """

    id: str
    source: str
    reason: str
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        """JSON-ready mapping."""
        return {"id": self.id, "source": self.source, "reason": self.reason, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class AddReport:
    """Outcome of adding documents.

    Attributes:
        added: documents stored by this call; skipped: the others with reasons;
        batches: transactions committed; warnings: what the caller should know, e.g. an
        empty lexicon (:mod:`neardup.store.lexicon`).
    """

    added: int
    skipped: tuple[SkippedDoc, ...] = ()
    batches: int = 0
    warnings: tuple[str, ...] = ()

    def __add__(self, other: AddReport) -> AddReport:
        return AddReport(
            self.added + other.added,
            self.skipped + other.skipped,
            self.batches + other.batches,
            self.warnings + tuple(w for w in other.warnings if w not in self.warnings),
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "added": self.added,
            "skipped": [s.as_dict() for s in self.skipped],
            "batches": self.batches,
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True, slots=True)
class Match:
    """A stored document that the checked one duplicates.

    Attributes:
        doc_id, source, title: the stored document.
        resemblance: Jaccard of the exact shingle sets, in [0, 1] (Zagorulko et al. 2013, eq. 1).
        containment_query: share of the checked document's shingles found in the stored one;
        containment_doc: share of the stored document's shingles found in the checked one.
        shared, size_query, size_doc: shingle counts behind the measures.
        evidence: the method's evidence: ``index_hits`` (shared index keys: LSH bands or
            exact key slots), ``index_keys`` (keys of the query), ``score`` (the value that
            decided: the exact resemblance or larger containment under ``verified``, the
            method's own score under ``own``, 1 for identical documents), ``decision``
            (``own``, ``verified``, ``identical``) and ``rule`` (the rule with its bar,
            :mod:`neardup.job.decide`).
    """

    doc_id: str
    source: str
    title: str
    resemblance: float
    containment_query: float
    containment_doc: float
    shared: int
    size_query: int
    size_doc: int
    evidence: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping, measures rounded to 6 decimals."""
        return {
            "id": self.doc_id,
            "source": self.source,
            "title": self.title,
            "resemblance": round(self.resemblance, 6),
            "containment_query": round(self.containment_query, 6),
            "containment_doc": round(self.containment_doc, 6),
            "shared": self.shared,
            "size_query": self.size_query,
            "size_doc": self.size_doc,
            "evidence": self.evidence,
        }


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Outcome of checking one document against a collection.

    Attributes:
        collection, method: where and how; measure, threshold: the decision rule.
        tokens: canonical tokens of the checked document; candidates: documents the index
        proposed; matches: verified duplicates, best first; seconds: wall time;
        warnings: e.g. an empty lexicon (:mod:`neardup.store.lexicon`).
    """

    collection: str
    method: str
    measure: str
    threshold: float
    tokens: int
    candidates: int
    matches: tuple[Match, ...]
    seconds: float
    warnings: tuple[str, ...] = ()

    @property
    def duplicate(self) -> bool:
        """True when at least one stored document matches."""
        return bool(self.matches)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "collection": self.collection,
            "method": self.method,
            "measure": self.measure,
            "threshold": self.threshold,
            "duplicate": self.duplicate,
            "tokens": self.tokens,
            "candidates": self.candidates,
            "matches": [m.as_dict() for m in self.matches],
            "seconds": round(self.seconds, 6),
            "warnings": list(self.warnings),
        }

    def to_arrow(self) -> Any:
        """The matches as a ``pyarrow.Table``: the keys of :meth:`Match.as_dict` as columns
        (``evidence`` as JSON text), one row per match, best first.

        Raises:
            InputError: pyarrow is not installed.
        """
        from neardup.result_tables import rows_to_arrow

        return rows_to_arrow((m.as_dict() for m in self.matches), MATCH_COLUMNS)

    def to_pandas(self) -> Any:
        """The matches as a ``pandas.DataFrame`` (the columns of :meth:`to_arrow`).

        Raises:
            InputError: pandas is not installed.
        """
        from neardup.result_tables import rows_to_pandas

        return rows_to_pandas((m.as_dict() for m in self.matches), MATCH_COLUMNS)


#: Columns of :meth:`CheckResult.to_arrow` (the keys of :meth:`Match.as_dict`).
MATCH_COLUMNS: dict[str, str] = {
    "id": "str",
    "source": "str",
    "title": "str",
    "resemblance": "float",
    "containment_query": "float",
    "containment_doc": "float",
    "shared": "int",
    "size_query": "int",
    "size_doc": "int",
    "evidence": "json",
}
