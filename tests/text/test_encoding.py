"""decode() and looks_binary() on real legacy-encoded Russian text and synthetic bytes."""

from __future__ import annotations

import codecs
import random
from pathlib import Path

import pytest

from neardup.errors import DecodeError, InputError
from neardup.text.encoding import decode, looks_binary
from neardup.text.types import Document
from shared_data import DATA, data_path

PUSHKIN = ("ruslit", "poems", "Pushkin", "Руслан и Людмила.txt")


@pytest.fixture(scope="module")
def pushkin_cp1251() -> bytes:
    """The first 4 KiB of "Руслан и Людмила" as stored: cp1251, not valid UTF-8."""
    return data_path(*PUSHKIN).read_bytes()[:4096]


@pytest.mark.data
def test_real_cp1251_file(pushkin_cp1251: bytes) -> None:
    with pytest.raises(UnicodeDecodeError):
        pushkin_cp1251.decode("utf-8")
    text = decode(pushkin_cp1251, source=str(DATA.joinpath(*PUSHKIN)))
    assert text == pushkin_cp1251.decode("cp1251")
    assert text.split("\n")[1:3] == ["   Александр Сергеевич Пушкин", "   РУСЛАН И ЛЮДМИЛА"]


@pytest.mark.data
@pytest.mark.parametrize("codec", ["koi8_r", "cp866", "iso8859_5", "mac_cyrillic", "utf-16"])
def test_real_text_in_other_encodings(pushkin_cp1251: bytes, codec: str) -> None:
    # koi8-r, cp866 and ISO 8859-5 have no em dash and no ellipsis
    text = pushkin_cp1251.decode("cp1251").replace("—", "-").replace("…", "...")
    assert decode(text.encode(codec)) == text


@pytest.mark.parametrize("codec", ["cp1251", "koi8_r", "cp866", "iso8859_5"])
@pytest.mark.parametrize(
    "sentence", ["Привет, мир! Это тест.", "Да.", "Съешь же ещё этих мягких французских булок."]
)
def test_short_russian_in_legacy_code_pages(codec: str, sentence: str) -> None:
    # charset-normalizer alone reads the koi8-r ones as Shift-JIS, cp1251 ones as mac-cyrillic
    assert decode(sentence.encode(codec)) == sentence


def test_boms_pick_the_codec_and_are_dropped() -> None:
    text = "Привет, мир! Hello, world.\n"
    assert decode(text.encode("utf-16")) == text
    assert decode(codecs.BOM_UTF16_BE + text.encode("utf-16-be")) == text
    assert decode(text.encode("utf-32")) == text
    assert decode(codecs.BOM_UTF8 + text.encode("utf-8")) == text


def test_utf8_first_and_empty() -> None:
    assert decode("naïve café, ёжик 中文".encode()) == "naïve café, ёжик 中文"
    assert decode(b"plain ascii") == "plain ascii"
    assert decode(b"") == ""


def test_western_legacy_falls_to_charset_normalizer() -> None:
    assert decode("Größe Straße Übung für Mädchen".encode("cp1252")) == (
        "Größe Straße Übung für Mädchen"
    )
    assert decode("Zażółć gęślą jaźń".encode("cp1250")) == "Zażółć gęślą jaźń"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_bytes_raise_decode_error_naming_the_source(seed: int) -> None:
    data = random.Random(seed).randbytes(4096)
    with pytest.raises(DecodeError, match=r"^blob\.bin: cannot decode 4096 bytes") as info:
        decode(data, source="blob.bin")
    assert isinstance(info.value, InputError)


def test_random_high_bytes_are_undecodable() -> None:
    rng = random.Random(7)
    data = bytes(rng.randrange(128, 256) for _ in range(4096))
    with pytest.raises(DecodeError, match="<bytes>"):
        decode(data)


@pytest.mark.data
def test_looks_binary_on_text(pushkin_cp1251: bytes) -> None:
    assert not looks_binary(pushkin_cp1251)
    assert not looks_binary("Привет\tмир\r\n\f".encode())
    assert not looks_binary(b"")
    assert not looks_binary(("Привет, мир!\n" * 1000).encode("utf-16"))  # BOM: text
    assert not looks_binary(("Hello\n" * 1000).encode("utf-32"))


