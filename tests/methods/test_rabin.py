"""Rabin fingerprints (Rabin 1981): the vectorised ones equal a slow long division."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import ParameterError
from neardup.methods.rabin import (
    POLYNOMIALS,
    is_irreducible,
    rabin_bytes,
    rabin_reference,
    rabin_word_shingles,
    shift_bytes,
)
from neardup.methods.registry import make_method
from neardup.methods.shingles import Shingling
from neardup.text.canonical import CanonicalForm

DEGREES = st.sampled_from([32, 64])
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
TOKEN = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Cc")), min_size=1, max_size=12
)


def slow(data: bytes, degree: int, seed: int = 0) -> int:
    """Bit-serial division, independent of rabin_reference's big-int remainder."""
    p = (1 << degree) | POLYNOMIALS[degree]
    r = seed
    for byte in data:
        for i in range(7, -1, -1):
            r = (r << 1) | ((byte >> i) & 1)
            if r >> degree:
                r ^= p
    return r


@pytest.mark.parametrize("degree", [32, 64])
def test_polynomials_are_irreducible(degree: int) -> None:
    assert is_irreducible((1 << degree) | POLYNOMIALS[degree])
    # x^k + 1 = (x + 1)^k over GF(2): reducible, and the test says so
    assert not is_irreducible((1 << degree) | 1)


def test_small_exact_values() -> None:
    # f("a") = 0x61 (a polynomial of degree < k is its own remainder)
    assert rabin_reference(b"a", 64) == 0x61
    assert rabin_bytes([b"a", b""], 64).tolist() == [0x61, 0]
    # 8 bytes = x^64 * 1 + ... : one reduction by P64
    assert rabin_reference(b"\x01" + bytes(8), 64) == POLYNOMIALS[64]
    assert rabin_reference(b"\x01" + bytes(4), 32) == POLYNOMIALS[32]


@settings(max_examples=150, deadline=None)
@given(chunks=st.lists(st.binary(max_size=40), max_size=12), degree=DEGREES, seed=SEEDS)
def test_rabin_bytes_equals_the_slow_division(chunks: list[bytes], degree: int, seed: int) -> None:
    got = rabin_bytes(chunks, degree, seed).tolist()
    assert got == [slow(c, degree, seed) for c in chunks]
    assert got == [rabin_reference(c, degree, seed) for c in chunks]
    assert all(v < 2**degree for v in got)


@settings(max_examples=100, deadline=None)
@given(
    h=st.lists(st.integers(min_value=0, max_value=2**32 - 1), min_size=1, max_size=8),
    n=st.integers(min_value=0, max_value=300),
    degree=DEGREES,
)
def test_shift_is_a_multiplication_by_x_to_the_8n(h: list[int], n: int, degree: int) -> None:
    got = shift_bytes(np.array(h, np.uint64), np.full(len(h), n, np.int64), degree)
    p = (1 << degree) | POLYNOMIALS[degree]
    from neardup.methods.rabin import poly_mod

    assert got.tolist() == [poly_mod(v << (8 * n), p) for v in h]


@settings(max_examples=80, deadline=None)
@given(
    docs=st.lists(st.lists(TOKEN, max_size=9), min_size=1, max_size=5),
    size=st.integers(min_value=1, max_value=4),
    degree=DEGREES,
    seed=SEEDS,
)
def test_word_shingles_equal_the_fingerprint_of_their_text(
    docs: list[list[str]], size: int, degree: int, seed: int
) -> None:
    values, doc = rabin_word_shingles(docs, size, 1, degree, seed)
    sh = Shingling(size=size)
    expected = [
        (slow(s.encode("utf-8", "surrogatepass"), degree, seed), i)
        for i, toks in enumerate(docs)
        for s in sh.shingles(toks)
    ]
    assert list(zip(values.tolist(), doc.tolist(), strict=True)) == expected


@pytest.mark.parametrize("kind", ["rabin32", "rabin64"])
def test_shingling_paths_agree(kind: Literal["rabin32", "rabin64"]) -> None:
    canon = CanonicalForm(stop_words=False)
    texts = ["Разум дан человеку для того, чтобы он разумно жил", "", "one two", "a b c d e f"]
    sh = Shingling(size=3, fingerprint=kind, seed=5)
    degree = int(kind[5:])
    tokens = [canon.tokens(t) for t in texts]
    batch = sh.batch(tokens)
    for i, toks in enumerate(tokens):
        expected = sorted({slow(s.encode(), degree, 5) for s in sh.shingles(toks)})
        assert batch.get(i).tolist() == expected
        fp, _ = sh.occurrences(toks)
        assert fp.tolist() == [slow(s.encode(), degree, 5) for s in sh.shingles(toks)]
    values, doc = sh.occurrences_texts(texts, canon)
    assert np.array_equal(np.unique(values[doc == 0]), batch.get(0))
    chars = Shingling(size=4, unit="char", fingerprint=kind).fingerprints(["ab", "cd"])
    assert chars.tolist() == sorted({slow(s.encode(), degree) for s in ["ab c", "b cd"]})


def test_a_method_with_rabin_fingerprints_finds_a_copy() -> None:
    from neardup.job.pipeline import dedup
    from neardup.text.types import Document

    text = "the quick brown fox jumps over the lazy dog near the river bank today"
    docs = [Document("a", text), Document("b", text + " again"), Document("c", "other words")]
    res = dedup(docs, method=make_method("shingles-full", fingerprint="rabin32"))
    assert {(p.a, p.b) for p in res.pairs} == {("a", "b")}


def test_bad_degree_and_fingerprint_are_refused() -> None:
    with pytest.raises(ParameterError) as err:
        rabin_bytes([b"x"], 16)
    assert err.value.name == "degree"
    with pytest.raises(ParameterError) as err:
        Shingling(fingerprint="rabin16")  # type: ignore[arg-type]
    assert err.value.name == "fingerprint"
