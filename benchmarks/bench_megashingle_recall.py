"""Seed 000 formula (3) against measured mega-shingle match rates on synthetic pairs.

For each resemblance J, ``pairs`` pairs of random 64-bit fingerprint sets with exactly
that Jaccard (``shared`` common values plus ``(1 - J) / (2J) · shared`` values unique to
each side) are sketched with the method's 84 maps; a pair is found when one of its 15
mega-shingles matches. Prints J, formula (3) and the measured rate with its binomial
standard error.

Usage: python benchmarks/bench_megashingle_recall.py [--pairs 200] [--shared 800]
"""

from __future__ import annotations

import argparse

import numpy as np

from neardup.methods.megashingles import Megashingles, recall_curve
from neardup.methods.minhash import EMPTY
from neardup.methods.sets import ShingleSets

RESEMBLANCES = (0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98)


def synthetic_pairs(j: float, pairs: int, shared: int, rng: np.random.Generator) -> ShingleSets:
    """``2 · pairs`` sets: rows 2k and 2k+1 have Jaccard exactly ``j`` (rounded sizes)."""
    only = round(shared * (1 - j) / (2 * j))
    arrays = []
    for _ in range(pairs):
        v = np.unique(rng.integers(0, 2**63, size=shared + 2 * only + 16, dtype=np.int64))
        v = rng.permutation(v)[: shared + 2 * only].astype(np.uint64)
        common, a, b = v[:shared], v[shared : shared + only], v[shared + only :]
        arrays += [np.sort(np.concatenate([common, a])), np.sort(np.concatenate([common, b]))]
    return ShingleSets.from_arrays(arrays)


def match_rate(method: Megashingles, sets: ShingleSets) -> float:
    """Share of pairs (rows 2k, 2k+1) sharing a mega-shingle."""
    sig = method.from_sets(sets).data[:, method.supershingles :]
    a, b = sig[0::2], sig[1::2]
    return float(((a == b) & (a != EMPTY)).any(axis=1).mean())


def table(pairs: int, shared: int, seed: int = 7) -> list[tuple[float, float, float, float]]:
    """Rows ``(J, formula (3), measured, standard error)``."""
    rng = np.random.default_rng(seed)
    rows = []
    for k, j in enumerate(RESEMBLANCES):
        method = Megashingles(seed=k)
        measured = match_rate(method, synthetic_pairs(j, pairs, shared, rng))
        expected = float(recall_curve(j))
        se = (expected * (1 - expected) / pairs) ** 0.5
        rows.append((j, expected, measured, se))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--shared", type=int, default=800)
    args = ap.parse_args()
    print(f"pairs per J: {args.pairs}, shared fingerprints: {args.shared}")
    print("| J | formula (3) | measured | binomial s.e. |")
    print("|---:|---:|---:|---:|")
    for j, expected, measured, se in table(args.pairs, args.shared):
        print(f"| {j:.2f} | {expected:.3f} | {measured:.3f} | {se:.3f} |")


if __name__ == "__main__":
    main()
