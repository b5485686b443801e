"""Which methods the Dask engine runs: those that declare grouping keys.

A method runs on Dask when it sets ``groups_by_key`` and gives its grouping keys by the
:meth:`~neardup.methods.base.MethodBase.group_keys` hook (documents sharing a key in the
same slot are candidates, exactly as in the method's own ``candidates``) and, when its
oversized groups give a star only, a ``group_limit``. The built-in ones:

* ``minhash-lsh``: one slot per LSH band, key = :func:`neardup.methods.lsh.band_keys`
  (documents with an empty set have no key); buckets above the method's ``max_df`` give a
  star from their earliest document, as :func:`neardup.methods.lsh.lsh_candidates` does.
* ``megashingles``: one slot per mega-shingle (non-``EMPTY``).
* ``imatch`` / ``imatch-random``: one slot per lexicon, key = the digest's first 8 bytes
  (non-empty digests); the full 20-byte equality is checked when pairs are scored.
* ``tf-ridf``: one slot, key = the CRC signature (non-zero).
"""

from __future__ import annotations

from neardup.errors import ParameterError
from neardup.methods.base import Method
from neardup.methods.registry import method_class, method_classes


def dask_methods() -> tuple[str, ...]:
    """Names of the registered methods the Dask engine can run (built-ins first)."""
    return tuple(cls.name for cls in method_classes() if cls.groups_by_key)


def check_supported(meth: Method) -> None:
    """Raise :class:`ParameterError` unless the Dask engine can run ``meth`` (it declares
    grouping keys); the message names the methods that can run."""
    if not meth.groups_by_key:
        raise ParameterError(
            "method", meth.name, "one of " + ", ".join(dask_methods()) + " with --engine dask"
        )


def check_dask_options(method: str, measure: str) -> None:
    """Refuse at parse time what the Dask engine cannot run, naming the reason and the
    alternative: a method without grouping keys, ``measure="containment"``.

    Raises:
        ParameterError: ``--method`` or ``--measure`` (an unknown method: the registry's
            error).
    """
    cls = method_class(method)
    if not cls.groups_by_key:
        raise ParameterError(
            "--method",
            method,
            f"one of {', '.join(dask_methods())} with --engine dask ({method} has no "
            "grouping keys to shuffle by: its candidates need an index over the whole "
            "corpus); use --engine local for it, or minhash-lsh (verified on the exact "
            "shingle sets, as shingles-full is) on Dask",
        )
    if measure != "resemblance":
        raise ParameterError(
            "--measure",
            measure,
            "resemblance with --engine dask (containment candidates come from a prefix "
            "index over the frequency ranks of the whole corpus, which the Dask engine does "
            "not build); use --engine local for containment",
        )
