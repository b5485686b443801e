"""Broder's shingle methods (Zagorulko et al. 2013, Fig. 1) and MinHash-LSH behind :class:`Method`.

* ``shingles-full``: the whole fingerprint set ("сигнатура полностью совпадает с индексом");
* ``shingles-mod``: fingerprints divisible by ``m`` ("кратные m", method 1, m=25);
* ``shingles-min``: the ``n`` smallest fingerprints ("n минимальных", method 2, n=160);
  only resemblance is defined on it (Broder 1997, via ``min_n(A ∪ B)``);
* ``minhash-lsh``: MinHash sketches (:mod:`.minhash`) banded into LSH tables
  (:mod:`neardup.methods.lsh`) tuned to ``threshold``.

All share the shingling parameters (``shingle_size``, ``step``, ``unit``, ``fingerprint``,
``seed``) and a canonical form; all find candidates with an index and score pairs with
the seed's resemblance, eq. (1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Literal

import numpy as np

from neardup._array import U64
from neardup.errors import ParameterError, check_int
from neardup.methods.base import (
    Capabilities,
    Layout,
    MethodBase,
    Prepared,
    SetKeys,
    Signatures,
)
from neardup.methods.decision import DecisionRule, ExactMeasure, SampleEstimate
from neardup.methods.keys import GroupKeys, KeyRows
from neardup.methods.lsh import (
    PREFILTER_MISS,
    RECALL_PROBABILITY,
    BandKeys,
    LSHParams,
    agreement_floors,
    band_keys,
    byte_agreements,
    key_candidates,
    lean_rows,
    low_bytes,
    lsh_candidates,
    optimal_params,
    recall_params,
)
from neardup.methods.measures import intersection_sizes
from neardup.methods.minhash import SCHEMES, MinHasher
from neardup.methods.postings import posting_candidates
from neardup.methods.prefix import prefix_candidates, rank_by_frequency
from neardup.methods.registry import register
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import FINGERPRINTS, UNITS, FingerprintKind, Shingling
from neardup.options import OPTIONS
from neardup.params import Constraint, Interval, Options
from neardup.text.canonical import CanonicalForm

#: Estimators of the resemblance on bottom-n sketches (:class:`ShinglesMin`).
ESTIMATORS: tuple[str, ...] = ("broder", "zagorulko")
#: Pairs compared at once by :meth:`MinHashLSH.similarity` (2 x 64k x num_perm x 8 bytes).
_SIMILARITY_CHUNK = 65_536


@dataclass(frozen=True, kw_only=True)
class ShingleMethod(MethodBase):
    """Common part of the shingle methods: shingling, canonical form, signatures of sets.

    Args:
        shingle_size: words (or characters) per shingle, 1-64 (Zagorulko et al. 2013 uses 4).
        step: distance between shingle starts (1 = overlapping; = size: the shingle-method
        tutorial's
            non-overlapping shingles).
        unit: ``word`` or ``char``.
        fingerprint: ``xxh64`` or ``crc32``.
        seed: fingerprint seed.
        canonical: the canonical form tokens are made with.
        threshold: resemblance the candidate index is built for, (0, 1]: exact methods
            find every pair at or above it (prefix filtering), LSH tunes its bands to it.
        max_df: postings or buckets longer than this give star candidates only.
    """

    name: ClassVar[str] = "shingles-full"
    source: ClassVar[str] = "Broder 1997; Zagorulko et al. 2013 eq. (1)-(2), full fingerprint set"
    capabilities: ClassVar[Capabilities] = Capabilities(signs_from_sets=True, keys="rows")
    layout: ClassVar[Layout] = "sets"
    decision_rule: ClassVar[DecisionRule] = ExactMeasure(
        "exact resemblance (formula 1) or containment (formula 2) of the full shingle sets "
        ">= threshold (Broder 1997)",
        "verified",
        ("resemblance", "containment"),
        "exact {measure} >= {bar}",
    )

    shingle_size: int = 5
    step: int = 1
    unit: Literal["word", "char"] = "word"
    fingerprint: FingerprintKind = "xxh64"
    seed: int = 0
    canonical: CanonicalForm = field(default_factory=CanonicalForm)
    threshold: float = 0.5
    max_df: int = OPTIONS["max_df"].default

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "shingle_size": Interval("int", 1, 64),  # those of Shingling, named as here
        "step": Interval("int", 1, "shingle_size"),
        "unit": Options(UNITS),
        "fingerprint": Options(FINGERPRINTS),
        "seed": Interval("int", 0, 2**32 - 1),
        "threshold": Interval("float", 0.0, 1.0, low_open=True),
        "max_df": OPTIONS["max_df"].constraint,
    }

    @cached_property
    def shingling(self) -> Shingling:
        """The :class:`Shingling` these parameters describe (made once per method object:
        the fields are frozen; a check read it four times)."""
        return Shingling(
            size=self.shingle_size,
            step=self.step,
            unit=self.unit,
            fingerprint=self.fingerprint,
            seed=self.seed,
        )

    def params(self) -> dict[str, Any]:
        """JSON-ready parameters (method-specific ones included)."""
        return {**self.shingling.params(), "threshold": self.threshold, **self._extra_params()}

    def _extra_params(self) -> dict[str, Any]:
        return {}

    def sign(self, docs: Sequence[Prepared]) -> Signatures:
        """Signatures of a batch: the documents' shingle sets, then :meth:`from_sets`."""
        return self.from_sets(self.shingling.batch([d.tokens for d in docs]))

    def from_sets(self, sets: ShingleSets) -> Signatures:
        """Signatures from already computed full fingerprint sets (the job's fast path)."""
        return Signatures(self.key(), self._reduce(sets), len(sets))

    def _reduce(self, sets: ShingleSets) -> Any:
        return sets

    def sign_rows(self, sets: ShingleSets) -> np.ndarray:
        """The data of :meth:`from_sets` of a ``rows_per_document`` method: one row per set,
        shape (len(sets), ...).

        Raises:
            ParameterError: the method does not sign one row per document.
        """
        rows = self._reduce(sets)
        if not self.capabilities.rows_per_document or not isinstance(rows, np.ndarray):
            from neardup.errors import ParameterError

            raise ParameterError("method", self.name, "a method that signs one row per document")
        return rows

    def from_rows(self, rows: np.ndarray) -> Signatures:
        """Signatures from the stacked :meth:`sign_rows` of a corpus' parts (equal to
        :meth:`from_sets` of the whole corpus)."""
        return Signatures(self.key(), rows, int(rows.shape[0]))

    def keys(self, sigs: Signatures) -> GroupKeys | KeyRows:
        """Index keys: each document's (sampled) fingerprints, band 0."""
        sets: ShingleSets = sigs.data
        vals = sets.values.astype(U64)
        return KeyRows(sets.doc_ids(), np.zeros(vals.shape[0], np.int64), vals.view(np.int64))

    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Every pair whose (sampled) resemblance may reach ``threshold``: int64 (p, 2).

        Prefix filtering on frequency-ranked fingerprints (:mod:`neardup.methods.prefix`).
        """
        ranked = rank_by_frequency(sigs.data)
        return prefix_candidates(ranked, self.threshold, max_group=self.max_df)

    def set_keys(self) -> SetKeys | None:
        """``prefix``: the candidates are :meth:`candidates`' prefix filtering (None when a
        subclass finds them otherwise)."""
        return "prefix" if type(self).candidates is ShingleMethod.candidates else None

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """Resemblance (eq. 1) of each pair on the method's sets: float64 (p,)."""
        sets: ShingleSets = sigs.data
        shared = intersection_sizes(sets, pairs)
        union = sets.sizes[pairs[:, 0]] + sets.sizes[pairs[:, 1]] - shared
        return np.divide(shared, union, out=np.zeros(shared.shape, float), where=union > 0)


