"""LSH dedup end to end, neardup vs datasketch, on the labelled sets: seconds and P/R/F1.

For each labelled set of ``<repo>/../shared/data`` and each ``t`` in ``--thresholds``
(0.3, 0.5), run one after the other (interleaved, so both see the same background load):

* **neardup**: ``dedup(docs, method="minhash-lsh", options=DedupOptions(threshold=t))``
  (128-slot MinHash, LSH bands tuned to ``t``, candidates verified on the exact shingle sets);
* **datasketch**, as a datasketch user would write it: ``CanonicalForm().tokens`` (the same
  tokens as neardup's default), word 5-shingles joined by a space, one
  ``datasketch.MinHash(num_perm=128)`` per document (permutations made once and shared,
  ``update_batch`` of the UTF-8 shingles), ``MinHashLSH(threshold=t, num_perm=128)``,
  ``insert`` every document, then ``query`` every document and keep the candidates whose
  estimated Jaccard (``MinHash.jaccard``) is ``>= t``.

Each pair of runs is repeated ``--repeat`` times (interleaved rounds, fastest kept). Both
times run from the raw texts (tokenisation included) to the list of pairs. Pairs are
scored with :func:`neardup.evaluate.metrics.score_pairs`: scope ``all`` on the revision sets
(unlisted pairs are non-duplicates), ``labelled`` on clough-stevenson. Each library's figure
is its best F1 over the thresholds.

Also neardup's best method per set: ``shingles-full`` (exact Jaccard, resemblance) at its best
``t`` in 0.2..0.6 on the revision sets; on clough-stevenson (text reuse in short answers)
``measure="containment"``, ``shingle_size=1``, ``t=0.4``. The data README's reference F1
(exact Jaccard of 5-shingles of lower-cased ``\\w+`` tokens, best t; containment of
2-shingles on clough-stevenson) is shown next to them.

Usage::

    .venv/bin/python benchmarks/bench_dedup.py [--sets ...] [--thresholds 0.3 0.5] [--json F]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_minhash import datasketch_factory, shingle_strings
from neardup.evaluate.metrics import Gold, score_pairs
from neardup.job.pipeline import DedupOptions, dedup
from neardup.text.canonical import CanonicalForm
from neardup.text.types import Document

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
NUM_PERM = 128
SETS = {
    "linux-doc-revisions": "all",
    "linux-doc-zh-revisions": "all",
    "progit-ru-revisions": "all",
    "clough-stevenson": "labelled",
}
#: The data README's reference F1 (exact Jaccard of 5-word shingles of lower-cased \w+ tokens,
#: best t in 0.3..0.9); for clough-stevenson also its containment reference (2-shingles).
REFERENCE = {
    "linux-doc-revisions": {"f1": 0.928, "t": 0.5, "how": "Jaccard 5-shingles"},
    "linux-doc-zh-revisions": {"f1": 0.933, "t": 0.5, "how": "Jaccard 5-shingles"},
    "progit-ru-revisions": {"f1": 0.775, "t": 0.3, "how": "Jaccard 5-shingles"},
    "clough-stevenson": {
        "f1": 0.310,
        "t": 0.3,
        "how": "Jaccard 5-shingles",
        "containment_f1": 0.964,
        "containment_t": 0.2,
    },
}
BEST_T = (0.2, 0.3, 0.4, 0.5, 0.6)
CLOUGH_BEST = {"method": "shingles-full", "measure": "containment", "shingle_size": 1, "t": 0.4}


def load(folder: Path) -> tuple[list[Document], Gold]:
    """Documents and gold pairs of one labelled set."""
    with (folder / "docs.jsonl").open(encoding="utf-8") as fh:
        docs = [Document(r["id"], r["text"], source=folder.name) for r in map(json.loads, fh)]
    return docs, Gold.load(folder / "gold.jsonl")


def run_neardup(
    docs: Sequence[Document],
    t: float,
    method: str = "minhash-lsh",
    measure: str = "resemblance",
    **params: Any,
) -> tuple[list[tuple[str, str]], float]:
    """neardup's dedup job: ``(pairs, seconds)``."""
    opts = DedupOptions(threshold=t, measure=measure)  # type: ignore[arg-type]
    t0 = time.perf_counter()
    res = dedup(list(docs), method=method, options=opts, **params)
    seconds = time.perf_counter() - t0
    return [(p.a, p.b) for p in res.pairs], seconds


