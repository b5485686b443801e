"""One prepare stage (:mod:`neardup.job.prepare`) behind every executor and collection.

Real text: the documents of ``examples/corpus`` written as two JSONL shards, with a
repeated id, a too-short document followed in the same shard by a malformed line (the
three rules of the prepare stage meet in one batch), so ``skipped.jsonl`` has every kind
of row.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from neardup.errors import ParameterError
from neardup.job.pipeline import DedupOptions, dedup
from neardup.job.prepare import (
    PreparedDocuments,
    kernel_of,
    prepare_documents,
    prepare_stream,
    prepare_unit,
    screen,
    shingle_texts,
    uses_token_fingerprints,
)
from neardup.job.prepare_pool import UnitMerger, prepared_units
from neardup.methods.plan import PrepareConfig, plan_for
from neardup.methods.registry import make_method, method_classes
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling
from neardup.output import write_result
from neardup.text.canonical import CanonicalForm
from neardup.text.inputs import Spool, plan_units, resolve_inputs
from neardup.text.read import read_corpus, read_options
from neardup.text.types import Document, Skipped

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"
FILES = ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl")
BUILT_IN = [cls.name for cls in method_classes() if cls.__module__.startswith("neardup.")]


def _rows() -> list[dict[str, str]]:
    docs = [d for d in read_corpus([str(CORPUS)]) if isinstance(d, Document)]
    rows = [{"id": d.id, "text": d.text} for d in docs]
    rows.insert(3, {"id": rows[2]["id"], "text": "a repeated id with words enough to shingle"})
    rows.insert(5, {"id": "short", "text": "two words"})
    return rows


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    rows = _rows()
    out = tmp_path_factory.mktemp("shards")
    half = len(rows) // 2
    paths = []
    for i, part in enumerate((rows[:half], rows[half:])):
        lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in part]
        if i == 0:
            lines.insert(6, "not json\n")  # after the short document, in the same batch
        path = out / f"shard-{i}.jsonl"
        path.write_text("".join(lines), encoding="utf-8")
        paths.append(str(path))
    return paths


def _files(out: Path) -> dict[str, str]:
    return {name: (out / name).read_text(encoding="utf-8") for name in FILES}


def _run(paths: list[str], out: Path, method: str, jobs: int) -> dict[str, str]:
    result = dedup(paths, method=method, options=DedupOptions(threshold=0.5), jobs=jobs)
    write_result(result, out)
    return _files(out)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:  # a distributed.Client (untyped)
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as cli,
    ):
        yield cli


def test_every_built_in_method_is_in_the_matrix() -> None:
    assert len(BUILT_IN) == 13 and "minhash-lsh" in BUILT_IN and "shingles-dice" in BUILT_IN


@pytest.mark.slow
@pytest.mark.parametrize("method", BUILT_IN)
def test_executors_write_the_same_files(
    tmp_path: Path, shards: list[str], client: object, method: str
) -> None:
    """``--jobs 1``, the worker pool and Dask give the same four files byte for byte."""
    from neardup.distributed import dedup_dask

    one = _run(shards, tmp_path / "one", method, 1)
    pool = _run(shards, tmp_path / "pool", method, 2)
    assert pool == one
    skipped = [json.loads(x) for x in one["skipped.jsonl"].splitlines()]
    assert [(s["id"], s["reason"]) for s in skipped] == [
        ("bad/short.txt", "too-short"),
        ("short", "too-short"),
        ("shard-0.jsonl:7", "unreadable"),
    ]  # the repeated id is not skipped: renamed by its place
    assert one["pairs.jsonl"].count("\n") >= 2  # real pairs: the progit revisions at least
    opts = DedupOptions(threshold=0.5)
    dedup_dask(shards, tmp_path / "dask", method=method, options=opts, client=client)
    assert _files(tmp_path / "dask") == one


def test_document_stream_and_paths_prepare_the_same(shards: list[str]) -> None:
    """The in-process stream of documents (``_Ingest``) and the unit path agree (documents
    given the places the reader gives them, so a repeated id is renamed alike)."""
    read = [d for d in read_corpus(shards) if isinstance(d, Document)]
    docs = [Document(d.id, d.text, d.source) for d in read]
    for method in ("shingles-full", "imatch", "sl-st"):
        streamed = dedup(docs, method=method)
        from_paths = dedup(shards, method=method, jobs=1)
        assert streamed.ids == from_paths.ids
        assert list(streamed.pairs) == list(from_paths.pairs)


def _job_sets(
    paths: list[str], config: PrepareConfig, jobs: int = 1
) -> tuple[list[str], ShingleSets, np.ndarray]:
    """What the dedup job's unit path keeps: ids, shingle sets and signature rows."""
    spool = Spool()
    try:
        units = plan_units(resolve_inputs(paths, spool), read_options())
        merger = UnitMerger()
        for item in prepared_units(units, config, jobs=jobs):
            merger.add(item)
    finally:
        spool.close()
    return merger.ids, merger.sets(), merger.rows.stack(np.zeros(0, np.uint64))


