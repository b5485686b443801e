"""The prepare stage, written once: documents -> canonical tokens -> shingle sets -> keys.

Every executor of the dedup job (this process, the worker pool of :mod:`neardup.job.prepare_pool`,
the Dask partitions of :mod:`neardup.distributed`) and the collections' ``add``
(:mod:`neardup.index.core`) prepare documents here:

1. :func:`shingle_texts` (one step, the one a compiled kernel replaces): a batch of clean
   texts -> canonical token counts, the shingle sets of the documents with at least
   ``min_tokens`` tokens, their content keys (:meth:`ShingleSets.content_keys`) and, for a
   method that signs each document alone (``rows_per_document``), their signature rows.
   Word shingles with XXH64 fingerprints (:func:`uses_token_fingerprints`) take the
   vectorised path (:func:`neardup.text.vectorized.canonical_fingerprints`: no Python
   object per token); other shinglings, and methods that need the token lists, tokenise
   document by document (the token lists' word shingles with XXH64 fingerprints then take
   the kernel's shingle and key passes, :func:`neardup.methods.kernel.token_sets`).
2. :func:`prepare_documents` / :func:`prepare_unit` / :func:`prepare_stream`: a batch of
   documents (a read unit, :mod:`neardup.text.units`; a stream cut into batches) ->
   :class:`PreparedDocuments`, a frozen value.
3. :func:`screen`: the too-short and repeated-id rules as values (:class:`Outcomes`): which
   documents are accepted, and the ``Skipped`` rows of the others. Whether an id is
   repeated depends on the documents before it in the whole input, so the executor says it
   (:func:`claim_ids` renames repeated ids for executors that see the units in order, then
   :func:`no_repeats`; the Dask engine finds repeated ids by a shuffle).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from neardup.errors import check_int
from neardup.methods.plan import PrepareConfig, too_short_detail
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling
from neardup.text.read import joined_sources
from neardup.text.types import Document, Skipped
from neardup.text.units import UniqueIds, Unit

__all__ = [
    "Outcomes",
    "PreparedDocuments",
    "Shingled",
    "concat_prepared",
    "prepare_documents",
    "prepare_stream",
    "prepare_unit",
    "screen",
    "shingle_texts",
    "uses_token_fingerprints",
]

Clock = Callable[[], float]


def uses_token_fingerprints(shingling: Shingling) -> bool:
    """The fast-path predicate: word shingles with XXH64 fingerprints are combined from the
    vectorised token fingerprints, without a Python object per token."""
    return shingling.unit == "word" and shingling.fingerprint == "xxh64"


@dataclass(frozen=True, eq=False)
class Shingled:
    """What :func:`shingle_texts` makes of a batch of ``d`` texts.

    Attributes:
        counts: int64 (d,): canonical tokens per text.
        sets: the shingle sets of the texts with ``counts >= min_tokens``, in order (s sets).
        keys: uint64 (s,): their content keys.
        rows: their signature rows (s, ...) (``config.signer``), or None.
        tokens: their canonical token lists (``config.keep_tokens``), or None.
        seconds: seconds of the ``prepare`` (tokens), ``shingle`` (sets) and ``sign``
            (content keys and rows) steps.
    """

    counts: np.ndarray
    sets: ShingleSets
    keys: np.ndarray
    rows: np.ndarray | None
    tokens: list[list[str]] | None
    seconds: tuple[float, float, float]


def shingle_texts(
    texts: Sequence[str], config: PrepareConfig, *, clock: Clock = time.perf_counter
) -> Shingled:
    """Canonical tokens -> token fingerprints -> shingle sets -> content keys -> signature
    rows of a batch of texts (vectorised over the batch on the fast path).

    Args:
        texts: clean texts; config: the canonical form, shingling, ``min_tokens``, signer.
        clock: ``() -> seconds`` for the step timings.

    Returns:
        :class:`Shingled`; its sets equal ``config.shingling.batch`` of the token lists
        ``config.canonical.tokens(t)`` of the long enough texts.
    """
    if uses_token_fingerprints(config.shingling) and not config.keep_tokens:
        return _kernel_texts(texts, config)
    from neardup.methods.kernel import token_sets

    t0 = clock()
    lists = [config.canonical.tokens(t) for t in texts]
    counts = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    t1 = clock()
    long = np.flatnonzero(counts >= config.min_tokens).tolist()
    tokens = [lists[i] for i in long]
    sets, keys, _ = token_sets(tokens, shingling=config.shingling)
    t2 = clock()
    rows = None if config.signer is None else _lean(config, config.signer.sign_rows(sets))
    t3 = clock()
    kept = tokens if config.keep_tokens else None
    return Shingled(counts, sets, keys, rows, kept, (t1 - t0, t2 - t1, t3 - t2))


def _lean(config: PrepareConfig, rows: np.ndarray) -> np.ndarray:
    """``rows`` as the job keeps them: the signer's ``lean_rows`` with ``config.lean``."""
    return config.signer.lean_rows(rows) if config.lean else rows


