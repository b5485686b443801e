# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""The compiled prepare kernel (see :mod:`neardup.methods.kernel`, which calls it).

Two passes, each one loop in C with the GIL released:

* :func:`token_pass`: each text's code points (of a ``str``, or decoded from the UTF-8
  and escapes of a raw JSON string: the JSONL reader need not make the ``str``) ->
  canonical tokens (lower case, NFKC and ``ё`` -> ``е`` by the tables
  :mod:`neardup.methods.kernel` builds from ``unicodedata``; runs of word characters, one
  token per CJK character) -> XXH64 of each token's UTF-8 bytes -> stop words and short
  tokens dropped. A text with a code point outside the tables is flagged for the Python
  path and gets no tokens here.
* :func:`shingle_pass`: token fingerprints of each document -> word-shingle fingerprints
  (``h = fmix64(rotl(h, 31) * P ^ t)``) -> the sorted unique set -> its content key ->
  its one-permutation MinHash row with optimal densification.
* :func:`band_pass`: MinHash rows -> one LSH band key per (document, band)
  (``h = fmix64(h * P ^ row)`` over each band's rows, from a salt per band), as
  :func:`neardup.methods.lsh.band_keys` computes them.
* :func:`repeat_pass`: 64-bit keys -> a mark on every key that may occur twice (its top
  bits shared with another key): what :func:`neardup.methods.lsh.repeated_groups` sorts.

Every value is computed as the numpy reference computes it (:mod:`neardup.text.xxh64`,
:mod:`neardup.text.vectorized`, :mod:`neardup.methods.shingles`,
:class:`neardup.methods.sets.ShingleSets`, :class:`neardup.methods.minhash.MinHasher`).
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy, memset
from libcpp.algorithm cimport sort
from libcpp.vector cimport vector

from neardup.text._jsonchar cimport NOT_BMP, json_char


#: Bumped with every change to this module's functions or their arguments;
#: neardup.methods.kernel refuses a build of another version (a stale in-place build).
ABI = 8


cdef extern from *:
    """
    /* PyUnicode_READY: needed before 3.12 (legacy strings), a deprecated no-op since */
    #if PY_VERSION_HEX >= 0x030C0000
    #define neardup_unicode_ready(o) 0
    #else
    #define neardup_unicode_ready(o) PyUnicode_READY(o)
    #endif
    """
    int neardup_unicode_ready(object) except -1


cdef extern from *:
    """
    #include <vector>
    /* the token fingerprints of a token_pass, kept by each thread from one pass to the
       next: a block's 3-4 MB are written into memory already touched (a vector new to
       each pass grew by doubling, copied and zero-filled 2-3 times its size) */
    static std::vector<uint64_t> &neardup_token_scratch(void) {
        static thread_local std::vector<uint64_t> scratch;
        return scratch;
    }
    """
    vector[uint64_t] &token_scratch "neardup_token_scratch"() noexcept nogil


cdef extern from "Python.h":
    object PyByteArray_FromStringAndSize(const char *, Py_ssize_t)
    int PyUnicode_KIND(object)
    void *PyUnicode_DATA(object)
    Py_ssize_t PyUnicode_GET_LENGTH(object)


# Constants as C constants (a module global would be read from memory again after every
# byte the kernel writes through a uint8_t pointer, which may alias it).
cdef extern from *:
    """
    static const uint64_t neardup_P1 = 0x9E3779B185EBCA87ULL;
    static const uint64_t neardup_P2 = 0xC2B2AE3D27D4EB4FULL;
    static const uint64_t neardup_P3 = 0x165667B19E3779F9ULL;
    static const uint64_t neardup_P4 = 0x85EBCA77C2B2AE63ULL;
    static const uint64_t neardup_P5 = 0x27D4EB2F165667C5ULL;
    static const uint64_t neardup_EMPTY = 0xFFFFFFFFFFFFFFFFULL;
    static const uint64_t neardup_KEY_SALT = 0x5851F42D4C957F2DULL;
    static const uint64_t neardup_COMBINE = 0x9E3779B97F4A7C15ULL;
    static const int neardup_MAX_ROUNDS = 256;
    /* character classes of the normalized text (those of neardup.text.vectorized) */
    static const uint8_t neardup_WORD = 1;
    static const uint8_t neardup_CJK = 2;
    /* outputs a code point maps to at most (the tables' width) */
    static const int neardup_WIDTH = 4;
    /* fields of a table entry (see neardup.methods.kernel.tables) */
    static const uint32_t neardup_CP_MASK = 0xFFFF;
    static const int neardup_CLASS_SHIFT = 16;
    static const uint32_t neardup_BARE = 1 << 18;
    static const int neardup_COUNT_SHIFT = 20;
    static const uint32_t neardup_MARK = 15;
    /* a fast_table entry (bit 31; bits 26-27 the class, 24-25 the UTF-8 bytes) */
    static const uint32_t neardup_FAST = 1U << 31;
    """
    const uint64_t P1 "neardup_P1"
    const uint64_t P2 "neardup_P2"
    const uint64_t P3 "neardup_P3"
    const uint64_t P4 "neardup_P4"
    const uint64_t P5 "neardup_P5"
    const uint64_t EMPTY "neardup_EMPTY"
    const uint64_t KEY_SALT "neardup_KEY_SALT"
    const uint64_t COMBINE "neardup_COMBINE"
    const int MAX_ROUNDS "neardup_MAX_ROUNDS"
    const uint8_t WORD "neardup_WORD"
    const uint8_t CJK "neardup_CJK"
    const int WIDTH "neardup_WIDTH"
    const uint32_t CP_MASK "neardup_CP_MASK"
    const int CLASS_SHIFT "neardup_CLASS_SHIFT"
    const uint32_t BARE "neardup_BARE"
    const int COUNT_SHIFT "neardup_COUNT_SHIFT"
    const uint32_t MARK "neardup_MARK"
    const uint32_t FAST "neardup_FAST"


cdef inline uint64_t rotl(uint64_t x, int r) noexcept nogil:
    return (x << r) | (x >> (64 - r))


cdef inline uint64_t fmix64(uint64_t x) noexcept nogil:
    x ^= x >> 33
    x *= 0xFF51AFD7ED558CCDULL
    x ^= x >> 33
    x *= 0xC4CEB9FE1A85EC53ULL
    x ^= x >> 33
    return x


cdef inline uint64_t read64(const uint8_t *p) noexcept nogil:
    cdef uint64_t v
    memcpy(&v, p, 8)  # little-endian machines only (checked at import)
    return v


cdef inline uint64_t read32(const uint8_t *p) noexcept nogil:
    cdef uint32_t v
    memcpy(&v, p, 4)
    return v


cdef inline uint64_t xround(uint64_t acc, uint64_t lane) noexcept nogil:
    return rotl(acc + lane * P2, 31) * P1


cdef inline uint64_t xmerge(uint64_t acc, uint64_t val) noexcept nogil:
    return (acc ^ xround(0, val)) * P1 + P4


cdef inline uint64_t xxh64(const uint8_t *p, Py_ssize_t n, uint64_t seed) noexcept nogil:
    """XXH64 of ``p[:n]`` (xxHash specification v0.1.1)."""
    cdef const uint8_t *end = p + n
    cdef uint64_t h, v1, v2, v3, v4
    if n >= 32:
        v1 = seed + P1 + P2
        v2 = seed + P2
        v3 = seed
        v4 = seed - P1
        while p + 32 <= end:
            v1 = xround(v1, read64(p))
            v2 = xround(v2, read64(p + 8))
            v3 = xround(v3, read64(p + 16))
            v4 = xround(v4, read64(p + 24))
            p += 32
        h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)
        h = xmerge(h, v1)
        h = xmerge(h, v2)
        h = xmerge(h, v3)
        h = xmerge(h, v4)
    else:
        h = seed + P5
    h += <uint64_t>n
    while p + 8 <= end:
        h = rotl(h ^ xround(0, read64(p)), 27) * P1 + P4
        p += 8
    if p + 4 <= end:
        h = rotl(h ^ (read32(p) * P1), 23) * P2 + P3
        p += 4
    while p < end:
        h = rotl(h ^ (p[0] * P5), 11) * P1
        p += 1
    h ^= h >> 33
    h *= P2
    h ^= h >> 29
    h *= P3
    h ^= h >> 32
    return h


