"""Bytes to text: byte-order marks, UTF-16 without one, strict UTF-8, UTF-8 with a few bad
bytes, Russian code pages, charset-normalizer.

The order follows the WHATWG "decode" algorithm in spirit (a BOM wins over everything else),
then UTF-16 without a BOM when the NUL bytes of the ASCII characters all sit on one side of
the code units and the result reads as text (:func:`utf16_without_bom`), then strict UTF-8
(by far the commonest encoding and one that random legacy bytes almost never pass), then
UTF-8 with replacement when nearly all non-ASCII bytes form valid UTF-8 sequences and only a
few do not (:func:`mostly_utf8`: the invalid bytes become U+FFFD and a warning is logged on
the ``neardup.text`` logger; a wrong legacy guess would garble every non-ASCII letter
instead), then the legacy Russian code pages (cp1251, koi8-r, cp866, ISO 8859-5,
mac-cyrillic) when one yields well-formed Russian words only, then charset-normalizer
(https://github.com/jawah/charset_normalizer), which tries every legacy code page and keeps
the decoding with the least "chaos" (cp1252, Shift-JIS, GB18030, ...).
"""

from __future__ import annotations

import codecs
import logging
import re

from neardup.errors import DecodeError

#: How many leading bytes :func:`looks_binary` inspects.
SNIFF_BYTES = 8192
#: Share of control bytes (other than tab, line feed, form feed, carriage return, escape)
#: above which :func:`looks_binary` calls the data binary.
CONTROL_SHARE = 0.10

# Longest BOM first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
#: Legacy code pages tried for Russian text, commonest first (ties keep the first).
RUSSIAN_CODECS: tuple[str, ...] = ("cp1251", "koi8_r", "cp866", "iso8859_5", "mac_cyrillic")
#: Share of well-formed Russian letters that makes :func:`decode` accept a code page.
RUSSIAN_SHARE = 0.95
_WORD_RE = re.compile(r"[^\W\d_]+")
_RUSSIAN_WORD_RE = re.compile(r"[а-яёА-ЯЁ]+")
# Non-ASCII, non-letter characters other than the punctuation Russian text uses.
_ODD_SYMBOL_RE = re.compile(r"[^\x00-\x7f\w\s«»„“”‘’—–…№°•·\u00a0\u2116]")
_CONTROL = frozenset(range(32)) - {9, 10, 11, 12, 13, 27}
_CONTROL_BYTES = bytes(sorted(_CONTROL))
_HIGH_BYTES = bytes(range(0x80, 0x100))
#: Share of the non-ASCII bytes that must form valid UTF-8 sequences for :func:`decode` to
#: read the data as UTF-8 with the other bytes replaced by U+FFFD.
UTF8_SHARE = 0.75
#: Share of the NUL bytes that must sit on one side of the 16-bit code units (odd offsets:
#: little-endian, even: big-endian) for :func:`utf16_without_bom` to try UTF-16.
UTF16_NUL_SIDE = 0.95
#: Share of printable characters (or white space) a UTF-16 decoding without a BOM must have.
UTF16_PRINTABLE = 0.95
log = logging.getLogger("neardup.text")


def bom_encoding(data: bytes) -> tuple[str, int] | None:
    """The encoding a byte-order mark at the start of ``data`` announces.

    Returns:
        ``(codec name, BOM length in bytes)``, or ``None`` when ``data`` has no BOM.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name, len(bom)
    return None


def decode(data: bytes, *, source: str = "") -> str:
    """Decode ``data`` to text.

    Steps: (1) a UTF-8/16/32 byte-order mark picks the codec (the BOM is not part of the
    result; under a UTF-16/32 BOM undecodable code units become U+FFFD, under a UTF-8 BOM
    that does not decode the rest goes on to the next steps); (2) UTF-16 without a BOM
    (:func:`utf16_without_bom`); (3) strict UTF-8; (4) UTF-8 with U+FFFD for the few
    invalid bytes when nearly all non-ASCII bytes are valid UTF-8 (:func:`mostly_utf8`; a
    warning is logged); (5) the legacy Russian code pages; (6) charset-normalizer's best
    guess (``charset_normalizer.from_bytes(data).best()``).

    Args:
        data: raw bytes of one document.
        source: where the bytes came from, named in the error message.

    Returns:
        The text (``""`` for empty ``data``).

    Raises:
        DecodeError: no plausible encoding decodes ``data`` (the message names ``source``).
    """
    if not data:
        return ""
    bom = bom_encoding(data)
    if bom is not None:
        name, size = bom
        if name != "utf-8":
            # A UTF-16/32 BOM decides (looks_binary vetted the head under it): a file cut
            # inside its last code unit or holding a stray surrogate keeps its text, the bad
            # units as U+FFFD. Guessing from the rest instead read the UTF-16 bytes as UTF-8
            # text full of NULs.
            return data[size:].decode(name, errors="replace")
        try:
            return data[size:].decode(name)
        except UnicodeDecodeError:
            data = data[size:]  # a lying UTF-8 BOM: guess from the rest
    utf16 = utf16_without_bom(data[:SNIFF_BYTES])
    if utf16 is not None:
        return data.decode(utf16, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if mostly_utf8(data):
        text = data.decode("utf-8", errors="replace")
        log.warning(
            "%s: not valid UTF-8 in a few places: read as UTF-8, %d invalid byte run(s) "
            "replaced with U+FFFD",
            source or "<bytes>",
            text.count("\ufffd"),
        )
        return text
    return _guess(data, source)


def mostly_utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 but for a few bytes.

    True when at least one multi-byte UTF-8 sequence decodes and the bytes inside valid
    sequences are at least :data:`UTF8_SHARE` of all non-ASCII bytes. Legacy 8-bit text
    (cp1251, koi8-r, cp1252) almost never forms valid UTF-8 sequences, so it stays false
    for it.
    """
    text = data.decode("utf-8", errors="surrogateescape")
    bad = sum(1 for c in text if "\udc80" <= c <= "\udcff")
    high = len(data) - len(data.translate(None, _HIGH_BYTES))
    good = high - bad
    return good >= 2 and good >= UTF8_SHARE * high


