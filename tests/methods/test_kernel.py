"""The compiled prepare kernel equals the numpy reference byte for byte.

Token fingerprints, shingle sets, content keys and MinHash rows of :func:`prepare_texts`
(the Cython kernel, ``neardup.methods._kernel``) against :func:`prepare_texts_reference`
(the numpy path), on pinned texts, on generated Unicode and on every shared labelled set.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import ParameterError
from neardup.methods import kernel as kmod
from neardup.methods.kernel import (
    PreparedTexts,
    kernel_for,
    prepare_texts,
    prepare_texts_reference,
    tables,
    token_sets,
)
from neardup.methods.minhash import MinHasher
from neardup.methods.shingles import Shingling
from neardup.text.canonical import CanonicalForm, normalize
from shared_data import DATA, data_path, unavailable

FIELDS = ("fingerprints", "offsets", "counts", "keys")

PINNED = [
    "Разум дан человеку для того, чтобы он разумно жил. Ёлка и ёжик, ЁЖ!",
    "İstanbul STRASSE straße Σίσυφος ΣΊΣΥΦΟΣ ǅemal ﬁne № 5… \xa0end",
    "Mixed 中文分词测试 and カタカナ ガ text, 한국어 too; 3.14 _under_score_ ＦＵＬＬ",
    "combining e\u0301 and か\u3099 and jamo \u1100\u1161\u11a8 stay on the reference path",
    "emoji 😀 and 𝐀𝐁 math bold, Gothic 𐌰𐌱, lone \ud800 surrogate",
    "",
    "\n\n \t",
    "z",
    "x" * 33 + " " + "я" * 17 + " " + "ы" * 40 + " " + "q" * 65 + " the end of it all here",
]

#: Characters the generated texts are drawn from: ASCII, Cyrillic, Latin-1 and special
#: casing, Greek sigma, compatibility forms, combining marks, kana with voicing marks,
#: Hangul syllables and jamo, CJK, full-width, characters outside the BMP.
ALPHABET = (
    "abcXYZ019 _-.,\n\t'"
    "абвгдеёжЁЖЯяй"
    "àéîõüßÀÉİıſ"
    "ΣσςΑΩ"
    "ﬁﬂ№…\xa0ǅǆℌ²½"
    "\u0301\u0308\u0327"
    "かガカ\u3099\u309b"
    "한국\u1100\u1161\u11a8\u3131\u314f"
    "中文字"
    "ＡＢａ１"
    "😀𝐀𐌰"
)
words = st.text(alphabet=ALPHABET, min_size=1, max_size=12)
long_words = st.sampled_from(["x" * 31, "x" * 32, "y" * 64, "я" * 16, "я" * 33, "ё" * 40])
texts = st.lists(
    st.lists(st.one_of(words, words, words, long_words), max_size=30).map(" ".join),
    max_size=8,
)
canonicals = st.sampled_from(
    [
        CanonicalForm(),
        CanonicalForm(stop_words=False),
        CanonicalForm(min_token_length=3),
        CanonicalForm(stop_word_list=("ёж", "the", "中", "abc")),
        CanonicalForm(stop_words=False, min_token_length=2),
    ]
)
shinglings = st.builds(
    lambda size, step, seed: Shingling(size=size, step=min(step, size), seed=seed),
    st.integers(1, 7),
    st.integers(1, 7),
    st.sampled_from([0, 1, 2**32 - 1]),
)
hashers = st.one_of(
    st.none(),
    st.builds(
        MinHasher,
        num_perm=st.sampled_from([1, 7, 128, 256]),
        seed=st.sampled_from([0, 1, 2**40 + 3]),
        scheme=st.sampled_from(["oph", "perm"]),
    ),
)


@pytest.fixture(autouse=True)
def _built(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel must be built (it is wherever ``pip install -e .`` found g++)."""
    monkeypatch.delenv(kmod.ENV, raising=False)
    if kmod.compiled() is None:
        unavailable(kmod.missing_reason())


