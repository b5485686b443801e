"""The prepare kernel: clean texts -> token fingerprints -> shingle sets -> content keys ->
MinHash rows, in one function with two interchangeable implementations.

:func:`prepare_texts` runs the compiled kernel (``neardup.methods._kernel``, Cython, built
by ``pip install``) when it is built and the options are ones it covers, and the numpy
reference otherwise; :func:`prepare_texts_reference` is that reference, the numpy path the
dedup job used before the kernel (:func:`neardup.text.vectorized.canonical_fingerprints`,
:meth:`Shingling.from_token_fingerprints`, :meth:`ShingleSets.from_unsorted`,
:meth:`ShingleSets.content_keys`, :meth:`MinHasher.sketches`). The two give the same
arrays byte for byte (tests/methods/test_kernel.py); ``NEARDUP_KERNEL=python`` forces the
reference.

The kernel covers the default canonical form's tokenizer (no morphology, no Rodnenko
split; any stop-word list and ``min_token_length``), word shingles with XXH64
fingerprints, and one-permutation MinHash. Normalization (NFKC, lower case, ``ё`` -> ``е``)
is done by tables built here from Python's own :func:`neardup.text.canonical.normalize`
for every Basic Multilingual Plane code point whose normalization does not depend on its
neighbours, plus the combining marks, kept where they follow a letter they do not compose
with (a Russian stress mark); a text holding any other code point (a composing mark, a
Hangul jamo, a character outside the BMP, a capital sigma, a lone surrogate ...) is
tokenised by the Python tokenizer (:meth:`CanonicalForm.tokens`), that text alone.
Tokens, shingles, sets, content keys and the MinHash of Li, Owen & Zhang 2012 with the
optimal densification of Shrivastava 2017 are computed as :mod:`neardup.methods.shingles`,
:mod:`neardup.methods.sets` and :mod:`neardup.methods.minhash` define them.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Literal

import numpy as np

from neardup._array import U64, seg_arange
from neardup.errors import ParameterError
from neardup.methods.minhash import MinHasher
from neardup.methods.sets import ShingleSets
from neardup.methods.shingles import Shingling
from neardup.text.canonical import CanonicalForm, normalize

Kernel = Literal["cython", "python"]
#: Environment variable choosing the kernel: ``auto`` (default), ``python``, ``cython``.
ENV = "NEARDUP_KERNEL"
KERNEL_CHOICES: tuple[str, ...] = ("auto", "python", "cython")
#: The version of neardup.methods._kernel this module calls (its ``ABI``).
_ABI = 8
#: Output code points a table entry holds at most (longer normalizations: Python path).
_WIDTH = 4


@dataclass(frozen=True, slots=True, eq=False)
class PreparedTexts:
    """Texts prepared for a shingle method.

    Attributes:
        fingerprints: uint64 (t,): the canonical token fingerprints (XXH64 of each token's
            UTF-8 bytes, ``shingling.seed``) of every text, one after another.
        offsets: int64 (n + 1,): text i's tokens are ``fingerprints[offsets[i]:offsets[i+1]]``.
        counts: int64 (n,): canonical tokens per text.
        sets: the shingle sets of the texts with ``counts >= min_tokens``, in order.
        keys: uint64 (len(sets),): their content keys (:meth:`ShingleSets.content_keys`).
        rows: uint64 (len(sets), num_perm): their MinHash sketches, or None without a hasher.
        kernel: which implementation made them.
        fallback: texts the compiled kernel left to the Python tokenizer (0 for the
            reference).
        seconds: ``(tokens, sets, sign)``: seconds spent on the token fingerprints, on the
            shingle sets, and on the content keys and rows.
    """

    fingerprints: np.ndarray
    offsets: np.ndarray
    counts: np.ndarray
    sets: ShingleSets
    keys: np.ndarray
    rows: np.ndarray | None
    kernel: Kernel
    fallback: int = 0
    seconds: tuple[float, float, float] = (0.0, 0.0, 0.0)


def prepare_texts(
    texts: Sequence[str],
    *,
    canonical: CanonicalForm,
    shingling: Shingling,
    min_tokens: int,
    hasher: MinHasher | None = None,
) -> PreparedTexts:
    """Token fingerprints, shingle sets, content keys and MinHash rows of ``texts``.

    Equal to :func:`prepare_texts_reference` byte for byte; runs the compiled kernel when
    :func:`kernel_for` says so.

    Args:
        texts: clean texts (str); a :class:`neardup.text.read.JsonTexts` (a JSONL block's
            texts as raw JSON) is tokenized from its bytes by the compiled kernel, as the
            strings it decodes to would be.
        canonical: the canonical form; shingling: the shingling (its ``seed`` is the XXH64
            seed of the tokens).
        min_tokens: texts with fewer canonical tokens get no set (``>= 0``).
        hasher: sign each set with it (its ``sketches``), or None.

    Returns:
        :class:`PreparedTexts`.

    Raises:
        ParameterError: ``min_tokens`` < 0, or ``NEARDUP_KERNEL`` is not one of
            ``auto``, ``python``, ``cython`` (or ``cython`` without a built kernel).
        DecodeError: a raw JSON text that does not decode (not UTF-8).
    """
    if not isinstance(min_tokens, int) or min_tokens < 0:
        raise ParameterError("min_tokens", min_tokens, "an integer >= 0")
    if kernel_for(canonical, shingling) == "python":
        return prepare_texts_reference(
            texts, canonical=canonical, shingling=shingling, min_tokens=min_tokens, hasher=hasher
        )
    return _compiled(texts, canonical, shingling, min_tokens, hasher)


def prepare_texts_reference(
    texts: Sequence[str],
    *,
    canonical: CanonicalForm,
    shingling: Shingling,
    min_tokens: int,
    hasher: MinHasher | None = None,
) -> PreparedTexts:
    """:func:`prepare_texts` by the numpy path (the reference; any options)."""
    from neardup.text.vectorized import canonical_fingerprints

    t0 = time.perf_counter()
    if shingling.unit == "word" and shingling.fingerprint == "xxh64":
        fps, offsets = canonical_fingerprints(texts, canonical, shingling.seed)
        t1 = time.perf_counter()
        counts = np.diff(offsets)
        keep = np.flatnonzero(counts >= min_tokens)
        kept_counts = counts[keep]
        tokens = fps[seg_arange(offsets[keep], kept_counts)]
        values, doc = shingling.from_token_fingerprints(tokens, kept_counts)
        sets = ShingleSets.from_unsorted(values, doc, int(keep.shape[0]))
    else:  # character shingles, CRC-32, Rabin: the token strings are needed
        from neardup.text.xxh64 import token_fingerprints

        lists = [canonical.tokens(t) for t in texts]
        counts = np.array([len(x) for x in lists], dtype=np.int64)
        offsets = np.zeros(len(lists) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        fps = token_fingerprints([t for x in lists for t in x], shingling.seed)
        t1 = time.perf_counter()
        sets = shingling.batch([x for x, c in zip(lists, counts, strict=True) if c >= min_tokens])
    t2 = time.perf_counter()
    keys = sets.content_keys()
    rows = None if hasher is None else hasher.sketches(sets)
    return PreparedTexts(
        fps,
        offsets.astype(np.int64),
        counts.astype(np.int64),
        sets,
        keys,
        rows,
        "python",
        seconds=(t1 - t0, t2 - t1, time.perf_counter() - t2),
    )


def text_fingerprints(
    texts: Sequence[str], *, canonical: CanonicalForm, seed: int
) -> tuple[np.ndarray, np.ndarray, Kernel]:
    """The canonical token fingerprints of ``texts`` (XXH64 of each token's UTF-8 bytes,
    ``seed``): what a method that weighs each token occurrence needs (SimHash's word
    features), without a Python string per token.

    By the compiled kernel's token pass where :func:`kernel_for` covers ``canonical``,
    else by :func:`neardup.text.vectorized.canonical_fingerprints` (the reference); equal
    byte for byte (tests/methods/test_kernel.py).

    Args:
        texts: clean texts; canonical: the canonical form; seed: ``0 <= seed < 2**32``.

    Returns:
        ``(fingerprints, offsets, kernel)``: uint64 (t,), int64 (n + 1,) (text i's tokens
        are ``fingerprints[offsets[i]:offsets[i+1]]``) and the implementation used.

    Raises:
        ParameterError: a bad ``NEARDUP_KERNEL``, or ``cython`` asked for and not built.
    """
    if kernel_for(canonical, Shingling(seed=seed)) == "python":
        from neardup.text.vectorized import canonical_fingerprints

        fps, offsets = canonical_fingerprints(texts, canonical, seed)
        return fps, np.asarray(offsets, dtype=np.int64), "python"
    kernel = compiled()
    assert kernel is not None
    fps, offsets, _ = _tokens(kernel, texts, canonical, seed)
    return fps, offsets, "cython"


def token_sets(
    token_lists: Sequence[Sequence[str]], *, shingling: Shingling
) -> tuple[ShingleSets, np.ndarray, Kernel]:
    """Shingle sets and content keys of documents given as canonical token lists (methods
    that keep the token strings: I-Match, SimHash, SpotSigs, TF-RIDF, anchor words).

    The tokens' XXH64 fingerprints (:func:`neardup.text.xxh64.token_fingerprints`,
    ``shingling.seed``) go through the compiled kernel's shingle and key passes when
    :func:`kernel_for_tokens` says so, else through the reference
    (:meth:`Shingling.batch`, :meth:`ShingleSets.content_keys`); both give the same arrays
    byte for byte (tests/methods/test_kernel.py).

    Returns:
        ``(sets, keys, kernel)``: one set per token list (in order), uint64 (n,) content
        keys, and the implementation that made them.

    Raises:
        ParameterError: a bad ``NEARDUP_KERNEL``, or ``cython`` asked for and not built.
    """
    if kernel_for_tokens(shingling) == "python":
        sets = shingling.batch(token_lists)
        return sets, sets.content_keys(), "python"
    from itertools import chain

    from neardup.text.xxh64 import token_fingerprints

    kernel = compiled()
    assert kernel is not None
    counts = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
    offsets = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    fps = token_fingerprints(list(chain.from_iterable(token_lists)), shingling.seed)
    keep = np.arange(counts.shape[0], dtype=np.int64)
    sets, keys, _, _ = _passes(kernel, fps, offsets, keep, shingling, None)
    return sets, keys, "cython"


def kernel_for_tokens(shingling: Shingling) -> Kernel:
    """The implementation :func:`token_sets` uses: ``cython`` when the compiled kernel is
    built, ``NEARDUP_KERNEL`` is not ``python`` and the shingles are word shingles with
    XXH64 fingerprints (any canonical form: the tokens are given); otherwise ``python``
    (character shingles, CRC-32 and Rabin fingerprints need the token strings' bytes,
    which the kernel does not see).

    Raises:
        ParameterError: a bad ``NEARDUP_KERNEL``, or ``cython`` asked for and not built.
    """
    choice = requested()
    if choice == "python":
        return "python"
    if compiled() is None:
        if choice == "cython":
            raise ParameterError(ENV, choice, f"auto or python ({missing_reason()})")
        return "python"
    return "cython" if shingling.unit == "word" and shingling.fingerprint == "xxh64" else "python"


def kernel_for(canonical: CanonicalForm, shingling: Shingling) -> Kernel:
    """The implementation :func:`prepare_texts` uses for these options.

    ``cython`` when the compiled kernel is built, ``NEARDUP_KERNEL`` is not ``python``, the
    canonical form is vectorisable (no morphology, no ``stop_symbols``) and the shingles
    are word shingles with XXH64 fingerprints; otherwise ``python``.

    Raises:
        ParameterError: a bad ``NEARDUP_KERNEL``, or ``cython`` asked for and not built.
    """
    chosen = kernel_for_tokens(shingling)  # the same choice, given the canonical tokens
    return chosen if canonical.vectorisable else "python"


def requested() -> str:
    """``NEARDUP_KERNEL`` (``auto`` when unset).

    Raises:
        ParameterError: a value other than ``auto``, ``python``, ``cython``.
    """
    choice = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if choice not in KERNEL_CHOICES:
        raise ParameterError(ENV, choice, "one of " + ", ".join(KERNEL_CHOICES))
    return choice


@lru_cache(maxsize=1)
def compiled() -> ModuleType | None:
    """The compiled kernel module, or None when it was not built (see :func:`missing_reason`)."""
    if sys.byteorder != "little":  # the kernel reads 8-byte words as little-endian
        return None
    try:
        module = importlib.import_module("neardup.methods._kernel")
    except ImportError:
        return None
    return module if getattr(module, "ABI", None) == _ABI else None


def unbuilt_note() -> str:
    """The one line a job reports (``summary.json``'s ``warnings``, shown on stderr) when
    the compiled kernel is not built and ``NEARDUP_KERNEL`` does not ask for the numpy
    path; empty otherwise."""
    return "" if requested() == "python" else missing_reason()


def missing_reason() -> str:
    """One line on why the compiled kernel is not in use (empty when it is built)."""
    if compiled() is not None:
        return ""
    if sys.byteorder != "little":
        return "the compiled prepare kernel needs a little-endian machine; numpy path in use"
    try:
        found = importlib.import_module("neardup.methods._kernel")
    except ImportError:
        found = None
    if found is not None and getattr(found, "ABI", None) != _ABI:
        return (
            f"the compiled prepare kernel is an older build (version {getattr(found, 'ABI', 1)},"
            f" {_ABI} expected); numpy path in use: rebuild it with `pip install -e .`"
        )
    return (
        "the compiled prepare kernel is not built (no C++ compiler at install?); "
        "numpy path in use: reinstall with `pip install -e .` where g++ is available"
    )


# -- the compiled path ---------------------------------------------------------------------


def _compiled(
    texts: Sequence[str],
    canonical: CanonicalForm,
    shingling: Shingling,
    min_tokens: int,
    hasher: MinHasher | None,
) -> PreparedTexts:
    kernel = compiled()
    assert kernel is not None
    t0 = time.perf_counter()
    fps, offsets, fallback = _tokens(kernel, texts, canonical, shingling.seed)
    t1 = time.perf_counter()
    counts = np.diff(offsets)
    keep = np.flatnonzero(counts >= min_tokens).astype(np.int64)
    sets, keys, rows, t2 = _passes(kernel, fps, offsets, keep, shingling, hasher)
    seconds = (t1 - t0, t2 - t1, time.perf_counter() - t2)
    return PreparedTexts(fps, offsets, counts, sets, keys, rows, "cython", fallback, seconds)


def _passes(
    kernel: ModuleType,
    fps: np.ndarray,
    offsets: np.ndarray,
    keep: np.ndarray,
    shingling: Shingling,
    hasher: MinHasher | None,
) -> tuple[ShingleSets, np.ndarray, np.ndarray | None, float]:
    """The compiled shingle and sign passes over the token fingerprints of the texts
    ``keep`` (int64, ascending): sets, content keys, rows (``hasher``) and the clock
    reading between the two passes."""
    w, s = shingling.size, shingling.step
    values = np.empty(int(kernel.shingle_bound(offsets, keep, w, s)), dtype=U64)
    set_offsets = np.empty(keep.shape[0] + 1, dtype=np.int64)
    used = kernel.shingle_pass(fps, offsets, keep, w, s, values, set_offsets)
    values = values[:used] if used * 4 >= values.shape[0] * 3 else values[:used].copy()
    sets = ShingleSets(values, set_offsets)
    t2 = time.perf_counter()
    keys = np.empty(keep.shape[0], dtype=U64)
    oph = hasher is not None and hasher.scheme == "oph"
    k = hasher.num_perm if hasher is not None and oph else 0
    signed = np.empty((keep.shape[0], k), dtype=U64)
    seed = hasher.seed if hasher is not None else 0
    kernel.sign_pass(values, set_offsets, keys, signed.reshape(-1), k, seed)
    rows = None if hasher is None else signed if oph else hasher.sketches(sets)
    return sets, keys, rows, t2


def _tokens(
    kernel: ModuleType, texts: Sequence[str], canonical: CanonicalForm, seed: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Token fingerprints by the kernel, the texts it flags by the Python tokenizer, in
    order."""
    from neardup.text.read import JsonTexts
    from neardup.text.vectorized import stop_fingerprints, stop_table
    from neardup.text.xxh64 import token_fingerprints

    info, outcp, classes, pairs = tables()
    if canonical.stop_words:
        stop = stop_table(seed, canonical.stop_word_list)
        slots, bits, probes = stop.slots, stop.bits, stop.probes
        words = stop_fingerprints(True, seed, canonical.stop_word_list)
    else:
        slots, bits, probes = np.zeros(0, dtype=U64), 16, 0
        words = np.zeros(0, dtype=U64)
    raw, raw_offsets, flags = kernel.token_pass(
        texts.items if isinstance(texts, JsonTexts) else list(texts),  # raw JSON as it is
        info,
        outcp,
        classes,
        pairs,
        seed,
        slots,
        bits,
        probes,
        words,
        canonical.min_token_length,
    )
    fps = np.frombuffer(raw, dtype=U64)
    offsets = np.frombuffer(raw_offsets, dtype=np.int64)
    odd = np.flatnonzero(np.frombuffer(flags, dtype=np.uint8))
    if odd.size == 0:
        return fps, offsets, 0
    # the texts the tables do not cover: the regex tokenizer, whose tokens the vectorised
    # path equals (tests/text/test_vectorized.py); it needs none of that path's tables
    # (0.4-1 s to build in each worker for a handful of texts)
    lists = [canonical.tokens(texts[i]) for i in odd.tolist()]
    other = token_fingerprints([tok for x in lists for tok in x], seed)
    counts = np.diff(offsets)
    counts[odd] = [len(x) for x in lists]
    merged_offsets = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=merged_offsets[1:])
    # a flagged text has no tokens in ``fps``: its own go in at its offset there, by one
    # concatenation of slices (an index of every token cost 15-50 % of the kernel's pass)
    cuts = [0, *offsets[odd].tolist(), fps.shape[0]]
    ends = [0, *np.cumsum(counts[odd]).tolist()]
    pieces = [fps[: cuts[1]]]
    for k in range(odd.size):
        pieces += [other[ends[k] : ends[k + 1]], fps[cuts[k + 1] : cuts[k + 2]]]
    return np.concatenate(pieces), merged_offsets, int(odd.size)


