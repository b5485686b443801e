"""The partitioned job's task primitives (:mod:`neardup.distributed.tasks`): the shuffle
written once over ``submit``/``gather`` moves every row to its destination in input order,
on the in-process runner and on Dask alike; handles nested in arguments are resolved."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from neardup.distributed.inline import InlineTasks
from neardup.distributed.tables import Table, concat, hash_dest, split
from neardup.distributed.tasks import Done, TaskRunner, resolved
from shared_data import require


def _split(table: Table, n: int) -> list[Table]:
    return split(table, hash_dest(table["k"], n), n)


def _combine(j: int, *pieces: Table) -> tuple[int, Table]:
    return j, concat(pieces)


def _inputs() -> list[Table]:
    rng = np.random.default_rng(7)
    return [
        {"k": rng.integers(0, 1000, 50, dtype=np.int64), "i": np.arange(50) + 100 * p}
        for p in range(4)
    ]


def _shuffled(tasks: TaskRunner) -> list[tuple[int, Table]]:
    parts = [tasks.submit(lambda t: t, t) for t in _inputs()]
    outs = tasks.shuffle(parts, _split, 3, _combine, split_args=(3,))
    got: list[tuple[int, Table]] = tasks.gather(outs)
    return got


def _check(got: list[tuple[int, Table]]) -> None:
    everything = concat(_inputs())
    assert [j for j, _ in got] == [0, 1, 2]
    assert sum(t["k"].size for _, t in got) == everything["k"].size == 200
    for j, table in got:
        assert (hash_dest(table["k"], 3) == j).all()
        # rows keep their input order within an output (inputs in order, stable split)
        assert (np.diff(table["i"]) > 0).all()
    rows = sorted(int(i) for _, t in got for i in t["i"])
    assert rows == sorted(int(i) for i in everything["i"])


def test_the_inline_shuffle_moves_every_row_to_its_hash_destination_in_order() -> None:
    _check(_shuffled(InlineTasks()))


def test_the_dask_shuffle_gives_the_inline_outputs(dask_threads: Any) -> None:
    from neardup.distributed.executor import DaskTasks

    dask, inline = _shuffled(DaskTasks(dask_threads)), _shuffled(InlineTasks())
    _check(dask)
    for (j, a), (k, b) in zip(dask, inline, strict=True):
        assert j == k and all((a[c] == b[c]).all() for c in ("k", "i"))


def test_handles_are_resolved_inside_arguments_and_gathered_nested() -> None:
    tasks = InlineTasks()
    a, b = tasks.submit(lambda: 2), tasks.submit(lambda: 3)
    total = tasks.submit(lambda xs, named: sum(xs) + named["c"], [a, b], named={"c": a})
    assert tasks.gather([total, (a, {"x": b}), 5]) == [7, (2, {"x": 3}), 5]
    assert resolved(("k", [Done("v")])) == ("k", ["v"])


def test_a_task_that_raises_raises_where_it_is_submitted_inline() -> None:
    with pytest.raises(ZeroDivisionError):
        InlineTasks().submit(lambda: 1 // 0)


def test_the_base_runner_has_one_worker_and_no_holders() -> None:
    tasks = InlineTasks()
    handles = [tasks.submit(int, "1"), tasks.submit(int, "2")]
    tasks.wait(handles)
    assert tasks.holders(handles) == [None, None]
    assert tasks.workers() == 1
    assert tasks.on_workers(lambda: 42) == {"here": 42}


@pytest.fixture(scope="module")
def dask_threads() -> Any:
    distributed = require("distributed")  # a dev dependency: fails in CI, skips elsewhere
    from neardup.distributed.executor import local_cluster

    with local_cluster(workers=2, processes=False) as cluster, distributed.Client(cluster) as cli:
        yield cli
