# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""The compiled checks of a JSONL block (see :mod:`neardup.text.read`, which calls them).

Each is one loop in C over the raw bytes of a block (or the decoded fields of its records)
and gives what its numpy reference in :mod:`neardup.text.read` gives, value for value:

* :func:`clean_lines`: the positions of the ``\\n`` bytes of a block that can be decoded
  at once, or None (:func:`neardup.text.formats.jsonl._clean_lines`);
* :func:`plain_lines`: which lines hold no byte that could make their record other than
  plain text (:func:`neardup.text.read._plain_lines`, by its ``bytes.translate`` table);
* :func:`bare_records`: which records have a non-blank string id and text
  (:func:`neardup.text.read._bare`);
* :func:`bare_raw_records`: the same for texts kept as their raw JSON (``msgspec.Raw``),
  decided on the bytes: blank is ``str.isspace`` of the decoded string.
"""

from libc.stdint cimport int64_t, uint8_t, uint32_t
from libc.string cimport memchr, memcpy
from libcpp.vector cimport vector

from neardup.text._jsonchar cimport NOT_BMP, json_char


#: Bumped with every change to this module's functions or their arguments;
#: neardup.text.read refuses a build of another version (a stale in-place build).
ABI = 2


def clean_lines(const uint8_t[::1] data, Py_ssize_t max_bytes):
    """int64 positions of the ``\\n`` bytes of ``data`` as a bytearray (``8 * k`` bytes),
    or None when the block is not clean: under 2 bytes, a white-space first byte, a ``\\r``
    anywhere, an empty line before the last ``\\n``, or a line over ``max_bytes`` bytes."""
    cdef Py_ssize_t size = data.shape[0], pos = 0, seg
    cdef const uint8_t *base
    cdef const uint8_t *nl
    cdef vector[int64_t] ends
    cdef bint clean = True
    if size < 2:
        return None
    base = &data[0]
    if base[0] in (9, 10, 11, 12, 13, 32):  # bytes.isspace
        return None
    with nogil:
        if memchr(base, 13, size) != NULL:
            clean = False
        while clean:
            nl = <const uint8_t *>memchr(base + pos, 10, size - pos)
            if nl == NULL:
                seg = size - pos
                if seg > max_bytes:
                    clean = False
                break
            seg = (nl - base) - pos
            if seg == 0 or seg > max_bytes:  # a blank line, or one over the limit
                clean = False
                break
            ends.push_back(nl - base)
            pos = (nl - base) + 1
    if not clean:
        return None
    out = bytearray(8 * ends.size())
    cdef uint8_t[::1] o
    if ends.size():
        o = out
        memcpy(&o[0], ends.data(), 8 * ends.size())
    return out


cdef inline Py_ssize_t clip(Py_ssize_t at, Py_ssize_t last) noexcept nogil:
    return at if at < last else last


def plain_lines(const uint8_t[::1] data, Py_ssize_t n, const uint8_t[::1] table):
    """A bytearray of ``n`` flags, 1 for each line of ``data`` without a hint, 0 for a line
    with one (a hint past line ``n - 1`` flags line ``n - 1``).

    ``table`` (256 bytes) codes each byte as :func:`neardup.text.read._hint_table` does: 1
    a hint by itself; 7 a backslash, a hint when the escape it starts is ``\\b`` or
    ``\\u00`` and a digit 0-7 (bytes past the end read as the last byte); 2, 3, 4 a hint
    when doubled; 3 then 6 a hint; 5 a hint when tripled; 0 none.
    """
    out = bytearray(b"\x01") * n
    if n <= 0 or data.shape[0] == 0:
        return out
    cdef uint8_t[::1] o = out
    cdef Py_ssize_t size = data.shape[0], last = size - 1, p = 0, line = 0
    cdef const uint8_t *d = &data[0]
    cdef uint8_t c, code, nxt, digit
    cdef uint8_t busy[256]  # a byte that is a hint's or a line end: looked at one by one
    cdef bint hit
    for p in range(256):
        busy[p] = table[p] != 0 or p == 10
    p = 0
    with nogil:
        while p < size:
            if p + 8 <= size and not (
                busy[d[p]] | busy[d[p + 1]] | busy[d[p + 2]] | busy[d[p + 3]]
                | busy[d[p + 4]] | busy[d[p + 5]] | busy[d[p + 6]] | busy[d[p + 7]]
            ):
                p += 8  # eight bytes of text: no hint, no line end
                continue
            c = d[p]
            code = table[c]
            if code != 0:
                hit = False
                if code == 1:
                    hit = True
                elif code == 7:
                    nxt = d[clip(p + 1, last)]
                    digit = d[clip(p + 4, last)]
                    hit = nxt == 98 or (  # "b"
                        nxt == 117  # "u"
                        and d[clip(p + 2, last)] == 48
                        and d[clip(p + 3, last)] == 48
                        and 48 <= digit <= 55
                    )
                elif p < last:
                    nxt = table[d[p + 1]]
                    if nxt == code and 2 <= code <= 4:
                        hit = True
                    elif code == 3 and nxt == 6:
                        hit = True
                    elif code == 5 and nxt == 5 and p + 1 < last and table[d[p + 2]] == 5:
                        hit = True
                if hit:
                    o[clip(line, n - 1)] = 0
            if c == 10:
                line += 1
            p += 1
    return out


cdef inline bint bare(object value):
    """A string with a character that is not white space (``str.isspace``)."""
    cdef Py_UCS4 ch
    if not isinstance(value, str):
        return False
    for ch in <str>value:
        if not ch.isspace():
            return True
    return False


def bare_records(list ids, list texts, uint8_t[::1] good):
    """Clear ``good[k]`` where ``ids[k]`` or ``texts[k]`` is not a string with a character
    that is not white space; returns whether every flag is left set."""
    cdef Py_ssize_t n = good.shape[0], k
    cdef bint every = True
    if len(ids) != n or len(texts) != n:
        raise ValueError(f"{len(ids)} ids and {len(texts)} texts for {n} flags")
    for k in range(n):
        if good[k] and not (bare(ids[k]) and bare(texts[k])):
            good[k] = 0
        if not good[k]:
            every = False
    return every


cdef inline bint space(uint32_t c) noexcept nogil:
    """``chr(c).isspace()`` for a code point of the Basic Multilingual Plane."""
    if c <= 0x20:
        return 9 <= c <= 13 or 28 <= c <= 32
    if c < 0x1680:
        return c == 0x85 or c == 0xA0
    return (c == 0x1680 or 0x2000 <= c <= 0x200A or c == 0x2028 or c == 0x2029
            or c == 0x202F or c == 0x205F or c == 0x3000)


cdef inline bint blank(const uint8_t *p, Py_ssize_t n) noexcept nogil:
    """Whether the body of a JSON string (its bytes between the quotes, escapes checked by
    msgspec) decodes to white space only. A character :func:`json_char` cannot take (past
    U+FFFF, a surrogate) is not white space, and a byte sequence that is not UTF-8 counts
    as a character that is not: the string's own decoding refuses it later."""
    cdef Py_ssize_t i = 0
    cdef uint32_t got
    while i < n:
        got = json_char(p, n, i)
        if got == NOT_BMP or not space(got & 0xFFFFFF):
            return False
        i += got >> 24
    return True


def bare_raw_records(list ids, list raws, uint8_t[::1] good):
    """:func:`bare_records` of texts kept as raw JSON values (buffers such as
    ``msgspec.Raw``): a text is bare when it is a JSON string that decodes to something
    other than white space; ``null`` clears its flag.

    Returns:
        1 when every flag is left set, 0 when some are cleared, -1 when a text is neither a
        string nor ``null`` (the block is then decoded with typed fields).
    """
    cdef Py_ssize_t n = good.shape[0], k
    cdef const uint8_t[::1] view
    cdef int every = 1
    if len(ids) != n or len(raws) != n:
        raise ValueError(f"{len(ids)} ids and {len(raws)} texts for {n} flags")
    for k in range(n):
        view = raws[k]
        if view.shape[0] >= 2 and view[0] == 34:  # a string (msgspec checked its end)
            if good[k] and not (bare(ids[k]) and not blank(&view[1], view.shape[0] - 2)):
                good[k] = 0
        elif view.shape[0] == 4 and view[0] == 110:  # null
            good[k] = 0
        else:
            return -1
        if not good[k]:
            every = 0
    return every
