"""Arrays spilled to disk come back equal to the arrays held in memory."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup._spill import PartStack, SpillFile, default_budget, physical_memory
from neardup.errors import ParameterError


def _parts(sizes: list[int], width: int) -> list[np.ndarray]:
    rng = np.random.default_rng(len(sizes) * 7 + width)
    shape = (lambda n: (n,)) if width == 0 else (lambda n: (n, width))
    return [rng.integers(0, 2**63, size=shape(n), dtype=np.uint64) for n in sizes]


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 50), min_size=1, max_size=8),
    width=st.sampled_from([0, 1, 4]),
    spill_after=st.integers(0, 8),
    growable=st.booleans(),
)
def test_spilled_or_not_the_stack_equals_concatenate(
    sizes: list[int], width: int, spill_after: int, growable: bool
) -> None:
    parts = _parts(sizes, width)
    expected = np.concatenate(parts)
    stack = PartStack(growable=growable, direct=spill_after % 2 == 1)
    for k, part in enumerate(parts):
        if k == spill_after:
            stack.spill()
        stack.append(part)
    assert len(stack) == expected.shape[0] and stack.nbytes == expected.nbytes
    empty = np.zeros((0, *expected.shape[1:]), np.uint64)
    got = stack.stack(empty)
    assert stack.spilled == (spill_after < len(parts))
    assert isinstance(got, np.memmap) == (stack.spilled and expected.shape[0] > 0)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 3000), min_size=0, max_size=12),
    direct=st.booleans(),
)
def test_a_spill_file_holds_every_byte_written_whatever_the_stage(
    sizes: list[int], direct: bool
) -> None:
    """Written past the page cache through a stage of two pages (parts across stage ends,
    a tail shorter than a page) or buffered, the file holds exactly the bytes written."""
    import os

    from neardup import _spill

    rng = np.random.default_rng(len(sizes))
    parts = [rng.integers(0, 256, size=n, dtype=np.uint8) for n in sizes]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_spill, "STAGE_BYTES", 2 * 4096)
        spill = SpillFile(None, direct=direct)
        assert spill.direct == direct  # ext4 and tmpfs take O_DIRECT
        for part in parts:
            spill.write(part.data)
        with spill.finish() as file:
            assert os.fstat(file.fileno()).st_size == sum(sizes)
            file.seek(0)
            assert file.read() == b"".join(p.tobytes() for p in parts)


def test_a_file_system_that_refuses_unbuffered_writes_gets_buffered_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The flag taken but the first write refused (EINVAL): the file goes on buffered,
    every byte in place."""
    import errno
    import os

    from neardup import _spill

    calls: list[int] = []
    real = os.pwrite

    def refuse_once(fd: int, data: memoryview, offset: int) -> int:
        calls.append(offset)
        if len(calls) == 1:
            raise OSError(errno.EINVAL, "Invalid argument")
        return real(fd, data, offset)

    monkeypatch.setattr(_spill, "STAGE_BYTES", 4096)
    monkeypatch.setattr(os, "pwrite", refuse_once)
    spill = SpillFile(None, direct=True)
    data = np.arange(1500, dtype=np.uint64)  # 12,000 bytes: two full stages and a tail
    spill.write(data.data)
    with spill.finish() as file:
        file.seek(0)
        assert file.read() == data.tobytes()
    assert calls[:2] == [0, 0] and len(calls) == 4


def test_a_spilled_stack_is_read_only_and_leaves_no_file(tmp_path: Path) -> None:
    stack = PartStack()
    stack.append(np.arange(10, dtype=np.uint64))
    stack.spill(str(tmp_path))
    stack.append(np.arange(10, 15, dtype=np.uint64))
    got = stack.stack(np.zeros(0, np.uint64))
    assert got.tolist() == list(range(15))
    assert list(tmp_path.iterdir()) == []  # an unnamed file: nothing to clean up
    with pytest.raises(ValueError, match="read-only"):
        got[0] = 1


def test_the_spill_file_is_closed_once_mapped_and_the_map_still_reads(tmp_path: Path) -> None:
    """The memory map holds its own descriptor: the file is closed by stack(), not left to
    the garbage collector (a ResourceWarning), and the rows are still read from disk."""
    import gc

    stack = PartStack()
    stack.append(np.arange(1000, dtype=np.uint64).reshape(250, 4))
    stack.spill(str(tmp_path))
    stack.append(np.arange(1000, 2000, dtype=np.uint64).reshape(250, 4))
    spill = stack._file
    assert spill is not None and not spill.file.closed
    got = stack.stack(np.zeros((0, 4), np.uint64))
    assert spill.file.closed and stack.spilled
    del stack
    gc.collect()
    assert got.shape == (500, 4) and got.reshape(-1).tolist() == list(range(2000))


