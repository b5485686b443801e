"""Lone surrogates out of strings (a value no UTF-8 writer or database accepts)."""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD.

    JSON escapes (``"\\ud800"``) and undecodable file-name bytes (``os.walk``'s
    ``surrogateescape``) give strings no UTF-8 writer or database accepts; a document keeps
    its text with U+FFFD in their place, as a decoder with ``errors="replace"`` would.
    """
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text
