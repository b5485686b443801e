"""The per-partition functions of the Dask engine, called in this process (no cluster)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from neardup.distributed import ids, io
from neardup.distributed import partition as pt
from neardup.distributed.tables import Table, collect
from neardup.job.pipeline import DedupOptions, decided_options, resolve_method
from neardup.job.prepare import PreparedDocuments
from neardup.methods.base import Method
from neardup.methods.lsh import BandKeys
from neardup.text.read import read_corpus
from neardup.text.types import Document

ROOT = Path(__file__).resolve().parents[2]


def _corpus(tmp_path: Path) -> tuple[Path, str]:
    """examples/corpus as one JSONL file, with one document four more times over (a bucket
    of five identical documents) and a copy with one word changed (a near duplicate); the
    file and the id of the copied document."""
    docs = [d for d in read_corpus([str(ROOT / "examples" / "corpus")]) if isinstance(d, Document)]
    rows = [{"id": d.id, "text": d.text} for d in docs]
    at = next(k for k, r in enumerate(rows) if len(r["text"].split()) >= 100)
    base = rows[at]["text"]
    rows += [{"id": f"copy{k}", "text": base} for k in range(4)]
    rows.append({"id": "edited", "text": base.replace(" ", " changed ", 1)})
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path, str(rows[at]["id"])


def _partitions(path: Path, method: str) -> tuple[Method, list[pt.Partition], np.ndarray]:
    opts = DedupOptions(threshold=0.5)
    meth = resolve_method(method, opts, {})
    opts = decided_options(meth, opts)
    files = io.list_files([str(path)])
    blocks = io.make_blocks(files, 1 << 14, io.file_names([str(path)], files))
    parts = [pt.finalize(pt.ingest(b, meth, opts, {}), meth, opts) for b in blocks]
    offsets = np.concatenate([[0], np.cumsum([len(p.ids) for p in parts])]).astype(np.int64)
    return meth, parts, offsets


def _shuffled(
    meth: object, parts: list[pt.Partition], offsets: np.ndarray, r: int, limit: int | None
) -> list[Table]:
    """The candidates by the two shuffles, run here: split, bucket, split, unique."""
    n_parts = len(parts)
    splits = [pt.split_keys(x, int(offsets[p]), meth, r) for p, x in enumerate(parts)]
    buckets = [pt.bucket_pairs(j, limit, offsets, *(s[j] for s in splits)) for j in range(r)]
    n = int(offsets[-1])
    return [pt.unique_candidates(p, n, *(b[p] for b in buckets)) for p in range(n_parts)]


@pytest.mark.parametrize("limit", [None, 2])
@pytest.mark.parametrize("method", ["minhash-lsh", "megashingles"])
def test_one_task_candidates_equal_the_shuffled_ones(
    tmp_path: Path, method: str, limit: int | None
) -> None:
    path, copied = _corpus(tmp_path)
    meth, parts, offsets = _partitions(path, method)
    assert len(parts) >= 3
    keyed = [pt.part_keys(x, meth) for x in parts]
    one, screened = pt.group_candidates(limit, offsets, *keyed)
    assert screened.tolist() == [0] * len(parts)  # no screen without the sketches' bytes
    shuffled = _shuffled(meth, parts, offsets, 3, limit)
    assert len(one) == len(parts)
    for got, want in zip(one, shuffled, strict=True):
        assert got["a"].tolist() == want["a"].tolist()
        assert got["b"].tolist() == want["b"].tolist()
    ids = np.concatenate([x.ids for x in parts])
    pairs = {(str(ids[a]), str(ids[b])) for t in one for a, b in zip(t["a"], t["b"], strict=True)}
    # the five identical documents: every pair without a limit; with groups of at most 2,
    # a star from the earliest (the copied document) in every bucket
    same = {copied, "copy0", "copy1", "copy2", "copy3"}
    among = {(a, b) for a, b in pairs if a in same and b in same}
    star = {(copied, f"copy{k}") for k in range(4)}
    assert among == (
        star
        if limit == 2
        else star | {(f"copy{i}", f"copy{j}") for i in range(4) for j in range(i + 1, 4)}
    )
    assert (copied, "edited") in pairs


def test_one_task_candidates_screened_on_the_sketches_low_bytes_keep_every_prefiltered_pair(
    tmp_path: Path,
) -> None:
    """minhash-lsh under the verified rule: the partitions hold lean rows (band keys and
    low bytes), and the candidate task screens the pairs on the low bytes (part_keys sends
    them): it keeps the pairs the sketch prefilter keeps on the full sketches, drops pairs
    far below t, and counts those it dropped by partition (of the earlier document)."""
    from neardup.job.decide import sketch_prefilter
    from neardup.methods.plan import plan_for
    from neardup.methods.sets import ShingleSets

    path, _ = _corpus(tmp_path)
    meth, parts, offsets = _partitions(path, "minhash-lsh")
    opts = decided_options(meth, DedupOptions(threshold=0.5))
    plain = [pt.part_keys(x, meth) for x in parts]
    keyed = [pt.part_keys(x, meth, opts) for x in parts]
    assert "low" not in plain[0] and keyed[0]["low"].shape == (len(parts[0].ids), 16)
    every, none = pt.group_candidates(None, offsets, *plain)
    screened, dropped = pt.group_candidates(None, offsets, *keyed, meth=meth, opts=opts)
    assert none.tolist() == [0] * len(parts)
    cand = np.concatenate([np.stack([t["a"], t["b"]], axis=1) for t in every])
    kept = np.concatenate([np.stack([t["a"], t["b"]], axis=1) for t in screened])
    sets = ShingleSets.concat([x.sets for x in parts])
    sigs = meth.from_sets(sets)  # the full sketches (the partitions hold lean rows)
    assert all(isinstance(x.sig, BandKeys) for x in parts)
    want = sketch_prefilter(plan_for(meth, opts), sigs, cand, sets.sizes)
    assert 0 < len(want) == len(kept) < len(cand)
    assert want.tolist() == kept.tolist()
    assert [len(t["a"]) for t in screened] == [
        len(a["a"]) - d for a, d in zip(every, dropped.tolist(), strict=True)
    ]


def test_verification_fetches_signatures_only_where_the_rule_reads_them() -> None:
    lsh = resolve_method("minhash-lsh", DedupOptions(), {})
    mega = resolve_method("megashingles", DedupOptions(), {})
    full = resolve_method("shingles-full", DedupOptions(), {})
    # minhash-lsh under the verified rule: its sketches prefilter the candidates
    assert pt.uses_signatures(lsh, decided_options(lsh, DedupOptions()))
    contain = DedupOptions(measure="containment")  # no prefilter: the sets alone
    assert not pt.uses_signatures(lsh, decided_options(lsh, contain))
    assert not pt.uses_signatures(full, decided_options(full, DedupOptions()))
    assert pt.uses_signatures(lsh, decided_options(lsh, DedupOptions(decision="own")))
    assert pt.uses_signatures(mega, decided_options(mega, DedupOptions()))  # exact keys


def test_ingest_keeps_freed_heap_and_advises_no_huge_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Dask worker frees and makes again arrays of a unit's size unit after unit, as the
    local job's workers do: it keeps freed heap too (its blocks' ingest took 0.6 s
    without, 0.46-0.5 s with, at 25,000 documents a block). It holds the partitions it
    makes: numpy advises no huge pages there (joining a block's units 0.4-0.5 s against
    1.1-1.6 s with the advice, 17 blocks of a million documents)."""
    from neardup import _memory

    calls: list[str] = []

    def keep() -> bool:
        calls.append("keep")
        return True

    def no_advice() -> None:
        calls.append("no advice")

    monkeypatch.setattr(_memory, "keep_freed_heap", keep)
    monkeypatch.setattr(_memory, "no_huge_page_advice", no_advice)
    path, _ = _corpus(tmp_path)
    _, parts, _ = _partitions(path, "minhash-lsh")
    assert len(parts) > 1 and calls == ["keep", "no advice"] * len(parts)