def test_a_stack_spilled_empty_opens_no_file() -> None:
    """The signature rows of a method that signs later stay empty: spilled, they open no
    file (one was left to the garbage collector: dedup with memory_budget=0)."""
    stack = PartStack()
    stack.spill()
    assert stack.spilled and stack._file is None
    assert stack.stack(np.zeros(0, np.uint64)).shape == (0,)
    wide = PartStack()
    wide.spill()
    wide.append(np.zeros((3, 0), np.uint64))
    assert wide._file is None and wide.stack(np.zeros((0, 0), np.uint64)).shape == (3, 0)


def test_close_releases_a_spill_file_never_stacked(tmp_path: Path) -> None:
    stack = PartStack()
    stack.spill(str(tmp_path))
    stack.append(np.arange(5, dtype=np.uint64))
    spill = stack._file
    assert spill is not None
    stack.close()
    assert spill.file.closed


def test_a_part_of_another_kind_is_refused() -> None:
    stack = PartStack()
    stack.append(np.zeros((2, 4), np.uint64))
    with pytest.raises(ParameterError, match=r"uint64\(4,\)"):
        stack.append(np.zeros((2, 3), np.uint64))
    with pytest.raises(ParameterError, match="part"):
        stack.append(np.zeros((2, 4), np.uint32))


def test_nothing_appended_gives_the_empty_array_back() -> None:
    empty = np.zeros((0, 3), np.uint64)
    stack = PartStack()
    stack.spill()
    assert stack.stack(empty) is empty


def test_the_default_budget_is_a_quarter_of_the_memory() -> None:
    total = physical_memory()
    assert total is not None and total > 0  # Linux says
    assert default_budget() == total // 4


def test_the_buffer_grows_past_its_first_size_and_parts_may_be_freed_at_once() -> None:
    stack = PartStack(growable=True)
    rng = np.random.default_rng(3)
    expected = []
    for _ in range(40):  # 40 x 64 KiB: the 1 MiB first buffer grows (mremap) twice
        part = rng.integers(0, 2**63, size=(64, 128), dtype=np.uint64)
        expected.append(part.copy())
        stack.append(part)
        part[:] = 0  # the stack holds a copy
    got = stack.stack(np.zeros((0, 128), np.uint64))
    assert got.flags.writeable and np.array_equal(got, np.concatenate(expected))


def test_a_view_appended_to_a_list_of_parts_is_copied() -> None:
    """Without the growing buffer the parts are kept as a list: a view (of a worker's
    result slot, reused for the next unit) is copied, an array that owns its memory is not."""
    stack = PartStack(growable=False)
    memory = np.arange(12, dtype=np.uint64)
    stack.append(memory[:6])
    memory[:] = 99  # the owner reuses its memory
    owned = np.arange(6, 12, dtype=np.uint64)
    stack.append(owned)
    got = stack.stack(np.zeros(0, np.uint64))
    assert got.tolist() == list(range(12))


def test_rows_of_width_zero_stack_to_an_empty_matrix() -> None:
    stack = PartStack(growable=True)
    stack.append(np.zeros((3, 0), np.uint64))
    got = stack.stack(np.zeros((0, 0), np.uint64))
    assert got.shape == (3, 0)


def test_a_kernel_without_populate_write_still_gets_every_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pages of the growing buffer are faulted in by one madvise per part where the
    kernel has MADV_POPULATE_WRITE; where it refuses the option the copy goes on without
    it, asked no more."""
    from neardup import _spill

    if not _spill.GROWABLE:
        return
    parts = [np.arange(k, k + 70_000, dtype=np.uint64) for k in range(0, 700_000, 70_000)]
    for option, works in ((_spill._POPULATE_WRITE, True), (0x7FFF, False)):
        monkeypatch.setattr(_spill, "_POPULATE_WRITE", option)
        monkeypatch.setattr(_spill, "_populate_ok", [True])
        stack = _spill.PartStack()
        for part in parts:
            stack.append(part)
        got = stack.stack(np.zeros(0, np.uint64))
        assert got.tobytes() == np.concatenate(parts).tobytes()
        if not works:
            assert _spill._populate_ok[0] is False
