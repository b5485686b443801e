"""Mega-shingles on the papers' fingerprints: 64-bit Karp-Rabin fingerprints of 5-word
shingles (Zagorulko et al. 2013; Romanov 2019), as ``fingerprint=rabin64``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from neardup.errors import ParameterError
from neardup.job.pipeline import dedup
from neardup.methods.base import Prepared
from neardup.methods.rabin import rabin_reference
from neardup.methods.registry import make_method
from neardup.store import Store
from neardup.text.types import Document
from shared_data import paragraphs


def test_rabin64_is_accepted_and_recorded_and_32_bit_fingerprints_are_not() -> None:
    meth = make_method("megashingles", fingerprint="rabin64")
    assert meth.shingling.fingerprint == "rabin64"
    assert meth.params()["fingerprint"] == "rabin64"
    assert make_method("megashingles").params()["fingerprint"] == "xxh64"
    with pytest.raises(ParameterError, match=r"fingerprint='crc32'.*xxh64, rabin64"):
        make_method("megashingles", fingerprint="crc32")


def test_rabin64_mega_shingles_come_from_rabin_fingerprints_of_the_shingles() -> None:
    tokens = [
        "в",
        "лесу",
        "родилась",
        "ёлочка",
        "в",
        "лесу",
        "она",
        "росла",
        "зимой",
        "и",
        "летом",
        "стройная",
    ]
    meth = make_method("megashingles", fingerprint="rabin64")
    got = meth.shingling.batch([tokens]).get(0)
    texts = [" ".join(tokens[i : i + 5]) for i in range(len(tokens) - 4)]
    want = np.unique(np.array([rabin_reference(t.encode(), 64) for t in texts], np.uint64))
    np.testing.assert_array_equal(got, want)
    a = meth.sign([Prepared("a", "", tokens)])
    b = make_method("megashingles").sign([Prepared("a", "", tokens)])
    assert not np.array_equal(a.data, b.data)  # other fingerprints, other super-shingles


def test_rabin64_mega_shingles_in_dedup_and_a_collection(tmp_path: Path) -> None:
    text = " ".join(paragraphs("progit-ru-revisions", 4, min_words=80))
    docs = [Document("a", text), Document("b", text + " и ещё одно слово в конце")]
    result = dedup(docs, method="megashingles", fingerprint="rabin64")
    assert [(p.a, p.b) for p in result.pairs] == [("a", "b")]
    with Store(f"sqlite:///{tmp_path / 'm.db'}") as store:
        store.create_collection("m", method="megashingles", params={"fingerprint": "rabin64"})
        store.add("m", docs[:1])
        assert store.check("m", docs[1].text).matches[0].doc_id == "a"
