"""The parallel ingest signs in its workers exactly what the one-process job signs.

Real text: the Chekhov stories of ``examples/corpus``, with near copies made by deleting
every k-th word, and one exact copy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from fresh_python import run_code
from neardup.errors import ParameterError
from neardup.job.pairs import PairTable
from neardup.job.pipeline import DedupOptions, dedup
from neardup.methods.registry import make_method
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling
from neardup.text.canonical import CanonicalForm
from neardup.text.types import Document

CHEKHOV = Path(__file__).resolve().parents[1] / "examples" / "corpus" / "chekhov"


def _texts() -> list[tuple[str, str]]:
    stories = [(p.stem, p.read_text(encoding="utf-8")) for p in sorted(CHEKHOV.glob("*.txt"))]
    out = list(stories)
    for k, (name, text) in enumerate(stories):
        words = text.split(" ")
        out.append((f"{name}-cut{k}", " ".join(w for i, w in enumerate(words) if i % (40 + k))))
    out.append(("exact", stories[0][1]))
    return out


def _sets(texts: list[str]) -> ShingleSets:
    return Shingling(seed=1).batch_texts(texts, CanonicalForm())


def test_minhash_rows_of_parts_stack_to_the_whole_corpus_signatures() -> None:
    meth = make_method("minhash-lsh", threshold=0.5)
    texts = [t for _, t in _texts()]
    whole = meth.from_sets(_sets(texts))
    rows = [meth.sign_rows(_sets(texts[i : i + 3])) for i in range(0, len(texts), 3)]
    stacked = meth.from_rows(np.concatenate(rows))
    assert stacked.key == whole.key and stacked.count == whole.count == len(texts)
    assert np.array_equal(stacked.data, whole.data)


def test_methods_that_do_not_sign_rows_refuse() -> None:
    from neardup.errors import ParameterError

    with pytest.raises(ParameterError, match="shingles-full"):
        make_method("shingles-full").sign_rows(_sets(["один два три четыре пять шесть"]))


@pytest.mark.parametrize("method", ["minhash-lsh", "shingles-full"])
def test_workers_give_the_one_process_result(tmp_path: Path, method: str) -> None:
    rows = _texts()
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in rows), "utf-8")
    opts = DedupOptions(threshold=0.5)
    docs = [Document(i, t) for i, t in rows]
    alone = dedup(docs, method=method, options=opts)
    workers = dedup([str(src)], method=method, options=opts, jobs=2)
    assert workers.ids == alone.ids
    assert [(p.a, p.b, p.resemblance) for p in workers.pairs] == [
        (p.a, p.b, p.resemblance) for p in alone.pairs
    ]
    scores = {(p.a, p.b): p.resemblance for p in workers.pairs}
    assert scores[(rows[0][0], "exact")] == 1.0
    stories = [name for name, _ in rows if "-cut" not in name and name != "exact"]
    assert all(scores[(s, f"{s}-cut{k}")] > 0.5 for k, s in enumerate(stories))
    signed_in_workers = workers.summary["executor"]["worker_seconds"]["sign"]
    assert signed_in_workers > 0.0


def test_content_keys_do_not_depend_on_the_chunk_size(monkeypatch: pytest.MonkeyPatch) -> None:
    import neardup.methods.sets as sets_module

    sets = _sets([t for _, t in _texts()])
    whole = sets.content_keys()
    monkeypatch.setattr(sets_module, "_KEY_CHUNK", 7)  # smaller than any set: one a chunk
    assert np.array_equal(sets.content_keys(), whole)
    assert whole[0] == whole[-1]  # the exact copy
    assert np.unique(whole).shape[0] == len(whole) - 1


def test_stacking_consumes_the_parts_and_equals_concatenate() -> None:
    from neardup._memory import stack_consuming

    rng = np.random.default_rng(3)
    parts = [rng.integers(0, 2**63, (k, 4), dtype=np.uint64) for k in (3, 0, 5, 1)]
    want = np.concatenate(parts)
    pending = list(parts)
    got = stack_consuming(pending)
    assert pending == [] and got.dtype == want.dtype and np.array_equal(got, want)


def test_trimming_starts_no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child forked from a job of several GiB would be reported as a worker that large
    (the kernel's peak of the children), so the C library is found without one."""
    import subprocess

    from neardup import _memory

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a process was started")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    _memory._libc.cache_clear()
    assert _memory.trim() in (True, False)
    assert _memory._libc() is not None  # glibc on the machines neardup is tested on


