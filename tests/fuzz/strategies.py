"""Hypothesis strategies for hostile input: bytes, Unicode, markup, encodings, gzip bombs.

Texts mix real Russian and English words (so shingles, statistics and candidates are
exercised, not only the empty paths) with the characters that break tokenizers:
combining marks, right-to-left and bidi controls, zero-width characters, NUL and other
controls, characters whose case mapping or NFKC form changes length (``İ``, ``ß``, ``ﬁ``,
``ǅ``), astral letters and symbols, CJK, and characters from every plane (surrogates
excluded: a ``str`` from a file or a JSON parser can hold them only via escapes, which the
readers handle separately).
"""

from __future__ import annotations

import codecs
import gzip
import zlib

from hypothesis import strategies as st

RU_WORDS = [
    "кот",
    "сидел",
    "на",
    "окне",
    "и",
    "смотрел",
    "на",
    "улицу",
    "долго",
    "ёлка",
    "ещё",
    "ЁЖИК",
    "разум",
    "дан",
    "человеку",
    "для",
    "того",
    "чтобы",
    "он",
    "разумно",
    "жил",
    "каждый",
    "день",
    "новый",
    "текст",
    "документ",
    "дубликат",
    "поиск",
]
EN_WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "the",
    "lazy",
    "dog",
    "near",
    "duplicate",
    "document",
    "detection",
    "with",
    "shingles",
    "minhash",
    "and",
    "locality",
    "sensitive",
    "hashing",
    "is",
    "fast",
]
#: Characters that break tokenizers and normalizers (see the module docstring).
SPECIAL = (
    "\u0301", "\u0300", "\u0308", "\u20dd", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff",
    "\u200e", "\u200f", "\u202a", "\u202b", "\u202e", "\u2066", "\u2069", "\x00", "\x01",
    "\x1b", "\x7f", "\x85", "\u2028", "\u2029", "\u0130", "\u0131", "ß", "ẞ", "ﬁ", "ﬀ",
    "ǅ", "Σ", "ς", "ΐ", "\u00a0", "\u2026", "\u3000", "Ａ", "ｶ", "ﾞ", "①", "Ⅻ", "㎏", "㍿",
    "ё", "Ё", "й", "и\u0306", "\U0001d400", "\U0001d7ce", "😀", "👩\u200d💻", "🇷🇺",
    "\U00010330", "\U00020000", "\U000e0041", "\U0010fffd", "\uffff", "\ufffd",
    "مرحبا", "שָׁלוֹם", "ภาษาไทย", "हिन्दी", "\u1100\u1161", "가", "中文", "カタカナ", "_", "-",
    "'", "’", "\t", "\r\n", "\n\n", "\x0c", "\x0b",
)  # fmt: skip
_ANY_CHAR = st.characters(exclude_categories=["Cs"])  # a list: mypy reads ("Cs",) as tuple[str]
_WS = st.sampled_from([" ", "  ", "\n", "\t", "\u3000", "\u00a0"])

word = st.one_of(
    st.sampled_from(RU_WORDS),
    st.sampled_from(EN_WORDS),
    st.sampled_from(SPECIAL),
    st.text(_ANY_CHAR, min_size=1, max_size=12),
)
#: Any text: words, hostile characters and arbitrary code points, space-separated.
texts = st.lists(st.tuples(word, _WS), max_size=60).map(
    lambda parts: "".join(w + s for w, s in parts)
)
#: Texts of 0 or 1 canonical words (blank, punctuation, one word with marks around).
tiny_texts = st.one_of(
    st.sampled_from(["", " ", "\n\n", "...", "—", "\u200b", "\x00", "!!!", "ёж", "a", "中"]),
    st.tuples(st.sampled_from(["", " ", "«", "(", "\u200f"]), word).map("".join),
)


@st.composite
def huge_tokens(draw: st.DrawFn) -> str:
    """One very long token (1k-100k characters), alone or between ordinary words."""
    size = draw(st.sampled_from([1_000, 3_000, 20_000, 100_000]))
    letter = draw(st.sampled_from(["а", "z", "ё", "𝐀", "中", "e\u0301"]))
    pattern = draw(st.sampled_from(["same", "cycle"]))
    token = letter * size if pattern == "same" else (RU_WORDS[0] * size)[:size]
    before = " ".join(draw(st.lists(st.sampled_from(RU_WORDS + EN_WORDS), max_size=12)))
    return f"{before} {token} {before}"


#: Documents for the method and store targets: ordinary, tiny and huge-token texts.
documents = st.one_of(texts, texts, tiny_texts, huge_tokens())

# -- bytes and encodings -------------------------------------------------------------------
LEGACY_CODECS = (
    "cp1251", "koi8_r", "cp866", "iso8859_5", "mac_cyrillic", "utf_16_le", "utf_16_be",
    "utf_16", "utf_32", "utf_8_sig", "gb18030", "shift_jis", "euc_jp", "big5", "cp1252",
    "latin_1", "cp437", "utf_7",
)  # fmt: skip
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE)


@st.composite
def misencoded(draw: st.DrawFn) -> bytes:
    """Text encoded in a legacy or UTF codec, then maybe cut, corrupted or given a lying BOM."""
    text = draw(texts)
    codec = draw(st.sampled_from(LEGACY_CODECS))
    data = text.encode(codec, errors="replace")
    damage = draw(st.sampled_from(["none", "cut", "flip", "bom", "mix"]))
    if damage == "cut" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    elif damage == "flip" and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([data[at] ^ 0x80]) + data[at + 1 :]
    elif damage == "bom":
        data = draw(st.sampled_from(_BOMS)) + data
    elif damage == "mix":
        data = data + draw(texts).encode("utf-8")
    return data