def kernel_of(config: PrepareConfig) -> str:
    """Which prepare kernel :func:`shingle_texts` runs for ``config``: ``cython`` (the
    compiled kernel, :mod:`neardup.methods.kernel`) or ``python`` (the numpy reference).

    Raises:
        ParameterError: a bad ``NEARDUP_KERNEL``, or ``cython`` asked for and not built.
    """
    from neardup.methods.kernel import kernel_for, kernel_for_tokens

    if not uses_token_fingerprints(config.shingling):
        return "python"
    if config.keep_tokens:  # the Python tokenizer's tokens, the kernel's sets and keys
        return kernel_for_tokens(config.shingling)
    return kernel_for(config.canonical, config.shingling)


def _kernel_texts(texts: Sequence[str], config: PrepareConfig) -> Shingled:
    """The fast path by :func:`neardup.methods.kernel.prepare_texts` (the compiled kernel
    where built, else its numpy reference): one pass from texts to sets, content keys and,
    for MinHash-LSH, the signature rows."""
    from neardup.methods.kernel import prepare_texts

    hasher = None if config.signer is None else config.signer.row_hasher()
    done = prepare_texts(
        texts,
        canonical=config.canonical,
        shingling=config.shingling,
        min_tokens=config.min_tokens,
        hasher=hasher,
    )
    t1 = time.perf_counter()
    rows = done.rows
    if config.signer is not None and hasher is None:
        rows = config.signer.sign_rows(done.sets)
    if rows is not None:
        rows = _lean(config, rows)
    tokens_s, sets_s, sign_s = done.seconds
    return Shingled(
        np.asarray(done.counts, dtype=np.int64),
        done.sets,
        done.keys,
        rows,
        None,
        (tokens_s, sets_s, sign_s + time.perf_counter() - t1),
    )


@dataclass(frozen=True, eq=False)
class PreparedDocuments:
    """A batch of documents (a read unit, a Dask block, a ``Store.add`` batch), prepared.

    Attributes:
        ids, sources: every document of the batch, in order (d documents).
        positions: int64 (d,): each document's position among the batch's items (documents
            and reading skips).
        counts: int64 (d,): canonical tokens per document.
        min_tokens: the threshold ``sets`` was made with.
        sets: the shingle sets of the documents with ``counts >= min_tokens``, in order.
        keys: uint64 (len(sets),): their content keys.
        rows: their signature rows, or None.
        tokens: their canonical token lists (``config.keep_tokens``), or None.
        texts: their texts (``config.keep_texts``), or None.
        skipped: ``(position, Skipped)`` of the reading skips.
        items: documents plus reading skips.
        seconds: seconds of the ``read``, ``prepare``, ``shingle`` and ``sign`` steps.
    """

    ids: list[str]
    sources: Sequence[str]
    positions: np.ndarray
    counts: np.ndarray
    min_tokens: int
    sets: ShingleSets
    keys: np.ndarray
    rows: np.ndarray | None
    tokens: list[list[str]] | None
    texts: list[str] | None
    skipped: list[tuple[int, Skipped]]
    items: int
    seconds: tuple[float, float, float, float]

    def __len__(self) -> int:
        return len(self.ids)

    def __sizeof__(self) -> int:
        """Bytes held, estimated (:func:`neardup._memory.fields_bytes`; a Dask block's
        ingest result)."""
        from neardup._memory import fields_bytes

        return fields_bytes(self)

    @property
    def long(self) -> np.ndarray:
        """bool (d,): which documents have a shingle set (``counts >= min_tokens``)."""
        return np.asarray(self.counts >= self.min_tokens)


def prepare_documents(
    docs: Sequence[Document],
    config: PrepareConfig,
    *,
    positions: Sequence[int] | None = None,
    skipped: Sequence[tuple[int, Skipped]] = (),
    items: int | None = None,
    read_seconds: float = 0.0,
    clock: Clock = time.perf_counter,
) -> PreparedDocuments:
    """Prepare a batch of documents (:func:`shingle_texts` of their texts).

    Args:
        docs: the documents, in order; config: how to prepare them.
        positions: each document's position among the batch's items (default: 0..d-1).
        skipped: ``(position, Skipped)`` reading skips among the items; items: documents
            plus skips (default: their sum); read_seconds: time spent reading them.
        clock: ``() -> seconds`` for the step timings.
    """
    return _prepared(
        [d.id for d in docs],
        [d.source for d in docs],
        [d.text for d in docs],
        range(len(docs)) if positions is None else positions,
        list(skipped),
        len(docs) + len(skipped) if items is None else items,
        config,
        read_seconds,
        clock,
    )


