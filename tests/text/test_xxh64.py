"""The vectorised XXH64 is bit-exact with the reference implementation (xxhash)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import xxhash
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.text.xxh64 import xxh64_ranges

ROOT = Path(__file__).resolve().parents[2]


def _ranges(strings: list[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    buf = np.frombuffer(b"".join(strings), dtype=np.uint8) if strings else np.zeros(0, np.uint8)
    lengths = np.array([len(s) for s in strings], dtype=np.int64)
    ends = np.cumsum(lengths)
    return buf, ends - lengths, ends


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=140), max_size=20), st.integers(0, 2**64 - 1))
def test_equals_xxhash(strings: list[bytes], seed: int) -> None:
    buf, starts, ends = _ranges(strings)
    got = xxh64_ranges(buf, starts, ends, seed)
    assert got.tolist() == [xxhash.xxh64_intdigest(s, seed) for s in strings]


def test_known_values() -> None:
    # the XXH64 of the empty string with seed 0 is 0xEF46DB3751D8E999 (xxHash test vectors)
    buf, starts, ends = _ranges([b"", b"abc"])
    got = xxh64_ranges(buf, starts, ends, 0)
    assert int(got[0]) == 0xEF46DB3751D8E999
    assert int(got[1]) == 0x44BC2CF5AD770999


@pytest.mark.slow
@settings(derandomize=True, max_examples=40, deadline=None)
@given(st.lists(st.binary(max_size=100), min_size=300, max_size=900), st.integers(0, 2**64 - 1))
def test_equals_xxhash_on_large_batches(strings: list[bytes], seed: int) -> None:
    # more than 4 * SHORT ranges: the length-grouped path for strings under 64 bytes (one
    # stripe from 32 on) beside the general path for longer ones
    buf, starts, ends = _ranges(strings)
    got = xxh64_ranges(buf, starts, ends, seed)
    assert got.tolist() == [xxhash.xxh64_intdigest(s, seed) for s in strings]


def test_equals_xxhash_on_the_words_of_a_real_text() -> None:
    words = [w.encode() for w in (ROOT / "README.md").read_text(encoding="utf-8").split()]
    buf, starts, ends = _ranges(words)
    assert len(words) > 500
    got = xxh64_ranges(buf, starts, ends, 11)
    assert got.tolist() == [xxhash.xxh64_intdigest(w, 11) for w in words]


def test_every_length_up_to_a_hundred_bytes_in_one_batch() -> None:
    """Each length of the grouped path (0-63 bytes, one stripe from 32 on) and past it."""
    rng = np.random.default_rng(5)
    strings = [rng.bytes(n % 100) for n in range(400)]
    buf, starts, ends = _ranges(strings)
    got = xxh64_ranges(buf, starts, ends, 3)
    assert got.tolist() == [xxhash.xxh64_intdigest(s, 3) for s in strings]
