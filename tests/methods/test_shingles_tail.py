"""Non-overlapping shingles keep the tail: the words after the last full shingle make one
last, shorter shingle, as the shingle tutorial («Метод шинглов: алгоритм, применение и
основные параметры») splits «... | и проверки ресурса на релевантность | запросу»."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.methods.rabin import rabin_reference
from neardup.methods.shingles import Shingling
from neardup.text.canonical import CanonicalForm

SENTENCE = (
    "Выявление ключевых слов из контекста страницы применяется при составлении "
    "семантического ядра и проверки ресурса на релевантность запросу"
)


def test_the_tutorials_last_word_is_a_shingle_of_its_own() -> None:
    tokens = CanonicalForm().tokens(SENTENCE)
    assert len(tokens) == 13  # stop words out ("предлоги отбрасываются")
    sh = Shingling(size=4, step=4)
    assert sh.shingles(tokens)[-2:] == ["ядра проверки ресурса релевантность", "запросу"]
    assert len(sh.fingerprints(tokens)) == 4  # 3 full shingles and the tail
    assert sh.occurrences(tokens)[1].tolist() == [0, 4, 8, 12]
    tail = Shingling(size=4, step=4, fingerprint="rabin64").fingerprints(tokens)
    assert rabin_reference("запросу".encode(), 64) in tail.tolist()


def test_overlapping_shingles_are_unchanged() -> None:
    tokens = CanonicalForm().tokens(SENTENCE)
    assert len(Shingling(size=4, step=1).shingles(tokens)) == 10
    assert Shingling(size=5, step=3).shingles(list("abcdefghij")) == [
        "a b c d e",
        "d e f g h",
        "g h i j",
    ]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from(["кот", "пёс", "дом", "лес", "мир", "сад"]), max_size=30),
    st.integers(1, 6),
    st.data(),
)
def test_every_word_is_in_a_shingle_and_every_path_agrees(
    tokens: list[str], size: int, data: st.DataObject
) -> None:
    step = data.draw(st.integers(1, size))
    sh = Shingling(size=size, step=step)
    texts = sh.shingles(tokens)
    _, starts = sh.occurrences(tokens)
    covered = {i for s in starts.tolist() for i in range(s, min(s + size, len(tokens)))}
    assert covered == set(range(len(tokens)))
    assert len(texts) == len(starts)
    assert [" ".join(tokens[s : s + size]) for s in starts.tolist()] == texts
    text = " ".join(tokens)
    fast = sh.batch_texts([text], CanonicalForm()).get(0)
    np.testing.assert_array_equal(fast, sh.batch([CanonicalForm().tokens(text)]).get(0))
    for fp in ("rabin32", "crc32"):
        other = Shingling(size=size, step=step, fingerprint=fp)
        want = np.unique(other._hash_texts(texts)) if texts else np.zeros(0, np.uint64)
        np.testing.assert_array_equal(other.batch([tokens]).get(0), want)