def run_datasketch(
    docs: Sequence[Document], t: float, canon: CanonicalForm | None = None
) -> tuple[list[tuple[str, str]], float, dict[str, float]]:
    """datasketch MinHash + MinHashLSH, insert all, query all, keep estimated J >= t.

    Returns ``(pairs, seconds, stages)``; documents without tokens are left out (they have
    no shingles; neardup skips them as too short).
    """
    from datasketch import MinHashLSH

    canon = canon or CanonicalForm()
    t0 = time.perf_counter()
    new = datasketch_factory()
    sigs = []
    ids = []
    for doc in docs:
        sh = shingle_strings(canon.tokens(doc.text))
        if not sh:
            continue
        m = new()
        m.update_batch([s.encode("utf-8") for s in sh])
        sigs.append(m)
        ids.append(doc.id)
    t1 = time.perf_counter()
    lsh = MinHashLSH(threshold=t, num_perm=NUM_PERM)
    for i, m in enumerate(sigs):
        lsh.insert(i, m)
    t2 = time.perf_counter()
    pairs = []
    for i, m in enumerate(sigs):
        for j in lsh.query(m):
            if j > i and m.jaccard(sigs[j]) >= t:
                pairs.append((ids[i], ids[j]))
    t3 = time.perf_counter()
    stages = {"sign_s": t1 - t0, "insert_s": t2 - t1, "query_verify_s": t3 - t2}
    return pairs, t3 - t0, stages


def _score(pairs: list[tuple[str, str]], gold: Gold, scope: str, seconds: float) -> dict:
    s = score_pairs(pairs, gold, scope=scope)  # type: ignore[arg-type]
    return {
        "precision": round(s.precision, 4),
        "recall": round(s.recall, 4),
        "f1": round(s.f1, 4),
        "pairs": len(pairs),
        "seconds": round(seconds, 3),
    }


def bench_set(
    name: str,
    thresholds: Sequence[float] = (0.3, 0.5),
    best_t: Sequence[float] = BEST_T,
    data: Path = DATA,
    log: Any = print,
    repeat: int = 1,
) -> dict[str, Any]:
    """All runs on one labelled set; returns a JSON-ready dict."""
    scope = SETS[name]
    docs, gold = load(data / name)
    run_neardup(docs[:50], 0.5)  # warm-up: imports, stop words, numba-free caches
    run_datasketch(docs[:50], 0.5)
    lsh: dict[str, dict[str, Any]] = {"neardup": {}, "datasketch": {}}
    for t in thresholds:
        nd_s = ds_s = float("inf")
        for _ in range(repeat):  # interleaved rounds, each keeps its fastest
            nd_pairs, sec = run_neardup(docs, t)
            nd_s = min(nd_s, sec)
            ds_pairs, sec, stages = run_datasketch(docs, t)
            if sec < ds_s:
                ds_s, ds_stages = sec, stages
        lsh["neardup"][str(t)] = _score(nd_pairs, gold, scope, nd_s)
        row = _score(ds_pairs, gold, scope, ds_s)
        row["stages_s"] = {k: round(v, 3) for k, v in ds_stages.items()}
        lsh["datasketch"][str(t)] = row
        nd, ds = lsh["neardup"][str(t)], lsh["datasketch"][str(t)]
        log(
            f"  {name} t={t}: neardup minhash-lsh F1 {nd['f1']:.3f} {nd['seconds']:.2f}s | "
            f"datasketch F1 {ds['f1']:.3f} {ds['seconds']:.2f}s | "
            f"speed-up {ds['seconds'] / nd['seconds']:.1f}x"
        )
    best: dict[str, Any] = {}
    if name == "clough-stevenson":
        c = CLOUGH_BEST
        pairs, sec = run_neardup(
            docs, c["t"], c["method"], c["measure"], shingle_size=c["shingle_size"]
        )
        best[str(c["t"])] = _score(pairs, gold, scope, sec)
        setting = {k: v for k, v in c.items() if k != "t"}
    else:
        best, setting = _best_preparation(name, docs, gold, scope, best_t, log)
    top_t = max(best, key=lambda k: best[k]["f1"])
    log(f"  {name}: neardup best {setting} t={top_t}: F1 {best[top_t]['f1']:.3f}")
    return {
        "docs": len(docs),
        "scope": scope,
        "gold_positives": len(gold.positives),
        "minhash_lsh": lsh,
        "neardup_best": {"setting": setting, "by_t": best, "best_t": float(top_t)},
        "reference": REFERENCE[name],
    }


#: Preparations tried for neardup's best (shingles-full, resemblance): the default and the
#: one `neardup evaluate` found best on the set (8-word/8-character shingles on the Linux
#: sets, stemmed 2-word shingles on Pro Git).
PREPARATIONS: dict[str, list[dict[str, Any]]] = {
    "linux-doc-revisions": [{"shingle_size": 5}, {"shingle_size": 8}],
    "linux-doc-zh-revisions": [{"shingle_size": 5}, {"shingle_size": 8}],
    "progit-ru-revisions": [{"shingle_size": 5}, {"shingle_size": 2, "morphology": "stem"}],
}
PREP_T = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


