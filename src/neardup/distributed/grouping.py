"""How the Dask engine runs a method: by its grouping keys, or over the whole corpus.

Every registered method runs on Dask, with both measures. A method runs *by key* (every
stage distributed, :mod:`neardup.distributed.partition`) when ``measure="resemblance"`` and
its capabilities declare ``keys="groups"`` (its :meth:`~neardup.methods.base.MethodBase.keys`
hook gives grouping keys: documents sharing a key in the same slot are candidates, exactly
as in the method's own ``candidates``) and, when its
oversized groups give a star only, a ``group_limit``. The built-in ones:

* ``minhash-lsh``: one slot per LSH band, key = :func:`neardup.methods.lsh.band_keys`
  (documents with an empty set have no key); buckets above the method's ``max_df`` give a
  star from their earliest document, as :func:`neardup.methods.lsh.lsh_candidates` does.
* ``megashingles``: one slot per mega-shingle (non-``EMPTY``).
* ``imatch`` / ``imatch-random``: one slot per lexicon, key = the digest's first 8 bytes
  (non-empty digests); the full 20-byte equality is checked when pairs are scored.
* ``tf-ridf``: one slot, key = the CRC signature (non-zero).

``shingles-full``, ``shingles-mod`` and ``shingles-min`` run by keys of their signature
sets (:func:`set_keys`; prefix filtering gets the corpus document frequencies by a first
pass). The others (``shingles-dice``, SimHash's tables, SpotSigs' and SL+ST's indexes,
anchor words) and every containment job are decided over the whole corpus in one task
(:mod:`neardup.distributed.whole`).
"""

from __future__ import annotations

from neardup.methods.base import Method
from neardup.methods.registry import method_class


def set_keys(meth: Method) -> str | None:
    """How a shingle method's candidates come from keys of its signature sets, or None:

    * ``prefix``: :meth:`ShingleMethod.candidates <neardup.methods.shingle_methods.
      ShingleMethod.candidates>` (``shingles-full``, ``shingles-mod``): prefix filtering
      (Chaudhuri, Ganti & Kaushik 2006) over fingerprints ordered by corpus document
      frequency, then value; each document's key is every fingerprint of its prefix. The
      frequencies come from a first Dask pass (a sum over partitions, shuffled by
      fingerprint), not from a global rank: the prefix depends on the order only.
    * ``postings``: ``shingles-min`` (every fingerprint of the bottom-n sketch).

    Both group in one slot, oversized groups (above the method's ``max_df``) giving a star
    from their earliest document, as :func:`neardup.methods.prefix.prefix_candidates` and
    :func:`neardup.methods.postings.posting_candidates` do.
    """
    from neardup.methods.shingle_methods import ShingleMethod, ShinglesMin

    cand = type(meth).candidates
    if (
        not meth.capabilities.signs_from_sets
        or meth.capabilities.rows_per_document
        or meth.capabilities.needs_fit
    ):
        return None
    if cand is ShingleMethod.candidates:
        return "prefix"
    if cand is ShinglesMin.candidates:
        return "postings"
    return None


def runs_by_key(meth: Method, measure: str) -> bool:
    """Whether the Dask engine runs ``meth`` by keys (every stage distributed): a method
    with grouping keys, or with keys of its signature sets (:func:`set_keys`), and
    ``measure="resemblance"``. The others are decided over the whole corpus in one task
    (:mod:`neardup.distributed.whole`)."""
    by_key = bool(meth.capabilities.groups_by_key) or set_keys(meth) is not None
    return by_key and measure == "resemblance"


def group_limit(meth: Method) -> int | None:
    """Group size above which a key's group gives a star only: the method's
    ``group_limit``, or ``max_df`` for :func:`set_keys` methods."""
    if set_keys(meth) is not None:
        return int(getattr(meth, "max_df"))  # noqa: B009 (a ShingleMethod field)
    return meth.group_limit


def check_dask_options(method: str, measure: str) -> None:
    """Refuse at parse time what the Dask engine cannot run. Every registered method runs,
    with both measures (:func:`runs_by_key` says how); what a method's decision rule cannot
    decide is refused by :func:`neardup.job.pipeline.decided_options` as on the local engine.

    Raises:
        ParameterError: an unknown method (the registry's error) or measure.
    """
    from neardup.errors import check_choice
    from neardup.methods.measures import MEASURES

    method_class(method)
    check_choice("--measure", measure, MEASURES)