@pytest.mark.parametrize("slot_bytes", [16 << 20, 1 << 12])
def test_a_pool_hands_results_over_in_slots_or_the_pipe_alike(
    shards: list[str], monkeypatch: pytest.MonkeyPatch, slot_bytes: int
) -> None:
    """Two workers give the one-process ids, sets and MinHash rows, whether the results'
    arrays come through shared slots (16 MiB) or, too large for a 4 KiB slot, the pipe."""
    from neardup.job import prepare_pool

    meth = make_method("minhash-lsh")
    config = PrepareConfig(
        canonical=meth.canonical, shingling=meth.shingling, min_tokens=3, signer=meth
    )
    ids, sets, rows = _job_sets(shards, config)
    monkeypatch.setattr(prepare_pool, "SLOT_BYTES", slot_bytes)
    read = prepare_pool.ResultSlots.arrays
    slotted: list[int] = []

    def arrays(self: Any, slot: int, layout: Any) -> dict[str, np.ndarray]:
        slotted.append(slot)
        return read(self, slot, layout)

    monkeypatch.setattr(prepare_pool.ResultSlots, "arrays", arrays)
    ids2, sets2, rows2 = _job_sets(shards, config, jobs=2)
    assert len(slotted) == (len(shards) if slot_bytes > 1 << 12 else 0)  # a unit a shard
    assert ids2 == ids and len(ids) > 5 and rows.shape == (len(ids), 128)
    assert np.array_equal(sets2.values, sets.values)
    assert np.array_equal(sets2.offsets, sets.offsets) and np.array_equal(rows2, rows)


def test_lean_rows_from_the_workers_give_the_sketches_candidates_spilled_or_held(
    shards: list[str], tmp_path: Path
) -> None:
    """``lean`` (MinHash-LSH verified exactly): the workers send band keys and low bytes,
    56 words a document against the sketch's 128; spilled (past a budget between one unit
    and two) or held, they give the candidates and the kept pairs of the sketches made in
    one process."""
    meth = make_method("minhash-lsh")
    plan = plan_for(meth, DedupOptions())
    config = plan.prepare_config(rows=True, lean=True)
    assert config.lean and not plan.prepare_config(rows=True).lean
    spool = Spool()
    try:
        units = plan_units(resolve_inputs(shards, spool), read_options())
        items = list(prepared_units(units, config, jobs=1))
    finally:
        spool.close()
    assert len(items) >= 2
    first = items[0]
    assert isinstance(first, PreparedDocuments) and first.rows is not None
    assert first.rows.shape[1] == 40 + 16
    budget = 1 + first.sets.values.nbytes + first.rows.nbytes
    spilled = UnitMerger(budget=budget, spill_dir=str(tmp_path))
    held = UnitMerger()
    for item in items:
        spilled.add(item)
        held.add(item)
    assert spilled.spilled and not held.spilled
    sets = held.sets()
    sketches = meth.from_sets(sets)
    cand = meth.candidates(sketches)
    assert cand.shape[0] > 0
    kept = meth.prefilter(sketches, cand, 0.5, sizes=sets.sizes)
    for merger in (spilled, held):
        rows = merger.rows.stack(np.zeros(0, np.uint64))
        assert isinstance(rows, np.memmap) == (merger is spilled)
        lean = meth.from_lean_rows(rows)
        assert meth.candidates(lean).tobytes() == cand.tobytes()
        assert meth.prefilter(lean, cand, 0.5, sizes=sets.sizes).tolist() == kept.tolist()
    assert len(spilled.sets()) == len(spilled.ids)  # (maps and closes the sets' spill file)


