"""How the Dask engine runs a method: by its grouping keys, or over the whole corpus.

Every registered method runs on Dask, with both measures; its plan says how
(:attr:`MethodPlan.candidates <neardup.methods.plan.MethodPlan.candidates>`,
:func:`neardup.methods.plan.plan_for`). A method runs *by key* (every
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
sets (``prefix``, ``postings``: their :meth:`~neardup.methods.base.MethodBase.set_keys`
hook; prefix filtering gets the corpus document frequencies by a first
pass). The others (``shingles-dice``, SimHash's tables, SpotSigs' and SL+ST's indexes,
anchor words) and every containment job are decided over the whole corpus in one task
(:mod:`neardup.distributed.whole`).
"""

from __future__ import annotations

from neardup.methods.registry import method_class


def check_dask_options(method: str, measure: str) -> None:
    """Refuse at parse time what the Dask engine cannot run. Every registered method runs,
    with both measures (its plan says how); what a method's decision rule cannot
    decide is refused by :func:`neardup.job.pipeline.decided_options` as on the local engine.

    Raises:
        ParameterError: an unknown method (the registry's error) or measure.
    """
    from neardup.errors import check_choice
    from neardup.methods.measures import MEASURES

    method_class(method)
    check_choice("--measure", measure, MEASURES)
