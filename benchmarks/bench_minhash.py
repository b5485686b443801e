"""MinHash signature throughput: neardup vs datasketch vs rensa, raw text to signatures.

Every contender starts from the raw text of each document and ends with a 128-slot MinHash
of the *same* shingle set:

* tokenisation: ``CanonicalForm(stop_words=False).tokens(text)`` for datasketch and rensa
  (NFKC, lower case, ``ё`` -> ``е``, runs of letters/digits); neardup's vectorised
  tokeniser yields the same tokens (tested); included in every contender's time;
* shingles: word 5-shingles (a document of 1-4 tokens has one shingle, all of its tokens),
  exactly :meth:`neardup.methods.shingles.Shingling.shingles`. datasketch and rensa take one
  string (or bytes) per shingle, tokens joined by one space; neardup fingerprints the
  shingles from the token lists without building strings
  (from raw text: ``MinHashLSH.sketch_texts``'s path, vectorised tokenisation on the UTF-8
  bytes giving exactly the same tokens, XXH64 per token, shingle fingerprints, then
  one-permutation sketches; from token lists: ``Shingling(size=5).batch``), in batches of
  ``--batch`` documents;
* datasketch: ``datasketch.MinHash(num_perm=128)`` per document with the permutations made
  once and shared (its recommended fast use; making them per document would be ~2x slower),
  ``update_batch`` with the UTF-8 bytes of the shingles (SHA-1 hashing, its default);
* rensa: ``rensa.RMinHash(num_perm=128, seed=1)`` per document, ``update(shingles)``,
  ``digest()``; and rensa's bulk API ``RMinHash.digest_matrix_from_token_sets`` on the same
  batches (its fastest full-set path). rensa runs with ``RAYON_NUM_THREADS=1`` unless
  ``--threads`` says otherwise (neardup and datasketch are single-threaded); the contender
  ``neardup (2 threads)`` is neardup's own ``workers=2`` path (compare it with rensa run
  with ``--threads 2``; datasketch is pure Python and cannot use a second core).

Corpus: documents of ``--words`` (300) whitespace-separated words cut, as exact substrings,
from RusLit (``../shared/data/ruslit/**/*.txt``, Russian, UTF-8; undecodable files skipped)
and the Linux kernel documentation (``../shared/data/linux-doc-revisions/docs.jsonl``,
English), half from each (interleaved). When more documents are asked for than the corpus
holds (~35k), documents are reused in order (noted in the JSON as ``reused``).

Also measured: neardup's peak memory (``VmHWM`` of a fresh subprocess, reset after loading
the corpus, minus its RSS then; the (n, 128) uint64 output is part of it) per 100k documents;
and agreement: mean absolute difference between estimated and exact Jaccard of the shingle
sets over random pairs with exact J > 0.1 (real revisions from linux-doc-revisions'
``gold.jsonl`` and documents with random word edits).

Usage::

    .venv/bin/python benchmarks/bench_minhash.py [--docs 20000] [--pairs 500] [--profile]

Prints a Markdown table and writes ``benchmarks/results/minhash.json``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

if "--threads" not in sys.argv:  # must be set before rensa starts its thread pool
    os.environ.setdefault("RAYON_NUM_THREADS", "1")

import numpy as np

from neardup.methods.minhash import MinHasher, estimate_jaccard
from neardup.methods.shingles import Shingling
from neardup.text.canonical import CanonicalForm

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results" / "minhash.json"
NUM_PERM = 128
SIZE = 5
SEED = 1
_WS = re.compile(r"\S+")

CANON = CanonicalForm(stop_words=False)
SHINGLING = Shingling(size=SIZE)
HASHER = MinHasher(num_perm=NUM_PERM, seed=SEED)
POOL = ThreadPoolExecutor(max_workers=2)


# -- corpus ----------------------------------------------------------------------------------
def cut(text: str, words: int) -> Iterator[str]:
    """Consecutive pieces of ``text`` of ``words`` whitespace-separated words (exact substrings).

    A last piece shorter than half of ``words`` is dropped.
    """
    spans = [m.span() for m in _WS.finditer(text)]
    for lo in range(0, len(spans), words):
        piece = spans[lo : lo + words]
        if len(piece) * 2 >= words:
            yield text[piece[0][0] : piece[-1][1]]


def russian_texts(data: Path = DATA) -> Iterator[str]:
    """Raw texts of RusLit in path order; files that are not valid UTF-8 are skipped."""
    for path in sorted((data / "ruslit").rglob("*.txt")):
        if path.name.upper().startswith(("README", "ORIGINAL_README")):
            continue
        try:
            yield path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue


def english_texts(data: Path = DATA) -> Iterator[str]:
    """Raw texts of linux-doc-revisions/docs.jsonl in file order."""
    with (data / "linux-doc-revisions" / "docs.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)["text"]


def load_corpus(n: int, words: int = 300, data: Path = DATA) -> tuple[list[str], bool]:
    """``n`` documents, Russian and English alternating; ``(docs, reused)``.

    Raises:
        SystemExit: the data directory is missing.
    """
    if not (data / "ruslit").is_dir():
        raise SystemExit(f"corpus missing: {data}")
    half = (n + 1) // 2
    ru = _take((p for t in russian_texts(data) for p in cut(t, words)), half)
    en = _take((p for t in english_texts(data) for p in cut(t, words)), half)
    mixed = [d for pair in zip(ru, en, strict=False) for d in pair]
    reused = len(mixed) < n
    docs = [mixed[i % len(mixed)] for i in range(n)]
    return docs, reused


def _take(it: Iterator[str], n: int) -> list[str]:
    out: list[str] = []
    for item in it:
        out.append(item)
        if len(out) == n:
            break
    return out


# -- contenders ------------------------------------------------------------------------------
def shingle_strings(tokens: Sequence[str], w: int = SIZE) -> list[str]:
    """Word ``w``-shingles joined by one space, as :meth:`Shingling.shingles` (step 1)."""
    n = len(tokens)
    if n == 0:
        return []
    if n < w:
        return [" ".join(tokens)]
    return [" ".join(tokens[i : i + w]) for i in range(n - w + 1)]


def batches(docs: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for lo in range(0, len(docs), size):
        yield docs[lo : lo + size]


Tokeniser = Callable[[str], list[str]]


def run_neardup(docs: Sequence[str], batch: int, tok: Tokeniser = CANON.tokens) -> np.ndarray:
    """neardup: from raw text, its vectorised path (``MinHashLSH.sketch_texts``: canonical
    tokens as byte ranges, XXH64 per token, shingle fingerprints, one-permutation sketches,
    no Python object per token); from token lists, ``Shingling.batch`` then ``sketches``.
    Both give the sketches of the same shingle sets as the peers' input."""
    out = []
    for part in batches(docs, batch):
        if tok == CANON.tokens:  # raw text (bound methods compare equal, not identical)
            values, doc = SHINGLING.occurrences_texts(part, CANON)
            out.append(HASHER.sketch_occurrences(values, doc, len(part)))
        else:
            out.append(HASHER.sketches(SHINGLING.batch([tok(t) for t in part])))
    return np.concatenate(out) if out else np.zeros((0, NUM_PERM), np.uint64)