def assert_equal(texts: list[str], **options: Any) -> PreparedTexts:
    got = prepare_texts(texts, **options)
    want = prepare_texts_reference(texts, **options)
    assert got.kernel == "cython"
    assert want.kernel == "python"
    for name in FIELDS:
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert a.tobytes() == b.tobytes(), name
    assert got.sets.values.tobytes() == want.sets.values.tobytes()
    assert got.sets.offsets.tobytes() == want.sets.offsets.tobytes()
    if want.rows is None:
        assert got.rows is None
    else:
        assert got.rows is not None
        assert got.rows.dtype == want.rows.dtype and got.rows.shape == want.rows.shape
        assert got.rows.tobytes() == want.rows.tobytes()
    return got


DEFAULT: dict[str, Any] = {"canonical": CanonicalForm(), "shingling": Shingling(), "min_tokens": 1}


def test_sets_of_every_sorting_size_equal_the_reference() -> None:
    """Shingle sets of 31 to 33, 64, 65, 65,536 and 65,537 shingles (the kernel sorts 32 to
    65,536 by counting and insertion, the others by ``std::sort``), and one of repeated
    shingles, are the reference's sets, keys and rows."""
    words = [f"w{i}" for i in range(65_541)]
    sizes = [31, 32, 33, 64, 65, 65_536, 65_537]  # shingles of 5 words: 4 words more each
    texts = [" ".join(words[: n + 4]) for n in sizes] + [" ".join(words[:40] * 3)]
    got = assert_equal(texts, **DEFAULT, hasher=MinHasher())
    assert np.diff(got.sets.offsets).tolist() == [*sizes, 40]  # 40 starts, cyclic


def test_pinned_texts_equal_the_reference_and_fall_back_where_expected() -> None:
    got = assert_equal(PINNED, **DEFAULT, hasher=MinHasher())
    # the capital sigma, the combining marks / jamo and the astral / surrogate texts take
    # the reference
    assert got.fallback == 3
    assert got.counts[0] == 8  # разум дан человеку разумно жил елка ежик еж
    assert got.counts[7] == 1 and got.counts[5] == got.counts[6] == 0


def test_special_casing_and_compatibility_forms_take_the_table() -> None:
    info, outcp, _, _ = tables()
    outlen = info >> 20

    def entry(ch: str) -> str:
        cp = ord(ch)
        return "".join(chr(c) for c in outcp[cp * 4 : cp * 4 + int(outlen[cp])])

    assert entry("İ") == "i\u0307" and entry("ß") == "ß" and entry("Ё") == "е"
    assert entry("ﬁ") == "fi" and entry("№") == "no" and entry("…") == "..."
    assert entry("Ａ") == "a" and entry("\xa0") == " " and entry("中") == "中"
    assert entry("\u309b") == " \u3099"  # the voicing mark's space blocks composition
    # context-dependent or composing: the Python path
    for ch in ("Σ", "\u1161", "\u11a8", "\u314f", "\ud800", "\u0340"):
        assert outlen[ord(ch)] == 0, hex(ord(ch))
    # combining marks: kept after a bare starter they do not compose with
    assert outlen[0x301] == outlen[0x3099] == 15
    assert info[ord("е")] & (1 << 18) and not info[ord("ё")] & (1 << 18)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 0xFFFF), min_size=2, max_size=6))
def test_table_code_points_normalize_one_at_a_time(cps: list[int]) -> None:
    """The tables' premise: a text of table code points normalizes character by character."""
    outlen = tables()[0] >> 20
    chars = [chr(c) for c in cps if 0 < outlen[c] < 15]
    assert normalize("".join(chars)) == "".join(normalize(c) for c in chars)