def prepare_stream(
    items: Iterable[Document | Skipped],
    config: PrepareConfig,
    *,
    batch: int = 2048,
    batch_chars: int = 2_000_000,
    clock: Clock = time.perf_counter,
) -> Iterator[PreparedDocuments]:
    """:func:`prepare_documents` of a stream of documents and reading skips, ``batch``
    documents or ``batch_chars`` characters at a time (bounds the vectorised tokenizer's
    temporary arrays); each batch's positions count from its first item.

    Args:
        items: documents and skips, in input order; config: how to prepare them.
        batch: documents per batch, >= 1; batch_chars: characters per batch, >= 1.
        clock: ``() -> seconds`` for the step timings.
    """
    check_int("batch", batch, low=1)
    check_int("batch_chars", batch_chars, low=1)
    docs: list[Document] = []
    positions: list[int] = []
    skipped: list[tuple[int, Skipped]] = []
    count = chars = 0
    for item in items:
        if isinstance(item, Skipped):
            skipped.append((count, item))
        else:
            docs.append(item)
            positions.append(count)
            chars += len(item.text)
        count += 1
        if len(docs) >= batch or chars >= batch_chars:
            yield prepare_documents(
                docs, config, positions=positions, skipped=skipped, items=count, clock=clock
            )
            docs, positions, skipped, count, chars = [], [], [], 0, 0
    if count:
        yield prepare_documents(
            docs, config, positions=positions, skipped=skipped, items=count, clock=clock
        )


def prepare_unit(unit: Unit, config: PrepareConfig) -> PreparedDocuments:
    """Read ``unit`` (:func:`neardup.text.read.read_unit_columns` with ``config.read``) and
    prepare its documents: what a dedup worker does with one unit."""
    from neardup.errors import DecodeError
    from neardup.text.read import read_options, read_unit_columns

    options = config.read if config.read is not None else read_options()
    # texts as raw JSON where the compiled kernel tokenizes them (the token-keeping path
    # and the kept texts need each text's str: decoding one by one would cost more)
    raw = kernel_of(config) == "cython" and not (config.keep_texts or config.keep_tokens)
    t0 = time.perf_counter()
    try:
        return _prepared_columns(read_unit_columns(unit, options, raw_texts=raw), config, t0)
    except DecodeError:  # a raw text that is not valid UTF-8: the unit the typed way
        if not raw:
            raise
        return _prepared_columns(read_unit_columns(unit, options), config, t0)


def _prepared_columns(read: Any, config: PrepareConfig, t0: float) -> PreparedDocuments:
    """:func:`_prepared` of a unit's columns (:class:`neardup.text.read.UnitColumns`),
    read since ``t0`` (perf_counter seconds)."""
    return _prepared(
        read.ids,
        read.sources,
        read.texts,
        read.positions,
        read.skipped,
        read.items,
        config,
        time.perf_counter() - t0,
        time.perf_counter,
    )


def _prepared(
    ids: list[str],
    sources: Sequence[str],
    texts: Sequence[str],
    positions: Sequence[int],
    skipped: list[tuple[int, Skipped]],
    items: int,
    config: PrepareConfig,
    read_seconds: float,
    clock: Clock,
) -> PreparedDocuments:
    done = shingle_texts(texts, config, clock=clock)
    kept = None
    if config.keep_texts:
        kept = [texts[k] for k in np.flatnonzero(done.counts >= config.min_tokens).tolist()]
    return PreparedDocuments(
        ids,
        sources,
        np.asarray(positions, dtype=np.int64),
        done.counts,
        config.min_tokens,
        done.sets,
        done.keys,
        done.rows,
        done.tokens,
        kept,
        skipped,
        items,
        (read_seconds, *done.seconds),
    )


def concat_prepared(parts: Sequence[PreparedDocuments]) -> PreparedDocuments:
    """Batches prepared one after another as one batch (positions shifted by the items
    before each part).

    Raises:
        ValueError: no parts.
    """
    if not parts:
        raise ValueError("concat_prepared needs at least one part")
    if len(parts) == 1:
        return parts[0]
    shift = np.concatenate([[0], np.cumsum([p.items for p in parts])[:-1]]).tolist()
    rows = [p.rows for p in parts]
    return PreparedDocuments(
        [i for p in parts for i in p.ids],
        joined_sources([p.sources for p in parts]),
        np.concatenate([p.positions + s for p, s in zip(parts, shift, strict=True)]),
        np.concatenate([p.counts for p in parts]),
        parts[0].min_tokens,
        ShingleSets.concat(p.sets for p in parts),
        np.concatenate([p.keys for p in parts]),
        None if any(r is None for r in rows) else np.concatenate(rows),  # type: ignore[arg-type]
        _joined([p.tokens for p in parts]),
        _joined([p.texts for p in parts]),
        [(pos + s, k) for p, s in zip(parts, shift, strict=True) for pos, k in p.skipped],
        sum(p.items for p in parts),
        tuple(float(sum(p.seconds[i] for p in parts)) for i in range(4)),  # type: ignore[arg-type]
    )