def test_the_merger_spills_as_soon_as_the_whole_input_would_pass_its_budget(
    shards: list[str], tmp_path: Path
) -> None:
    """:meth:`UnitMerger.expect`: the held arrays scaled by the input read so far; past the
    budget they spill at once (not when the budget is reached), below it or before 2 % of
    the input is read they stay."""
    config = PrepareConfig(canonical=CanonicalForm(), shingling=Shingling(size=5), min_tokens=3)
    spool = Spool()
    try:
        units = plan_units(resolve_inputs(shards[:1], spool), read_options())
        item = next(iter(prepared_units(units, config, jobs=1)))
    finally:
        spool.close()

    def merger(budget: int) -> UnitMerger:
        out = UnitMerger(budget=budget, spill_dir=str(tmp_path))
        out.add(item)
        return out

    held = merger(1 << 40)._values.nbytes
    assert held > 0
    stays = merger(10 * held + 1)
    stays.expect(10, 100)  # 10 % read: the whole input would hold 10 x held
    assert not stays.spilled
    goes = merger(10 * held - 1)
    goes.expect(1, 100)  # 1 %: too early to tell
    assert not goes.spilled
    goes.expect(10, 100)
    assert goes.spilled
    assert len(goes.sets()) == len(stays.sets()) == len(goes.ids)


