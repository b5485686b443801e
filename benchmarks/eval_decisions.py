"""Every method under its own rule and under verification, on the four labelled sets.

For each labelled set in ``../shared/data`` and each method, runs what
``neardup evaluate DIR/docs.jsonl --gold DIR/gold.jsonl --decision own|verified
--thresholds 0.3,0.5,0.7,0.9 --scope SCOPE`` runs (:func:`neardup.evaluate.run.
evaluate_corpus`), and keeps each method's best-F1 row per decision (ties: the higher
threshold). Scope ``all`` on the three revision sets (unlisted pairs are non-duplicates),
``labelled`` on clough-stevenson (its gold lists negatives). A method whose own rule has no
threshold (equal signature, a shared mega-shingle, SimHash's Hamming distance) gives the
same pairs at every threshold.

Writes ``benchmarks/results/decisions.json`` and prints a Markdown table (also written to
``benchmarks/results/DECISIONS.md``) with ``uptime`` before and after: the machine is
shared, so seconds are indicative only.

Usage: python benchmarks/eval_decisions.py [--data ../shared/data] [--sets a,b]
    [--methods m1,m2] [--thresholds 0.3,0.5,0.7,0.9] [--replicates 200]
    [--out FILE] [--merge-into benchmarks/results/decisions.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

from neardup.evaluate.gold import load_gold
from neardup.evaluate.run import EvalConfig, evaluate_corpus
from neardup.methods.registry import method_names
from neardup.text.types import Document

SETS = {
    "clough-stevenson": "labelled",
    "progit-ru-revisions": "all",
    "linux-doc-zh-revisions": "all",
    "linux-doc-revisions": "all",
}
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results"


def load(folder: Path) -> list[Document]:
    """Documents of one labelled set."""
    with (folder / "docs.jsonl").open(encoding="utf-8") as fh:
        return [Document(r["id"], r["text"], source=folder.name) for r in map(json.loads, fh)]


def best_rows(
    docs: list[Document],
    gold_path: Path,
    scope: str,
    method: str,
    decision: str,
    ts: tuple[float, ...],
    replicates: int,
) -> dict:
    """The best-F1 row (ties: higher threshold) of one method under one decision."""
    config = EvalConfig(
        methods=(method,),
        thresholds=ts,
        decision=decision,
        scope=scope,  # type: ignore[arg-type]
        replicates=replicates,
        memory="off",
    )
    t0 = time.perf_counter()
    result = evaluate_corpus(docs, load_gold(gold_path), config)
    seconds = time.perf_counter() - t0
    rows = [r for r in result.rows if r.error is None]
    if not rows:
        return {"method": method, "decision": decision, "error": result.rows[0].error}
    best = max(rows, key=lambda r: (r.scores.f1, r.threshold))
    d = best.as_dict()
    keep = ("threshold", "found", "tp", "fp", "fn", "precision", "recall", "f1", "seconds")
    return {
        "method": method,
        "decision": decision,
        **{k: d[k] for k in keep},
        "all_thresholds_seconds": round(seconds, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--methods", default=",".join(method_names()))
    ap.add_argument("--thresholds", default="0.3,0.5,0.7,0.9")
    ap.add_argument("--replicates", type=int, default=200)
    ap.add_argument("--out", type=Path, default=RESULTS / "decisions.json")
    ap.add_argument(
        "--merge-into",
        type=Path,
        default=None,
        help="After the run, replace these methods' rows in this saved decisions.json (and "
        "its DECISIONS.md), noting the rerun: for rerunning one method after a change.",
    )
    args = ap.parse_args()
    ts = tuple(float(x) for x in args.thresholds.split(","))
    load_before = _uptime()
    out: dict = {"uptime_before": load_before, "thresholds": list(ts), "sets": {}}
    for name in args.sets.split(","):
        docs = load(args.data / name)
        rows = []
        for method in args.methods.split(","):
            for decision in ("own", "verified"):
                row = best_rows(
                    docs,
                    args.data / name / "gold.jsonl",
                    SETS[name],
                    method,
                    decision,
                    ts,
                    args.replicates,
                )
                rows.append(row)
                print(name, json.dumps(row), flush=True)
        out["sets"][name] = {"scope": SETS[name], "documents": len(docs), "rows": rows}
        args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    out["uptime_after"] = _uptime()
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    table = markdown(out)
    (args.out.parent / "DECISIONS.md").write_text(table, encoding="utf-8")
    print(table)
    if args.merge_into is not None:
        merge(out, args.merge_into)


def merge(fresh: dict, path: Path) -> None:
    """Replace the rows of ``fresh``'s methods in the saved ``path`` and re-render its
    ``DECISIONS.md``, noting which methods were rerun and the load of that run."""
    data = json.loads(path.read_text(encoding="utf-8"))
    methods: set[str] = set()
    for name, block in fresh["sets"].items():
        new = {(r["method"], r["decision"]): r for r in block["rows"]}
        methods |= {m for m, _ in new}
        rows = data["sets"][name]["rows"]
        data["sets"][name]["rows"] = [new.get((r["method"], r["decision"]), r) for r in rows]
    note = (
        f"{', '.join(sorted(methods))} ({fresh['uptime_before']} .. "
        f"{fresh.get('uptime_after', '?')})"
    )
    data.setdefault("updates", []).append(note)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    rerender(path)


def markdown(data: dict) -> str:
    """Best F1 per method and set: own rule beside verified, one table per set."""
    lines = [
        "# Each method under its own rule vs verified (best F1 over thresholds "
        + ", ".join(str(t) for t in data["thresholds"])
        + ")",
        "",
        f"Machine load (uptime) before: {data['uptime_before']}; after: "
        f"{data.get('uptime_after', '?')}. Shared machine, under load: seconds are "
        "development figures only.",
        "",
        *(f"Rerun since: {u}" for u in data.get("updates", [])),
        *([""] if data.get("updates") else []),
        "Own rules without a threshold (equal signature: imatch, imatch-random, tf-ridf, "
        "anchor-words; one shared mega-shingle; SimHash's Hamming distance <= 3) give the "
        "same pairs at every t (ties: the highest t is shown). `verified`: exact resemblance "
        "of the full 5-word shingle sets >= t on the method's candidates. P, R, F1: pairs "
        "scored against gold.jsonl; s: seconds of the best row's run.",
        "",
    ]
    for name, block in data["sets"].items():
        lines += [
            f"## {name} ({block['documents']} documents, scope {block['scope']})",
            "",
            "| method | own: t | P | R | F1 | s | verified: t | P | R | F1 | s |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        by = {(r["method"], r["decision"]): r for r in block["rows"]}
        for method in dict.fromkeys(r["method"] for r in block["rows"]):
            cells = [method]
            for decision in ("own", "verified"):
                r = by[(method, decision)]
                if "error" in r:
                    cells += ["error: " + r["error"][:40], "", "", "", ""]
                    continue
                cells += [
                    f"{r['threshold']:g}",
                    f"{r['precision']:.3f}",
                    f"{r['recall']:.3f}",
                    f"**{r['f1']:.3f}**" if decision == "own" else f"{r['f1']:.3f}",
                    f"{r['seconds']:.1f}",
                ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def rerender(path: Path) -> None:
    """Rewrite ``DECISIONS.md`` beside ``path`` from a saved ``decisions.json`` (no runs)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    (path.parent / "DECISIONS.md").write_text(markdown(data), encoding="utf-8")


if __name__ == "__main__":
    main()
