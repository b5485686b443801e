"""Why a dedup job missed planted gold pairs: never a candidate, or below t on its own sets.

``scale-corpus.py``'s gold rows give each planted pair's Jaccard of lower-cased word
5-shingles with every word kept. neardup shingles the canonical form (stop words removed,
:class:`neardup.text.canonical.CanonicalForm`), on which a pair can fall below the
threshold: such a miss is the canonical form's choice, not a loss of the LSH banding. Each
missed gold pair (Jaccard >= ``--min-jaccard`` and not in ``pairs.jsonl``) is put in one of
two groups by its exact resemblance on neardup's own shingle sets
(:func:`neardup.compare` with the job's method):

* ``below_t_canonical``: resemblance < t: the canonical form moved it below the threshold;
* ``never_candidate``: resemblance >= t, yet not reported: every candidate is verified on
  these sets, so it never became a candidate (a miss of the banding).

Usage::

    python benchmarks/gold_misses.py CORPUS.jsonl GOLD.jsonl OUT_DIR [--min-jaccard 0.6]

``OUT_DIR`` is a ``neardup dedup --out`` directory (its ``pairs.jsonl``; the method, its
parameters and the threshold from its ``summary.json``). Prints a JSON object: the counts
and every missed pair with both resemblances.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def reported_pairs(out_dir: Path) -> set[tuple[str, str]]:
    """The ``(a, b)`` id pairs (sorted) of a job's ``pairs.jsonl``."""
    found = set()
    with open(out_dir / "pairs.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            found.add((min(row["a"], row["b"]), max(row["a"], row["b"])))
    return found


def split_misses(
    corpus: Path,
    gold: Path,
    found: set[tuple[str, str]],
    *,
    min_jaccard: float,
    threshold: float,
    method: str = "minhash-lsh",
    method_params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The missed gold pairs with Jaccard >= ``min_jaccard``, split by their resemblance on
    the method's own canonical shingle sets (``< threshold``: ``below_t_canonical``, else
    ``never_candidate``). Reads only the missed documents' texts from ``corpus``."""
    from neardup import compare

    missed: list[dict[str, Any]] = []
    total = 0
    with open(gold, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["jaccard"] < min_jaccard:
                continue
            total += 1
            pair = (min(row["a"], row["b"]), max(row["a"], row["b"]))
            if pair not in found:
                missed.append({"a": pair[0], "b": pair[1], "gold_jaccard": row["jaccard"]})
    wanted = {m["a"] for m in missed} | {m["b"] for m in missed}
    texts: dict[str, str] = {}
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            if len(texts) == len(wanted):  # a count, not a set difference a line (10M lines)
                break
            head = '{"id": "'  # the planted corpus' lines: the id first, read without JSON
            if line.startswith(head) and line[len(head) : line.find('"', len(head))] not in wanted:
                continue
            row = json.loads(line)
            if row["id"] in wanted:
                texts[row["id"]] = row["text"]
    # summary.json's method_params name the shingle size ``size`` (Shingling.params)
    given = dict(method_params or {})
    if "size" in given:
        given["shingle_size"] = given.pop("size")
    params = {k: v for k, v in given.items() if k not in ("bands", "rows")}
    for m in missed:
        c = compare(texts[m["a"]], texts[m["b"]], method=method, **params)
        m["resemblance"] = round(c.resemblance, 4)
        m["why"] = "below_t_canonical" if c.resemblance < threshold else "never_candidate"
    counts = {
        w: sum(m["why"] == w for m in missed) for w in ("never_candidate", "below_t_canonical")
    }
    return {
        "min_jaccard": min_jaccard,
        "threshold": threshold,
        "gold": total,
        "missed": len(missed),
        **counts,
        "pairs": sorted(missed, key=lambda m: (m["why"], -m["gold_jaccard"])),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("gold", type=Path)
    ap.add_argument("out_dir", type=Path, help="a neardup dedup --out directory")
    ap.add_argument("--min-jaccard", type=float, default=0.6)
    args = ap.parse_args()
    from neardup.index.methods import canonical_form

    summary = json.loads((args.out_dir / "summary.json").read_text(encoding="utf-8"))
    result = split_misses(
        args.corpus,
        args.gold,
        reported_pairs(args.out_dir),
        min_jaccard=args.min_jaccard,
        threshold=summary["options"]["threshold"],
        method=summary["method"],
        method_params={
            **summary["method_params"],
            "canonical": canonical_form(summary["canonical"]),
        },
    )
    print(json.dumps(result, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
