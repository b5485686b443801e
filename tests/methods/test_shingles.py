"""Shingles and fingerprints: exact small values, batch == single, CRC32 as in seed 001."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest
import xxhash
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import ParameterError
from neardup.methods.shingles import Shingling
from neardup.text.xxh64 import token_fingerprints

WORDS = ["разум", "дан", "человеку", "того", "чтобы", "разумно", "жил"]


def test_overlapping_word_shingles_are_broders() -> None:
    assert Shingling(size=3).shingles(WORDS) == [
        "разум дан человеку",
        "дан человеку того",
        "человеку того чтобы",
        "того чтобы разумно",
        "чтобы разумно жил",
    ]


def test_non_overlapping_shingles_step_equals_size_seed_003() -> None:
    assert Shingling(size=3, step=3).shingles(WORDS) == [
        "разум дан человеку",
        "того чтобы разумно",
        "жил",  # the tail, kept as a shorter shingle as the tutorial does
    ]


def test_short_document_is_one_shingle_and_empty_is_none() -> None:
    assert Shingling(size=5).shingles(["a", "b"]) == ["a b"]
    assert Shingling(size=5).shingles([]) == []
    assert Shingling(size=5).fingerprints([]).shape == (0,)


def test_crc32_fingerprints_are_zlib_crc32_of_the_shingle_text() -> None:
    fp = Shingling(size=3, fingerprint="crc32").fingerprints(WORDS)
    expected = sorted({zlib.crc32(s.encode()) for s in Shingling(size=3).shingles(WORDS)})
    assert fp.tolist() == expected


def test_seed_001_crc32_example() -> None:
    # seed 001 prints CRC32 1759088479 for "My war is over." (signed -127495474 for "!")
    assert zlib.crc32(b"My war is over.") == 1759088479
    assert Shingling(size=1, fingerprint="crc32").fingerprints(["x"]).tolist() == [zlib.crc32(b"x")]


def test_token_fingerprints_are_xxh64_of_utf8() -> None:
    fp = token_fingerprints(["разум", "a", "разум"], seed=7)
    h = xxhash.xxh64_intdigest("разум".encode(), 7)
    assert fp.tolist() == [h, xxhash.xxh64_intdigest(b"a", 7), h]


def test_xxh64_word_fingerprint_combines_tokens_in_order() -> None:
    a = Shingling(size=2).fingerprints(["a", "b"])
    b = Shingling(size=2).fingerprints(["b", "a"])
    assert a.shape == (1,) and b.shape == (1,) and a[0] != b[0]


def test_character_shingles() -> None:
    sh = Shingling(size=4, unit="char")
    assert sh.shingles(["ab", "cd"]) == ["ab c", "b cd"]
    assert sh.fingerprints(["ab", "cd"]).tolist() == sorted(
        xxhash.xxh64_intdigest(s.encode()) for s in ["ab c", "b cd"]
    )


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"size": 0}, "size"),
        ({"step": 9, "size": 3}, "step"),
        ({"fingerprint": "md5"}, "fingerprint"),
    ],
)
def test_bad_parameters_name_the_parameter(kwargs: dict[str, Any], name: str) -> None:
    with pytest.raises(ParameterError, match=name):
        Shingling(**kwargs)


token_lists = st.lists(
    st.lists(st.sampled_from(["a", "b", "c", "d", "дом", "кот", "ё"]), max_size=30), max_size=12
)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(token_lists, st.integers(1, 6), st.integers(1, 6))
def test_batch_equals_one_by_one(lists: list[list[str]], size: int, step: int) -> None:
    sh = Shingling(size=size, step=min(step, size))
    batch = sh.batch(lists)
    assert len(batch) == len(lists)
    for i, tokens in enumerate(lists):
        single = sh.fingerprints(tokens)
        assert np.array_equal(batch.get(i), single)
        assert single.shape[0] == len(set(sh.shingles(tokens)))


@settings(derandomize=True, max_examples=40, deadline=None)
@given(token_lists)
def test_deterministic_across_objects(lists: list[list[str]]) -> None:
    a = Shingling(size=3, seed=5).batch(lists)
    b = Shingling(size=3, seed=5).batch(lists)
    assert np.array_equal(a.values, b.values) and np.array_equal(a.offsets, b.offsets)
