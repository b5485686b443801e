"""The vectorised tokenizer gives exactly the regex tokenizer's tokens and fingerprints."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.methods.shingle_methods import MinHashLSH
from neardup.methods.shingles import Shingling
from neardup.text.canonical import TOKEN_RE, CanonicalForm, normalize
from neardup.text.vectorized import canonical_fingerprints, tokenize_batch
from neardup.text.xxh64 import token_fingerprints

SAMPLES = [
    "Разум дан человеку для того, чтобы он разумно жил.",
    "Ёлка — «ещё» ЁЖИК…  ＦＵＬＬ-width ﬁne café e\u0301x",
    "Mixed 中文分词测试 and カタカナ text, 한국어 too; 3.14 _under_score_",
    "",
    "\n\n  \t",
    "emoji 😀 and 𝐀𝐁 math bold, Gothic 𐌰𐌱",
    "It doesn't, it's",
]

texts = st.lists(st.text(max_size=60), max_size=8)


def _regex(text: str) -> list[str]:
    return TOKEN_RE.findall(normalize(text))


def test_tokens_equal_the_regex_on_pinned_texts() -> None:
    batch = tokenize_batch(SAMPLES)
    for i, text in enumerate(SAMPLES):
        assert batch.tokens(i) == _regex(text)
    assert batch.tokens(2)[:4] == ["mixed", "中", "文", "分"]


@settings(derandomize=True, max_examples=300, deadline=None)
@given(texts)
def test_tokens_equal_the_regex_on_any_unicode(items: list[str]) -> None:
    batch = tokenize_batch(items)
    assert [batch.tokens(i) for i in range(len(items))] == [_regex(t) for t in items]


@settings(derandomize=True, max_examples=150, deadline=None)
@given(texts, st.sampled_from([CanonicalForm(), CanonicalForm(stop_words=False),
                               CanonicalForm(min_token_length=3)]))  # fmt: skip
def test_fingerprints_equal_the_per_token_path(items: list[str], canonical: CanonicalForm) -> None:
    fps, offsets = canonical_fingerprints(items, canonical, seed=3)
    for i, text in enumerate(items):
        want = token_fingerprints(canonical.tokens(text), 3)
        assert np.array_equal(fps[offsets[i] : offsets[i + 1]], want)


def test_fast_shingles_and_sketches_equal_the_slow_path() -> None:
    cf = CanonicalForm()
    texts = SAMPLES * 3 + ["Кот сидел на окне и смотрел на улицу долго " * 5]
    fast = Shingling(size=3).batch_texts(texts, cf)
    slow = Shingling(size=3).batch([cf.tokens(t) for t in texts])
    assert np.array_equal(fast.values, slow.values)
    assert np.array_equal(fast.offsets, slow.offsets)
    m = MinHashLSH(shingle_size=3)
    assert np.array_equal(m.sketch_texts(texts), m.hasher.sketches(slow))


def test_threaded_sketches_equal_single_threaded() -> None:
    texts = [f"{s} {i} слово word" * (i % 7 + 1) for i, s in enumerate(SAMPLES * 20)]
    m = MinHashLSH()
    assert np.array_equal(m.sketch_texts(texts, workers=3), m.sketch_texts(texts))