def test_one_task_candidates_pass_over_a_partition_without_documents(tmp_path: Path) -> None:
    # a block of skip rows only (a corrupt file, a file of bad lines) is a partition of no
    # documents, whose I-Match keys have no slots: its candidates are the others' pairs
    path, copied = _corpus(tmp_path)
    bad = tmp_path / "a-bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    opts = DedupOptions(threshold=0.5)
    meth = resolve_method("imatch", opts, {})
    opts = decided_options(meth, opts)
    from neardup.distributed.stages import plan_blocks

    blocks, _ = plan_blocks([], [str(bad), str(path)], 1 << 20)
    parts = [pt.finalize(pt.ingest(b, meth, opts, {}), meth, opts) for b in blocks]
    assert [len(p.ids) for p in parts] == [0, len(parts[1].ids)] and len(parts[1].ids) > 0
    meth.fit(pt.merge_stats(*(pt.part_stats(p) for p in parts)))
    parts = [pt.sign_fitted(p, meth) for p in parts]
    offsets = np.concatenate([[0], np.cumsum([len(p.ids) for p in parts])]).astype(np.int64)
    one, _ = pt.group_candidates(None, offsets, *(pt.part_keys(x, meth) for x in parts))
    ids = np.concatenate([x.ids for x in parts])
    pairs = {(str(ids[a]), str(ids[b])) for t in one for a, b in zip(t["a"], t["b"], strict=True)}
    assert (copied, "copy0") in pairs and one[0]["a"].size == 0