#: What the scripts below start with: glibc's allocation figures (``mallinfo2``), the
#: bytes it mapped on its own (``hblkhd``) and the freed bytes it keeps (``fordblks``).
_MALLINFO = """
import ctypes
import numpy as np

class MallInfo2(ctypes.Structure):
    _fields_ = [(f, ctypes.c_size_t) for f in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
"""

_MAPPED = """
from neardup._memory import keep_freed_heap
if MODE == "keep":
    assert keep_freed_heap()
before = libc.mallinfo2().hblkhd
arr = np.ones(5_000_000, dtype=np.uint64)
print(libc.mallinfo2().hblkhd - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc mallopt")
def test_kept_heap_serves_large_temporaries() -> None:
    """After keep_freed_heap a 40 MB temporary comes from the heap (reused unit after
    unit), not from a fresh kernel mapping whose pages fault in again for every unit (a
    sixth of the workers' CPU on 100k documents); glibc's own count of mapped bytes
    (mallinfo2) tells which, in a fresh interpreter."""
    mapped = {}
    for mode in ("plain", "keep"):
        got = run_code(_MALLINFO + _MAPPED.replace("MODE", repr(mode)))
        assert got.returncode == 0, got.stderr
        mapped[mode] = int(got.stdout)
    assert mapped["plain"] >= 40_000_000 and mapped["keep"] == 0


_WHOLE = """
from neardup._memory import whole_heap
restore = whole_heap()
before = libc.mallinfo2().hblkhd
arr = np.ones(50_000_000, dtype=np.uint64)
held = libc.mallinfo2().hblkhd - before
del arr
kept = libc.mallinfo2().fordblks  # freed, kept on the heap
restore()
arr = np.ones(50_000_000, dtype=np.uint64)
print(held, kept, libc.mallinfo2().hblkhd - before, libc.mallinfo2().fordblks)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc mallopt")
def test_whole_heap_serves_even_the_largest_arrays_and_restores_glibc() -> None:
    """Within whole_heap a 400 MB array comes from the heap and stays there once freed (the
    local job's main process makes the next one in the same pages); after its restore the
    freed heap is given back and glibc maps a large block on its own again."""
    got = run_code(_MALLINFO + _WHOLE)
    assert got.returncode == 0, got.stderr
    held, kept, mapped, left = map(int, got.stdout.split())
    assert held == 0 and kept >= 400_000_000
    assert mapped >= 400_000_000 and left < 100_000_000


_JOB_HEAP = """
from neardup.job import pipeline
mapped = []

def mapped_bytes():
    before = libc.mallinfo2().hblkhd
    arr = np.ones(50_000_000, dtype=np.uint64)
    return libc.mallinfo2().hblkhd - before

real = pipeline.find_pairs
def noting(*args, **kwargs):
    mapped.append(mapped_bytes())
    return real(*args, **kwargs)

pipeline.find_pairs = noting
result = pipeline.dedup([CORPUS], jobs=1)
print(len(result.pairs), mapped[0], mapped_bytes())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc mallopt")
def test_the_local_job_serves_its_arrays_from_the_heap_while_it_runs(tmp_path: Path) -> None:
    """The local job's main process holds whole_heap from its start to its end: a 400 MB
    array made while it finds pairs comes from the heap; one made after it is mapped."""
    corpus = tmp_path / "c.jsonl"
    text = "the quick brown fox jumps over the lazy dog near the river bank today"
    corpus.write_text("".join(json.dumps({"id": k, "text": text}) + "\n" for k in "ab"))
    got = run_code(_MALLINFO + _JOB_HEAP.replace("CORPUS", repr(str(corpus))), timeout=120)
    assert got.returncode == 0, got.stderr
    pairs, during, after = map(int, got.stdout.split())
    assert pairs == 1 and during == 0 and after >= 400_000_000


def test_workers_start_by_keeping_freed_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    from neardup import _memory
    from neardup.job import prepare_pool

    calls: list[tuple[object, ...]] = []
    monkeypatch.setattr(prepare_pool, "_die_with", lambda parent: calls.append(("die", parent)))

    def keep() -> bool:
        calls.append(("keep",))
        return True

    monkeypatch.setattr(_memory, "keep_freed_heap", keep)
    monkeypatch.setattr(prepare_pool, "_SLOTS", [None])
    slots = prepare_pool.ResultSlots(count=1, size=1 << 12)
    prepare_pool._start_worker(123, slots.map)
    assert calls == [("die", 123), ("keep",)]
    assert prepare_pool._SLOTS[0] is slots.map


def _unit_and_config(tmp_path: Path, method: str) -> tuple[object, object]:
    """The first read unit of the Chekhov corpus as JSONL, and the job's prepare config."""
    from neardup.methods.plan import PrepareConfig
    from neardup.text.inputs import plan_units
    from neardup.text.read import read_options

    src = tmp_path / "in.jsonl"
    rows = _texts()
    src.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in rows), "utf-8")
    meth = make_method(method)
    config = PrepareConfig(
        canonical=meth.canonical,
        shingling=meth.shingling,
        min_tokens=3,
        signer=meth if method == "minhash-lsh" else None,  # one row a document
        read=read_options(),
    )
    (unit,) = plan_units([src], read_options())
    return unit, config