cdef inline Py_ssize_t put_utf8(uint8_t *p, uint32_t cp) noexcept nogil:
    """Write ``cp`` (a BMP code point, no surrogate) at ``p`` as UTF-8; returns its bytes."""
    if cp < 0x80:
        p[0] = <uint8_t>cp
        return 1
    if cp < 0x800:
        p[0] = <uint8_t>(0xC0 | (cp >> 6))
        p[1] = <uint8_t>(0x80 | (cp & 0x3F))
        return 2
    p[0] = <uint8_t>(0xE0 | (cp >> 12))
    p[1] = <uint8_t>(0x80 | ((cp >> 6) & 0x3F))
    p[2] = <uint8_t>(0x80 | (cp & 0x3F))
    return 3


cdef struct StopTable:
    const uint64_t *slots
    int bits
    int probes  # 0: no stop words
    const uint64_t *seen  # 2**16 bits: the top 16 bits of every stop word's fingerprint


cdef inline bint is_stop(const StopTable *t, uint64_t v) noexcept nogil:
    """Membership in :class:`neardup.text.vectorized.FingerprintTable` (linear probing),
    after an exact pre-check on the fingerprint's top 16 bits (8 KiB, stays in cache)."""
    if t.probes == 0:
        return False
    cdef uint64_t top = v >> 48
    if not (t.seen[top >> 6] >> (top & 63)) & 1:
        return False
    cdef uint64_t mask = (1ULL << t.bits) - 1
    cdef uint64_t home = v >> (64 - t.bits)
    cdef int step
    for step in range(t.probes):
        if t.slots[(home + step) & mask] == v:
            return True
    return False