#: Fields of a :func:`tables` entry (``info``), as the kernel reads them.
_CLASS_SHIFT, _BARE, _COUNT_SHIFT, _MARK = 16, 1 << 18, 20, 15


@lru_cache(maxsize=1)
def tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`build_tables`, kept in the user's cache directory (``platformdirs``) under a
    name that changes with the Python version, its Unicode database and the source of
    the modules that define the tables; built here when the file is missing or unreadable
    (building takes about 0.3-0.8 s, loading a few ms)."""
    path = _cache_path()
    if path is not None:
        try:
            with open(path, "rb") as fh, np.load(fh) as saved:  # fh closed on a bad file too
                info, outcp, classes, pairs = (saved[k] for k in _TABLE_NAMES)
            if _well_formed(info, outcp, classes, pairs):
                return info, outcp, classes, pairs
        except Exception:  # a truncated or foreign file (zipfile, pickle, OS errors): rebuild
            pass
    built = build_tables()
    if path is not None:
        _save(path, built)
    return built


_TABLE_NAMES = ("info", "outcp", "classes", "pairs")


def _well_formed(info: np.ndarray, outcp: np.ndarray, cls: np.ndarray, pairs: np.ndarray) -> bool:
    """Whether loaded tables have the shapes and types the kernel reads."""
    return (
        info.dtype == np.uint32
        and info.shape == (0x10000,)
        and outcp.dtype == np.uint16
        and outcp.shape == (0x10000 * _WIDTH,)
        and cls.dtype == np.uint8
        and cls.shape == (0x10000,)
        and pairs.dtype == np.uint32
        and pairs.ndim == 1
    )


def _cache_path() -> str | None:
    """Where this Python's tables are cached, or None (no cache directory)."""
    import hashlib

    from neardup.text import canonical, vectorized

    digest = hashlib.sha256(f"{sys.version}|{unicodedata.unidata_version}".encode())
    for module in (canonical, vectorized, sys.modules[__name__]):
        try:
            with open(str(module.__file__), "rb") as fh:
                digest.update(fh.read())
        except (OSError, TypeError):
            return None
    try:
        from platformdirs import user_cache_dir

        return os.path.join(user_cache_dir("neardup"), f"kernel-{digest.hexdigest()[:20]}.npz")
    except ImportError:  # pragma: no cover - platformdirs is a dependency
        return None


