"""Grouping keys of the methods the Dask engine runs: documents sharing a key in the same
slot are candidates, exactly as in each method's own ``candidates``.

* ``minhash-lsh``: one slot per LSH band, key = :func:`neardup.methods.lsh.band_keys`
  (documents with an empty set have no key); buckets above the method's ``max_df`` give a
  star from their earliest document, as :func:`neardup.methods.lsh.lsh_candidates` does.
* ``megashingles``: one slot per mega-shingle (non-``EMPTY``).
* ``imatch`` / ``imatch-random``: one slot per lexicon, key = the digest's first 8 bytes
  (non-empty digests); the full 20-byte equality is checked when pairs are scored.
* ``tf-ridf``: one slot, key = the CRC signature (non-zero).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup._array import U64
from neardup.errors import ParameterError

SUPPORTED: tuple[str, ...] = ("minhash-lsh", "megashingles", "imatch", "imatch-random", "tf-ridf")


def check_supported(meth: Any) -> None:
    """Raise :class:`ParameterError` unless the Dask engine can run ``meth``."""
    if meth.name not in SUPPORTED:
        raise ParameterError(
            "method", meth.name, "one of " + ", ".join(SUPPORTED) + " with --engine dask"
        )


def max_group(meth: Any) -> int | None:
    """Bucket size above which a bucket gives a star only (``None``: all pairs)."""
    return int(meth.max_df) if meth.name == "minhash-lsh" else None


def method_keys(meth: Any, data: np.ndarray) -> tuple[np.ndarray, np.ndarray, int | None]:
    """Grouping keys of a partition's signatures.

    Args:
        meth: the method; data: its signature data for ``n`` documents (``Signatures.data``).

    Returns:
        ``(keys, valid, max_group)``: uint64 (n, slots), bool (n, slots), and the group
        size above which a group gives a star only (``None``: all pairs).
    """
    name = meth.name
    n = data.shape[0]
    if name == "minhash-lsh":
        from neardup.methods.lsh import band_keys
        from neardup.methods.minhash import EMPTY

        keys = band_keys(data, meth.lsh)
        live = ~np.all(data == EMPTY, axis=1)
        return keys, np.broadcast_to(live[:, None], keys.shape).copy(), meth.max_df
    if name == "megashingles":
        from neardup.methods.minhash import EMPTY

        mega = np.ascontiguousarray(data[:, meth.supershingles :])
        return mega, mega != EMPTY, None
    if name in ("imatch", "imatch-random"):
        from neardup.methods.imatch import prefix_keys

        keys, valid = prefix_keys(data)
        return keys.astype(U64), valid, None
    if name == "tf-ridf":
        return data.astype(U64).reshape(n, 1), (data != 0).reshape(n, 1), None
    raise ParameterError("method", name, "one of " + ", ".join(SUPPORTED))
