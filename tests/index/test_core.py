"""The collection core (`neardup.index.core`) over a storage written here in a few lines:
the four methods of `Storage` are all a backend needs for `add` and `check` to give what
`neardup.Index` gives, on the Chekhov stories of examples/corpus and a web copy of one."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import neardup
from neardup.errors import ParameterError
from neardup.index import core
from neardup.index.codec import fingerprint_shift, verification_set
from neardup.index.memory import Index
from neardup.index.results import AddReport
from neardup.index.verify import Candidate
from neardup.text.types import Document

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
STORIES = [d for d in neardup.read_corpus(CORPUS / "chekhov") if isinstance(d, Document)]
WEB_VANKA = next(
    d.text for d in neardup.read_corpus(CORPUS / "web" / "vanka.html") if isinstance(d, Document)
)


class ListStorage:
    """Documents in a list, index keys scanned: the smallest storage."""

    def __init__(self, shift: int) -> None:
        self.shift = shift
        self.rows: list[tuple[str, bytes, np.ndarray, np.ndarray]] = []  # id, hash, set, keys

    def stored_hashes(self, ids: list[str]) -> dict[str, bytes]:
        return {r[0]: r[1] for r in self.rows if r[0] in ids}

    def encode(self, batch: core.Signed) -> core.Signed:
        return batch

    def write(self, batch: core.Signed) -> AddReport:
        assert batch.keys is not None
        sets = batch.sets
        for j, r in enumerate(batch.ready):
            fps = sets.values[sets.offsets[j] : sets.offsets[j + 1]]
            keys = batch.keys.key[batch.keys.row == j]
            self.rows.append((r.doc.id, r.content_hash, fps, keys))
        return AddReport(len(batch.ready), (), 1)

    def candidates(self, keys: np.ndarray) -> list[Candidate]:
        hits = Counter({i: int(np.isin(r[3], keys).sum()) for i, r in enumerate(self.rows)})
        best = [i for i, n in sorted(hits.items(), key=lambda e: (-e[1], e[0])) if n]
        return [
            Candidate(
                self.rows[i][0],
                "",
                "",
                verification_set(self.rows[i][2], shift=self.shift),
                None,
                hits[i],
            )
            for i in best
        ]


def test_a_storage_of_four_methods_backs_add_and_check() -> None:
    index = Index(method="minhash-lsh", threshold=0.5)
    meth = index._meth
    storage = ListStorage(fingerprint_shift(meth.shingling.fingerprint))
    docs = [*STORIES, Document("tiny", "два слова")]

    def add(items: list[Document]) -> AddReport:
        return core.add(storage, meth, items, min_tokens=index.min_tokens, batch_size=5)

    report = add(docs)
    assert report == index.add(docs, batch_size=5)
    assert (report.added, report.batches) == (16, 4)
    assert [(s.id, s.reason) for s in report.skipped] == [("tiny", "too-short")]
    changed = Document(STORIES[1].id, "other words entirely, five or more of them here")
    again = add([STORIES[0], changed])
    assert again.added == 0 and len(storage.rows) == 16
    assert [(s.id, s.reason) for s in again.skipped] == [
        (STORIES[0].id, "exists"),
        (STORIES[1].id, "changed"),
    ]
    for text in (WEB_VANKA, STORIES[3].text):
        got = core.check(storage, meth, index.info, text, limit=10, k=None)
        want = index.check(text)
        assert [(m.doc_id, m.evidence) for m in got.matches] == [
            (m.doc_id, m.evidence) for m in want.matches
        ]
    (m,) = core.check(storage, meth, index.info, WEB_VANKA, limit=10, k=None).matches
    assert (m.doc_id, m.evidence["score"]) == ("Ванька.txt", 0.998674)


def test_batches_prepared_ahead_in_a_thread_are_written_in_input_order() -> None:
    """`ahead=n`: a reader thread prepares up to n batches while one is written; the rows,
    their order and the report are those of the inline add (ahead=0)."""
    index = Index(method="minhash-lsh", threshold=0.5)
    meth = index._meth
    shift = fingerprint_shift(meth.shingling.fingerprint)
    got = {}
    for ahead in (0, 1, 3):
        storage = ListStorage(shift)
        report = core.add(
            storage, meth, STORIES, min_tokens=index.min_tokens, batch_size=3, ahead=ahead
        )
        got[ahead] = (report, [r[0] for r in storage.rows])
    assert got[1] == got[3] == got[0]
    assert got[0][0].batches == 6 and got[0][1] == [d.id for d in STORIES]
    for bad in (-1, True, 1.5):
        with pytest.raises(ParameterError, match="ahead"):
            core.add(ListStorage(shift), meth, STORIES, min_tokens=1, batch_size=3, ahead=bad)  # type: ignore[arg-type]


def test_the_refit_is_the_same_in_batches_and_fits_before_signing() -> None:
    """`core.refit` (the memory Index's and the database's): the method is fitted when it
    is called, then the stories are signed and keyed batch by batch; batches of 3 give the
    signatures and keys of one batch of all."""
    from neardup.methods.base import TermBags
    from neardup.methods.corpus_stats import CorpusStatistics
    from neardup.methods.registry import make_method

    for name in ("tf-ridf", "imatch", "anchor-words"):
        lists = [make_method(name).canonical.tokens(d.text) for d in STORIES]
        stats = CorpusStatistics.from_token_lists(lists)
        rows = {}
        for batch in (3, len(lists)):
            meth = make_method(name)
            batches = core.refit(meth, stats, TermBags.from_token_lists(lists), batch=batch)
            first = meth.sign_counts(TermBags.from_token_lists(lists[:1]))  # fitted already
            out = []
            for lo, sigs, keys in batches:
                assert sigs.count == min(batch, len(lists) - lo)
                out += [
                    (meth.signature(sigs, i).to_bytes(), keys.for_row(i).tolist())
                    for i in range(sigs.count)
                ]
            rows[batch] = out
            assert first.count == 1 and out[0][0] == meth.signature(first, 0).to_bytes()
        assert len(rows[3]) == len(STORIES) == 16
        assert rows[3] == rows[len(lists)]
        assert len({sig for sig, _ in rows[3]}) > 1  # the stories are told apart