cdef inline Py_ssize_t emit(uint64_t *out, Py_ssize_t count, const uint8_t *buf,
                            Py_ssize_t size, Py_ssize_t chars, bint cjk, uint64_t seed,
                            const StopTable *stop, int min_len) noexcept nogil:
    """Write the fingerprint of a token of ``chars`` code points (UTF-8 ``buf[:size]``) at
    ``out[count]``; returns ``count + 1``, or ``count`` (the slot is written over next)
    for a stop word or a token (not CJK) shorter than ``min_len``."""
    cdef uint64_t h = xxh64(buf, size, seed)
    out[count] = h
    return count + (not is_stop(stop, h)) * (cjk or chars >= min_len)


cdef struct Tables:
    const uint32_t *info
    const uint16_t *outcp
    const uint8_t *cls
    const uint32_t *pairs  # sorted (first << 16 | mark) of canonical composites
    Py_ssize_t npairs
    const uint32_t *fast  # per code point: its one output's UTF-8 (see fast_table), or 0


cdef void fast_table(const uint32_t *info, uint32_t *fast) noexcept nogil:
    """The code points of ``info`` that normalize to one code point of their own class
    (not a mark): ``FAST | class << 26 | bytes << 24 | UTF-8`` (the UTF-8 of that one
    code point, 1-3 bytes, little-endian in the low 24 bits), so that the common case of
    :func:`tokens_of` is one load and one 4-byte store; 0 for the others (the general
    path). Derived from ``info`` alone: the same tokens either way."""
    cdef uint32_t cp, e, o, c
    cdef uint8_t enc[4]
    cdef Py_ssize_t size
    for cp in range(0x10000):
        e = info[cp]
        if (e >> COUNT_SHIFT) != 1:
            fast[cp] = 0
            continue
        o = e & CP_MASK
        c = (e >> CLASS_SHIFT) & 3
        enc[0] = enc[1] = enc[2] = enc[3] = 0
        size = put_utf8(enc, o)
        fast[cp] = (FAST | (c << 26) | (<uint32_t>size << 24) | enc[0]
                    | (<uint32_t>enc[1] << 8) | (<uint32_t>enc[2] << 16))


