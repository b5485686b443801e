# The decoding of one character of a JSON string's body from its UTF-8 bytes, shared by the
# prepare kernel (neardup.methods._kernel: tokens straight from raw JSON texts) and the
# reader's block checks (neardup.text._scan: whether a raw text is white space only).

from libc.stdint cimport uint8_t, uint32_t


# what json_char gives for anything the tables cannot take (not UTF-8, a surrogate, a
# code point past U+FFFF, a raw control byte): the text then goes the Python way
cdef extern from *:
    """
    static const uint32_t neardup_NOT_BMP = 0x110000;
    """
    const uint32_t NOT_BMP "neardup_NOT_BMP"


cdef inline uint32_t hex_digit(uint32_t d) noexcept nogil:
    if 48 <= d <= 57:
        return d - 48
    d |= 32
    return d - 87 if 97 <= d <= 102 else NOT_BMP


cdef inline uint32_t json_char(const uint8_t *p, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    """The code point at ``p[i]`` of a JSON string's body (``n`` bytes) and the bytes it
    takes, as ``cp | bytes << 24``: strict UTF-8 of the Basic Multilingual Plane and JSON's
    escapes (RFC 8259, section 7), else ``NOT_BMP``. (A value, not an index moved through
    a pointer: the index then stays in a register while token bytes are written.)"""
    cdef uint32_t b = p[i], c, e
    if b < 0x80:
        if b != 92:
            return b | (1 << 24) if b >= 0x20 else NOT_BMP
        if i + 1 >= n:  # an escape
            return NOT_BMP
        e = p[i + 1]
        if e == 117:  # \uXXXX
            if i + 5 >= n:
                return NOT_BMP
            c = (hex_digit(p[i + 2]) << 12) | (hex_digit(p[i + 3]) << 8)
            c |= (hex_digit(p[i + 4]) << 4) | hex_digit(p[i + 5])
            return NOT_BMP if c > 0xFFFF or 0xD800 <= c <= 0xDFFF else c | (6 << 24)
        if e == 110:
            return 10 | (2 << 24)
        if e == 116:
            return 9 | (2 << 24)
        if e == 114:
            return 13 | (2 << 24)
        if e == 102:
            return 12 | (2 << 24)
        if e == 98:
            return 8 | (2 << 24)
        return e | (2 << 24) if e == 34 or e == 92 or e == 47 else NOT_BMP
    if 0xC2 <= b <= 0xDF:
        if i + 1 >= n or (p[i + 1] & 0xC0) != 0x80:
            return NOT_BMP
        return ((b & 0x1F) << 6) | (p[i + 1] & 0x3F) | (2 << 24)
    if 0xE0 <= b <= 0xEF:
        if i + 2 >= n or (p[i + 1] & 0xC0) != 0x80 or (p[i + 2] & 0xC0) != 0x80:
            return NOT_BMP
        c = ((b & 0x0F) << 12) | ((p[i + 1] & 0x3F) << 6) | (p[i + 2] & 0x3F)
        return NOT_BMP if c < 0x800 or 0xD800 <= c <= 0xDFFF else c | (3 << 24)
    return NOT_BMP  # a continuation byte, an overlong lead, four bytes (past U+FFFF)