def test_a_pool_whose_slots_the_system_refuses_uses_the_pipe(
    shards: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from neardup.job import prepare_pool

    def refuse(*args: Any, **kwargs: Any) -> Any:  # mmap's ENOMEM for the shared map
        raise OSError(12, "Cannot allocate memory")

    config = PrepareConfig(canonical=CanonicalForm(), shingling=Shingling(size=5), min_tokens=3)
    ids, sets, _ = _job_sets(shards, config)
    monkeypatch.setattr(prepare_pool, "ResultSlots", refuse)
    assert prepare_pool._slots(2) is None
    ids2, sets2, _ = _job_sets(shards, config, jobs=2)
    assert ids2 == ids and np.array_equal(sets2.values, sets.values)


def test_index_add_stores_the_jobs_sets(shards: list[str]) -> None:
    from neardup.index.memory import Index

    config = PrepareConfig(canonical=CanonicalForm(), shingling=Shingling(size=5), min_tokens=3)
    job_ids, sets, _ = _job_sets(shards, config)
    # the job renames a repeated id by its place; so does one add call (the renamed id is
    # stored too); added again, one by one, the repeated id is found stored
    ids = [i for i in job_ids if ".jsonl:" not in i]
    assert len(ids) == len(job_ids) - 1
    idx = Index(threshold=0.5)
    report = idx.add([(r["id"], r["text"]) for r in _rows()])
    assert report.added == len(job_ids)
    assert sorted(s.reason for s in report.skipped) == ["too-short", "too-short"]
    single = Index(threshold=0.5)
    for doc_id in ids[:5]:
        text = next(r["text"] for r in _rows() if r["id"] == doc_id)
        assert single.add([(doc_id, text)]).added == 1
    for doc_id in ids:
        k = job_ids.index(doc_id)
        want = sets.values[sets.offsets[k] : sets.offsets[k + 1]]
        assert np.array_equal(idx._docs[doc_id].fps, want), doc_id
        if doc_id in ids[:5]:
            assert np.array_equal(single._docs[doc_id].fps, want), doc_id


def test_store_add_stores_the_jobs_sets_and_keys(tmp_path: Path, shards: list[str]) -> None:
    from neardup.index.codec import content_hash, decode_set, verification_set
    from neardup.index.core import prepare
    from neardup.index.methods import collection_keys
    from neardup.store import Store

    meth = make_method("minhash-lsh", threshold=0.5)
    config = PrepareConfig(
        canonical=meth.canonical, shingling=meth.shingling, min_tokens=3, signer=meth
    )
    ids, sets, rows = _job_sets(shards, config)
    docs = [d for d in read_corpus(shards) if isinstance(d, Document)]
    by_id: dict[str, Document] = {}
    for d in docs:  # the job's ids: a repeated id renamed by its place
        by_id[d.source if d.id in by_id else d.id] = d
    todo = [(by_id[i], content_hash(by_id[i].text)) for i in ids]
    batch, short = prepare(meth, todo, 3)
    assert [r.doc.id for r in batch.ready] == [by_id[i].id for i in ids] and short == []
    # the method's keys and each document's content-key row, as a collection stores them
    from neardup.methods.sets import ShingleSets

    assert isinstance(sets, ShingleSets)
    job_keys = collection_keys(meth, meth.from_rows(rows), sets)
    assert batch.keys is not None
    assert np.array_equal(batch.keys.key, job_keys.key)
    assert np.array_equal(batch.keys.row, job_keys.row)
    db = tmp_path / "c.db"
    with Store(f"sqlite:///{db}") as store:
        store.create_collection("c", "minhash-lsh")
        report = store.add("c", docs)
    assert report.added == len(ids)
    with sqlite3.connect(db) as conn:
        stored = dict(
            conn.execute(
                "SELECT d.doc_id, s.fingerprints FROM nd_shingles s "
                "JOIN nd_documents d ON d.id = s.document_id"
            ).fetchall()
        )
    for k, doc_id in enumerate(ids):
        one = sets.values[sets.offsets[k] : sets.offsets[k + 1]]
        want = verification_set(one)
        assert np.array_equal(decode_set(stored[doc_id]), want), doc_id


# -- the stage itself --------------------------------------------------------------------------
TEXTS = [
    "Мальчик Ванька Жуков, девятилетний мальчик, отданный три месяца тому назад",
    "в ученье к сапожнику Аляхину, в ночь под Рождество не ложился спать",
    "two words",
    "",
]


@pytest.mark.parametrize(
    "shingling",
    [Shingling(size=3), Shingling(size=2, fingerprint="crc32"), Shingling(size=4, unit="char")],
)
@pytest.mark.parametrize("keep_tokens", [False, True])
def test_shingle_texts_equals_the_per_document_path(
    shingling: Shingling, keep_tokens: bool
) -> None:
    canonical = CanonicalForm()
    config = PrepareConfig(
        canonical=canonical, shingling=shingling, min_tokens=3, keep_tokens=keep_tokens
    )
    done = shingle_texts(TEXTS, config)
    lists = [canonical.tokens(t) for t in TEXTS]
    assert done.counts.tolist() == [len(x) for x in lists]
    long = [x for x in lists if len(x) >= 3]
    want = shingling.batch(long)
    assert np.array_equal(done.sets.values, want.values)
    assert np.array_equal(done.sets.offsets, want.offsets)
    assert np.array_equal(done.keys, want.content_keys())
    assert done.tokens == (long if keep_tokens else None)
    assert done.rows is None


def test_the_fast_path_predicate() -> None:
    assert uses_token_fingerprints(Shingling())
    assert not uses_token_fingerprints(Shingling(fingerprint="crc32"))
    assert not uses_token_fingerprints(Shingling(unit="char", size=4))


def test_screen_gives_the_rules_as_values() -> None:
    config = PrepareConfig(canonical=CanonicalForm(), shingling=Shingling(size=3), min_tokens=3)
    docs = [Document(f"d{i}", t, f"src{i}") for i, t in enumerate(TEXTS)]
    docs.append(Document("d0", TEXTS[1], "again"))
    bad = (1, Skipped("x", "srcx", "unreadable", "malformed JSON"))
    ready = prepare_documents(docs, config, positions=[0, 2, 3, 4, 5], skipped=[bad])
    assert ready.items == 6 and ready.long.tolist() == [True, True, False, False, True]
    out = screen(ready, np.array([False, False, False, False, True]))  # the second d0
    assert out.accepted.tolist() == [0, 1] and out.take.tolist() == [0, 1]
    assert [(s.id, s.reason, s.detail) for s in out.skip_rows(ready)] == [
        ("x", "unreadable", "malformed JSON"),
        ("d2", "too-short", "2 canonical tokens < min_tokens=3"),
        ("d3", "too-short", "0 canonical tokens < min_tokens=3"),
        ("d0", "unreadable", "duplicate document id"),
    ]
    again = screen(ready, np.ones(5, dtype=bool))  # every id came before
    assert again.accepted.size == 0 and len(again.repeated) == 5


def test_prepare_stream_cuts_batches_with_their_own_positions() -> None:
    config = PrepareConfig(canonical=CanonicalForm(), shingling=Shingling(size=3), min_tokens=3)
    items: list[Document | Skipped] = [Document(f"d{i}", t) for i, t in enumerate(TEXTS)]
    items.insert(1, Skipped("x", "", "unreadable", "bad"))
    batches = list(prepare_stream(items, config, batch=2))
    assert [b.items for b in batches] == [3, 2]
    assert [b.positions.tolist() for b in batches] == [[0, 2], [0, 1]]
    assert batches[0].skipped[0][0] == 1
    whole = prepare_documents([i for i in items if isinstance(i, Document)], config)
    assert np.array_equal(np.concatenate([b.keys for b in batches]), whole.keys)
    with pytest.raises(ParameterError, match="batch"):
        list(prepare_stream(items, config, batch=0))


def test_min_tokens_is_validated() -> None:
    with pytest.raises(ParameterError, match="min_tokens"):
        PrepareConfig(canonical=CanonicalForm(), shingling=Shingling(), min_tokens=0)


def test_bulk_add_takes_the_kernels_minhash_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A collection's bulk add signs MinHash-LSH in the prepare kernel's sign pass (no
    numpy ``MinHasher.sketches`` call where the kernel is built), with the index keys of
    the numpy path byte for byte."""
    from neardup.index.codec import content_hash
    from neardup.index.core import prepare
    from neardup.methods import kernel as kmod
    from neardup.methods.minhash import MinHasher

    meth = make_method("minhash-lsh", threshold=0.5)
    docs = [Document(f"d{i}", t) for i, t in enumerate(TEXTS * 3)]
    todo = [(d, content_hash(d.text)) for d in docs]
    monkeypatch.setenv(kmod.ENV, "python")
    want, _ = prepare(meth, todo, 2)
    if kmod.compiled() is None:
        pytest.skip(kmod.missing_reason())
    monkeypatch.setenv(kmod.ENV, "auto")

    def refused(self: MinHasher, sets: object) -> None:
        raise AssertionError("numpy sketches on the kernel path")

    monkeypatch.setattr(MinHasher, "sketches", refused)
    got, _ = prepare(meth, todo, 2)
    assert got.keys is not None and want.keys is not None
    for field in ("row", "band", "key"):
        assert getattr(got.keys, field).tobytes() == getattr(want.keys, field).tobytes()
    assert got.sets.values.tobytes() == want.sets.values.tobytes()


def test_a_unit_whose_raw_text_does_not_decode_is_read_again_the_typed_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The compiled kernel reads texts from their raw JSON; a text that is not UTF-8 is
    found only when decoded, and the unit is then read the typed way: the same documents,
    sets and skip rows as the numpy path, which reads it typed from the start."""
    from neardup.methods.kernel import compiled
    from neardup.text.units import LinesUnit

    if compiled() is None:
        pytest.skip("the compiled kernel is not built")
    lines = [
        '{"id": "a", "text": "Тоска. Кому повем печаль мою? Кругом толпа людей"}',
        '{"id": "b", "text": "Кругом толпа людей, а я один, один со своей тоской"}',
    ]
    data = (lines[0] + "\n" + lines[1] + "\n").encode() + b'{"id": "c", "text": "x \xff y"}\n'
    unit = LinesUnit("f.jsonl", "f.jsonl", data, 1)
    config = PrepareConfig(
        canonical=CanonicalForm(),
        shingling=Shingling(size=3),
        min_tokens=1,
        signer=make_method("minhash-lsh"),
        read=read_options(),
    )
    assert kernel_of(config) == "cython"
    got = prepare_unit(unit, config)
    monkeypatch.setenv("NEARDUP_KERNEL", "python")
    want = prepare_unit(unit, config)
    assert got.ids == want.ids == ["a", "b"]
    assert [(k, s.id, s.reason) for k, s in got.skipped] == [(2, "f.jsonl:3", "undecodable")]
    assert got.skipped == want.skipped
    assert got.sets.values.tobytes() == want.sets.values.tobytes()
    assert got.rows is not None and want.rows is not None
    assert got.rows.tobytes() == want.rows.tobytes()


@pytest.mark.parametrize(
    ("keep", "want_raw"),
    [({}, True), ({"keep_tokens": True}, False), ({"keep_texts": True}, False)],
)
def test_texts_are_read_raw_only_where_the_kernel_tokenizes_them(
    monkeypatch: pytest.MonkeyPatch, keep: dict[str, bool], want_raw: bool
) -> None:
    """Raw JSON texts go to the compiled kernel; a job that keeps the tokens or the texts
    needs each text's str, and reads them typed (decoding raw texts one by one costs more
    than the block decode)."""
    from neardup.methods.kernel import compiled
    from neardup.text import read
    from neardup.text.units import LinesUnit

    if compiled() is None:
        pytest.skip("the compiled kernel is not built")
    asked: list[bool] = []
    real = read.read_unit_columns

    def spy(unit: Any, options: Any, *, raw_texts: bool = False) -> Any:
        asked.append(raw_texts)
        return real(unit, options, raw_texts=raw_texts)

    monkeypatch.setattr(read, "read_unit_columns", spy)
    data = '{"id": "a", "text": "Тоска. Кому повем печаль мою?"}\n'.encode()
    config = PrepareConfig(
        canonical=CanonicalForm(),
        shingling=Shingling(size=2),
        min_tokens=1,
        read=read_options(),
        **keep,
    )
    got = prepare_unit(LinesUnit("f.jsonl", "f.jsonl", data, 1), config)
    assert asked == [want_raw] and got.ids == ["a"] and len(got.sets) == 1


def test_consecutive_units_concatenated_keep_their_sources_as_one_line_range() -> None:
    """A Dask block's units, prepared one by one and concatenated, name their documents by
    one line range (three values, not a string a document), the same names the units gave;
    units not consecutive give the list of names."""
    from neardup.job.prepare import concat_prepared
    from neardup.text.read import LineSources
    from neardup.text.units import LinesUnit

    rows = [
        {"id": f"d{k}", "text": f"Тоска. Кому повем печаль мою, номер {k}? Кругом толпа людей"}
        for k in range(5)
    ]
    data = [json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in rows]
    config = PrepareConfig(
        canonical=CanonicalForm(), shingling=Shingling(size=3), min_tokens=1, read=read_options()
    )
    a = prepare_unit(LinesUnit("f.jsonl", "f.jsonl", b"".join(data[:2]), 7), config)
    b = prepare_unit(LinesUnit("f.jsonl", "f.jsonl", b"".join(data[2:]), 9), config)
    joined = concat_prepared([a, b])
    assert joined.sources == LineSources("f.jsonl", 7, 5)
    assert (
        list(joined.sources) == [*a.sources, *b.sources] == [f"f.jsonl:{k}" for k in range(7, 12)]
    )
    assert joined.ids == [r["id"] for r in rows]
    apart = prepare_unit(LinesUnit("f.jsonl", "f.jsonl", b"".join(data[2:]), 20), config)
    assert concat_prepared([a, apart]).sources == ["f.jsonl:7", "f.jsonl:8"] + [
        f"f.jsonl:{k}" for k in (20, 21, 22)
    ]
