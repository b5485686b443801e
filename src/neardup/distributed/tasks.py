"""What an executor of the partitioned job provides: tasks that it maps over partitions,
shuffles between them and gathers (:class:`TaskRunner`).

The partitioned job (:mod:`.stages`) is written once over these primitives; an executor
of it is a :class:`TaskRunner` subclass (the Dask one: :class:`.executor.DaskTasks`; the
in-process one: :class:`.inline.InlineTasks`) and a class with ``run(job)`` that opens its
runtime, hands the runner to :func:`.stages.run_partitioned` and closes the runtime.

A *handle* is what :meth:`TaskRunner.submit` returns for a task's result: a Dask future,
or the value itself wrapped (:class:`Done`). Handles may be passed to later tasks, as
positional or keyword arguments (also inside a list, tuple or dict); each task receives
their values.
"""

from __future__ import annotations

import operator
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any


class TaskRunner:
    """The primitives of the partitioned job: :meth:`submit` and :meth:`gather` (abstract),
    and :meth:`map`, :meth:`shuffle`, :meth:`wait`, :meth:`holders`, :meth:`workers` and
    :meth:`on_workers`, which a runner may override (Dask does, for fewer round trips).

    Tasks must be run as if in submission order: a task's arguments are results of
    earlier tasks or values. A task that raises makes :meth:`gather` (of it, or of a task
    depending on it) raise the same exception.
    """

    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        key: str | None = None,
        where: list[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        """A handle of ``fn(*args, **kwargs)``, run with the handles among the arguments
        replaced by their values.

        Args:
            key: a name of the task, unique in the job (None: the runner names it).
            where: workers preferred for the task (those holding its largest input), or
                None; a hint: the task may run elsewhere.
        """
        raise NotImplementedError

    def gather(self, handles: Any) -> Any:
        """The values of ``handles``: one handle, or a list, tuple or dict of handles and
        values (nested), as the same structure of values."""
        raise NotImplementedError

    def map(self, fn: Callable[..., Any], items: Iterable[Any], **kwargs: Any) -> list[Any]:
        """Handles of ``fn(item, **kwargs)`` for each of ``items``, in order."""
        return [self.submit(fn, item, **kwargs) for item in items]

    def shuffle(
        self,
        inputs: Sequence[Any],
        splitter: Callable[..., list[Any]],
        n_out: int,
        combiner: Callable[..., Any],
        *,
        split_args: tuple[Any, ...] = (),
        combine_args: tuple[Any, ...] = (),
        combine_each: Sequence[Any] | None = None,
        name: str = "shuffle",
    ) -> list[Any]:
        """All-to-all shuffle of the ``m`` ``inputs`` (handles or values) to ``n_out``
        outputs: each input is split once (``splitter(input, *split_args)``: a list of
        ``n_out`` pieces, by destination), and output ``j`` is
        ``combiner(j, *combine_args, *pieces)`` of its ``m`` pieces in input order, or
        ``combiner(j, combine_each[j], *combine_args, *pieces)`` when ``combine_each`` (a
        handle or value per output) is given. No task holds more than one input or one
        output; a piece is an ordinary task result (a lost worker costs its recomputation
        from its lineage, where the runner keeps one). Returns ``n_out`` handles."""
        uid = uuid.uuid4().hex[:8]
        splits = [
            self.submit(splitter, x, *split_args, key=f"{name}-split-{uid}-{i}")
            for i, x in enumerate(inputs)
        ]
        outs = []
        for j in range(n_out):
            pieces = [
                self.submit(operator.getitem, s, j, key=f"{name}-piece-{uid}-{i}-{j}")
                for i, s in enumerate(splits)
            ]
            own = () if combine_each is None else (combine_each[j],)
            outs.append(
                self.submit(combiner, j, *own, *combine_args, *pieces, key=f"{name}-out-{uid}-{j}")
            )
        return outs

    def wait(self, handles: Sequence[Any]) -> None:
        """Return once every one of ``handles`` is done (its result held where it ran)."""
        self.gather(list(handles))

    def holders(self, handles: Sequence[Any]) -> list[list[str] | None]:
        """For each of ``handles`` (done: :meth:`wait` first), the workers holding its
        result, or None (not known, or one place for all)."""
        return [None] * len(handles)

    def workers(self) -> int:
        """Workers running tasks now (>= 1)."""
        return 1

    def places(self) -> list[str]:
        """The names of the workers running tasks now, in a fixed order, for ``where``
        (empty: a runner that places nothing)."""
        return []

    def on_workers(self, fn: Callable[[], Any]) -> dict[str, Any]:
        """``fn()`` run once in every worker process: ``{worker name: result}``."""
        return {"here": fn()}


class Done:
    """A task's result as an in-process runner holds it (its handle)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def resolved(value: Any) -> Any:
    """``value`` with every :class:`Done` in it (also inside a list, tuple or dict)
    replaced by what it holds."""
    if isinstance(value, Done):
        return value.value
    if type(value) in (list, tuple):
        return type(value)(resolved(v) for v in value)
    if type(value) is dict:
        return {k: resolved(v) for k, v in value.items()}
    return value
