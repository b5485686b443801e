"""A method added from outside the package: one class and one `register` call make it work
by name in the dedup job, in a collection and on the Dask engine; registration fails
loudly."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from neardup.errors import ParameterError, UsageError
from neardup.job.pipeline import DedupOptions, dedup
from neardup.methods.base import Capabilities, MethodBase, Prepared, Signatures
from neardup.methods.keys import GroupKeys
from neardup.methods.minhash import EMPTY, MinHasher
from neardup.methods.registry import make_method, method_names, register, unregister
from neardup.methods.sets import ShingleSets
from neardup.methods.shingle_methods import ShinglesFull
from neardup.output import write_result
from neardup.params import Constraint, Interval
from neardup.store import Store
from neardup.text.types import Document
from shared_data import require

NAME = "test-plugin-shingles"
SLOTS = "test-plugin-slots"
BASE = " ".join(f"w{i}" for i in range(60))
DOCS = [
    Document("a", BASE),
    Document("b", BASE.replace("w30", "x30")),  # one word changed: 5 of 56 shingles differ
    Document("c", " ".join(f"v{i}" for i in range(60))),
]
# half of BASE: 26 of its 56 shingles shared with a and b (resemblance 0.30): found as a
# candidate by shared min-hash values, then refused by the exact verification
HALF = Document("d", " ".join([*BASE.split()[:30], *(f"u{i}" for i in range(30))]))


@dataclass(frozen=True, kw_only=True)
class PluginShingles(ShinglesFull):
    """Full shingle sets with a declared extra parameter (a plugin's own method)."""

    name: ClassVar[str] = NAME
    source: ClassVar[str] = "tests/methods/test_plugin.py"
    margin: float = 0.0

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **ShinglesFull.parameter_constraints,
        "margin": Interval("float", 0.0, 1.0),
    }


@dataclass(frozen=True, kw_only=True)
class SlotMatch(MethodBase):
    """A method written from scratch on the base class: ``num_perm`` min-hash values of the
    default shingle sets; documents sharing a value in some slot are candidates, decided
    by exact verification (the base class's default rule)."""

    name: ClassVar[str] = SLOTS
    source: ClassVar[str] = "tests/methods/test_plugin.py"
    capabilities: ClassVar[Capabilities] = Capabilities(signs_from_sets=True, keys="groups")
    num_perm: int = 16
    seed: int = 7

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "num_perm": Interval("int", 1, 64),
        "seed": Interval("int", 0, 2**32 - 1),
    }

    def params(self) -> dict[str, int]:
        return {"num_perm": self.num_perm, "seed": self.seed}

    def sign(self, docs: Sequence[Prepared]) -> Signatures:
        return self.from_sets(self.shingling.batch([d.tokens for d in docs]))

    def from_sets(self, sets: ShingleSets) -> Signatures:
        hasher = MinHasher(num_perm=self.num_perm, seed=self.seed, scheme="perm")
        return Signatures(self.key(), hasher.sketches(sets), len(sets))

    def keys(self, sigs: Signatures) -> GroupKeys:
        return GroupKeys(sigs.data.copy(), sigs.data != EMPTY)

    def candidates(self, sigs: Signatures) -> np.ndarray:
        groups = self.keys(sigs)
        members: dict[tuple[int, int], list[int]] = defaultdict(list)
        for row, slot in zip(*np.nonzero(groups.valid), strict=True):
            members[(int(slot), int(groups.keys[row, slot]))].append(int(row))
        pairs = {(a, b) for rows in members.values() for a in rows for b in rows if a < b}
        return np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        a, b = sigs.data[pairs[:, 0]], sigs.data[pairs[:, 1]]
        return ((a == b) & (a != EMPTY)).mean(axis=1)


@pytest.fixture
def plugin() -> Iterator[str]:
    register(PluginShingles)
    try:
        yield NAME
    finally:
        unregister(NAME)
    assert NAME not in method_names()


def test_a_registered_method_works_by_name_in_dedup(plugin: str) -> None:
    assert plugin in method_names()
    result = dedup(DOCS, method=plugin, threshold=0.8)
    assert {(p.a, p.b) for p in result.pairs} == {("a", "b")}
    assert result.summary["method"] == plugin
    with pytest.raises(ParameterError) as err:
        make_method(plugin, margin=2.0)  # validated from its declaration, by the base class
    assert err.value.name == "margin"


def test_a_registered_method_works_by_name_in_a_collection(plugin: str, tmp_path: Path) -> None:
    with Store(f"sqlite:///{tmp_path / 'plugin.db'}") as store:
        store.create_collection("c", plugin, threshold=0.8)
        store.add("c", DOCS[:1] + DOCS[2:])
        found = store.check("c", DOCS[1].text)
        assert [m.doc_id for m in found.matches] == ["a"] and found.method == plugin