def test_every_table_pair_of_a_script_sample_normalizes_one_at_a_time() -> None:
    outlen = tables()[0] >> 20
    sample = [chr(c) for c in range(0x20, 0x600, 7) if 0 < outlen[c] < 15]
    sample += [chr(c) for c in range(0x3000, 0x3100, 3) if 0 < outlen[c] < 15]
    sample += [chr(c) for c in range(0xFF00, 0xFFF0, 5) if 0 < outlen[c] < 15]
    sample += ["한", "\u3131", "\u1100", "ﬁ", "№"]
    for a in sample:
        joined = [normalize(a + b) for b in sample]
        assert joined == [normalize(a) + normalize(b) for b in sample], repr(a)


@settings(derandomize=True, max_examples=150, deadline=None)
@given(texts, canonicals, shinglings, st.integers(0, 6), hashers)
def test_generated_texts_equal_the_reference(
    items: list[str],
    canonical: CanonicalForm,
    shingling: Shingling,
    min_tokens: int,
    hasher: MinHasher | None,
) -> None:
    assert_equal(
        items, canonical=canonical, shingling=shingling, min_tokens=min_tokens, hasher=hasher
    )


@settings(derandomize=True, max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=80), max_size=8), hashers)
def test_any_unicode_equals_the_reference(items: list[str], hasher: MinHasher | None) -> None:
    assert_equal(items, **DEFAULT, hasher=hasher)


@settings(derandomize=True, max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet=ALPHABET, max_size=40), max_size=6))
def test_texts_from_json_escapes_equal_the_reference(items: list[str]) -> None:
    """Records as the reader decodes them (msgspec): every non-ASCII character a
    ``\\uXXXX`` escape, characters outside the BMP as surrogate pairs; and a lone
    surrogate escape (Python's json)."""
    import msgspec

    lines = [json.dumps({"text": t}, ensure_ascii=True) for t in items]
    decoded = [msgspec.json.decode(line)["text"] for line in lines]
    assert decoded == items
    assert_equal([*decoded, json.loads('"a \\udc80 b \\ud83d\\ude00"')], **DEFAULT)


def test_long_tokens_cross_every_xxh64_length_class() -> None:
    # 1..100 bytes of ASCII and 2-byte Cyrillic: the 4-, 8- and 32-byte steps and stripes
    items = [" ".join("z" * n for n in range(1, 101)), " ".join("ж" * n for n in range(1, 51))]
    assert_equal(items, canonical=CanonicalForm(stop_words=False), shingling=Shingling(size=1),
                 min_tokens=1, hasher=MinHasher(num_perm=64))  # fmt: skip


def test_morphology_and_other_shingles_go_to_the_reference() -> None:
    stem = CanonicalForm(morphology="stem")
    assert kernel_for(stem, Shingling()) == "python"
    assert kernel_for(CanonicalForm(stop_symbols=".,"), Shingling()) == "python"
    assert kernel_for(CanonicalForm(), Shingling(fingerprint="rabin64")) == "python"
    assert kernel_for(CanonicalForm(), Shingling(unit="char")) == "python"
    got = prepare_texts(PINNED, canonical=stem, shingling=Shingling(), min_tokens=1)
    want = prepare_texts_reference(PINNED, canonical=stem, shingling=Shingling(), min_tokens=1)
    assert got.kernel == "python" and got.keys.tobytes() == want.keys.tobytes()


def test_environment_forces_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(kmod.ENV, "python")
    assert prepare_texts(PINNED, **DEFAULT).kernel == "python"
    monkeypatch.setenv(kmod.ENV, "cython")
    assert prepare_texts(PINNED, **DEFAULT).kernel == "cython"
    monkeypatch.setenv(kmod.ENV, "fast")
    with pytest.raises(ParameterError, match="NEARDUP_KERNEL"):
        prepare_texts(PINNED, **DEFAULT)


def test_bad_min_tokens_is_refused() -> None:
    with pytest.raises(ParameterError, match="min_tokens"):
        prepare_texts(PINNED, canonical=CanonicalForm(), shingling=Shingling(), min_tokens=-1)


def test_a_missing_kernel_means_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kmod, "compiled", lambda: None)
    assert kernel_for(CanonicalForm(), Shingling()) == "python"
    assert "not built" in kmod.missing_reason()
    monkeypatch.setenv(kmod.ENV, "cython")
    with pytest.raises(ParameterError, match="not built"):
        kernel_for(CanonicalForm(), Shingling())


