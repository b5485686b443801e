"""Collections on 32-bit shingle fingerprints (crc32: Rodnenko 2009; rabin32: Zagorulko et
al. 2013): the stored verification sets keep the fingerprints themselves. They used to keep
the high 32 bits, all zero, so every candidate was verified as identical (resemblance 1)."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.index.codec import encode_sets, fingerprint_shift, verification_set
from neardup.store import Store
from neardup.text.types import Document
from shared_data import paragraphs
from store._db import unique


def test_narrow_fingerprints_are_stored_whole() -> None:
    fps = np.array([7, 3, 2**32 - 1, 3], np.uint64)
    assert fingerprint_shift("crc32") == fingerprint_shift("rabin32") == 0
    assert fingerprint_shift("xxh64") == fingerprint_shift("rabin64") == 32
    assert verification_set(fps, shift=0).tolist() == [3, 7, 2**32 - 1]
    assert verification_set(fps).tolist() == [0]  # the 64-bit reading of these values
    values = np.array([3, 7, 2**32 - 1, 5], np.uint64)
    blobs = encode_sets(values, np.array([0, 3, 4]), shift=0)
    assert blobs[0][1:] == np.array([3, 7, 2**32 - 1], "<u4").tobytes()


@pytest.mark.parametrize("fingerprint", ["crc32", "rabin32"])
def test_a_crc32_collection_measures_real_resemblance(db_url: str, fingerprint: str) -> None:
    texts = paragraphs("progit-ru-revisions", 3, min_words=80)
    mixed = " ".join(texts[0].split()[:60] + texts[1].split()[:60])
    name = unique("narrow")
    with Store(db_url) as store:
        params = {"fingerprint": fingerprint}
        store.create_collection(name, method="shingles-full", params=params, threshold=0.2)
        store.add(name, [Document("a", texts[0]), Document("b", texts[1])])
        result = store.check(name, mixed)
        scores = {m.doc_id: round(m.resemblance, 2) for m in result.matches}
        assert 0.2 < scores["a"] < 0.6 and 0.2 < scores["b"] < 0.6, scores
        assert store.check(name, texts[2]).matches == ()