def run_neardup_threads(
    docs: Sequence[str], batch: int, tok: Tokeniser = CANON.tokens, workers: int = 2
) -> np.ndarray:
    """neardup on ``workers`` threads: each chunk is cut in ``workers`` parts signed at
    once (numpy releases the GIL; normalisation does not). Raw text only; from token
    lists it is :func:`run_neardup`. The output equals the single-thread one."""
    if tok != CANON.tokens:
        return run_neardup(docs, batch, tok)
    step = -(-len(docs) // workers)
    parts = [docs[i : i + step] for i in range(0, len(docs), step)]
    return np.concatenate(list(POOL.map(lambda part: run_neardup(part, batch), parts)))


def run_neardup_stages(docs: Sequence[str], batch: int) -> dict[str, float]:
    """neardup's time split on raw text: canonical token fingerprints (vectorised
    tokenisation + XXH64), shingle fingerprints, sketching."""
    from neardup.text.vectorized import canonical_fingerprints

    t_tok = t_sh = t_mh = 0.0
    for part in batches(docs, batch):
        t0 = time.perf_counter()
        tok, offsets = canonical_fingerprints(part, CANON, SHINGLING.seed)
        t1 = time.perf_counter()
        values, doc = SHINGLING.from_token_fingerprints(tok, np.diff(offsets))
        t2 = time.perf_counter()
        HASHER.sketch_occurrences(values, doc, len(part))
        t3 = time.perf_counter()
        t_tok, t_sh, t_mh = t_tok + t1 - t0, t_sh + t2 - t1, t_mh + t3 - t2
    return {"tokenise_s": t_tok, "shingle_hash_s": t_sh, "sketch_s": t_mh}


def datasketch_factory() -> Callable[[], object]:
    """A maker of empty ``datasketch.MinHash`` objects sharing one set of permutations."""
    from functools import partial

    from datasketch import MinHash

    template = MinHash(num_perm=NUM_PERM, seed=SEED)
    return partial(
        MinHash,
        num_perm=NUM_PERM,
        seed=SEED,
        permutations=template.permutations,
        scheme=template.scheme,
    )


def run_datasketch(
    docs: Sequence[str], batch: int, tok: Tokeniser = CANON.tokens
) -> list[np.ndarray]:
    """datasketch: one MinHash per document (shared permutations), ``update_batch``."""
    new = datasketch_factory()
    out = []
    for text in docs:
        m = new()
        m.update_batch([s.encode("utf-8") for s in shingle_strings(tok(text))])
        out.append(m.hashvalues)
    return out


def run_rensa(docs: Sequence[str], batch: int, tok: Tokeniser = CANON.tokens) -> list[list[int]]:
    """rensa: one ``RMinHash`` per document, ``update(shingles)``, ``digest()``."""
    from rensa import RMinHash

    out = []
    for text in docs:
        m = RMinHash(num_perm=NUM_PERM, seed=SEED)
        m.update(shingle_strings(tok(text)))
        out.append(m.digest())
    return out


def run_rensa_bulk(docs: Sequence[str], batch: int, tok: Tokeniser = CANON.tokens) -> list[object]:
    """rensa's bulk API: ``RMinHash.digest_matrix_from_token_sets`` per batch."""
    from rensa import RMinHash

    out = []
    for part in batches(docs, batch):
        sets = [shingle_strings(tok(t)) for t in part]
        out.append(RMinHash.digest_matrix_from_token_sets(sets, num_perm=NUM_PERM, seed=SEED))
    return out


def _given(tokens: list[str]) -> list[str]:
    """The "tokeniser" of the from-tokens runs: the input is already a token list."""
    return tokens


CONTENDERS: dict[str, Callable[..., object]] = {
    "neardup": run_neardup,
    "neardup (2 threads)": run_neardup_threads,
    "datasketch": run_datasketch,
    "rensa": run_rensa,
    "rensa (bulk)": run_rensa_bulk,
}


@dataclass
class Timing:
    name: str
    seconds: float
    docs: int
    megabytes: float

    @property
    def docs_per_s(self) -> float:
        return self.docs / self.seconds

    @property
    def mb_per_s(self) -> float:
        return self.megabytes / self.seconds


def time_interleaved(
    names: Sequence[str],
    items: Sequence[object],
    batch: int,
    repeat: int,
    megabytes: float,
    tok: Callable[..., list[str]] = CANON.tokens,
) -> list[Timing]:
    """Wall-clock time of each contender over all ``items``, robust to a busy machine.

    ``items`` are cut into chunks of ``batch``; on each chunk the contenders run one after
    the other, ``repeat`` rounds, and each keeps its fastest round; a contender's time is
    the sum over chunks. Interleaving exposes all contenders to the same background load.
    ``items`` are raw texts (``tok`` the canonical tokeniser) or token lists (``tok`` is
    :func:`_given`, for the tokenisation-excluded run).
    """
    for name in names:  # warm-up: imports, caches, stop words
        CONTENDERS[name](items[: min(len(items), 200)], batch, tok)
    total = dict.fromkeys(names, 0.0)
    for chunk in batches(items, batch):
        best = dict.fromkeys(names, float("inf"))
        for _ in range(repeat):
            for name in names:
                start = time.perf_counter()
                CONTENDERS[name](chunk, batch, tok)
                best[name] = min(best[name], time.perf_counter() - start)
        for name in names:
            total[name] += best[name]
    return [Timing(name, total[name], len(items), megabytes) for name in names]


# -- memory (subprocess) ---------------------------------------------------------------------
def _status_mb(field: str) -> float:
    """A memory field of /proc/self/status (``VmRSS``, ``VmHWM``) in MiB (Linux)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024  # kB
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak() -> bool:
    """Reset this process's peak RSS (VmHWM) to its current RSS (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def memory_child(n: int, batch: int, words: int) -> None:
    """Child process: load ``n`` docs, run neardup, print JSON of seconds and memory.

    The peak is ``VmHWM`` (this process's own high-water mark; ``ru_maxrss`` would carry
    the parent's RSS over ``fork``/``exec``), reset after the corpus is loaded when the
    kernel allows it.
    """
    docs, reused = load_corpus(n, words)
    CANON.tokens("warm up")
    reset = _reset_peak()
    base = _status_mb("VmRSS")
    start = time.perf_counter()
    sig = run_neardup(docs, batch)
    seconds = time.perf_counter() - start
    peak = _status_mb("VmHWM")
    unique_docs = {id(d): d for d in docs}.values()
    print(
        json.dumps(
            {
                "docs": n,
                "reused": reused,
                "seconds": seconds,
                "peak_reset_after_corpus": reset,
                "rss_after_corpus_mb": base,
                "peak_rss_mb": peak,
                "pipeline_peak_mb": peak - base,
                "signatures_mb": sig.nbytes / 2**20,
                "corpus_text_mb": sum(sys.getsizeof(d) for d in unique_docs) / 2**20,
            }
        )
    )


def measure_memory(n: int, batch: int, words: int) -> dict[str, object]:
    """Run :func:`memory_child` in a fresh interpreter and scale to 100k documents."""
    cmd = [sys.executable, __file__, "--memory-child", str(n), "--batch", str(batch)]
    cmd += ["--words", str(words)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    res: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    scale = 100_000 / n
    res["pipeline_peak_mb_per_100k"] = float(res["pipeline_peak_mb"]) * scale  # type: ignore[arg-type]
    res["scaled_from_docs"] = n
    return res


# -- agreement -------------------------------------------------------------------------------
def edit_words(text: str, rate: float, rng: random.Random) -> str:
    """``text`` with about ``rate`` of its words deleted, replaced or duplicated."""
    words = text.split()
    out: list[str] = []
    for w in words:
        r = rng.random()
        if r < rate / 3:
            continue
        if r < 2 * rate / 3:
            out.append(rng.choice(words))
        elif r < rate:
            out.extend((w, rng.choice(words)))
        else:
            out.append(w)
    return " ".join(out)


def revision_pairs(data: Path = DATA) -> list[tuple[str, str]]:
    """Raw texts of the labelled revision pairs of linux-doc-revisions (6.1 vs 6.12)."""
    root = data / "linux-doc-revisions"
    with (root / "docs.jsonl").open(encoding="utf-8") as fh:
        text = {r["id"]: r["text"] for r in map(json.loads, fh)}
    with (root / "gold.jsonl").open(encoding="utf-8") as fh:
        gold = [json.loads(line) for line in fh]
    return [(text[g["a"]], text[g["b"]]) for g in gold if g["label"] == 1]


def exact_jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def agreement(docs: Sequence[str], n_pairs: int, seed: int = 7) -> dict[str, object]:
    """Mean |estimate - exact| over ``n_pairs`` pairs with exact J > 0.1, per library.

    Half the pairs (at most) are real revisions from linux-doc-revisions; the rest are a
    corpus document and a copy with 2-40% of its words edited.
    """
    from rensa import RMinHash

    rng = random.Random(seed)
    pairs = _agreement_pairs(docs, n_pairs, rng)
    flat = [t for p in pairs for t in p]
    sig = run_neardup(flat, 2000)
    err: dict[str, list[float]] = {"neardup": [], "datasketch": [], "rensa": []}
    exact_all: list[float] = []
    new = datasketch_factory()
    for i, (a, b) in enumerate(pairs):
        sa, sb = (shingle_strings(CANON.tokens(t)) for t in (a, b))
        exact = exact_jaccard(set(sa), set(sb))
        exact_all.append(exact)
        err["neardup"].append(abs(estimate_jaccard(sig[2 * i], sig[2 * i + 1]) - exact))
        da, db = new(), new()
        da.update_batch([s.encode() for s in sa])
        db.update_batch([s.encode() for s in sb])
        err["datasketch"].append(abs(da.jaccard(db) - exact))
        ra, rb = RMinHash(NUM_PERM, SEED), RMinHash(NUM_PERM, SEED)
        ra.update(sa)
        rb.update(sb)
        err["rensa"].append(abs(ra.jaccard(rb) - exact))
    return {
        "pairs": len(pairs),
        "exact_jaccard_mean": float(np.mean(exact_all)),
        "exact_jaccard_range": [float(np.min(exact_all)), float(np.max(exact_all))],
        "mean_abs_error": {k: float(np.mean(v)) for k, v in err.items()},
        "expected_sd_mean": float(np.mean([np.sqrt(j * (1 - j) / NUM_PERM) for j in exact_all])),
    }


def _agreement_pairs(
    docs: Sequence[str], n_pairs: int, rng: random.Random
) -> list[tuple[str, str]]:
    def jac(a: str, b: str) -> float:
        return exact_jaccard(*(set(shingle_strings(CANON.tokens(t))) for t in (a, b)))

    real = [p for p in revision_pairs() if 0.1 < jac(*p) < 1.0]
    rng.shuffle(real)
    pairs = real[: n_pairs // 2]
    while len(pairs) < n_pairs:
        doc = rng.choice(docs)
        edited = edit_words(doc, rng.uniform(0.02, 0.4), rng)
        if jac(doc, edited) > 0.1:
            pairs.append((doc, edited))
    return pairs


# -- profile ---------------------------------------------------------------------------------
#: neardup functions whose cumulative time the profile reports (name -> label).
PROFILED = {
    "tokenize_batch": "vectorised tokenisation (tokenize_batch)",
    "xxh64_ranges": "  token XXH64 (xxh64_ranges)",
    "canonical_fingerprints": "token fingerprints total (canonical_fingerprints)",
    "_combine": "shingle combine (_combine)",
    "sketch_occurrences": "sketching (MinHasher.sketch_occurrences)",
}


def profile_neardup(docs: Sequence[str], batch: int, top: int = 12) -> tuple[dict, str]:
    """cProfile of :func:`run_neardup`: cumulative seconds of :data:`PROFILED`, and the top list.

    cProfile adds a per-call overhead, which inflates per-document Python calls
    (tokenisation) more than the per-batch numpy calls; use it for the split inside
    ``Shingling.batch``, and the plain stage timings for the big picture.
    """
    prof = cProfile.Profile()
    prof.runcall(run_neardup, docs, batch)
    stats = pstats.Stats(prof)
    cum: dict[str, float] = {}
    for (path, _line, name), row in stats.stats.items():  # type: ignore[attr-defined]
        if name in PROFILED and "neardup" in path:
            cum[PROFILED[name]] = cum.get(PROFILED[name], 0.0) + row[3]
    cum["total (profiled)"] = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
    return cum, buf.getvalue()


# -- report ----------------------------------------------------------------------------------
def table(timings: list[Timing], errors: dict[str, float] | None = None) -> str:
    """Markdown table: docs/s, MB/s, neardup's speed-up over each, estimate error."""
    nd = next(t for t in timings if t.name == "neardup")
    lines = [
        "| contender | seconds | docs/s | MB/s | neardup / contender | mean abs. error of Ĵ |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for t in timings:
        err = (errors or {}).get(t.name.split(" ")[0])
        err_s = f"{err:.4f}" if err is not None else "-"
        lines.append(
            f"| {t.name} | {t.seconds:.2f} | {t.docs_per_s:,.0f} | {t.mb_per_s:.2f} | "
            f"{nd.docs_per_s / t.docs_per_s:.2f}x | {err_s} |"
        )
    return "\n".join(lines)


def memory_line(mem: dict) -> str:
    return (
        f"neardup peak memory (RSS growth over the loaded corpus): "
        f"{mem['pipeline_peak_mb_per_100k']:.0f} MB per 100k docs (measured on "
        f"{mem['scaled_from_docs']:,} docs, {mem['seconds']:.1f} s; the (n, 128) uint64 "
        f"signatures are {mem['signatures_mb']:.0f} MB of it; whole process "
        f"{mem['peak_rss_mb']:.0f} MB incl. {mem['corpus_text_mb']:.0f} MB of corpus str)"
    )


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=20_000, help="documents (default 20000)")
    ap.add_argument("--words", type=int, default=300, help="words per document")
    ap.add_argument("--batch", type=int, default=2_000, help="neardup/rensa-bulk batch size")
    ap.add_argument("--repeat", type=int, default=1, help="rounds per chunk (best kept)")
    ap.add_argument("--pairs", type=int, default=500, help="pairs for the agreement check")
    ap.add_argument("--only", nargs="*", default=list(CONTENDERS), choices=list(CONTENDERS))
    ap.add_argument("--threads", type=int, default=None, help="RAYON_NUM_THREADS for rensa")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--profile", action="store_true", help="print neardup's cProfile top list")
    ap.add_argument("--memory-child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    if args.threads is not None:
        os.environ["RAYON_NUM_THREADS"] = str(args.threads)
    if args.memory_child is not None:
        memory_child(args.memory_child, args.batch, args.words)
        return
    if "neardup" not in args.only:
        args.only.insert(0, "neardup")

    docs, reused = load_corpus(args.docs, args.words)
    megabytes = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    print(f"corpus: {len(docs):,} docs, {megabytes:.1f} MB UTF-8, reused={reused}", flush=True)
    raw = _time_all(args, docs, megabytes, CANON.tokens, "raw text")
    token_lists = [CANON.tokens(d) for d in docs]
    pre = _time_all(args, token_lists, megabytes, _given, "from tokens")
    stages = run_neardup_stages(docs, args.batch)
    print("  neardup stages: " + ", ".join(f"{k}={v:.2f}" for k, v in stages.items()))
    split, top = profile_neardup(docs, args.batch)

    mem: dict = {}
    if not args.no_memory:
        nd_rate = raw[0].docs_per_s
        n_mem = 100_000 if 100_000 / nd_rate < 60 else args.docs
        mem = measure_memory(n_mem, args.batch, args.words)
    agree = agreement(docs, args.pairs) if args.pairs else {}

    if args.profile:
        print(top)
    errors = agree.get("mean_abs_error") if agree else None
    print("\n### Raw text -> signatures (tokenisation included, same tokeniser for all)\n")
    print(table(raw, errors))
    print("\n### Token lists -> signatures (tokenisation excluded)\n")
    print(table(pre))
    print("\n### Where neardup's time goes\n")
    total = sum(stages.values())
    for k, v in stages.items():
        print(f"- {k}: {v:.2f} s ({100 * v / total:.0f}%), {1e6 * v / len(docs):.1f} µs/doc")
    print(
        "- cProfile (cumulative s, with profiler overhead): "
        + "; ".join(f"{k.strip()} {v:.2f}" for k, v in split.items())
    )
    if mem:
        print("\n" + memory_line(mem))
    if agree:
        print(f"\nagreement: {json.dumps(agree)}")
    result = {
        "corpus": {
            "docs": args.docs,
            "words_per_doc": args.words,
            "megabytes_utf8": megabytes,
            "reused": reused,
        },
        "settings": {
            "num_perm": NUM_PERM,
            "shingle_size": SIZE,
            "batch": args.batch,
            "repeat": args.repeat,
            "rayon_threads": os.environ.get("RAYON_NUM_THREADS"),
            "tokeniser": "CanonicalForm(stop_words=False).tokens, all contenders",
        },
        "throughput_raw_text": _throughput(raw),
        "throughput_from_tokens": _throughput(pre),
        "neardup_stages_s": stages,
        "neardup_profile_cumulative_s": split,
        "memory": mem,
        "agreement": agree,
    }
    write_json(args.out, result)


def _time_all(
    args: argparse.Namespace,
    items: Sequence[object],
    megabytes: float,
    tok: Callable[..., list[str]],
    label: str,
) -> list[Timing]:
    out = time_interleaved(args.only, items, args.batch, args.repeat, megabytes, tok)
    for t in out:
        print(f"  [{label}] {t.name}: {t.seconds:.2f} s, {t.docs_per_s:,.0f} docs/s", flush=True)
    return out


def _throughput(timings: list[Timing]) -> dict[str, dict[str, float]]:
    nd = timings[0]
    return {
        t.name: {
            "seconds": t.seconds,
            "docs_per_s": t.docs_per_s,
            "mb_per_s": t.mb_per_s,
            "neardup_speedup": nd.docs_per_s / t.docs_per_s,
        }
        for t in timings
    }


def write_json(out: Path, result: dict) -> None:
    """Write ``result`` with versions and machine info to ``out``."""
    import datasketch

    result["versions"] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "datasketch": getattr(datasketch, "__version__", None) or _dist_version("datasketch"),
        "rensa": _dist_version("rensa"),
        "neardup": _dist_version("neardup"),
    }
    result["machine"] = {"platform": platform.platform(), "cpus": os.cpu_count()}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")


def _dist_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


if __name__ == "__main__":
    main()
