"""Text alignment on a planted passage set: PAN's measures and pairs/s, two algorithms.

Builds the labelled set of :mod:`neardup.evaluate.planted` from ``../shared/data`` (linux
docs in English, RusLit prose in Russian; passages planted at known offsets at four
obfuscation levels; deterministic for ``--seed``), then aligns every pair with

* ``align``: :func:`neardup.passages.align_passages` (seeding, extension, filtering), and
* ``tiles``: :func:`neardup.passages.matched_passages` (greedy string tiling, the
  algorithm before issue 19),

in the same run, and scores each with PAN's macro precision, recall, granularity and
plagdet (Potthast et al. 2010) per language and level; it also times one pair of
5,000-word documents. ``--write DIR`` also writes ``docs.jsonl`` and ``gold.jsonl`` for
``neardup evaluate DIR/docs.jsonl --passages DIR/gold.jsonl``.

Usage::

    .venv/bin/python benchmarks/bench_passages.py [--pairs 40] [--seed 19] [--json OUT]
        [--write DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from neardup.evaluate.pan import Span, pan_scores
from neardup.evaluate.planted import LEVELS, PlantedPair, build_set, shared_texts
from neardup.passages import align_passages, matched_passages

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
ALGORITHMS: dict[str, Callable[[str, str], list]] = {
    "align": align_passages,
    "tiles": matched_passages,
}


def detections(pairs: list[PlantedPair], fn: Callable[[str, str], list]) -> tuple[list, float]:
    """Detected spans of every pair and the wall time in seconds."""
    out: list[Span] = []
    t0 = time.perf_counter()
    found = [fn(p.a_text, p.b_text) for p in pairs]
    seconds = time.perf_counter() - t0
    for p, passages in zip(pairs, found, strict=True):
        out += [
            Span(p.a, p.b, q.a_start, q.a_end - q.a_start, q.b_start, q.b_end - q.b_start)
            for q in passages
        ]
    return out, seconds


def score(pairs: list[PlantedPair], fn: Callable[[str, str], list]) -> dict[str, float]:
    cases = [
        Span(c.a, c.b, c.a_offset, c.a_length, c.b_offset, c.b_length)
        for p in pairs
        for c in p.cases
    ]
    found, seconds = detections(pairs, fn)
    s = pan_scores(cases, found)
    return {
        "plagdet": round(s.plagdet, 4),
        "precision": round(s.precision, 4),
        "recall": round(s.recall, 4),
        "granularity": round(s.granularity, 4),
        "cases": s.cases,
        "detections": s.detections,
        "pairs": len(pairs),
        "pairs_per_s": round(len(pairs) / seconds, 1),
    }


def time_5000(texts: dict[str, list[tuple[str, str]]], repeat: int = 5) -> dict[str, float]:
    """Milliseconds (wall and CPU) to align a pair of 5,000-word documents, best of ``repeat``."""
    docs = [t for _, t in texts["en"] if len(t.split()) >= 4900][:2]
    a, b = docs[0], docs[1]
    half = len(b) // 2
    b = b[:half] + "\n\n" + a[1000:6000] + "\n\n" + b[half:]  # one shared passage
    out = {"words_a": len(a.split()), "words_b": len(b.split())}
    for name, fn in ALGORITHMS.items():
        for clock in ("perf_counter", "process_time"):
            best = min(_timed(fn, a, b, getattr(time, clock)) for _ in range(repeat))
            key = "ms" if clock == "perf_counter" else "cpu_ms"
            out[f"{name}_{key}"] = round(best * 1000, 2)
    return out


def _timed(fn: Callable[[str, str], list], a: str, b: str, clock: Callable[[], float]) -> float:
    t0 = clock()
    fn(a, b)
    return clock() - t0


def _line(row: dict) -> str:
    return (
        f"{row['language']} {row['level']:8s} {row['algorithm']:6s}"
        f" plagdet {row['plagdet']:.3f}  P {row['precision']:.3f}  R {row['recall']:.3f}"
        f"  G {row['granularity']:.3f}  {row['pairs_per_s']:.0f} pairs/s  ({row['cases']} cases)"
    )


def write_set(pairs: list[PlantedPair], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (
        (out / "docs.jsonl").open("w", encoding="utf-8") as docs,
        (out / "gold.jsonl").open("w", encoding="utf-8") as gold,
    ):
        for p in pairs:
            docs.write(json.dumps({"id": p.a, "text": p.a_text}, ensure_ascii=False) + "\n")
            docs.write(json.dumps({"id": p.b, "text": p.b_text}, ensure_ascii=False) + "\n")
            rows = [c.as_dict() for c in p.cases] or [{"a": p.a, "b": p.b}]
            gold.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=40, help="pairs per language and level")
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--write", type=Path, help="write docs.jsonl and gold.jsonl here")
    args = ap.parse_args()
    texts = shared_texts(DATA)
    pairs = build_set(texts, pairs_per_level=args.pairs, seed=args.seed)
    if args.write:
        write_set(pairs, args.write)
    result: dict[str, object] = {"load": os.getloadavg(), "pairs_per_level": args.pairs}
    table = []
    groups = [(lang, level) for lang in sorted(texts) for level in LEVELS]
    groups += [("all", level) for level in LEVELS]
    for lang, level in groups:
        subset = [p for p in pairs if lang in ("all", p.language) and p.level == level]
        for name, fn in ALGORITHMS.items():
            row = {"language": lang, "level": level, "algorithm": name, **score(subset, fn)}
            table.append(row)
            print(_line(row), flush=True)
    result["table"] = table
    result["pair_5000_words"] = time_5000(texts)
    result["load_after"] = os.getloadavg()
    print(json.dumps(result["pair_5000_words"]), "load", result["load"])
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
