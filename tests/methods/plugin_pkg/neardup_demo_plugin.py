"""A neardup method plugin: MinHash-LSH signing with k independent permutations (Broder
1997) by default, under its own name. Its ``pyproject.toml`` declares it in the
``neardup.methods`` entry-point group; nothing here imports or registers it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from neardup.methods.shingle_methods import MinHashLSH


@dataclass(frozen=True, kw_only=True)
class MinHashPerm(MinHashLSH):
    """MinHash sketches by ``num_perm`` independent permutations, candidates from LSH bands
    tuned to ``threshold`` (a plugin's variant of minhash-lsh)."""

    name: ClassVar[str] = "demo-minhash-perm"
    source: ClassVar[str] = "Broder 1997 min-wise independent permutations (a plugin)"
    scheme: Literal["oph", "perm"] = "perm"