def test_sources_of_a_relative_input_are_named_as_given_after_a_pickle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A raw partition of a file given by a relative path names each document's place
    ``FILE:LINE`` with the file as given (renamed as read), also once pickled (a raw
    partition moved to another worker: the renaming function is made again there)."""
    import pickle

    from neardup.distributed.stages import plan_blocks

    path, _ = _corpus(tmp_path)
    monkeypatch.chdir(tmp_path)
    opts = DedupOptions(threshold=0.5)
    meth = resolve_method("minhash-lsh", opts, {})
    opts = decided_options(meth, opts)
    blocks, _ = plan_blocks([], [path.name], 1 << 20)
    blocks = io.number_lines(blocks, [io.count_lines(b) for b in blocks])
    raw = pt.ingest(blocks[0], meth, opts, {})
    moved = pickle.loads(pickle.dumps(raw))
    n = len(raw.ids)
    assert n > 30 and len(moved.sources) == n
    assert [raw.sources[0], moved.sources[0]] == ["corpus.jsonl:1"] * 2
    assert list(moved.sources[n - 2 :]) == [f"corpus.jsonl:{n - 1}", f"corpus.jsonl:{n}"]
    assert len(pickle.dumps(raw.sources)) < 400 < len(pickle.dumps(list(raw.sources)))


def _raw_blocks(
    tmp_path: Path, rows: list[dict[str, str]], method: str = "minhash-lsh"
) -> tuple[Method, DedupOptions, list[PreparedDocuments]]:
    """``rows`` as one JSONL file cut into blocks of 16 KiB, each read and prepared
    (:func:`~neardup.distributed.partition.ingest`): the raw partitions."""
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    opts = DedupOptions(threshold=0.5)
    meth = resolve_method(method, opts, {})
    opts = decided_options(meth, opts)
    files = io.list_files([str(path)])
    blocks = io.make_blocks(files, 1 << 14, io.file_names([str(path)], files))
    return meth, opts, [pt.ingest(b, meth, opts, {}) for b in blocks]


def _example_rows() -> list[dict[str, str]]:
    docs = [d for d in read_corpus([str(ROOT / "examples" / "corpus")]) if isinstance(d, Document)]
    return [{"id": d.id, "text": d.text} for d in docs]


def test_keys_made_before_the_ids_are_renamed_are_those_of_the_renamed_partition(
    tmp_path: Path,
) -> None:
    """A partition finalized before the ids are renamed (as the Dask job makes its keys
    early) gives the keys of the partition finalize makes with the renamed ids, too-short
    documents included; the candidates found from them in one task, collected in order,
    are group_candidates' of the partitions."""
    rows = _example_rows()
    rows.insert(2, {"id": "short", "text": "three words only"})
    rows.insert(5, {"id": rows[1]["id"], "text": rows[7]["text"]})  # a repeated id
    meth, opts, raws = _raw_blocks(tmp_path, rows)
    assert len(raws) >= 3
    first = raws[0]
    assert not first.long.all()  # the short document is in the first block
    renamed = {"pos": first.positions[:1], "id": np.array(["renamed"], dtype=object)}
    parts = [
        pt.finalize(raws[0], meth, opts, renamed),
        *(pt.finalize(r, meth, opts) for r in raws[1:]),
    ]
    assert parts[0].ids[0] == "renamed"
    for k, (raw, part) in enumerate(zip(raws, parts, strict=True)):
        signed = pt.finalize(raw, meth, opts)
        early = pt.part_keys(signed, meth, opts)
        late = pt.part_keys(part, meth, opts)
        assert early.keys() == late.keys() and "low" in early
        for name, column in late.items():
            assert np.array_equal(early[name], column), name
        # renamed from the bare raw partition and the partition signed early: the same
        again = pt.finalize(pt.bare(raw), meth, opts, renamed if k == 0 else None, signed=signed)
        assert pt.bare(raw).sets.values.size == 0 and pt.bare(raw).rows is None
        assert again.ids.tolist() == part.ids.tolist() and again.renamed == part.renamed
        assert again.skipped == part.skipped and again.read == part.read
        assert again.sets is signed.sets and again.sig is signed.sig
    assert parts[0].renamed == 1 and parts[0].skipped  # the renamed id, the short document
    offsets = np.concatenate([[0], np.cumsum([len(p.ids) for p in parts])]).astype(np.int64)
    keyed = [pt.part_keys(p, meth, opts) for p in parts]
    want, want_dropped = pt.group_candidates(None, offsets, *keyed, meth=meth, opts=opts)
    collected = collect(collect(keyed[0]), *keyed[1:])
    got, dropped = pt.collected_candidates(None, collected, meth=meth, opts=opts)
    assert dropped.tolist() == want_dropped.tolist()
    assert [t["a"].tolist() for t in got] == [t["a"].tolist() for t in want]
    assert [t["b"].tolist() for t in got] == [t["b"].tolist() for t in want]
    assert sum(t["a"].size for t in got) > 0