@pytest.mark.parametrize("method", ["minhash-lsh", "shingles-full"])
def test_a_result_handed_over_in_a_slot_is_the_unit_prepared_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    """A worker copies its result's arrays into its slot of the shared map and sends the
    rest: read back from the slot they equal the unit prepared in one process; a result
    larger than a slot is sent whole."""
    from neardup.job import prepare_pool
    from neardup.job.prepare import prepare_unit

    unit, config = _unit_and_config(tmp_path, method)
    alone = prepare_unit(unit, config)  # type: ignore[arg-type]
    slots = prepare_pool.ResultSlots(count=2, size=1 << 20)
    monkeypatch.setattr(prepare_pool, "_SLOTS", [slots.map])
    sent, layout = prepare_pool.prepare_placed(unit, config, 1, size=1 << 20)  # type: ignore[arg-type]
    assert layout is not None and [name for name, *_ in layout][:2] == ["values", "offsets"]
    assert sent.sets.values.size == sent.keys.size == sent.counts.size == 0  # not piped
    back = prepare_pool.with_arrays(sent, slots.arrays(1, layout))
    assert back.ids == alone.ids == [name for name, _ in _texts()]
    assert np.array_equal(back.sets.values, alone.sets.values)
    assert np.array_equal(back.sets.offsets, alone.sets.offsets)
    assert np.array_equal(back.keys, alone.keys) and np.array_equal(back.counts, alone.counts)
    assert np.array_equal(back.positions, alone.positions)
    if method == "minhash-lsh":
        assert back.rows is not None and alone.rows is not None
        assert back.rows.shape == (len(alone.ids), 128)
        assert np.array_equal(back.rows, alone.rows)
    else:
        assert back.rows is None and alone.rows is None
    whole, none = prepare_pool.prepare_placed(unit, config, 0, size=1 << 12)  # type: ignore[arg-type]
    assert none is None and np.array_equal(whole.sets.values, alone.sets.values)
    monkeypatch.setattr(prepare_pool, "_SLOTS", [None])  # a spawned worker: no map
    assert prepare_pool.prepare_placed(unit, config, 0)[1] is None  # type: ignore[arg-type]


def test_slots_are_taken_and_given_back_and_a_bad_size_refused() -> None:
    from neardup.job.prepare_pool import ResultSlots

    slots = ResultSlots(count=2, size=1 << 12)
    assert len(slots.map) == 2 << 12
    first, second = slots.take(), slots.take()
    assert (first, second) == (0, 1)
    with pytest.raises(IndexError):
        slots.take()
    slots.give_back(second)
    assert slots.take() == 1
    with pytest.raises(ParameterError, match="size"):
        ResultSlots(count=2, size=100)
    with pytest.raises(ParameterError, match="count"):
        ResultSlots(count=0)


@pytest.mark.parametrize("method", ["minhash-lsh", "shingles-full"])
def test_sets_and_rows_spilled_to_disk_give_the_same_result(tmp_path: Path, method: str) -> None:
    rows = _texts()
    paths = []
    for k in range(3):  # three files: three units, the first held, then spilled
        src = tmp_path / f"in{k}.jsonl"
        part = rows[k::3]
        src.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in part), "utf-8")
        paths.append(str(src))
    spill = tmp_path / "spill"
    spill.mkdir()
    opts = DedupOptions(threshold=0.5)
    held = dedup(paths, method=method, options=opts, jobs=2)
    spilled = dedup(paths, method=method, options=opts, jobs=2, memory_budget=1, spill_dir=spill)
    assert held.summary["executor"]["spilled_to_disk"] is False
    assert spilled.summary["executor"]["spilled_to_disk"] is True
    assert spilled.ids == held.ids
    assert isinstance(spilled.pairs, PairTable) and isinstance(
        held.pairs, PairTable
    )  # DedupResult.pairs is a Sequence[Pair]; dedup gives a PairTable
    assert np.array_equal(spilled.pairs.rows, held.pairs.rows) and len(held.pairs) > 0
    assert list(spilled.pairs) == list(held.pairs)
    assert [c.members for c in spilled.clusters] == [c.members for c in held.clusters]
    assert spilled.dropped == held.dropped
    assert list(spill.iterdir()) == []
    assert any(p.b == "exact" or p.a == "exact" for p in spilled.pairs)