def test_registration_fails_loudly() -> None:
    class NotAMethod:
        name = "x"

    @dataclass(frozen=True, kw_only=True)
    class Taken(MethodBase):
        name: ClassVar[str] = "minhash-lsh"

    with pytest.raises(UsageError, match=r"not a neardup\.methods\.base\.MethodBase"):
        register(NotAMethod)
    with pytest.raises(UsageError, match=r"is taken by neardup\.methods\.shingle_methods"):
        register(Taken)  # type: ignore[type-abstract]  # an incomplete class on purpose
    assert make_method("minhash-lsh").__class__.__name__ == "MinHashLSH"


@pytest.fixture
def slots() -> Iterator[str]:
    register(SlotMatch)
    try:
        yield SLOTS
    finally:
        unregister(SLOTS)


def _pairs(path: Path) -> list[tuple[str, str, str]]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [(r["a"], r["b"], r["decision"]) for r in rows]


def test_a_method_from_scratch_runs_in_dedup_and_a_collection(slots: str, tmp_path: Path) -> None:
    docs = [*DOCS, HALF]
    result = dedup(docs, method=slots, options=DedupOptions(threshold=0.8))
    assert {(p.a, p.b) for p in result.pairs} == {("a", "b")}
    assert result.summary["candidate_pairs"] > 1  # d was a candidate, refused by verification
    with Store(f"sqlite:///{tmp_path / 'slots.db'}") as store:
        store.create_collection("c", slots, threshold=0.8)
        store.add("c", [DOCS[0], DOCS[2], HALF])
        found = store.check("c", DOCS[1].text)
        assert [m.doc_id for m in found.matches] == ["a"] and found.method == slots
        half = " ".join([*BASE.split()[:30], *(f"t{i}" for i in range(30))])
        assert store.check("c", half).matches == ()  # candidates a and d, resemblance < 0.8


def test_a_method_from_scratch_runs_on_the_dask_engine(slots: str, tmp_path: Path) -> None:
    require("distributed")
    from distributed import Client, LocalCluster
    from neardup.distributed import dedup_dask

    rows = [{"id": d.id, "text": d.text} for d in [*DOCS, HALF]]
    files = []
    for i, part in enumerate((rows[:2], rows[2:])):  # a and b in one shard, c and d in another
        path = tmp_path / f"shard-{i}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in part), encoding="utf-8")
        files.append(str(path))
    opts = DedupOptions(threshold=0.8)
    write_result(dedup(files, method=slots, options=opts, jobs=1), tmp_path / "local")
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        result = dedup_dask(files, tmp_path / "dask", method=slots, options=opts, client=client)
    summary = result.summary
    assert _pairs(tmp_path / "dask" / "pairs.jsonl") == [("a", "b", "verified")]
    assert summary["candidate_pairs"] > 1 and summary["pairs"] == 1
    for name in ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl"):
        assert (tmp_path / "dask" / name).read_text() == (tmp_path / "local" / name).read_text()


def test_a_method_without_grouping_keys_runs_on_the_dask_engine(
    plugin: str, tmp_path: Path
) -> None:
    # no grouping keys of its own: as a ShinglesFull subclass it runs by the prefix keys of
    # its sets (corpus document frequencies by a first pass); the files are the local job's
    require("distributed")
    from distributed import Client, LocalCluster
    from neardup.distributed import dedup_dask

    rows = [{"id": d.id, "text": d.text} for d in [*DOCS, HALF]]
    files = []
    for i, part in enumerate((rows[:2], rows[2:])):
        path = tmp_path / f"shard-{i}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in part), encoding="utf-8")
        files.append(str(path))
    opts = DedupOptions(threshold=0.8)
    write_result(dedup(files, method=plugin, options=opts, jobs=1), tmp_path / "local")
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        dedup_dask(files, tmp_path / "dask", method=plugin, options=opts, client=client)
    assert _pairs(tmp_path / "dask" / "pairs.jsonl") == [("a", "b", "verified")]
    for name in ("pairs.jsonl", "clusters.jsonl", "dropped.jsonl", "skipped.jsonl"):
        assert (tmp_path / "dask" / name).read_text() == (tmp_path / "local" / name).read_text()


def test_registration_names_the_hooks_a_class_leaves_out() -> None:
    @dataclass(frozen=True, kw_only=True)
    class Incomplete(MethodBase):
        name: ClassVar[str] = "test-plugin-incomplete"

        def params(self) -> dict[str, int]:
            return {}

    with pytest.raises(UsageError, match=r"no candidates, sign, similarity, 'source'$"):
        register(Incomplete)  # type: ignore[type-abstract]  # an incomplete class on purpose
    assert "test-plugin-incomplete" not in method_names()


@pytest.mark.parametrize("cls", [PluginShingles, SlotMatch])
def test_the_plugin_methods_pass_the_conformance_kit(cls: type[MethodBase]) -> None:
    from neardup.testing import check_method

    check_method(cls)
    check_method(cls, texts=[d.text for d in [*DOCS, HALF]], threshold=0.8)