def _shared_sets() -> list[str]:
    data_path()
    return sorted(p.parent.name for p in DATA.glob("*/docs.jsonl"))


@pytest.mark.data
@pytest.mark.slow
def test_every_shared_set_equals_the_reference() -> None:
    names = _shared_sets()
    assert names
    for name in names:
        with data_path(name, "docs.jsonl").open(encoding="utf-8") as fh:
            items = [json.loads(line)["text"] for line in fh]
        for canonical in (CanonicalForm(), CanonicalForm(stop_words=False)):
            assert_equal(
                items, canonical=canonical, shingling=Shingling(), min_tokens=5,
                hasher=MinHasher(),
            )  # fmt: skip


def test_nfkc_premise_holds_for_this_python() -> None:
    """The table rule relies on NFKC per character; a quick sanity pin on this Python."""
    assert unicodedata.normalize("NFKC", "e\u0301") == "é"
    assert normalize("ΣΑΣ") == "σας"  # the final sigma: why Σ is not in the table
    assert np.asarray(tables()[0]).shape == (0x10000,)


def test_a_plain_mark_after_a_bare_starter_normalizes_one_at_a_time() -> None:
    """The mark rule's premise: a bare starter and a mark that do not compose stay apart."""
    info, _, _, pairs = tables()
    bare = [c for c in range(0x20, 0x530) if info[c] & (1 << 18)]
    marks = [c for c in range(0x300, 0x370) if info[c] >> 20 == 15]
    composing = set(pairs.tolist())
    checked = 0
    for p in bare:
        for m in marks:
            if (p << 16 | m) in composing:
                continue
            text = chr(p) + chr(m) + "x"
            assert normalize(text) == normalize(chr(p)) + chr(m) + "x", (hex(p), hex(m))
            checked += 1
    assert checked > 10_000
    assert normalize("е\u0301") == "е\u0301" and (ord("е") << 16 | 0x308) in composing


def test_cached_tables_equal_a_fresh_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cache" / "kernel-test.npz"
    monkeypatch.setattr(kmod, "_cache_path", lambda: str(path))
    built = kmod.tables.__wrapped__()  # built and saved
    assert path.exists()
    loaded = kmod.tables.__wrapped__()  # read back
    fresh = kmod.build_tables()
    for a, b, c in zip(built, loaded, fresh, strict=True):
        assert a.dtype == b.dtype == c.dtype
        assert a.tobytes() == b.tobytes() == c.tobytes()
    good = path.read_bytes()
    for damaged in (b"not a table file", good[: len(good) // 2]):  # foreign, truncated
        path.write_bytes(damaged)
        assert kmod.tables.__wrapped__()[0].tobytes() == fresh[0].tobytes()
    np.savez(path, info=np.zeros(3, np.uint32), outcp=fresh[1], classes=fresh[2], pairs=fresh[3])
    assert kmod.tables.__wrapped__()[0].tobytes() == fresh[0].tobytes()  # wrong shape


def test_a_missing_build_is_one_line_unless_the_numpy_path_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert kmod.unbuilt_note() == ""  # built
    monkeypatch.setattr(kmod, "compiled", lambda: None)
    note = kmod.unbuilt_note()
    assert "not built" in note and "numpy path in use" in note and "\n" not in note
    monkeypatch.setenv(kmod.ENV, "python")
    assert kmod.unbuilt_note() == ""


def test_a_stale_build_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """An in-place build of an older .pyx (other functions) is refused, not called."""
    import types

    stale = types.ModuleType("neardup.methods._kernel")
    stale.ABI = 1  # type: ignore[attr-defined]
    monkeypatch.setitem(__import__("sys").modules, "neardup.methods._kernel", stale)
    kmod.compiled.cache_clear()
    try:
        assert kmod.compiled() is None
        assert "older build" in kmod.missing_reason()
        assert kernel_for(CanonicalForm(), Shingling()) == "python"
    finally:
        kmod.compiled.cache_clear()


MARKS = "".join(chr(c) for c in range(0x300, 0x370)) + "\u0483\u0487\u3099\u309a"


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="aeiouyAEIOUnNcCsSzZеиаоуЕИАОУйкгзжαωΑΩ ." + MARKS,
                        max_size=30), max_size=8))  # fmt: skip
