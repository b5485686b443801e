"""SimHash (Charikar 2002; Manku et al. 2007): fingerprints, block tables, job run."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.methods.base import Prepared
from neardup.methods.shingles import Shingling
from neardup.methods.simhash import SimHash, block_masks, hamming, table_candidates
from shared_data import job_scores

EN = (
    "Near duplicate detection finds documents that differ only by small edits such as "
    "timestamps, advertisements and typo fixes; crawlers use it to skip redundant pages."
)
RU = (
    "Поиск нечетких дубликатов находит документы, которые отличаются только небольшими "
    "правками: датами, рекламой и исправленными опечатками."
)

LONG = (
    "A crawler revisits pages and stores their text. Mirrors, printer-friendly versions and "
    "session identifiers in links produce many copies of the same article. Fingerprints of "
    "64 bits let a search engine compare billions of pages quickly, and a small Hamming "
    "distance between two fingerprints marks the pages as near duplicates of each other."
)


def prep(m: SimHash, *texts: str) -> list[Prepared]:
    return [Prepared(str(i), t, m.canonical.tokens(t)) for i, t in enumerate(texts)]


def reference_fingerprint(tokens: list[str], size: int = 1, log: bool = False) -> int:
    """Charikar's rule bit by bit in plain Python, features from :class:`Shingling`."""
    fps, _ = Shingling(size=size).occurrences(tokens)
    counts = Counter(int(f) for f in fps)
    out = 0
    for k in range(64):
        v = 0.0
        for f, tf in counts.items():
            w = 1 + math.log(tf) if log else tf
            v += w if (f >> k) & 1 else -w
        out |= int(v > 0) << k
    return out


@pytest.mark.parametrize("text", [EN, RU, EN + " " + EN + " crawlers"])
@pytest.mark.parametrize(("size", "log"), [(1, False), (1, True), (2, False), (3, True)])
def test_fingerprint_equals_reference(text: str, size: int, log: bool) -> None:
    m = SimHash(shingle_size=size, weighting="log" if log else "tf")
    sig = m.signature(m.sign(prep(m, text)), 0)
    assert sig.payload.dtype == np.uint64 and sig.payload.shape == (1,)
    assert int(sig.payload[0]) == reference_fingerprint(m.canonical.tokens(text), size, log)


def test_match_non_match_symmetry() -> None:
    m = SimHash()
    long = " ".join([EN, RU, LONG])
    edited = long.replace("quickly", "rapidly")
    sigs = m.sign(prep(m, long, edited, RU))
    s = [m.signature(sigs, i) for i in range(3)]
    assert m.compare(s[0], s[1]) >= m.matching_threshold > m.compare(s[0], s[2])
    assert all(m.compare(x, y) == m.compare(y, x) for x in s for y in s)
    assert m.candidates(sigs).tolist() == [[0, 1]]
    assert m.similarity(sigs, np.array([[0, 1]]))[0] == pytest.approx(m.compare(s[0], s[1]))


@pytest.mark.parametrize("k", [0, 1, 3, 6])
def test_table_candidates_equal_brute_force(k: int) -> None:
    rng = np.random.default_rng(k)
    base = rng.integers(0, 2**63, size=40, dtype=np.uint64)
    # near copies: flip up to 2k random bits of random bases
    flips = [
        base[rng.integers(40)]
        ^ np.uint64(
            sum(1 << int(b) for b in rng.choice(64, int(rng.integers(0, 2 * k + 2)), replace=False))
        )
        for _ in range(200)
    ]
    fps = np.concatenate([base, np.array(flips, dtype=np.uint64)])
    n = fps.shape[0]
    d = hamming(fps[:, None], fps[None, :])
    want = [[i, j] for i in range(n) for j in range(i + 1, n) if d[i, j] <= k]
    assert table_candidates(fps, k).tolist() == want


def test_block_masks_cover_64_bits() -> None:
    for k in range(32):
        blocks = block_masks(k)
        assert len(blocks) == k + 1
        assert sum(w for _, w in blocks) == 64 and blocks[0][0] == 0


@settings(derandomize=True, max_examples=50, deadline=None)
@given(st.text(alphabet="abc йцу.\n", min_size=1, max_size=80))
def test_identical_texts_match_and_signatures_deterministic(text: str) -> None:
    s1, s2 = SimHash().sign(prep(SimHash(), text, text)), SimHash().sign(prep(SimHash(), text))
    assert SimHash().signature(s1, 0) == SimHash().signature(s2, 0)
    assert SimHash().similarity(s1, np.array([[0, 1]]))[0] == 1.0
    assert SimHash().candidates(s1).tolist() == [[0, 1]]


def test_threshold_mapping() -> None:
    assert SimHash(max_hamming=3).matching_threshold == 1 - 3 / 64


@pytest.mark.slow
@pytest.mark.data
def test_job_on_linux_doc_zh() -> None:
    r = job_scores("linux-doc-zh-revisions", "simhash", 1 - 3 / 64, {"max_hamming": 3})
    assert r["precision"] > 0.8 and r["recall"] > 0.9


TEXTS = st.lists(
    st.lists(
        st.one_of(
            st.sampled_from(["the", "crawler", "page", "Ёлка", "ёлка", "中文", "x" * 40]),
            st.text(alphabet="abcйцуÀé\u0301😀 ", min_size=1, max_size=8),
        ),
        max_size=40,
    ).map(" ".join),
    max_size=6,
)


@settings(max_examples=80, deadline=None)
@given(TEXTS, st.sampled_from([1, 2, 3]), st.sampled_from(["tf", "log"]), st.sampled_from([0, 7]))
def test_fingerprints_from_texts_equal_those_from_tokens(
    texts: list[str], size: int, weighting: str, seed: int
) -> None:
    """The word features from the prepare kernel's token fingerprints give the
    fingerprints the token strings give, with the compiled kernel and the numpy path."""
    m = SimHash(shingle_size=size, weighting=weighting, seed=seed)  # type: ignore[arg-type]
    want = m.fingerprint_batch([m.canonical.tokens(t) for t in texts])
    for kernel in ("auto", "python"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("NEARDUP_KERNEL", kernel)
            assert m.fingerprint_texts(texts).tobytes() == want.tobytes(), kernel
            assert m.sign(prep(m, *texts)).data.tobytes() == want.tobytes(), kernel


def test_bags_of_words_sign_from_their_tokens() -> None:
    from neardup.methods.base import TermBags

    m = SimHash()
    tokens = [m.canonical.tokens(EN), m.canonical.tokens(RU), []]
    got = m.sign_counts(TermBags.from_token_lists(tokens))
    assert got.count == 3
    assert [int(x) for x in got.data[:2]] == [reference_fingerprint(t) for t in tokens[:2]]
    assert int(got.data[2]) == 0
