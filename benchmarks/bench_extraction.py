"""HTML -> main text extraction quality and speed on the article-extraction benchmark.

Data: ``<repo>/../shared/data/html-extraction/`` (181 real news/blog pages, ``html/*.html.gz``,
and ``ground-truth.json`` with the hand-checked ``articleBody`` of each; Scrapinghub
article-extraction-benchmark, MIT). Score: token F1 of the extracted text against
``articleBody``, tokens being lower-cased ``\\w+`` runs counted as a bag (multiset), as in
that benchmark's ``evaluate.py`` (precision = shared tokens / extracted tokens, recall =
shared tokens / gold tokens), averaged over pages.

Usage::

    .venv/bin/python benchmarks/bench_extraction.py [--limit N] [--out results.json]

Scores resiliparse and trafilatura (neardup's two ``--extractor`` choices) and the
visible-text fallback in one run, so the speed ratio is measured on the same machine state.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path

from neardup.text.extract import html_to_text, visible_text

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "html-extraction"
_WORD = re.compile(r"\w+")


def token_f1(predicted: str, gold: str) -> tuple[float, float, float]:
    """``(precision, recall, F1)`` of the bags of lower-cased ``\\w+`` tokens.

    Two empty texts score 1.0; one empty text scores 0.0.
    """
    p = Counter(_WORD.findall(predicted.lower()))
    g = Counter(_WORD.findall(gold.lower()))
    if not p and not g:
        return 1.0, 1.0, 1.0
    if not p or not g:
        return 0.0, 0.0, 0.0
    common = sum((p & g).values())
    if common == 0:
        return 0.0, 0.0, 0.0
    precision = common / sum(p.values())
    recall = common / sum(g.values())
    return precision, recall, 2 * precision * recall / (precision + recall)


def load_pages(data: Path = DATA, limit: int | None = None) -> list[tuple[str, str, str]]:
    """``[(page id, html, gold article text)]`` sorted by page id, the first ``limit``."""
    gold = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    pages = []
    for page_id in sorted(gold)[:limit]:
        raw = gzip.decompress((data / "html" / f"{page_id}.html.gz").read_bytes())
        pages.append((page_id, raw.decode("utf-8", errors="replace"), gold[page_id]["articleBody"]))
    return pages


def evaluate(
    pages: list[tuple[str, str, str]], extractor: Callable[[str], str] = html_to_text
) -> dict[str, float]:
    """Mean precision, recall, F1 of ``extractor`` over ``pages``, and pages per second."""
    scores = []
    start = time.perf_counter()
    for _page_id, html, gold in pages:
        scores.append(token_f1(extractor(html), gold))
    seconds = time.perf_counter() - start
    n = max(len(scores), 1)
    return {
        "pages": len(scores),
        "precision": sum(s[0] for s in scores) / n,
        "recall": sum(s[1] for s in scores) / n,
        "f1": sum(s[2] for s in scores) / n,
        "pages_per_s": len(scores) / seconds if seconds else float("inf"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N pages by id")
    parser.add_argument("--out", type=Path, default=None, help="write the table as JSON here")
    args = parser.parse_args()
    pages = load_pages(limit=args.limit)
    contenders: dict[str, Callable[[str], str]] = {
        "resiliparse": partial(html_to_text, extractor="resiliparse"),
        "trafilatura": partial(html_to_text, extractor="trafilatura"),
        "visible text (fallback alone)": visible_text,
    }
    rows = {}
    print("| extractor | pages | precision | recall | F1 | pages/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, fn in contenders.items():
        r = evaluate(pages, fn)
        rows[name] = r
        print(
            f"| {name} | {r['pages']} | {r['precision']:.3f} | {r['recall']:.3f} | "
            f"{r['f1']:.3f} | {r['pages_per_s']:.1f} |"
        )
    speed = rows["resiliparse"]["pages_per_s"] / rows["trafilatura"]["pages_per_s"]
    print(f"resiliparse / trafilatura speed ratio: {speed:.1f}x  (load {os.getloadavg()[0]:.2f})")
    if args.out is not None:
        rows_out = {"load_1min": os.getloadavg()[0], "speed_ratio": speed, "extractors": rows}
        args.out.write_text(json.dumps(rows_out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