def _save(path: str, built: tuple[np.ndarray, ...]) -> None:
    """Write the tables atomically (a rename), silently giving up where it cannot."""
    import tempfile

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            info, outcp, classes, pairs = built
            np.savez(fh, info=info, outcp=outcp, classes=classes, pairs=pairs)
        os.replace(tmp, path)
    except OSError:
        pass


def build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's normalization and class tables, built from this Python's ``unicodedata``.

    Returns:
        ``(info, outcp, classes, pairs)``:

        * ``info``: uint32 (65536,), per BMP code point: bits 20-23 the number of code
          points :func:`normalize` makes of it (1-4; 0: not in the table, a text holding it
          takes the Python path; 15: a combining mark, see below), bits 0-15 and 16-17
          that code point and its token class when it is one, bit 18 set for a *bare*
          starter (no decomposition, not Hangul);
        * ``outcp``: uint16 (65536 * 4,): the code points :func:`normalize` makes;
        * ``classes``: uint8 (65536,): the token class of each code point of a normalized
          text (:func:`neardup.text.vectorized.bmp_classes`: 0 other, 1 word, 2 CJK);
        * ``pairs``: uint32, sorted: ``first << 16 | mark`` of the canonical compositions
          of a BMP starter with a combining mark.

        A combining mark (no decomposition, its own lower case) is kept as it is when it
        follows a bare starter it does not compose with (``pairs``); anywhere else its
        text takes the Python path.
    """
    from neardup.text.vectorized import bmp_classes

    classes = np.ascontiguousarray(bmp_classes(), dtype=np.uint8)
    decompositions = [unicodedata.decomposition(chr(cp)) for cp in range(0x10000)]
    seconds, pairs = _compositions(decompositions)
    info = np.zeros(0x10000, dtype=np.uint32)
    outcp = np.zeros((0x10000, _WIDTH), dtype=np.uint16)
    for cp, decomposition in enumerate(decompositions):
        out = _table_entry(cp, decomposition, seconds)
        if out is None:
            if _plain_mark(cp, decomposition):
                info[cp] = (_MARK << _COUNT_SHIFT) | (int(classes[cp]) << _CLASS_SHIFT) | cp
            continue
        codes = [ord(c) for c in out]
        outcp[cp, : len(codes)] = codes
        entry = len(codes) << _COUNT_SHIFT
        if len(codes) == 1:
            entry |= (int(classes[codes[0]]) << _CLASS_SHIFT) | codes[0]
            if not decomposition and not 0xAC00 <= cp <= 0xD7A3:
                entry |= _BARE
        info[cp] = entry
    return info, outcp.reshape(-1), classes, pairs


def _plain_mark(cp: int, decomposition: str) -> bool:
    """A combining mark the kernel may keep: no decomposition, its own normalization."""
    if decomposition or not 0 < cp < 0xD800:
        return False
    char = chr(cp)
    return unicodedata.combining(char) > 0 and normalize(char) == char


def _table_entry(cp: int, decomposition: str, seconds: frozenset[int]) -> str | None:
    """``normalize(chr(cp))`` when that holds for ``chr(cp)`` inside any text of table code
    points, else None.

    NFKC of a text is the NFKC of its characters joined when no character's compatibility
    decomposition starts with a non-starter or with a character that composes with a
    starter before it (Unicode Standard Annex #15: reordering and composition then stay
    inside each character's decomposition); ``str.lower`` is context-free except for the
    capital sigma's final form.
    """
    if 0xD800 <= cp < 0xE000 or cp in seconds:
        return None
    char = chr(cp)
    if not decomposition:  # NFKD is the character itself (a Hangul syllable: L V (T) jamo)
        if unicodedata.combining(char) or cp == 0x03A3:
            return None
        out = normalize(char)
    else:
        first = unicodedata.normalize("NFKD", char)[0]
        if unicodedata.combining(first) or ord(first) in seconds:
            return None
        if "\u03a3" in unicodedata.normalize("NFKC", char):
            return None
        out = normalize(char)
    if not 0 < len(out) <= _WIDTH:
        return None
    if any(ord(c) > 0xFFFF or 0xD800 <= ord(c) < 0xE000 for c in out):
        return None
    return out


def _compositions(decompositions: Sequence[str]) -> tuple[frozenset[int], np.ndarray]:
    """The BMP code points that canonical composition can join to a starter before them,
    and the compositions of a starter with a combining mark (``first << 16 | mark``,
    sorted uint32).

    The first are the second characters of the BMP's two-character canonical
    decompositions, and the Hangul vowel and trailing-consonant jamo of the algorithmic
    Hangul composition (Unicode Standard, section 3.12: V 1161..1175, T 11A8..11C2).
    """
    out: set[int] = set()
    pairs: set[int] = set()
    for d in decompositions:
        if d and not d.startswith("<"):
            parts = d.split()
            if len(parts) == 2:
                first, second = int(parts[0], 16), int(parts[1], 16)
                out.add(second)
                if unicodedata.combining(chr(second)):
                    pairs.add(first << 16 | second)
    v_base, v_count, t_base, t_count = 0x1161, 21, 0x11A7, 28
    out.update(range(v_base, v_base + v_count))
    out.update(range(t_base + 1, t_base + t_count))
    return frozenset(out), np.array(sorted(pairs), dtype=np.uint32)