def _best_preparation(
    name: str,
    docs: Sequence[Document],
    gold: Gold,
    scope: str,
    best_t: Sequence[float],
    log: Any,
) -> tuple[dict[str, dict], dict[str, Any]]:
    """shingles-full over the set's preparations and thresholds: the best one's rows."""
    from neardup.text.canonical import CanonicalForm

    top: tuple[float, dict[str, dict], dict[str, Any]] = (-1.0, {}, {})
    for prep in PREPARATIONS.get(name, [{"shingle_size": 5}]):
        params: dict[str, Any] = {"shingle_size": prep["shingle_size"]}
        if "morphology" in prep:
            params["canonical"] = CanonicalForm(morphology=prep["morphology"])
        rows = {}
        for t in sorted(set(best_t) | set(PREP_T)):
            pairs, sec = run_neardup(docs, t, "shingles-full", **params)
            rows[str(t)] = _score(pairs, gold, scope, sec)
        f1 = max(r["f1"] for r in rows.values())
        log(f"  {name}: shingles-full {prep}: best F1 {f1:.3f}")
        if f1 > top[0]:
            setting = {"method": "shingles-full", "measure": "resemblance", **prep}
            top = (f1, rows, setting)
    return top[1], top[2]


def _best(by_t: dict[str, dict]) -> tuple[str, dict]:
    t = max(by_t, key=lambda k: by_t[k]["f1"])
    return t, by_t[t]


def summary_rows(results: dict[str, dict]) -> list[dict[str, Any]]:
    """One row per set: the figures of the F1 table."""
    rows = []
    for name, r in results.items():
        nd_t, nd = _best(r["minhash_lsh"]["neardup"])
        ds_t, ds = _best(r["minhash_lsh"]["datasketch"])
        best = r["neardup_best"]["by_t"][str(r["neardup_best"]["best_t"])]
        same = r["minhash_lsh"]["neardup"][ds_t]  # neardup at datasketch's best t
        rows.append(
            {
                "set": name,
                "scope": r["scope"],
                "neardup_best_f1": best["f1"],
                "neardup_best_t": r["neardup_best"]["best_t"],
                "neardup_best_setting": r["neardup_best"]["setting"],
                "neardup_lsh_f1": nd["f1"],
                "neardup_lsh_t": float(nd_t),
                "datasketch_lsh_f1": ds["f1"],
                "datasketch_lsh_t": float(ds_t),
                "reference_f1": r["reference"]["f1"],
                "reference_containment_f1": r["reference"].get("containment_f1"),
                "lsh_seconds_neardup": same["seconds"],
                "lsh_seconds_datasketch": ds["seconds"],
                "lsh_speedup": ds["seconds"] / same["seconds"],
            }
        )
    return rows


def markdown(results: dict[str, dict]) -> str:
    """The F1 table and the per-threshold LSH table."""
    lines = [
        "| set (scope) | neardup best (setting, t) | neardup MinHash-LSH (t) | "
        "datasketch MinHashLSH (t) | README reference |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in summary_rows(results):
        s = row["neardup_best_setting"]
        how = f"{s['measure']}, {s['shingle_size']}-shingles" + (
            f", {s['morphology']}" if s.get("morphology") else ""
        )
        ref = f"{row['reference_f1']:.3f}"
        if row["reference_containment_f1"] is not None:
            ref += f" (containment {row['reference_containment_f1']:.3f})"
        lines.append(
            f"| {row['set']} ({row['scope']}) | **{row['neardup_best_f1']:.3f}** "
            f"({how}, {row['neardup_best_t']}) | {row['neardup_lsh_f1']:.3f} "
            f"({row['neardup_lsh_t']}) | {row['datasketch_lsh_f1']:.3f} "
            f"({row['datasketch_lsh_t']}) | {ref} |"
        )
    lines += [
        "",
        "| set | t | neardup P / R / F1 | neardup s | datasketch P / R / F1 | datasketch s "
        "| datasketch s / neardup s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        for t, nd in r["minhash_lsh"]["neardup"].items():
            ds = r["minhash_lsh"]["datasketch"][t]
            lines.append(
                f"| {name} | {t} | {nd['precision']:.3f} / {nd['recall']:.3f} / "
                f"{nd['f1']:.3f} | {nd['seconds']:.2f} | {ds['precision']:.3f} / "
                f"{ds['recall']:.3f} / {ds['f1']:.3f} | {ds['seconds']:.2f} | "
                f"{ds['seconds'] / nd['seconds']:.1f}x |"
            )
    return "\n".join(lines)


def run(
    sets: Sequence[str] = tuple(SETS),
    thresholds: Sequence[float] = (0.3, 0.5),
    best_t: Sequence[float] = BEST_T,
    data: Path = DATA,
    repeat: int = 1,
    log: Any = print,
) -> dict[str, dict]:
    """All sets; ``{set: result}``."""
    return {name: bench_set(name, thresholds, best_t, data, log, repeat) for name in sets}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="*", default=list(SETS), choices=list(SETS))
    ap.add_argument("--thresholds", nargs="*", type=float, default=[0.3, 0.5])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds, fastest kept")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args(argv)
    results = run(args.sets, args.thresholds, BEST_T, args.data, args.repeat)
    print(markdown(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