def test_repeated_id_hashes_tell_whether_the_ids_shuffle_must_run(tmp_path: Path) -> None:
    rows = _example_rows()
    (tmp_path / "distinct").mkdir()
    _, _, raws = _raw_blocks(tmp_path / "distinct", rows)
    assert len(raws) >= 3
    assert not ids.repeated([ids.id_hashes(r) for r in raws])
    again = [*rows, {"id": rows[0]["id"], "text": rows[0]["text"] + " and more"}]
    (tmp_path / "again").mkdir()
    _, _, raws = _raw_blocks(tmp_path / "again", again)
    hashes = [ids.id_hashes(r) for r in raws]
    assert ids.repeated(hashes)
    assert ids.repeated(hashes[:1] + hashes[-1:])  # the first and last blocks hold the id
    assert not ids.repeated(hashes[1:-1])
    assert not ids.repeated([])
    # a reading skip's id is an id too: a skipped record repeating a document's id
    skip = [*rows, {"id": rows[0]["id"]}]  # no text: skipped, its id taken
    (tmp_path / "skip").mkdir()
    _, _, raws = _raw_blocks(tmp_path / "skip", skip)
    assert any(r.skipped for r in raws)
    assert ids.repeated([ids.id_hashes(r) for r in raws])


def test_partitions_weigh_what_they_hold_for_dask(tmp_path: Path) -> None:
    """Dask weighs a task's result by sys.getsizeof (dask.sizeof's default): a raw and a
    finalized partition report their arrays, ids and sets, not a dataclass' 56 bytes."""
    from dask.sizeof import sizeof

    meth, opts, raws = _raw_blocks(tmp_path, _example_rows())
    raw = raws[0]
    part = pt.finalize(raw, meth, opts)
    held = raw.sets.values.nbytes + raw.sets.offsets.nbytes + raw.keys.nbytes
    assert raw.rows is not None
    assert sizeof(raw) >= held + raw.rows.nbytes + raw.positions.nbytes
    assert isinstance(part.sig, BandKeys)  # minhash-lsh, verified: lean rows
    sig = part.sig.columns.nbytes + part.sig.low.nbytes
    assert sizeof(part.sig) == sys.getsizeof(part.sig) >= sig
    assert sizeof(part) >= held + sig + part.ids.nbytes
    assert sizeof(raw.sets) == sys.getsizeof(raw.sets) > raw.sets.values.nbytes
    assert sizeof(part) < 4 * (held + sig) + 200 * len(part.ids)  # no wild guess