def test_a_bad_memory_budget_or_spill_dir_is_refused(tmp_path: Path) -> None:
    from neardup.errors import ParameterError

    docs = [Document("a", "один два три четыре пять шесть")]
    with pytest.raises(ParameterError, match="memory_budget"):
        dedup(docs, memory_budget=-1)
    with pytest.raises(ParameterError, match="spill_dir"):
        dedup(docs, spill_dir=tmp_path / "missing")


def test_repeated_ids_are_renamed_and_short_documents_skipped_as_in_one_process(
    tmp_path: Path,
) -> None:
    texts = [t for _, t in _texts()]
    files = [  # ids repeated within a unit and across units; short texts in both
        [("a", texts[0]), ("b", "два слова"), ("a", texts[1]), ("c", texts[2])],
        [("d", texts[3]), ("c", texts[4]), ("e", "одно"), ("b", texts[5]), ("f", texts[0])],
        [("g", texts[6]), ("h", texts[7])],  # nothing repeated: the fast path
    ]
    paths, docs = [], []
    for k, rows in enumerate(files):
        src = tmp_path / f"in{k}.jsonl"
        src.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in rows), "utf-8")
        paths.append(str(src))
        docs += [Document(i, t, f"{src}:{n + 1}") for n, (i, t) in enumerate(rows)]
    opts = DedupOptions(threshold=0.5)
    workers = dedup(paths, method="minhash-lsh", options=opts, jobs=2)
    alone = dedup(docs, method="minhash-lsh", options=opts)
    at = [f"{tmp_path / name}:{line}" for name, line in (("in0.jsonl", 3), ("in1.jsonl", 2))]
    at.append(f"{tmp_path / 'in1.jsonl'}:4")
    # a repeated id is renamed by its place, never dropped (the too-short "b" keeps its id)
    assert workers.ids == alone.ids == ["a", at[0], "c", "d", at[1], at[2], "f", "g", "h"]
    assert sorted((s.id, s.source, s.reason, s.detail) for s in workers.skipped) == sorted(
        (s.id, s.source, s.reason, s.detail) for s in alone.skipped
    )
    assert [(s.id, s.reason) for s in workers.skipped] == [("b", "too-short"), ("e", "too-short")]
    assert workers.summary["renamed_ids"] == alone.summary["renamed_ids"] == 3
    assert workers.summary["read"] == alone.summary["read"] == 11
    assert [(p.a, p.b) for p in workers.pairs] == [("a", "f")]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ is Linux's")
def test_the_result_pipe_is_widened_to_a_mebibyte_and_a_truncated_size_refused() -> None:
    """A unit's result (about 4 MB) crosses the pool's result pipe in 1 MiB writes, not in
    the default 64 KiB ones; a size ``fcntl`` would truncate to a page is refused."""
    import fcntl
    from concurrent.futures import ProcessPoolExecutor

    from neardup.job.prepare_pool import PIPE_BYTES, widen_result_pipe

    with ProcessPoolExecutor(max_workers=1) as pool:
        reader = pool._result_queue._reader  # type: ignore[attr-defined]
        assert fcntl.fcntl(reader.fileno(), fcntl.F_GETPIPE_SZ) == 1 << 16
        assert widen_result_pipe(pool) == PIPE_BYTES == 1 << 20
        assert fcntl.fcntl(reader.fileno(), fcntl.F_GETPIPE_SZ) == 1 << 20
        with pytest.raises(ParameterError, match="size"):
            widen_result_pipe(pool, 1 << 62)
        assert fcntl.fcntl(reader.fileno(), fcntl.F_GETPIPE_SZ) == 1 << 20
        assert pool.submit(sum, [1, 2]).result() == 3

    class Other:  # a pool without a result pipe (another implementation)
        pass

    assert widen_result_pipe(Other()) is None  # type: ignore[arg-type]
