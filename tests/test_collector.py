"""Process settings held while long work runs: the collector's young threshold raised while
a job or an add runs (neardup._collector), numpy's huge page advice off while a job runs
(neardup._memory, neardup.job.pipeline)."""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from neardup._collector import FEWER_COLLECTIONS, YOUNG_THRESHOLD, Shared, raise_young_threshold
from neardup._memory import huge_page_switch
from neardup.progress import NullProgress


@pytest.mark.parametrize(
    ("found", "while_held"),
    [((700, 10, 10), (50_000, 10, 10)), ((900, 5, 20), (50_000, 5, 20)),
     ((80_000, 10, 10), (80_000, 10, 10)), ((0, 10, 10), (0, 10, 10))],
)  # fmt: skip
def test_holders_raise_the_first_threshold_and_the_last_restores_it(
    found: tuple[int, int, int], while_held: tuple[int, int, int]
) -> None:
    """Young collections 50,000 allocations apart while held (a higher threshold kept,
    automatic collection left off when it was), the thresholds found restored by the last
    holder to end, also one that failed."""
    assert YOUNG_THRESHOLD == 50_000
    before = gc.get_threshold()
    held = Shared(raise_young_threshold)
    try:
        gc.set_threshold(*found)
        with held.applied():
            assert gc.get_threshold() == while_held
            with held.applied():  # a second holder (another thread's add)
                pass
            assert gc.get_threshold() == while_held
        assert gc.get_threshold() == found
        with pytest.raises(RuntimeError), held.applied():
            raise RuntimeError
        assert gc.get_threshold() == found
    finally:
        gc.set_threshold(*before)


def test_a_holder_in_another_thread_keeps_the_setting_until_it_ends() -> None:
    """The first holder ends while a second thread still holds: the setting stays, and the
    second restores it."""
    before = gc.get_threshold()
    held = Shared(raise_young_threshold)
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with held.applied():
            entered.set()
            release.wait(10)

    try:
        gc.set_threshold(700, 10, 10)
        thread = threading.Thread(target=other)
        with held.applied():
            thread.start()
            assert entered.wait(10)
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD  # the thread still holds it
        release.set()
        thread.join(10)
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        release.set()
        gc.set_threshold(*before)


class _Thresholds(NullProgress):
    """Records the collector's first threshold at each stage's start."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def start(self, stage: str, total: int | None, *, unit: str = "items") -> None:
        self.seen.append(gc.get_threshold()[0])


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_dedup_job_runs_with_fewer_collections_and_puts_the_threshold_back(
    tmp_path: Path, jobs: int
) -> None:
    import neardup

    corpus = tmp_path / "corpus.jsonl"
    text = "the quick brown fox jumps over the lazy dog near the river bank today"
    rows = [{"id": "a", "text": text}, {"id": "b", "text": text + " again"}]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    before = gc.get_threshold()
    progress = _Thresholds()
    try:
        gc.set_threshold(700, 10, 10)
        result = neardup.dedup([str(corpus)], method="minhash-lsh", jobs=jobs, progress=progress)
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)
    assert result.summary["pairs"] == 1
    assert progress.seen and set(progress.seen) == {YOUNG_THRESHOLD}
    assert not FEWER_COLLECTIONS._running


@pytest.fixture
def switch() -> Iterator[Callable[[bool], bool]]:
    """numpy's switch of its huge page advice (sets it, returns what it was); its state is
    put back after the test."""
    found = huge_page_switch()
    if found is None:
        pytest.skip("this numpy has no huge page switch")
    before = found(True)
    found(before)
    yield found
    found(before)


def _advice_now(switch: Callable[[bool], bool]) -> bool:
    """numpy's huge page advice as set now (read by setting it back as it was)."""
    found = bool(switch(True))
    switch(found)
    return found


def test_huge_page_advice_is_turned_off_and_put_back(switch: Callable[[bool], bool]) -> None:
    from neardup._memory import no_huge_page_advice

    switch(True)
    restore = no_huge_page_advice()
    assert _advice_now(switch) is False
    restore()
    assert _advice_now(switch) is True
    switch(False)  # found off: nothing to put back
    no_huge_page_advice()()
    assert _advice_now(switch) is False


class _Advice(NullProgress):
    """Records numpy's huge page advice at each stage's start."""

    def __init__(self, switch: Callable[[bool], bool]) -> None:
        self.switch = switch
        self.seen: list[bool] = []

    def start(self, stage: str, total: int | None, *, unit: str = "items") -> None:
        self.seen.append(_advice_now(self.switch))


def test_a_dedup_job_runs_without_huge_page_advice_and_puts_it_back(
    tmp_path: Path, switch: Callable[[bool], bool]
) -> None:
    import neardup
    from neardup.job.pipeline import WITHOUT_HUGE_PAGE_ADVICE

    corpus = tmp_path / "corpus.jsonl"
    text = "the quick brown fox jumps over the lazy dog near the river bank today"
    rows = [{"id": "a", "text": text}, {"id": "b", "text": text + " again"}]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    switch(True)
    progress = _Advice(switch)
    result = neardup.dedup([str(corpus)], method="minhash-lsh", jobs=1, progress=progress)
    assert _advice_now(switch) is True
    assert result.summary["pairs"] == 1
    assert progress.seen and set(progress.seen) == {False}
    assert not WITHOUT_HUGE_PAGE_ADVICE._running