def test_letters_with_any_combining_marks_equal_the_reference(items: list[str]) -> None:
    """Every combining mark of the Combining Diacritical Marks block after letters it may or
    may not compose with (é, й, ё, ά ... compose; е́, и́ do not), alone, doubled, first."""
    assert_equal(items, **DEFAULT, hasher=MinHasher(num_perm=16))


def test_a_stress_mark_stays_in_the_kernel_and_a_composing_mark_does_not() -> None:
    stressed = ["сло\u0301во и молоко\u0301", "cafe\u0301 au lait", "е\u0308ж", "и\u0306од"]
    got = assert_equal(stressed, **DEFAULT)
    assert got.fallback == 3  # é, ё and й compose; Cyrillic о + acute does not
    assert got.counts[0] == 2  # "сло" "молоко": the mark ends a token ("во" is a stop word)


def test_threads_share_the_kernel_safely() -> None:
    """The kernel runs without the GIL: texts prepared on four threads at once give what
    one thread gives."""
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"{PINNED[i % 3]} {i} " * (i % 7 + 1) for i in range(400)]
    parts = [texts[i::4] for i in range(4)]
    options = {**DEFAULT, "hasher": MinHasher(num_perm=32)}
    alone = [prepare_texts(p, **options) for p in parts]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda p: prepare_texts(p, **options), parts))
    for a, b in zip(alone, together, strict=True):
        assert a.kernel == b.kernel == "cython"
        assert a.sets.values.tobytes() == b.sets.values.tobytes()
        assert a.rows is not None and b.rows is not None
        assert a.rows.tobytes() == b.rows.tobytes()


token_lists = st.lists(st.lists(st.one_of(words, long_words), max_size=25), max_size=8)


@settings(max_examples=150, deadline=None)
@given(token_lists, shinglings)
def test_token_lists_take_the_kernel_passes_and_equal_the_reference(
    lists: list[list[str]], shingling: Shingling
) -> None:
    """The methods that keep their token strings (I-Match, SimHash, ...) get their sets and
    content keys from the kernel's passes: the same bytes as ``Shingling.batch``."""
    got, keys, kernel = token_sets(lists, shingling=shingling)
    want = shingling.batch(lists)
    assert kernel == "cython"
    assert got.values.dtype == want.values.dtype and got.offsets.dtype == want.offsets.dtype
    assert got.values.tobytes() == want.values.tobytes()
    assert got.offsets.tobytes() == want.offsets.tobytes()
    assert keys.tobytes() == want.content_keys().tobytes()


def test_token_lists_of_other_shinglings_stay_on_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lists = [["один", "два", "три", "четыре", "пять", "шесть"], [], ["x"]]
    for shingling in (
        Shingling(unit="char", size=4), Shingling(fingerprint="crc32"),
        Shingling(fingerprint="rabin64"),
    ):  # fmt: skip
        sets, _, kernel = token_sets(lists, shingling=shingling)
        assert kernel == "python"
        assert sets.values.tobytes() == shingling.batch(lists).values.tobytes()
    monkeypatch.setenv(kmod.ENV, "python")
    assert token_sets(lists, shingling=Shingling())[2] == "python"