@dataclass(frozen=True, kw_only=True)
class ShinglesFull(ShingleMethod):
    """Broder's shingles, compared on the full fingerprint sets (exact)."""


@dataclass(frozen=True, kw_only=True)
class ShinglesMod(ShingleMethod):
    """Broder's shingles sampled "mod m": fingerprints divisible by ``m`` (Zagorulko et al. 2013,
    m=25).

    Args:
        m: modulus, >= 1 (1 keeps every fingerprint).
    """

    name: ClassVar[str] = "shingles-mod"
    source: ClassVar[str] = (
        "Broder 1997; Zagorulko et al. 2013 method 1 (fingerprints divisible by m), eq. (1)"
    )
    capabilities: ClassVar[Capabilities] = Capabilities(
        signs_from_sets=True, stores_signature=True, keys="rows"
    )
    decision_rule: ClassVar[DecisionRule] = SampleEstimate(
        "resemblance (formula 1) or containment (formula 2) estimated on the mod-m samples "
        ">= threshold (Broder 1997)",
        "own",
        ("resemblance", "containment"),
        "{measure} on mod-{m} samples >= {bar}",
    )
    m: int = 25

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **ShingleMethod.parameter_constraints,
        "m": Interval("int", 1, 1_000_000),
    }

    def _extra_params(self) -> dict[str, Any]:
        return {"m": self.m}

    def _reduce(self, sets: ShingleSets) -> ShingleSets:
        return sets.mod_sample(self.m)

    def containment(self, sigs: Signatures, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Containment (seed 000, formula 2) of each pair estimated on the mod-m samples:
        ``|V(A) ∩ V(B)| / |V(A)|`` and ``|V(A) ∩ V(B)| / |V(B)|``, float64 (p,) each
        (0 for an empty sample). The mod-m sample grows with the document, so it can be
        put into formula (2); the bottom-n sketch cannot (Broder 1997).
        """
        sets: ShingleSets = sigs.data
        if pairs.size == 0:
            return np.zeros(0), np.zeros(0)
        shared = intersection_sizes(sets, pairs).astype(float)
        size_a = sets.sizes[pairs[:, 0]].astype(float)
        size_b = sets.sizes[pairs[:, 1]].astype(float)
        cab = np.divide(shared, size_a, out=np.zeros_like(shared), where=size_a > 0)
        cba = np.divide(shared, size_b, out=np.zeros_like(shared), where=size_b > 0)
        return cab, cba


@dataclass(frozen=True, kw_only=True)
class ShinglesMin(ShingleMethod):
    """Broder's bottom-n sketch: the ``n`` smallest fingerprints (Zagorulko et al. 2013, n=160).

    Two estimators of the resemblance (``estimator``), both on ``V = min_n(S)``:

    * ``broder`` (default): ``|min_n(V_A ∪ V_B) ∩ V_A ∩ V_B| / |min_n(V_A ∪ V_B)|``, the
      union's n smallest (Broder 1997, Theorem 1: an unbiased estimate);
    * ``zagorulko``: formula (1) of Zagorulko et al. (2013) on the two samples,
      ``res(V_A, V_B) = |V_A ∩ V_B| / |V_A ∪ V_B|`` ("может использоваться только в
      вычислениях по формуле (1)"), as the paper's Table 2 compares them. Its union may
      hold up to 2n values, so it is lower than Broder's whenever the samples differ:
      ``V_A = {1, 2, 3}``, ``V_B = {1, 2, 4}`` (n = 3) give 2/4 = 0.5, Broder 2/3.

    Containment is not defined on this sample (Zagorulko et al. 2013).

    Args:
        n: sketch size, >= 1.
        estimator: ``broder`` or ``zagorulko``.
    """

    name: ClassVar[str] = "shingles-min"
    source: ClassVar[str] = (
        "Broder 1997; Zagorulko et al. 2013 method 2 (n smallest fingerprints), eq. (1)"
    )
    decision_rule: ClassVar[DecisionRule] = SampleEstimate(
        "resemblance estimated on the bottom-n sketches >= threshold (Broder 1997, Theorem 1)",
        label="resemblance on bottom-{n} sketches >= {bar}",
    )
    n: int = 160
    estimator: Literal["broder", "zagorulko"] = "broder"

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **ShingleMethod.parameter_constraints,
        "n": Interval("int", 1, 1_000_000),
        "estimator": Options(ESTIMATORS),
    }

    def _extra_params(self) -> dict[str, Any]:
        # the estimator recorded only when not Broder's, so keys made before it stay equal
        extra = {} if self.estimator == "broder" else {"estimator": self.estimator}
        return {"n": self.n, **extra}

    def _reduce(self, sets: ShingleSets) -> ShingleSets:
        return sets.min_sample(self.n)

    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Pairs sharing a fingerprint of their bottom-n sketches: int64 (p, 2)."""
        return posting_candidates(sigs.data, max_df=self.max_df)

    def set_keys(self) -> SetKeys | None:
        """``postings``: the candidates share a fingerprint of their sketches (None when a
        subclass finds them otherwise)."""
        return "postings" if type(self).candidates is ShinglesMin.candidates else None

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """The resemblance estimate of each pair on the bottom-n sketches: Broder's (the
        union's n smallest) or, with ``estimator="zagorulko"``, formula (1) of Zagorulko et
        al. (2013) on the two samples; float64 (p,)."""
        sets: ShingleSets = sigs.data
        if self.estimator == "zagorulko":
            return ShingleMethod.similarity(self, sigs, pairs)
        return np.array([_bottom_n(sets.get(a), sets.get(b), self.n) for a, b in pairs], float)


def _bottom_n(a: np.ndarray, b: np.ndarray, n: int) -> float:
    union = np.union1d(a, b)[:n]
    if union.size == 0:
        return 0.0
    both = np.intersect1d(a, b, assume_unique=True)
    return float(np.isin(union, both, assume_unique=True).sum() / union.size)


@dataclass(frozen=True, kw_only=True)
class MinHashLSH(ShingleMethod):
    """MinHash sketches of the shingle sets, candidates from LSH bands tuned to ``threshold``.

    Args:
        num_perm: sketch length, 1-4096 (default 128).
        threshold: resemblance the LSH bands are tuned for, (0, 1].
        scheme: ``oph`` (one permutation + optimal densification) or ``perm``.
        minhash_seed: seed of the MinHash family.
        bands, rows: force the banding (both or neither); default: by
            ``candidate_probability``.
        candidate_probability: the least probability that a pair of resemblance
            ``threshold`` becomes a candidate, in (0, 1): the banding chosen for recall
            (:func:`neardup.methods.lsh.recall_params`; default 0.995,
            :data:`RECALL_PROBABILITY`: 40 bands x 3 rows at t = 0.5, k = 128). ``None``:
            datasketch's balanced false-positive/false-negative point
            (:func:`optimal_params`, 25 x 5 at t = 0.5, P = 0.548 at t). The extra
            candidates are mostly far below ``threshold`` and their sketches say so: under
            ``verified`` resemblance the job compares exactly only those that pass
            :meth:`prefilter`. Measured 2026-12-02 on the planted corpus: recall of gold
            pairs with J >= 0.6 from 0.949 (25 x 5) to 0.988 at 100,000 documents; at a
            million 585,816 candidates, 55,298 verified (41,538 with 25 x 5), the job's
            CPU time unchanged within the noise of a shared machine.
    """

    name: ClassVar[str] = "minhash-lsh"
    decision_rule: ClassVar[DecisionRule] = SampleEstimate(
        "resemblance estimated on the MinHash sketches >= threshold (Broder 1997)",
        "verified",
        label="resemblance on MinHash sketches >= {bar}",
    )
    source: ClassVar[str] = (
        "Broder 1997 min-wise hashing; Shrivastava 2017 optimal densification; "
        "LSH banding P(s) = 1 - (1 - s^r)^b (Leskovec et al., MMDS §3.4)"
    )
    capabilities: ClassVar[Capabilities] = Capabilities(
        signs_from_sets=True, rows_per_document=True, keys="groups"
    )
    layout: ClassVar[Layout] = "rows"
    num_perm: int = 128
    scheme: Literal["oph", "perm"] = "oph"
    minhash_seed: int = 1
    bands: int | None = None
    rows: int | None = None
    candidate_probability: float | None = RECALL_PROBABILITY

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **ShingleMethod.parameter_constraints,
        "num_perm": Interval("int", 1, 4096),  # those of MinHasher, named as here
        "scheme": Options(SCHEMES),
        "minhash_seed": Interval("int", 0, 2**63 - 1),
        "bands": Interval("int", 1, "num_perm", optional=True),
        "rows": Interval("int", 1, "num_perm", optional=True),
        "candidate_probability": Interval("float", 0.0, 0.9999, low_open=True, optional=True),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if (self.bands is None) != (self.rows is None):
            raise ParameterError("bands/rows", (self.bands, self.rows), "both set or both unset")
        if self.bands is not None and self.rows is not None:
            check_int("rows", self.rows, low=1, high=self.num_perm // self.bands)

    @property
    def hasher(self) -> MinHasher:
        """The :class:`MinHasher` of these parameters."""
        return MinHasher(num_perm=self.num_perm, seed=self.minhash_seed, scheme=self.scheme)

    def row_hasher(self) -> MinHasher | None:
        """:attr:`hasher`, whose sketches are the signature rows (None when a subclass
        reduces the sets otherwise)."""
        return self.hasher if type(self)._reduce is MinHashLSH._reduce else None

    def resolved_params(self) -> dict[str, Any]:
        """The LSH ``bands`` and ``rows`` in use (a collection keeps its banding)."""
        return {"bands": self.lsh.bands, "rows": self.lsh.rows}

    @cached_property
    def lsh(self) -> LSHParams:
        """Bands and rows in use (computed once per method object)."""
        if self.bands is not None and self.rows is not None:
            return LSHParams(self.bands, self.rows)
        if self.candidate_probability is None:
            return optimal_params(self.threshold, self.num_perm)
        return recall_params(self.threshold, self.num_perm, probability=self.candidate_probability)

    def _extra_params(self) -> dict[str, Any]:
        # the MinHash family's seed under its own name: the shingling's fingerprint ``seed``
        # must stay in the key (found by neardup.testing.check_method)
        lsh = self.lsh
        family = {"num_perm": self.num_perm, "minhash_seed": self.minhash_seed}
        return {**family, "scheme": self.scheme, "bands": lsh.bands, "rows": lsh.rows}

    def _reduce(self, sets: ShingleSets) -> np.ndarray:
        return self.hasher.sketches(sets)

    def sketch_texts(self, texts: Sequence[str], *, workers: int = 1) -> np.ndarray:
        """MinHash sketches straight from clean texts, vectorised end to end.

        Canonical tokens, shingle fingerprints and one-permutation sketches without a
        Python object per token or shingle (the signing fast path; see
        :meth:`Shingling.occurrences_texts`).

        Args:
            texts: clean texts.
            workers: threads (1-64); the batch is cut into that many parts, signed in
                parallel (numpy releases the GIL), and joined in order.

        Returns:
            uint64 array of shape (len(texts), num_perm), equal to the sketches that
            :meth:`sign` makes of the same texts, whatever ``workers``.

        Raises:
            ParameterError: ``workers`` out of range.
        """
        check_int("workers", workers, low=1, high=64)
        if workers == 1 or len(texts) < 2 * workers:
            return self._sketch_part(texts)
        from concurrent.futures import ThreadPoolExecutor

        step = -(-len(texts) // workers)
        parts = [texts[i : i + step] for i in range(0, len(texts), step)]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return np.concatenate(list(pool.map(self._sketch_part, parts)))

    def _sketch_part(self, texts: Sequence[str]) -> np.ndarray:
        values, doc = self.shingling.occurrences_texts(texts, self.canonical)
        return self.hasher.sketch_occurrences(values, doc, len(texts))

    @property
    def group_limit(self) -> int | None:
        """``max_df``: an LSH bucket above it gives a star from its earliest document only,
        as :func:`neardup.methods.lsh.lsh_candidates` does."""
        return self.max_df

    def keys(self, sigs: Signatures) -> GroupKeys:
        """One slot per LSH band, key = :func:`neardup.methods.lsh.band_keys` of sketches
        uint64 (n, num_perm), or the keys themselves where ``sigs`` holds the
        :class:`~neardup.methods.lsh.BandKeys` of :meth:`from_lean_rows` (their
        ``columns`` transposed, a view: the same keys); a document with an empty set (all
        ``EMPTY``) has no key."""
        from neardup.methods.minhash import EMPTY

        data = sigs.data
        if isinstance(data, BandKeys):
            keys = data.columns.T
            live = np.ones(keys.shape[0], dtype=bool)
            live[data.empty] = False
        else:
            keys = band_keys(data, self.lsh)
            live = ~np.all(data == EMPTY, axis=1)
        return GroupKeys(keys, np.broadcast_to(live[:, None], keys.shape).copy())

    def lean_rows(self, rows: np.ndarray) -> np.ndarray:
        """What an exactly verified job keeps of :meth:`sign_rows` ``rows`` (the sketches):
        uint64 (n, bands + ceil(num_perm / 8)), the band keys and the low bytes
        (:func:`neardup.methods.lsh.lean_rows`)."""
        return lean_rows(rows, self.lsh)

    def from_lean_rows(self, rows: np.ndarray) -> Signatures:
        """Signatures of stacked :meth:`lean_rows`: their data a
        :class:`~neardup.methods.lsh.BandKeys`, which :meth:`candidates`, :meth:`keys` and
        :meth:`prefilter` read (the same candidates, keys and kept pairs as the sketches
        give); the own rule (:meth:`similarity`) needs the sketches and refuses it.

        Raises:
            ParameterError: ``rows`` is not uint64 (n, bands + ceil(num_perm / 8)).
        """
        keys = BandKeys.from_rows(rows, self.lsh, self.num_perm)
        return Signatures(self.key(), keys, len(keys))

    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Pairs sharing an LSH bucket in some band: int64 (p, 2), ``a < b`` (from the
        sketches, or from the band keys of :meth:`from_lean_rows`: the same pairs)."""
        if isinstance(sigs.data, BandKeys):
            return key_candidates(sigs.data, max_bucket=self.max_df)
        return lsh_candidates(sigs.data, self.lsh, max_bucket=self.max_df)

    def prefilter_slots(self) -> int:
        """The ``num_perm`` sketch slots :meth:`prefilter` counts."""
        return self.num_perm

    def prefilter(
        self,
        sigs: Signatures,
        pairs: np.ndarray,
        threshold: float,
        *,
        sizes: np.ndarray,
        low: bool = False,
    ) -> np.ndarray:
        """bool (p,): the candidate pairs worth an exact comparison at ``threshold``: those
        whose sketches' low bytes (:func:`~neardup.methods.lsh.low_bytes`) agree on at least
        their floor of the ``num_perm`` slots (:func:`~neardup.methods.lsh.agreement_floors`
        by the smaller set's size in ``sizes``, int (n,) shingles per document).

        Equal slots have equal low bytes, so a pair's byte agreements
        (:func:`~neardup.methods.lsh.byte_agreements`) are at least its sketch agreements:
        a pair at the threshold falls below its floor with probability at most
        :data:`~neardup.methods.lsh.PREFILTER_MISS`, while an unequal slot agrees by chance
        about once in 256. Every engine counts the same bytes, so the local job, the Dask
        job and a run in one process compare the same pairs.

        ``sigs.data``: the sketches, uint64 (n, num_perm); the
        :class:`~neardup.methods.lsh.BandKeys` of :meth:`from_lean_rows`; or with ``low``,
        the low bytes themselves (the Dask job's candidate task).

        Raises:
            ParameterError: ``threshold`` outside (0, 1].
        """
        smaller = np.minimum(sizes[pairs[:, 0]], sizes[pairs[:, 1]])
        floors = agreement_floors(threshold, self.num_perm, smaller, miss=PREFILTER_MISS)
        data = sigs.data
        if isinstance(data, BandKeys):
            data = data.low
        elif not low:
            data = low_bytes(data)
        keep: np.ndarray = byte_agreements(data, pairs, self.num_perm) >= floors
        return keep

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """Estimated resemblance (share of equal sketch slots): float64 (p,)."""
        from neardup.methods.minhash import EMPTY

        data = _sketches(sigs)
        out = np.zeros(pairs.shape[0], dtype=np.float64)
        for lo in range(0, pairs.shape[0], _SIMILARITY_CHUNK):  # bounded memory
            part = pairs[lo : lo + _SIMILARITY_CHUNK]
            a, b = data[part[:, 0]], data[part[:, 1]]
            out[lo : lo + part.shape[0]] = ((a == b) & (a != EMPTY)).mean(axis=1)
        return out


def _sketches(sigs: Signatures) -> np.ndarray:
    """The MinHash sketches in ``sigs``, uint64 (n, num_perm).

    Raises:
        ParameterError: ``sigs`` holds only band keys and low bytes
            (:meth:`MinHashLSH.from_lean_rows`).
    """
    if isinstance(sigs.data, BandKeys):
        raise ParameterError("signatures", "band keys", "MinHash sketches (from_rows, from_sets)")
    data: np.ndarray = sigs.data
    return data


register(ShinglesFull)
register(ShinglesMod)
register(ShinglesMin)
register(MinHashLSH)