def test_looks_binary_on_binary() -> None:
    assert looks_binary(random.Random(0).randbytes(4096))
    assert looks_binary(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert looks_binary(b"\x01\x00" * 100)  # NULs on one side, but control characters
    assert looks_binary(bytes(range(256)) * 4)  # NULs on both sides
    assert looks_binary(b"abc\x01\x02\x03\x04def")  # 4 controls in 10 bytes
    assert not looks_binary(b"abcdefghij" * 10 + b"\x01")  # 1 control in 101 bytes
    assert looks_binary(codecs.BOM_UTF16_LE + "A\x00\x01\x02".encode("utf-16-le"))


def test_looks_binary_reads_only_the_first_8_kib() -> None:
    assert not looks_binary(b"a" * 8192 + b"\x00")
    assert looks_binary(b"a" * 8191 + b"\x00")


# -- hardening round 2 (issue 16, rows 7 and 10) --------------------------------------------------
@pytest.mark.data
@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_is_text_and_decoded(pushkin_cp1251: bytes, codec: str) -> None:
    """Row 10: UTF-16 without a BOM was skipped as ``binary``."""
    text = pushkin_cp1251.decode("cp1251")
    data = text.encode(codec)
    assert not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    assert not looks_binary(data)
    assert decode(data) == text
    english = "Hello, world: plain English in UTF-16 without a byte order mark.\n" * 3
    assert not looks_binary(english.encode(codec))
    assert decode(english.encode(codec)) == english


@pytest.mark.data
def test_utf16_without_bom_read_from_a_directory(pushkin_cp1251: bytes, tmp_path: Path) -> None:
    """Row 10 through the corpus reader: the file is a document, not a ``binary`` skip."""
    from neardup.text.read import read_corpus

    text = pushkin_cp1251.decode("cp1251")
    (tmp_path / "ruslan.txt").write_bytes(text.encode("utf-16-le"))
    docs = list(read_corpus(tmp_path))
    assert len(docs) == 1 and getattr(docs[0], "text", None) is not None, docs
    assert isinstance(docs[0], Document)
    assert "РУСЛАН И ЛЮДМИЛА" in docs[0].text


@pytest.mark.data
def test_mostly_ascii_utf8_with_a_few_bad_bytes_keeps_its_russian(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Row 7: two Russian words and three invalid bytes in English text were read under a
    wrong legacy code page, the Russian garbled; now UTF-8 with U+FFFD, and a warning."""
    from shared_data import paragraphs

    english = "\n\n".join(paragraphs("linux-doc-revisions", 3))
    assert english.isascii()
    data = english.encode() + " Привет, мир".encode() + b" \xff\xfe\x80 " + english.encode()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    with caplog.at_level("WARNING", logger="neardup.text"):
        text = decode(data, source="mixed.txt")
    assert "Привет, мир" in text
    assert text == data.decode("utf-8", errors="replace")
    assert text.count("\ufffd") == 3
    assert "mixed.txt" in caplog.text and "U+FFFD" in caplog.text


def test_legacy_russian_is_not_taken_for_broken_utf8() -> None:
    """The UTF-8-with-replacement step must leave cp1251/koi8-r text to the code-page step."""
    sentence = "Съешь же ещё этих мягких французских булок, да выпей же чаю. " * 20
    for codec in ("cp1251", "koi8_r", "cp866"):
        assert decode(sentence.encode(codec)) == sentence


def test_utf16_without_bom_comes_before_utf8_even_where_utf8_decodes() -> None:
    """ASCII in UTF-16 is valid UTF-8 too (with a NUL a character): the NULs on one side
    decide for UTF-16 (decode's step 2 before step 3), a unit cut at the end as U+FFFD.
    The fuzz target once asserted the UTF-8 reading of these bytes."""
    data = b"\x00 \x01\x01\x00"
    assert data.decode("utf-8") == "\x00 \x01\x01\x00"
    assert decode(data) == " \u0101\ufffd"
    assert decode("Привет, мир".encode("utf-16-le")) == "Привет, мир"
    assert decode(b"a\x00b\x00") == "ab"