#: Arbitrary payloads: random bytes, mis-encoded text, UTF-8 text.
payloads = st.one_of(
    st.binary(max_size=2048),
    misencoded(),
    texts.map(lambda t: t.encode("utf-8")),
)

# -- markup --------------------------------------------------------------------------------
_TAGS = ("div", "p", "span", "b", "a", "li", "ul", "table", "tr", "td", "script", "style",
         "head", "body", "html", "title", "pre", "svg", "iframe", "noscript", "article", "nav",
         "template", "math", "br", "img", "h1", "main")  # fmt: skip
_ENTITIES = ("&amp;", "&#0;", "&#x110000;", "&#xD800;", "&#99999999999;", "&nbsp;", "&lt;",
             "&bogus;", "&", "&#x;", "&#65")  # fmt: skip


@st.composite
def html_docs(draw: st.DrawFn) -> str:
    """Random HTML: tag soup with attributes, entities, comments, CDATA, unclosed tags."""
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(["<!DOCTYPE html>", "<?xml version='1.0'?>", "<html>"])))
    for _ in range(draw(st.integers(0, 40))):
        kind = draw(st.integers(0, 7))
        tag = draw(st.sampled_from(_TAGS))
        if kind == 0:
            attr = draw(st.sampled_from(['', ' class="x"', " id='a b'", ' onload="x()"', " a=<>",
                                         ' style="', " href=javascript:1"]))  # fmt: skip
            parts.append(f"<{tag}{attr}>")
        elif kind == 1:
            parts.append(f"</{tag}>")
        elif kind == 2:
            parts.append(draw(st.sampled_from(_ENTITIES)))
        elif kind == 3:
            parts.append(draw(st.sampled_from(["<!--", "-->", "<!-- c -->", "<![CDATA[", "]]>",
                                               "<", ">", "</", "<!", "<?php ?>"])))  # fmt: skip
        else:
            parts.append(draw(texts))
    return "".join(parts)


@st.composite
def nested_html(draw: st.DrawFn) -> str:
    """Deeply nested markup: up to 20,000 levels, closed or not."""
    depth = draw(st.sampled_from([100, 1_000, 10_000, 20_000]))
    tag = draw(st.sampled_from(["div", "span", "b", "table", "li", "p"]))
    inner = " ".join(RU_WORDS[:12])
    close = draw(st.booleans())
    body = f"<{tag}>" * depth + inner + (f"</{tag}>" * depth if close else "")
    return f"<html><body>{body}</body></html>" if draw(st.booleans()) else body


@st.composite
def wiki_docs(draw: st.DrawFn) -> str:
    """Random MediaWiki markup, balanced or not, with deep template/link nesting at times."""
    pieces = ["{{", "}}", "[[", "]]", "|", "{|", "|}", "|-", "'''", "''", "== ", " ==",
              "<ref>", "</ref>", "<ref name=x/>", "[http://x.y t]", "[[File:x.png|thumb|c]]",
              "[[Category:Y]]", "__TOC__", "<nowiki>", "</nowiki>", "<!--", "-->", "\n* ",
              "\n# ", "{{{1}}}", "<math>x</math>", "~~~~", "&nbsp;"]  # fmt: skip
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 40))):
        if draw(st.booleans()):
            parts.append(draw(st.sampled_from(pieces)))
        else:
            parts.append(draw(texts))
    if draw(st.integers(0, 4)) == 0:
        depth = draw(st.sampled_from([50, 500, 3_000]))
        opener, closer = draw(st.sampled_from([("{{", "}}"), ("[[", "]]"), ("{|", "|}")]))
        parts.append(opener * depth + "x" + closer * draw(st.sampled_from([0, depth])))
    return "".join(parts)


#: Anything a document field can hold: text, markup of both kinds, deep nesting.
markup = st.one_of(texts, html_docs(), wiki_docs(), nested_html())


# -- gzip ----------------------------------------------------------------------------------
def gzip_bomb(expanded: int, *, unit: bytes = b"\0") -> bytes:
    """A gzip stream that expands to ``expanded`` bytes of ``unit`` repeated (level 9)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = unit * ((1 << 20) // len(unit))
    out = []
    left = expanded
    while left > 0:
        chunk = block[: min(left, len(block))]
        out.append(comp.compress(chunk))
        left -= len(chunk)
    out.append(comp.flush())
    return b"".join(out)


@st.composite
def gzip_payloads(draw: st.DrawFn, limit: int) -> bytes:
    """gzip data: well-formed, over ``limit`` when expanded, truncated, corrupted, multi-member."""
    kind = draw(st.sampled_from(["ok", "bomb", "cut", "flip", "multi", "trailing", "empty"]))
    text = draw(texts).encode("utf-8")
    if kind == "bomb":
        unit = draw(st.sampled_from([b"\0", b"a", "слово ".encode()]))
        return gzip_bomb(limit * draw(st.sampled_from([2, 10, 50])), unit=unit)
    data = gzip.compress(text)
    if kind == "cut":
        return data[: draw(st.integers(0, len(data) - 1))]
    if kind == "flip":
        at = draw(st.integers(0, len(data) - 1))
        return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]
    if kind == "multi":
        return data + gzip.compress(draw(texts).encode("utf-8"))
    if kind == "trailing":
        return data + draw(st.binary(min_size=1, max_size=64))
    if kind == "empty":
        return gzip.compress(b"")
    return data