def _joined(lists: Sequence[list[Any] | None]) -> list[Any] | None:
    """The lists one after another (None if any is None)."""
    if any(x is None for x in lists):
        return None
    return [v for x in lists for v in x or ()]


# -- the too-short and repeated-id rules -------------------------------------------------------
#: ``Skipped.detail`` of a document whose id came earlier in the input.
REPEATED_ID = "duplicate document id"


@dataclass(frozen=True, eq=False)
class Outcomes:
    """What the rules decided for a prepared batch.

    Attributes:
        accepted: int64 (a,): indexes (into ``ids``) of the accepted documents, ascending.
        take: int64 (a,): their indexes into ``sets``, ``keys``, ``rows`` and ``tokens``.
        repeated: ``(position, Skipped)`` of the documents whose id came before
            (``unreadable``, ``duplicate document id``), in order.
        too_short: ``(position, Skipped)`` of the other documents with fewer than
            ``min_tokens`` tokens (``too-short``), in order.
    """

    accepted: np.ndarray
    take: np.ndarray
    repeated: list[tuple[int, Skipped]]
    too_short: list[tuple[int, Skipped]]

    def skip_rows(self, prepared: PreparedDocuments) -> list[Skipped]:
        """Every skip row of the batch (reading skips, repeated ids, too short) in input
        order."""
        rows = [*prepared.skipped, *self.too_short, *self.repeated]
        rows.sort(key=lambda r: r[0])
        return [s for _, s in rows]

    def is_everything(self, prepared: PreparedDocuments) -> bool:
        """Whether every set of ``prepared`` is accepted (nothing to take)."""
        return bool(self.take.shape[0] == len(prepared.sets))


def claim_ids(prepared: PreparedDocuments, unique: UniqueIds) -> PreparedDocuments:
    """``prepared`` with its documents' ids under the corpus-wide id rule
    (:class:`neardup.text.units.UniqueIds`): the first record with an id keeps it, a later
    one is given its place (``FILE:LINE``) as id; records taken in input order, a reading
    skip's id counting as seen. Nothing is dropped for its id.

    Returns:
        ``prepared`` itself when every id is new (the common case, at C speed), else a copy
        with the renamed ids.
    """
    if unique.fresh([*prepared.ids, *(s.id for _, s in prepared.skipped)]):
        return prepared
    events = [(int(p), 0, k) for k, p in enumerate(prepared.positions.tolist())]
    events += [(p, 1, j) for j, (p, _) in enumerate(prepared.skipped)]
    events.sort()
    ids = list(prepared.ids)
    for _, is_skip, k in events:
        if is_skip:
            unique.note(prepared.skipped[k][1].id)
        else:
            ids[k] = unique.claim(ids[k], prepared.sources[k])
    return dataclasses.replace(prepared, ids=ids)


def no_repeats(prepared: PreparedDocuments) -> np.ndarray:
    """bool (d,), all False: the repeated-id mask of a batch whose ids were claimed
    (:func:`claim_ids`), for :func:`screen`."""
    return np.zeros(len(prepared.ids), dtype=bool)


def screen(prepared: PreparedDocuments, repeated: np.ndarray) -> Outcomes:
    """The too-short and repeated-id rules of a prepared batch.

    Args:
        prepared: the batch; repeated: bool (d,): which documents' ids came before.

    Returns:
        :class:`Outcomes`: a repeated id is skipped as ``unreadable`` whatever its length;
        a document with fewer than ``min_tokens`` canonical tokens as ``too-short``.
    """
    long = prepared.long
    accept = long & ~repeated
    short = ~long & ~repeated
    take = np.flatnonzero(accept[long])
    pos, ids, sources = prepared.positions, prepared.ids, prepared.sources
    reps = [
        (int(pos[k]), Skipped(ids[k], sources[k], "unreadable", REPEATED_ID))
        for k in np.flatnonzero(repeated).tolist()
    ]
    m = prepared.min_tokens
    shorts = [
        (
            int(pos[k]),
            Skipped(ids[k], sources[k], "too-short", too_short_detail(n, m)),
        )
        for k, n in zip(
            np.flatnonzero(short).tolist(), prepared.counts[short].tolist(), strict=True
        )
    ]
    return Outcomes(np.flatnonzero(accept).astype(np.int64), take.astype(np.int64), reps, shorts)
