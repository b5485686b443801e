"""The Method contract: every hook declared once on MethodBase with its documented default,
the built-in methods' capability flags, the bags-of-words value, and the keys shared by a
collection and the Dask engine."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.errors import ParameterError, UsageError
from neardup.methods.base import Capabilities, MethodBase, Prepared, TermBags
from neardup.methods.decision import EQUAL_SIGNATURE, VERIFIED
from neardup.methods.keys import GroupKeys, group_keys, key_rows
from neardup.methods.megashingles import Megashingles
from neardup.methods.registry import make_method, method_classes
from neardup.methods.shingle_methods import MinHashLSH
from neardup.methods.shingles import Shingling
from neardup.text.canonical import CanonicalForm

TOKENS = [f"w{i}" for i in range(40)]


def test_every_builtin_method_is_complete_and_declares_its_capabilities() -> None:
    flags = {
        cls.name: (
            cls.capabilities.signs_from_sets,
            cls.capabilities.groups_by_key,
            cls.capabilities.has_index_keys,
        )
        for cls in method_classes()
        if cls.__module__.startswith("neardup.")
    }
    assert {n for n, f in flags.items() if f[1]} == {
        "minhash-lsh",
        "megashingles",
        "imatch",
        "imatch-random",
        "tf-ridf",
    }
    assert {n for n, f in flags.items() if not f[2]} == {"simhash"}
    assert {n for n, f in flags.items() if f[0]} == {
        "shingles-full",
        "shingles-mod",
        "shingles-min",
        "shingles-dice",
        "minhash-lsh",
        "megashingles",
    }
    assert all(not getattr(cls, "__abstractmethods__", ()) for cls in method_classes())


def test_defaults_of_a_method_that_declares_nothing_else() -> None:
    meth = make_method("simhash")
    assert isinstance(meth, MethodBase)
    assert meth.shingling == Shingling() and meth.threshold is None and meth.group_limit is None
    assert meth.lexicon_warning(10) is None
    sigs = meth.sign([Prepared("a", "", TOKENS)])
    with pytest.raises(UsageError, match="does not sign from shingle sets"):
        meth.from_sets(Shingling().batch([TOKENS]))
    assert meth.capabilities == Capabilities(signs_from_text=True)
    assert not meth.capabilities.has_index_keys and not meth.capabilities.groups_by_key
    with pytest.raises(ParameterError) as err:
        meth.keys(sigs)
    assert err.value.name == "method"
    with pytest.raises(ParameterError) as err:
        meth.containment(sigs, np.zeros((0, 2), np.int64))
    assert err.value.name == "measure"
    # a method's own canonical form, else the default one
    assert make_method("spotsigs").canonical == CanonicalForm(stop_words=False)
    assert MethodBase.canonical == CanonicalForm()


def test_the_default_rule_follows_exact_key() -> None:
    class Keyed(MethodBase):
        capabilities = Capabilities(exact_key=True)

    class Scored(MethodBase):
        pass

    assert Keyed.decision_rule is EQUAL_SIGNATURE and Scored.decision_rule is VERIFIED
    assert make_method("tf-ridf").decision_rule.text.startswith("equal TF-RIDF signature")


def test_term_bags_round_trip_and_slices() -> None:
    lists = [["b", "a", "b"], [], ["c"], ["a", "a", "c", "d"]]
    bags = TermBags.from_token_lists(lists)
    assert bags.count == 4 and bags.names == ["b", "a", "c", "d"]
    assert bags.row_doc.tolist() == [0, 0, 2, 3, 3, 3]
    assert bags.row_count.tolist() == [2, 1, 1, 2, 1, 1]
    assert [sorted(t) for t in bags.token_lists()] == [sorted(t) for t in lists]
    part = bags.slice(1, 3)
    assert part.count == 2 and part.token_lists() == [[], ["c"]]
    assert bags.slice(3, 9).token_lists() == [["a", "a", "c", "d"]]


def test_default_sign_counts_signs_the_bags_tokens() -> None:
    meth = make_method("imatch", min_terms=1)
    from neardup.methods.corpus_stats import CorpusStatistics

    lists = [TOKENS[:20], TOKENS[10:30], TOKENS[:20], []]
    meth.fit(CorpusStatistics.from_token_lists(lists))
    got = meth.sign_counts(TermBags.from_token_lists(lists))
    want = meth.sign([Prepared(str(i), "", t) for i, t in enumerate(lists)])
    assert np.array_equal(got.data, want.data) and got.key == want.key


def test_lsh_collection_keys_are_its_dask_grouping_keys() -> None:
    meth = make_method("minhash-lsh", threshold=0.5)
    assert isinstance(meth, MinHashLSH)  # narrows the type: make_method gives a Method
    sets = Shingling().batch([TOKENS, [], TOKENS[5:]])
    sigs = meth.from_sets(sets)
    grouped = group_keys(meth.keys(sigs))
    rows = key_rows(grouped)
    assert isinstance(grouped, GroupKeys) and not grouped.valid[1].any()
    b = meth.lsh.bands
    assert rows.row.tolist() == [0] * b + [2] * b and rows.band.tolist() == list(range(b)) * 2
    assert rows.key.view(np.uint64).tolist() == grouped.keys[[0, 2]].reshape(-1).tolist()
    assert meth.group_limit == meth.max_df


@pytest.mark.parametrize("name", ["imatch", "imatch-random", "tf-ridf"])
def test_exact_collection_keys_are_the_salted_grouping_keys(name: str) -> None:
    from neardup.methods.corpus_stats import CorpusStatistics
    from neardup.methods.keys import slot_keys

    meth = make_method(name)
    lists = [TOKENS[:20], TOKENS[10:30], [], TOKENS[:20] + TOKENS[30:], ["w1"] * 3]
    meth.fit(CorpusStatistics.from_token_lists(lists))
    for batch in (lists, lists[:0], lists[2:3]):
        sigs = meth.sign([Prepared(str(i), "", t) for i, t in enumerate(batch)])
        got = key_rows(meth.keys(sigs))
        want = slot_keys([meth.signature(sigs, i).payload for i in range(sigs.count)])
        for field in ("row", "band", "key"):
            assert getattr(got, field).dtype == np.int64
            assert getattr(got, field).tolist() == getattr(want, field).tolist()
    assert key_rows(meth.keys(meth.sign([Prepared("x", "", lists[0])]))).key.size > 0


def test_megashingles_collection_keys_are_its_salted_mega_shingle_slots() -> None:
    # the rows derived from the grouping keys: the slot_keys of the payloads' mega-shingle
    # slots (s .. s+m-1), the super-shingles (slots 0 .. s-1) are no keys
    from neardup.methods.keys import slot_keys

    meth = make_method("megashingles")
    assert isinstance(meth, Megashingles)
    sigs = meth.from_sets(Shingling().batch([TOKENS, [], TOKENS[:30] + ["x"] * 10]))
    got = key_rows(meth.keys(sigs))
    want = slot_keys([meth.signature(sigs, i).payload for i in range(sigs.count)])
    mega = want.band >= meth.supershingles
    assert got.band.min() == meth.supershingles and not (got.row == 1).any()
    for field in ("row", "band", "key"):
        assert getattr(got, field).tolist() == getattr(want, field)[mega].tolist()


def test_capabilities_are_validated_and_the_old_flags_refused() -> None:
    with pytest.raises(ParameterError) as err:
        Capabilities(keys="dense")  # type: ignore[arg-type]
    assert (err.value.name, err.value.value) == ("keys", "dense")
    with pytest.raises(ParameterError) as err:
        Capabilities(needs_fit=1)  # type: ignore[arg-type]
    assert err.value.name == "needs_fit"
    with pytest.raises(UsageError, match="declares needs_fit, groups_by_key: declare capab"):

        class Old(MethodBase):
            needs_fit = True
            groups_by_key = True

    with pytest.raises(UsageError, match="defines index_keys: define keys"):

        class OldKeys(MethodBase):
            def index_keys(self, sigs: object) -> None: ...


def test_signature_and_compare_are_the_batch_forms_sliced() -> None:
    meth = make_method("shingles-full")
    sigs = meth.from_sets(Shingling().batch([TOKENS, TOKENS[5:], []]))
    a, b, c = (meth.signature(sigs, i) for i in range(3))
    assert a.payload.tolist() == sigs.data.get(0).tolist()
    want = meth.similarity(sigs, np.array([[0, 1], [0, 2]]))
    assert [meth.compare(a, b), meth.compare(a, c)] == want.tolist() == [31 / 36, 0.0]