cdef inline bint composes(const Tables *t, uint32_t first, uint32_t mark) noexcept nogil:
    cdef uint32_t key = (first << 16) | mark
    cdef Py_ssize_t lo = 0, hi = t.npairs, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if t.pairs[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo < t.npairs and t.pairs[lo] == key


cdef struct json_t:
    # one byte of the body of a JSON string (UTF-8 with escapes): a type of its own, so
    # that tokens_of is specialised for it
    uint8_t byte


ctypedef fused char_t:
    uint8_t
    uint16_t
    uint32_t
    json_t


cdef inline uint32_t code_at(const char_t *data, Py_ssize_t length, Py_ssize_t i) noexcept nogil:
    """The code point of the character at ``i`` (one :func:`tokens_of` has decoded)."""
    if char_t is json_t:
        return json_char(<const uint8_t *>data, length, i) & 0xFFFFFF
    else:
        return data[i]


cdef struct Run:
    # where a run of word characters stopped: at ``i`` (a character of ``w`` units whose
    # fast_table entry is ``f``, 0 for the general path), the token's UTF-8 bytes and
    # code points so far, where the character before ``i`` started
    Py_ssize_t i, w, size, chars, last
    uint32_t f


cdef Run word_run(const char_t *data, Py_ssize_t length, const uint32_t *fast,
                  uint8_t *buf, Py_ssize_t cap, Run r) noexcept nogil:
    """Append the word characters from ``data[r.i]`` on that normalize to one code point
    of their own (``fast``: most of them) to the token in ``buf``, up to the end, the
    first other character or a full ``buf``. A function of its own: its few values stay
    in registers (within the rest of :func:`tokens_of` they were kept on the stack and read
    back after every character, 10 % of the pass).

    The bytes a character takes come from a branch on its first byte (predicted: runs of
    one script), not from the table's answer (the next character's load would wait)."""
    cdef const uint8_t *raw = <const uint8_t *>data
    cdef Py_ssize_t i = r.i, size = r.size, chars = r.chars, last = r.last, w = 1
    cdef uint32_t f = 0, b0, cp
    while i < length:
        if char_t is json_t:
            b0 = raw[i]
            if b0 < 0x80:
                f = fast[b0] if b0 >= 0x20 and b0 != 92 else 0
                w = 1
            else:  # the closing quote follows the body: raw[i + 1] can be read
                f = fast[((b0 & 0x1F) << 6) | (raw[i + 1] & 0x3F)] if (
                    b0 >= 0xC2 and b0 <= 0xDF and (raw[i + 1] & 0xC0) == 0x80) else 0
                w = 2
        else:
            cp = data[i]
            if char_t is uint32_t:
                f = fast[cp] if cp <= 0xFFFF else 0
            else:
                f = fast[cp]
        if ((f >> 26) & 3) != WORD or size + 4 > cap:
            break
        memcpy(buf + size, &f, 4)  # the bytes past the UTF-8 are written over next
        size += (f >> 24) & 3
        chars += 1
        last = i
        i += w
    r.i, r.w, r.f, r.size, r.chars, r.last = i, w, f, size, chars, last
    return r


cdef Py_ssize_t tokens_of(const char_t *data, Py_ssize_t length, const Tables *t,
                          uint64_t seed, const StopTable *stop, int min_len,
                          vector[uint64_t] &out, Py_ssize_t count,
                          vector[uint8_t] &store) noexcept nogil:
    """Write the token fingerprints of one text (its code points ``data[:length]``, of the
    string's kind, or the ``length`` bytes of a JSON string's body for ``json_t``,
    followed by its closing quote) at ``out[count:]`` (grown to hold them); returns the
    count after them, or -1 when a code point is outside the tables (or the JSON body is
    not strict UTF-8 of the Basic Multilingual Plane): the caller keeps ``count``.

    A character that normalizes to one code point (``t.fast``; in a JSON body, printable
    ASCII or a two-byte UTF-8 sequence) takes one table load; the others the general path
    (escapes, three-byte UTF-8, several or no code points out, marks).

    The token being built lives in locals (``buf``, ``size``, ``chars``), not behind a
    pointer: its bytes are written through a ``uint8_t *``, which may alias anything, so
    state kept in memory would be read again after every byte."""
    if <Py_ssize_t>out.size() < count + WIDTH * length + 1:  # a code point: <= WIDTH tokens
        out.resize(max(2 * out.size(), <size_t>(count + WIDTH * length + 1)))
    cdef uint64_t *dst = out.data()
    cdef const uint32_t *info = t.info
    cdef const uint16_t *outcp = t.outcp
    cdef const uint8_t *cls = t.cls
    cdef const uint32_t *fast = t.fast
    cdef const uint8_t *raw = <const uint8_t *>data
    cdef uint8_t *buf = store.data()
    cdef Py_ssize_t cap = <Py_ssize_t>store.size(), size = 0, chars = 0, i = 0, at
    cdef Py_ssize_t last = -1  # where the character before started (-1: none)
    cdef uint32_t cp, e, n, o, c, j, f, prev
    cdef Run run
    while i < length:
        run.i, run.size, run.chars, run.last = i, size, chars, last
        run = word_run(data, length, fast, buf, cap, run)
        i, size, chars, last, f = run.i, run.size, run.chars, run.last, run.f
        if i >= length:
            break
        if f:  # one code point out: its UTF-8 from the table
            c = (f >> 26) & 3
            if c == WORD:  # the token's buffer is full
                store.resize(2 * store.size() + 64)
                buf = store.data()
                cap = <Py_ssize_t>store.size()
                continue
            if chars:
                count = emit(dst, count, buf, size, chars, False, seed, stop, min_len)
                size = 0
                chars = 0
            if c == CJK:
                memcpy(buf, &f, 4)
                count = emit(dst, count, buf, (f >> 24) & 3, 1, True, seed, stop, min_len)
            last = i
            i += run.w
            continue
        at = i
        if char_t is json_t:
            cp = json_char(raw, length, i)
            if cp == NOT_BMP:
                return -1
            i += cp >> 24
            cp &= 0xFFFFFF
        else:
            cp = data[i]
            i += 1
        if char_t is uint32_t:
            if cp > 0xFFFF:
                return -1
        e = info[cp]
        n = e >> COUNT_SHIFT
        if n == 1 or n == MARK:
            # a combining mark stays as it is after a bare starter it does not compose with
            if n == MARK:
                if last < 0:
                    return -1
                prev = code_at(data, length, last)
                if not (info[prev] & BARE) or composes(t, prev, cp):
                    return -1
            n = 1
            o = e & CP_MASK
            c = (e >> CLASS_SHIFT) & 3
        elif n == 0:
            return -1
        else:
            o = outcp[cp * WIDTH]
            c = cls[o]
        j = 0
        while True:  # each normalized code point ``o`` of class ``c`` into the tokens
            if c == WORD:
                if size + 4 > cap:
                    store.resize(2 * store.size() + 64)
                    buf = store.data()
                    cap = <Py_ssize_t>store.size()
                size += put_utf8(buf + size, o)
                chars += 1
            else:
                if chars:
                    count = emit(dst, count, buf, size, chars, False, seed, stop, min_len)
                    size = 0
                    chars = 0
                if c == CJK:
                    count = emit(dst, count, buf, put_utf8(buf, o), 1, True, seed, stop, min_len)
            j += 1
            if j >= n:
                break
            o = outcp[cp * WIDTH + j]
            c = cls[o]
        last = at
    if chars:
        count = emit(dst, count, buf, size, chars, False, seed, stop, min_len)
    return count


#: ``(info, its fast_table)`` of the last :func:`token_pass` (bytes, bytearray): the table
#: is built once (about 0.1 ms), not for each call (a collection adds a few texts a call).
_fast_cache = None


cdef object fast_for(const uint32_t[::1] info):
    """:func:`fast_table` of ``info`` (65536 entries), from the cache when ``info`` holds the
    same values (compared byte for byte: no table is ever taken for other tables')."""
    global _fast_cache
    if info.shape[0] != 0x10000:
        raise ValueError(f"info has {info.shape[0]} entries, not 65536")
    cached = _fast_cache
    cdef bytes key
    if cached is not None:
        key = cached[0]
        if memcmp(<const char *>key, &info[0], 4 * 0x10000) == 0:
            return cached[1]
    key = (<const char *>&info[0])[:4 * 0x10000]
    table = bytearray(4 * 0x10000)
    cdef uint32_t[::1] view = memoryview(table).cast("I")
    fast_table(&info[0], &view[0])
    _fast_cache = (key, table)
    return table


#: Token fingerprints of :func:`token_scratch` kept after a pass (8M: 64 MB).
cdef size_t _SCRATCH_KEPT = 8 << 20


def token_pass(list texts, const uint32_t[::1] info, const uint16_t[::1] outcp,
               const uint8_t[::1] cls, const uint32_t[::1] pairs, uint64_t seed,
               const uint64_t[::1] stop_slots, int stop_bits, int stop_probes,
               const uint64_t[::1] stop_words, int min_len):
    """Token fingerprints of every text: a ``str``, or a JSON string as its raw bytes,
    quotes included (a buffer such as ``msgspec.Raw``: read without making the ``str``).

    Returns:
        ``(fingerprints, offsets, fallback)``: bytearrays of uint64 (t,), int64 (n + 1,) and a
        uint8 (n,) flag per text (1: a code point outside the tables, or JSON bytes that
        are not strict UTF-8 of the Basic Multilingual Plane; no tokens made).

    Raises:
        TypeError: a text that is neither a ``str`` nor a buffer holding a JSON string.
    """
    cdef Py_ssize_t n = len(texts), i
    cdef vector[int] kinds
    cdef vector[const void *] datas
    cdef vector[Py_ssize_t] lengths
    cdef vector[uint64_t] *out = &token_scratch()
    cdef vector[uint8_t] store
    cdef StopTable stop
    cdef Tables t
    offsets = bytearray(8 * (n + 1))
    fallback = bytearray(n)
    cdef int64_t[::1] off = memoryview(offsets).cast("q")
    cdef uint8_t[::1] fb = fallback
    kinds.resize(n)
    datas.resize(n)
    lengths.resize(n)
    cdef const uint8_t[::1] raw
    views = []  # the raw texts' buffers, held until the pass is done
    for i in range(n):
        text = texts[i]
        if type(text) is str:
            neardup_unicode_ready(text)
            kinds[i] = PyUnicode_KIND(text)
            datas[i] = PyUnicode_DATA(text)
            lengths[i] = PyUnicode_GET_LENGTH(text)
            continue
        try:
            raw = text
        except (TypeError, ValueError, BufferError):
            raise TypeError(f"texts[{i}] is {type(text).__name__}, not str") from None
        if raw.shape[0] < 2 or raw[0] != 34 or raw[raw.shape[0] - 1] != 34:
            raise TypeError(f"texts[{i}] holds no JSON string")
        views.append(raw)
        kinds[i] = 0
        datas[i] = &raw[1]
        lengths[i] = raw.shape[0] - 2
    stop.slots = &stop_slots[0] if stop_slots.shape[0] else NULL
    stop.bits = stop_bits
    stop.probes = stop_probes if stop_slots.shape[0] else 0
    cdef vector[uint64_t] seen
    seen.resize(1 << 10)
    for i in range(stop_words.shape[0]):
        seen[stop_words[i] >> 54] |= 1ULL << ((stop_words[i] >> 48) & 63)
    stop.seen = seen.data()
    t.info = &info[0]
    t.outcp = &outcp[0]
    t.cls = &cls[0]
    t.pairs = &pairs[0] if pairs.shape[0] else NULL
    t.npairs = pairs.shape[0]
    fast = fast_for(info)  # held until the pass is done
    cdef const uint32_t[::1] fast_view = memoryview(fast).cast("I")
    t.fast = &fast_view[0]
    store.resize(4096)
    cdef Py_ssize_t count = 0, got
    with nogil:
        off[0] = 0
        for i in range(n):
            if kinds[i] == 0:
                got = tokens_of(<const json_t *>datas[i], lengths[i], &t, seed, &stop,
                                min_len, out[0], count, store)
            elif kinds[i] == 1:
                got = tokens_of(<const uint8_t *>datas[i], lengths[i], &t, seed, &stop,
                                min_len, out[0], count, store)
            elif kinds[i] == 2:
                got = tokens_of(<const uint16_t *>datas[i], lengths[i], &t, seed, &stop,
                                min_len, out[0], count, store)
            else:
                got = tokens_of(<const uint32_t *>datas[i], lengths[i], &t, seed, &stop,
                                min_len, out[0], count, store)
            if got < 0:
                fb[i] = 1
            else:
                count = got
            off[i + 1] = <int64_t>count
    fps = PyByteArray_FromStringAndSize(<const char *>out.data(), 8 * count)
    if out.size() > _SCRATCH_KEPT:  # a pass of unusually many tokens: not kept for good
        vector[uint64_t]().swap(out[0])
    return fps, offsets, fallback


cdef inline int64_t shingle_count(int64_t n, int w, int s) noexcept nogil:
    """Shingles of ``n`` tokens: starts ``0, s, ... <= n - w``, one more (the tail, shorter)
    when ``s > 1`` leaves tokens after the last full one, one for ``0 < n < w``
    (``neardup.methods.rabin.shingle_spans``)."""
    if n >= w:
        return (n - w) // s + 1 + (1 if (n - w) % s != 0 else 0)
    return 1 if n > 0 else 0


def shingle_bound(const int64_t[::1] offsets, const int64_t[::1] keep, int w, int s):
    """Shingle occurrences of the documents ``keep`` (an upper bound of their set sizes)."""
    cdef int64_t total = 0
    cdef Py_ssize_t j, d
    for j in range(keep.shape[0]):
        d = keep[j]
        total += shingle_count(offsets[d + 1] - offsets[d], w, s)
    return total


cdef void densify(uint64_t *row, uint64_t *source, int k, uint64_t dseed) noexcept nogil:
    """Optimal densification (Shrivastava 2017, Algorithm 2), as MinHasher._densify."""
    cdef int i
    cdef long attempt
    cdef uint64_t base, got
    memcpy(source, row, 8 * k)
    for i in range(k):
        if source[i] != EMPTY:
            continue
        base = fmix64(<uint64_t>i ^ dseed)
        attempt = 1
        while attempt <= <long>MAX_ROUNDS * k:
            got = source[fmix64(base + <uint64_t>attempt) % <uint64_t>k]
            if got != EMPTY:
                row[i] = got
                break
            attempt += 1


cdef void sort_hashes(vector[uint64_t] &a, vector[uint64_t] &tmp,
                      vector[uint32_t] &counts) noexcept nogil:
    """Sort ``a`` ascending (hash values: uniform over 64 bits). Between 32 and 2**16 values,
    a counting sort by the top bits into about one bucket a value, then an insertion sort of
    the nearly sorted result (few branches mispredicted, where a comparison sort of random
    values mispredicts about half of its comparisons); otherwise ``std::sort``. The result
    is the same sorted array either way."""
    cdef Py_ssize_t n = <Py_ssize_t>a.size(), i, j
    cdef int bits = 5
    cdef uint64_t x
    cdef uint32_t *cnt
    cdef uint64_t *t
    if n < 32 or n > (1 << 16):
        sort(a.begin(), a.end())
        return
    while (1 << bits) < n:
        bits += 1
    counts.assign((1 << bits) + 1, 0)
    cnt = counts.data()
    for i in range(n):
        cnt[(a[i] >> (64 - bits)) + 1] += 1
    for i in range(1 << bits):
        cnt[i + 1] += cnt[i]
    tmp.resize(n)
    t = tmp.data()
    for i in range(n):
        x = a[i]
        t[cnt[x >> (64 - bits)]] = x
        cnt[x >> (64 - bits)] += 1
    for i in range(1, n):
        x = t[i]
        j = i
        while j > 0 and t[j - 1] > x:
            t[j] = t[j - 1]
            j -= 1
        t[j] = x
    a.swap(tmp)


def shingle_pass(const uint64_t[::1] tokens, const int64_t[::1] offsets,
                 const int64_t[::1] keep, int w, int s, uint64_t[::1] values,
                 int64_t[::1] set_offsets):
    """Shingle sets of the documents ``keep``.

    ``values`` holds at least :func:`shingle_bound` values; ``set_offsets`` (len(keep) + 1)
    is filled. Returns the values used.
    """
    cdef Py_ssize_t m = keep.shape[0], j, i, u, a
    cdef int64_t lo, n, count, d, pos = 0
    cdef uint64_t h
    cdef vector[uint64_t] scratch, spare
    cdef vector[uint32_t] counts
    cdef uint64_t *v
    cdef int t, width
    with nogil:
        set_offsets[0] = 0
        for j in range(m):
            d = keep[j]
            lo = offsets[d]
            n = offsets[d + 1] - lo
            count = shingle_count(n, w, s)
            scratch.resize(count)
            for i in range(count):
                h = 0
                a = lo + i * s
                width = w if n - i * s >= w else <int>(n - i * s)
                for t in range(width):
                    h = fmix64(rotl(h, 31) * COMBINE ^ tokens[a + t])
                scratch[i] = h
            sort_hashes(scratch, spare, counts)
            v = &values[pos]
            u = 0
            for i in range(count):
                if u == 0 or scratch[i] != v[u - 1]:
                    v[u] = scratch[i]
                    u += 1
            pos += u
            set_offsets[j + 1] = pos
    return pos


def sign_pass(const uint64_t[::1] values, const int64_t[::1] set_offsets,
              uint64_t[::1] keys, uint64_t[::1] rows, int k, uint64_t minhash_seed):
    """Content keys and (``k`` > 0) one-permutation MinHash rows of every set.

    ``keys`` (n) and ``rows`` (n * k) are filled, ``n = len(set_offsets) - 1``.
    """
    cdef Py_ssize_t m = set_offsets.shape[0] - 1, j, i, u
    cdef uint64_t key, g, cur, salt, dseed
    cdef vector[uint64_t] source
    cdef const uint64_t *v
    cdef uint64_t *row
    cdef int t, slot
    salt = fmix64(minhash_seed)
    dseed = minhash_seed * <uint64_t>0x9E3779B9 + 1
    if k > 0:
        source.resize(k)
    with nogil:
        for j in range(m):
            v = &values[0] + set_offsets[j]
            u = set_offsets[j + 1] - set_offsets[j]
            key = 0
            for i in range(u):
                key += fmix64(v[i] ^ KEY_SALT)
            keys[j] = fmix64(key ^ <uint64_t>u)
            if k > 0:
                row = &rows[j * k]
                for t in range(k):
                    row[t] = EMPTY
                for i in range(u):
                    g = fmix64(v[i] ^ salt)
                    slot = <int>(((g >> 32) * <uint64_t>k) >> 32)
                    cur = row[slot]
                    row[slot] = g if g < cur else cur  # a conditional move, not a branch
                if u > 0:
                    densify(row, source.data(), k, dseed)


def band_pass(const uint64_t[:, :] sketches, int r, const uint64_t[::1] salts,
              uint64_t[:, ::1] out, bint by_band):
    """LSH band keys: for each document ``i`` and band ``j``, ``h = salts[j]``, then
    ``h = fmix64(h * P ^ sketches[i, j * r + t])`` for ``t < r``. ``out`` is (n, b), or
    (b, n) when ``by_band`` (each band's keys contiguous)."""
    cdef Py_ssize_t n = sketches.shape[0], b = salts.shape[0], i, j
    cdef int t
    cdef uint64_t h
    with nogil:
        for i in range(n):
            for j in range(b):
                h = salts[j]
                for t in range(r):
                    h = fmix64(h * COMBINE ^ sketches[i, j * r + t])
                if by_band:
                    out[j, i] = h
                else:
                    out[i, j] = h


def repeat_pass(const uint64_t[::1] keys, int bits, uint64_t[::1] scratch, uint8_t[::1] out):
    """``out[i] = 1`` when another of ``keys`` has the same top ``bits`` bits as
    ``keys[i]`` (so every key that occurs twice or more is marked), else 0: two passes over
    two bitmaps of ``2**bits`` bits in ``scratch`` (zeroed here; ``2**(bits - 5)`` words),
    ``seen`` and ``twice``. ``bits`` is 6-32."""
    cdef Py_ssize_t n = keys.shape[0], i
    cdef uint64_t words = (<uint64_t>1) << (bits - 6)
    cdef uint64_t *seen = &scratch[0]
    cdef uint64_t *twice = seen + words
    cdef uint64_t h, w, b
    cdef int shift = 64 - bits
    with nogil:
        memset(seen, 0, 2 * words * sizeof(uint64_t))
        for i in range(n):
            h = keys[i] >> shift
            w = h >> 6
            b = (<uint64_t>1) << (h & 63)
            twice[w] |= seen[w] & b
            seen[w] |= b
        for i in range(n):
            h = keys[i] >> shift
            out[i] = (twice[h >> 6] >> (h & 63)) & 1