def utf16_without_bom(head: bytes) -> str | None:
    """``"utf-16-le"`` or ``"utf-16-be"`` when ``head`` reads as UTF-16 without a BOM.

    UTF-16 text has a NUL byte in every code unit of an ASCII character (space, digits,
    punctuation, Latin letters), always on the same side: the odd offsets in little-endian,
    the even ones in big-endian. When at least :data:`UTF16_NUL_SIDE` of the NULs sit on
    one side, that byte order is tried: strict decoding (a unit cut at the end allowed), no
    NUL characters, and at least :data:`UTF16_PRINTABLE` printable characters or white
    space. Text without a single ASCII character (no NUL byte) is not detected.

    Args:
        head: the first bytes of the data (:data:`SNIFF_BYTES` are enough).

    Returns:
        The codec name, or ``None``.
    """
    nuls = head.count(b"\x00")
    if nuls < 2 or len(head) < 4:
        return None
    odd = head[1::2].count(b"\x00")
    if odd >= UTF16_NUL_SIDE * nuls:
        name = "utf-16-le"
    elif nuls - odd >= UTF16_NUL_SIDE * nuls:
        name = "utf-16-be"
    else:
        return None
    try:
        text = codecs.getincrementaldecoder(name)("strict").decode(head, final=False)
    except UnicodeDecodeError:
        return None
    if not text or "\x00" in text:
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\t\n\r\f\v")
    return name if printable >= UTF16_PRINTABLE * len(text) else None


def _guess(data: bytes, source: str) -> str:
    russian = _russian_legacy(data)
    if russian is not None:
        return russian
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        where = source or "<bytes>"
        raise DecodeError(
            f"{where}: cannot decode {len(data)} bytes: not UTF-8 and no plausible encoding"
        )
    return str(best)


def _russian_legacy(data: bytes) -> str | None:
    """``data`` decoded with the legacy Russian code page under which it reads as Russian.

    charset-normalizer is unreliable on short Russian texts (a koi8-r sentence comes out as
    Shift-JIS, a cp1251 one as mac-cyrillic). Under a wrong Cyrillic code page Russian words
    get foreign letters (``ѕ``, ``Џ``), symbols (``°``, ``¶``) or a broken case pattern
    (``рТЙЧЕФ``); under the right one nearly all of them are well-formed.

    Returns:
        The text, when some code page in :data:`RUSSIAN_CODECS` gives a share of
        well-formed Russian letters of at least :data:`RUSSIAN_SHARE`; else ``None``.
    """
    best: tuple[float, str] | None = None
    for codec in RUSSIAN_CODECS:
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        score = _russian_score(text)
        if score >= RUSSIAN_SHARE and (best is None or score > best[0]):
            best = (score, text)
    return None if best is None else best[1]


def _russian_score(text: str) -> float:
    """Share of well-formed Russian letters among the non-ASCII letters and symbols."""
    good = bad = 0
    for word in _WORD_RE.findall(text):
        if word.isascii():
            continue
        if _RUSSIAN_WORD_RE.fullmatch(word) and (
            word.islower() or word.isupper() or word[1:].islower()
        ):
            good += len(word)
        else:
            bad += sum(1 for c in word if not c.isascii())
    bad += len(_ODD_SYMBOL_RE.findall(text))
    return good / (good + bad) if good else 0.0


def looks_binary(data: bytes) -> bool:
    """Whether ``data`` looks like a binary (non-text) payload.

    Inspects the first :data:`SNIFF_BYTES` bytes: data that starts with a UTF-16/32 BOM and
    decodes under it is text, and so is UTF-16 without a BOM (:func:`utf16_without_bom`);
    otherwise any NUL byte, or a share of control bytes above :data:`CONTROL_SHARE`, means
    binary (the heuristic of ``file(1)`` and git).

    Args:
        data: raw bytes (only the head is read).

    Returns:
        ``True`` for binary-looking data; ``False`` for text and for empty data.
    """
    head = data[:SNIFF_BYTES]
    if not head:
        return False
    bom = bom_encoding(head)
    if bom is not None and bom[0] != "utf-8":
        name, size = bom
        try:
            # final=False: a code unit cut at the end of the head is not an error.
            text = codecs.getincrementaldecoder(name)("strict").decode(head[size:], final=False)
        except UnicodeDecodeError:
            return True
        return "\x00" in text or _control_count(text) > CONTROL_SHARE * len(text)
    if b"\x00" in head:
        return utf16_without_bom(head) is None
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls > CONTROL_SHARE * len(head)


def _control_count(text: str) -> int:
    return sum(1 for c in text if ord(c) in _CONTROL)