@settings(max_examples=100, deadline=None)
@given(texts, canonicals, st.sampled_from([0, 1, 2**32 - 1]))
def test_text_fingerprints_take_the_kernel_and_equal_the_reference(
    items: list[str], canonical: CanonicalForm, seed: int
) -> None:
    """SimHash's word features: the kernel's token fingerprints of the texts."""
    from neardup.text.vectorized import canonical_fingerprints

    fps, offsets, kernel = kmod.text_fingerprints(items, canonical=canonical, seed=seed)
    want_fps, want_offsets = canonical_fingerprints(items, canonical, seed)
    assert kernel == "cython"
    assert fps.dtype == want_fps.dtype and fps.tobytes() == want_fps.tobytes()
    assert offsets.tobytes() == np.asarray(want_offsets, dtype=np.int64).tobytes()


def _raw(text: str, ascii_only: bool) -> Any:
    """``text`` as the raw JSON string msgspec keeps (``msgspec.Raw``), escaped as a
    writer would: every non-ASCII character as ``\\uXXXX`` or as UTF-8 (Python's json for
    lone surrogates, which UTF-8 cannot carry)."""
    import msgspec

    return msgspec.Raw(json.dumps(text, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass"))


def _token_pass(items: list[Any]) -> tuple[bytes, bytes, bytes]:
    info, outcp, classes, pairs = kmod.tables()
    none = np.zeros(0, dtype=np.uint64)
    kernel = kmod.compiled()
    assert kernel is not None
    got = kernel.token_pass(items, info, outcp, classes, pairs, 7, none, 16, 0, none, 1)
    return bytes(got[0]), bytes(got[1]), bytes(got[2])


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet=ALPHABET + '"\\/\b\f\r\u2028\x7f', max_size=40), st.text(max_size=20)
        ),
        max_size=8,
    ),
    st.booleans(),
    hashers,
)
def test_raw_json_texts_give_what_their_strings_give(
    items: list[str], ascii_only: bool, hasher: MinHasher | None
) -> None:
    """The kernel reads a JSON string's bytes (UTF-8 and escapes) as the string it decodes
    to: the same tokens, sets, keys and rows, and the same texts left to the Python
    tokenizer (characters outside the BMP, lone surrogates)."""
    from neardup.text.read import JsonTexts

    raws = [_raw(t, ascii_only) for t in items]
    assert _token_pass(raws) == _token_pass(items)
    got = prepare_texts(JsonTexts(raws), **DEFAULT, hasher=hasher)
    want = prepare_texts(items, **DEFAULT, hasher=hasher)
    for name in (*FIELDS, "fallback"):
        assert np.asarray(getattr(got, name)).tobytes() == np.asarray(getattr(want, name)).tobytes()
    assert got.sets.values.tobytes() == want.sets.values.tobytes()
    assert (got.rows is None) == (want.rows is None)
    if got.rows is not None and want.rows is not None:
        assert got.rows.tobytes() == want.rows.tobytes()


def test_raw_json_bytes_that_are_not_strict_utf8_go_to_the_decoder() -> None:
    """Overlong, surrogate, truncated and stray bytes are flagged for the Python path, whose
    decoding refuses them (the job then reads the unit the typed way); a buffer that holds
    no JSON string is refused."""
    from neardup.errors import DecodeError
    from neardup.text.read import JsonTexts

    bad = [b'"\xc0\xaf"', b'"\xed\xa0\x80"', b'"ab \xd0"', b'"\x80"', b'"\xf0\x9f\x98"']
    good = [b'"\\u0416\xd0\x96 \\"x\\" \\\\ \\/ \\n"', b'""']
    fps, offsets, flags = _token_pass([*bad, *good])
    assert list(flags) == [1] * len(bad) + [0, 0]
    assert np.diff(np.frombuffer(offsets, dtype=np.int64)).tolist() == [0] * len(bad) + [2, 0]
    assert fps == _token_pass(['\u0416\u0416 "x" \\ / \n'])[0]
    with pytest.raises(DecodeError, match="not a JSON string"):
        prepare_texts(JsonTexts([b'"\xc0\xaf"']), **DEFAULT)
    for item in (b"null", b"5", b'"open', b'"', bytearray(b"x")):
        with pytest.raises(TypeError, match="texts\\[1\\]"):
            _token_pass(["fine", item])
