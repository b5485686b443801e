"""SL+ST: sentence-length strings matched with a suffix automaton (Feng 2015).

Feng 2015 ("基于后缀树的重复文档检测") represents a document by the lengths of its sentences,
finds the sentence blocks two documents share as common substrings of those strings with a
linear-time suffix structure, verifies each block on the first two terms of its sentences,
and scores the pair with the Jaccard similarity of the verified blocks. This module follows
it step by step:

1. **Length string** (§2.1). Sentences come from :func:`neardup.text.sentences.split_sentences`
   on the clean text; a sentence's length is the number of its canonical tokens (stop words
   removed by the default :class:`~neardup.text.canonical.CanonicalForm`). Lengths 0-9 are
   the digits ``0``-``9``, lengths 10-35 the letters ``a``-``z``; a sentence longer than
   ``max_length`` is ignored (left out of the string, as the seed does above 35). Chinese
   and Japanese runs count in *words* (``cjk_lengths="words"``, the default: jieba's
   segmentation, ``neardup[cjk]``), as Feng 2015 counts them: counted in characters (the
   canonical tokens, ``cjk_lengths="characters"``) 16 % of the sentences of
   linux-doc-zh-revisions exceed 35 and vanish, 3 % in words (0.1-0.3 % in the paper's
   English sets).
2. **Verification terms** (§2.1, "Kth-in-sentence"): the first two canonical terms of each
   kept sentence, stored as one hash of the two terms' XXH64 fingerprints (seed ``seed``)
   and their count (:func:`sentence_strings`); a sentence with fewer terms hashes the terms
   it has (possibly none). With ``cjk_lengths="words"`` the terms are words as the lengths
   are: a Chinese or Japanese run gives its jieba words (:func:`word_terms`), not its
   characters, so "北京大学学生很多" and "北京人口很多" (3 words each) differ on their first
   terms (北京大学, 学生 against 北京, 人口) where their first two characters agree.
3. **Common blocks** (§2.1, "后缀树"). A suffix automaton (our linear-time suffix structure,
   :class:`SuffixAutomaton`, O(n) to build over the string of document A, O(m) to run the
   string of B through it) gives, for every sentence ``j`` of B, the longest substring of
   B ending at ``j`` that occurs in A (the matching statistics ``l_j``). A *common block*
   is such a match that cannot be extended to the right (``l_{j+1} != l_j + 1``) and has
   ``l_j >= min_block``. Its position in A is the occurrence (among all end positions of
   the automaton state, :meth:`SuffixAutomaton.end_positions`) whose sentences pass the
   most verifications; ties go to the leftmost.
4. **Verification** (§2.3). A block's aligned sentences are compared on their first-terms
   hashes; the block is cut at every sentence that differs and the pieces shorter than
   ``min_block`` are dropped ("长度如为1则丢弃": a block of 5 whose 3rd sentence differs
   gives two blocks of 2; a block of 4 whose 2nd and 3rd differ is dropped).
5. **Jaccard** (§2.4; the seed's equation is not in the text we have, so we define it).
   The features of a document are its sentences (the characters of its length string);
   ``C_A`` and ``C_B`` are the sentences of A and of B covered by verified blocks, and the
   shared features are ``c = min(|C_A|, |C_B|)`` (a passage of A copied twice into B is
   shared once). Then::

       J(A, B) = c / (|A| + |B| - c),   0 <= J <= min(|A|, |B|) / max(|A|, |B|) <= 1.

   Two identical non-empty strings (codes and terms) score 1 even when shorter than
   ``min_block`` (the whole document is one verified block); an empty string scores 0.
   The automaton is always built over the document with fewer sentences (ties: the smaller
   payload bytes), so the score is symmetric.

**Corpus candidates.** An inverted index over windows of ``window`` consecutive sentences,
each window keyed by the hash of its (length code, first-terms hash) symbols (a document with
fewer than ``window`` sentences has one window: its whole string). Every verified block of
``min_block >= window`` sentences contains a shared window, so pairs with ``J > 0`` are
never missed, except in windows shared by more than ``max_df`` documents (those give star
candidates). Pairs whose window bound (:func:`window_bounds`: the windows inside a
verified block cover it, so ``|C_A|`` is at most ``window`` times A's window positions found
in B; it includes the length bound ``min(|A|, |B|) / max(|A|, |B|)``) is below
``threshold`` are pruned, and so are pairs whose symbol bound (:func:`symbol_bounds`) is
below ``threshold``: a sentence covered by a verified block
has its (length code, first-terms) symbol in the other document, so ``|C_A|`` is at most
the number of A's sentences whose symbol occurs in B (and the same for B), which bounds
``J`` from above without running the automaton.

**Payload** of :meth:`SLST.signature`: uint64, shape ``(2n,)`` for ``n`` kept sentences:
``payload[:n]`` the length codes (0-35, the string's characters as numbers) and
``payload[n:]`` the first-terms hashes, in sentence order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

from neardup._array import (
    U64,
    fmix64,
    group_bounds,
    pairs_in_groups,
    seg_arange,
    unique_pairs,
)
from neardup.errors import InputError
from neardup.methods.base import Capabilities, MethodBase, Prepared, Signature, Signatures
from neardup.methods.decision import DecisionRule, SimilarityAtLeast
from neardup.methods.keys import KeyRows
from neardup.methods.registry import register
from neardup.options import OPTIONS
from neardup.params import Constraint, Interval, Options
from neardup.text.canonical import CJK, CanonicalForm, normalize
from neardup.text.sentences import paragraph_spans, split_paragraph
from neardup.text.xxh64 import token_fingerprints

#: Characters of the length string: length ``L`` is ``ALPHABET[L]`` (Feng 2015 §2.1).
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
_P = np.uint64(0x9E3779B97F4A7C15)


# -- the length string -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SentenceString:
    """One document as Feng 2015 sees it: sentence length codes and first-terms hashes.

    Attributes:
        codes: uint64 (n,), sentence lengths in ``[0, max_length]``.
        terms: uint64 (n,), XXH64 of each sentence's first two canonical terms.
    """

    codes: np.ndarray
    terms: np.ndarray

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @property
    def text(self) -> str:
        """The length string (``0``-``9``, ``a``-``z``)."""
        return "".join(ALPHABET[int(c)] for c in self.codes)

    def payload(self) -> np.ndarray:
        """uint64 (2n,): codes, then terms (the signature payload)."""
        return np.concatenate([self.codes, self.terms]).astype(U64)

    @classmethod
    def from_payload(cls, payload: np.ndarray) -> SentenceString:
        """Inverse of :meth:`payload`."""
        n = payload.shape[0] // 2
        return cls(payload[:n].astype(U64), payload[n:].astype(U64))


def sentence_string(
    text: str,
    canonical: CanonicalForm,
    *,
    max_length: int = 35,
    seed: int = 0,
    cjk_lengths: str = "words",
) -> SentenceString:
    """The length string and first-terms hashes of ``text`` (Feng 2015 §2.1).

    Args:
        text: clean text.
        canonical: how each sentence becomes terms (stop words removed by default).
        max_length: longest sentence kept, 1-35; longer sentences are left out.
        seed: XXH64 seed of the terms.

    Returns:
        :class:`SentenceString` with one entry per kept sentence, in text order (the same
        as :func:`sentence_strings` of ``[text]``).
    """
    return sentence_strings(
        [text], canonical, max_length=max_length, seed=seed, cjk_lengths=cjk_lengths
    ).get(0)


#: How a sentence's Chinese and Japanese runs are counted (module docstring, step 1).
CJK_LENGTHS: tuple[str, ...] = ("words", "characters")
_CJK_RUN = re.compile(rf"[{CJK}]+")


#: A sentence's CJK runs, each with its jieba words (:func:`cjk_runs`).
CjkRuns = list[tuple["re.Match[str]", list[str]]]


def cjk_runs(sentence: str) -> CjkRuns:
    """The Chinese and Japanese runs of ``sentence``, each with its words (jieba's
    dictionary segmentation, no HMM for unknown words; blank pieces dropped): segmented
    once for both :func:`cjk_word_delta` and :func:`word_terms`.

    Raises:
        InputError: jieba is not installed (``pip install 'neardup[cjk]'``).
    """
    found = list(_CJK_RUN.finditer(sentence))
    if not found:
        return []
    segment = _jieba()
    return [(m, [w for w in segment(m.group()) if w.strip()]) for m in found]


def cjk_word_delta(sentence: str, runs: CjkRuns | None = None) -> int:
    """Words minus characters of the CJK runs of ``sentence`` (:func:`cjk_runs`, or
    ``runs`` when given): added to its canonical token count (one token per CJK character)
    it gives the sentence's length in words.

    Raises:
        InputError: jieba is not installed (``pip install 'neardup[cjk]'``).
    """
    runs = cjk_runs(sentence) if runs is None else runs
    return sum(len(words) - len(m.group()) for m, words in runs)


def word_terms(
    sentence: str, canonical: CanonicalForm, limit: int = 2, runs: CjkRuns | None = None
) -> list[str]:
    """The first ``limit`` terms of ``sentence`` counted in words: each Chinese or Japanese
    run as its jieba words (:func:`cjk_runs`, or ``runs`` when given; normalized as the
    canonical form normalizes), the text around the runs as its canonical tokens, in
    sentence order (Feng 2015's "Kth-in-sentence" terms).

    Raises:
        InputError: jieba is not installed (``pip install 'neardup[cjk]'``).
    """
    runs = cjk_runs(sentence) if runs is None else runs
    out: list[str] = []
    at = 0
    for m, words in runs:
        out.extend(canonical.tokens(sentence[at : m.start()]))
        out.extend(normalize(w) for w in words)
        at = m.end()
        if len(out) >= limit:
            return out[:limit]
    out.extend(canonical.tokens(sentence[at:]))
    return out[:limit]


@functools.cache
def _jieba() -> Any:
    try:
        import jieba
    except ModuleNotFoundError:
        raise InputError(
            "SL+ST counts Chinese sentence lengths in words with jieba: "
            "pip install 'neardup[cjk]', or pass -p cjk_lengths=characters"
        ) from None
    import logging

    jieba.setLogLevel(logging.WARNING)
    return functools.partial(jieba.lcut, HMM=False)  # dictionary words: 1.5x faster


def sentence_strings(
    texts: Sequence[str],
    canonical: CanonicalForm,
    *,
    max_length: int = 35,
    seed: int = 0,
    cjk_lengths: str = "words",
) -> SentenceStrings:
    """Sentence strings of many texts at once (Feng 2015 §2.1), vectorised.

    Sentences come from :func:`~neardup.text.sentences.split_sentences` (each distinct
    paragraph of the batch split once); each distinct sentence is tokenized once, all of
    them together (:func:`neardup.text.vectorized.canonical_fingerprints`). A sentence's code is its
    number of canonical terms; its first-terms hash combines the XXH64 (seed ``seed``) of
    its first two terms ``t1``, ``t2`` (0 when absent) and their count ``k`` (0-2):
    ``fmix64(rotl(t1, 31) * P ^ t2 ^ k)``, ``P = 0x9E3779B97F4A7C15``.

    Returns:
        :class:`SentenceStrings`, one document per text, sentences longer than
        ``max_length`` left out.
    """
    from neardup.text.vectorized import canonical_fingerprints

    index: dict[str, int] = {}  # distinct sentence -> its number
    pieces: dict[str, list[int]] = {}  # distinct paragraph -> its sentences' numbers
    sentence_ids: list[int] = []
    per_doc = np.zeros(len(texts), dtype=np.int64)
    for d, text in enumerate(texts):
        for start, end in paragraph_spans(text):
            piece = text[start:end]
            ids = pieces.get(piece)
            if ids is None:  # split_sentences splits each paragraph on its own
                spans = split_paragraph(piece)
                ids = pieces[piece] = [index.setdefault(piece[a:b], len(index)) for a, b in spans]
            sentence_ids.extend(ids)
            per_doc[d] += len(ids)
    fps, offsets = canonical_fingerprints(list(index), canonical, seed)
    count = np.diff(offsets)
    length = count
    padded = np.concatenate([fps, np.zeros(2, dtype=U64)])  # a last sentence with < 2 terms
    first = np.where(count >= 1, padded[offsets[:-1]], np.uint64(0)).astype(U64)
    second = np.where(count >= 2, padded[offsets[:-1] + 1], np.uint64(0)).astype(U64)
    kterms = np.minimum(count, 2)
    if cjk_lengths == "words":
        length = count.copy()
        for i, text in enumerate(index):  # sentence numbers in insertion order
            if _CJK_RUN.search(text):
                runs = cjk_runs(text)  # segmented once for the length and the terms
                length[i] = max(int(count[i]) + cjk_word_delta(text, runs), 0)
                words = word_terms(text, canonical, runs=runs)  # in words, as the length
                fp = token_fingerprints(words, seed) if words else np.zeros(0, U64)
                first[i] = fp[0] if len(words) >= 1 else 0
                second[i] = fp[1] if len(words) >= 2 else 0
                kterms[i] = len(words)
    with np.errstate(over="ignore"):
        rotated = (first << np.uint64(31)) | (first >> np.uint64(33))
        terms = fmix64(rotated * _P ^ second ^ kterms.astype(U64))
    sentence = np.array(sentence_ids, dtype=np.int64)
    doc = np.repeat(np.arange(len(texts), dtype=np.int64), per_doc)
    kept = length[sentence] <= max_length
    sentence, doc = sentence[kept], doc[kept]
    out_offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(doc, minlength=len(texts)), out=out_offsets[1:])
    return SentenceStrings(length[sentence].astype(U64), terms[sentence], out_offsets)


# -- suffix automaton --------------------------------------------------------------------
class SuffixAutomaton:
    """Suffix automaton (directed acyclic word graph) of a sequence, built online in O(n).

    Blumer et al. 1985; the construction of Crochemore & Hancart. State 0 is the root; every
    state is a class of substrings with the same end positions. Built over document A's
    length string, it answers "longest substring of B ending here that occurs in A" for all
    positions of B in O(|B|) total (:meth:`match`): the linear-time common-substring step
    that Feng 2015 does with a suffix tree.

    Args:
        s: the sequence (any hashable symbols; SL+ST uses the length codes).
    """

    __slots__ = ("_children", "_clone", "_first", "_len", "_link", "_next")

    def __init__(self, s: Sequence[int]) -> None:
        self._next: list[dict[int, int]] = [{}]
        self._link: list[int] = [-1]
        self._len: list[int] = [0]
        self._first: list[int] = [-1]
        self._clone: list[bool] = [False]
        self._children: list[list[int]] | None = None
        last = 0
        for i, ch in enumerate(s):
            last = self._extend(last, ch, i)

    def _new(self, length: int, first: int, clone: bool, nxt: dict[int, int]) -> int:
        self._next.append(nxt)
        self._link.append(-1)
        self._len.append(length)
        self._first.append(first)
        self._clone.append(clone)
        return len(self._len) - 1

    def _extend(self, last: int, ch: int, i: int) -> int:
        nxt, link, ln = self._next, self._link, self._len
        cur = self._new(ln[last] + 1, i, False, {})
        p = last
        while p != -1 and ch not in nxt[p]:
            nxt[p][ch] = cur
            p = link[p]
        if p == -1:
            link[cur] = 0
            return cur
        q = nxt[p][ch]
        if ln[p] + 1 == ln[q]:
            link[cur] = q
            return cur
        clone = self._new(ln[p] + 1, self._first[q], True, dict(nxt[q]))
        link[clone] = link[q]
        while p != -1 and nxt[p].get(ch) == q:
            nxt[p][ch] = clone
            p = link[p]
        link[q] = clone
        link[cur] = clone
        return cur

    def match(self, t: Sequence[int]) -> tuple[list[int], list[int]]:
        """Matching statistics of ``t``: for each end position ``j``, the longest match.

        Returns:
            ``(lengths, states)``: ``lengths[j]`` is the length of the longest substring of
            ``t`` ending at ``j`` that occurs in ``s``; ``states[j]`` the automaton state
            holding it (0 when ``lengths[j] == 0``). O(len(t)) amortised.
        """
        nxt, link, ln = self._next, self._link, self._len
        v = length = 0
        lengths: list[int] = []
        states: list[int] = []
        for ch in t:
            while v and ch not in nxt[v]:
                v = link[v]
                length = ln[v]
            if ch in nxt[v]:
                v = nxt[v][ch]
                length += 1
            else:
                length = 0
            lengths.append(length)
            states.append(v)
        return lengths, states

    def end_positions(self, state: int) -> list[int]:
        """Sorted end positions in ``s`` of the substrings of ``state`` (its endpos set)."""
        if self._children is None:
            children: list[list[int]] = [[] for _ in self._len]
            for v, parent in enumerate(self._link):
                if parent >= 0:
                    children[parent].append(v)
            self._children = children
        out: list[int] = []
        stack = [state]
        while stack:
            v = stack.pop()
            if not self._clone[v] and v:
                out.append(self._first[v])
            stack.extend(self._children[v])
        out.sort()
        return out


# -- blocks and verification -------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Block:
    """Aligned sentences ``a .. a+length-1`` of A and ``b .. b+length-1`` of B."""

    a: int
    b: int
    length: int


def split_verified(
    block: Block, a_terms: Sequence[int], b_terms: Sequence[int], min_block: int
) -> list[Block]:
    """Cut ``block`` at sentences whose first terms differ; drop pieces < ``min_block``.

    Feng 2015 §2.3: a block of 5 whose 3rd sentence differs gives two blocks of 2; a block
    of 4 whose 2nd and 3rd differ gives nothing (both pieces have length 1).

    Args:
        block: an alignment of equal length codes.
        a_terms, b_terms: first-terms hashes of A and B.
        min_block: shortest verified block kept, >= 1.

    Returns:
        The verified pieces, left to right.
    """
    out: list[Block] = []
    run = 0
    for k in range(block.length + 1):
        ok = k < block.length and a_terms[block.a + k] == b_terms[block.b + k]
        if ok:
            run += 1
            continue
        if run >= min_block:
            out.append(Block(block.a + k - run, block.b + k - run, run))
        run = 0
    return out


def _verified_count(
    a0: int, b0: int, n: int, a_terms: Sequence[int], b_terms: Sequence[int]
) -> int:
    return sum(a_terms[a0 + k] == b_terms[b0 + k] for k in range(n))


def common_blocks(
    sam: SuffixAutomaton, a: SentenceString, b: SentenceString, min_block: int
) -> list[Block]:
    """Maximal common blocks of A (the automaton's string) and B, before verification.

    A block ends at every sentence ``j`` of B whose longest match ``l_j`` (matching
    statistics) has ``l_j >= min_block`` and does not extend to ``j + 1``; it is placed at
    the occurrence in A whose sentences pass the most verifications (leftmost on ties).

    Returns:
        Blocks in order of their end in B (they may overlap in B or in A).
    """
    codes_b = b.codes.tolist()
    lengths, states = sam.match(codes_b)
    ta, tb = a.terms.tolist(), b.terms.tolist()
    out: list[Block] = []
    m = len(codes_b)
    for j in range(m):
        n = lengths[j]
        if n < min_block or (j + 1 < m and lengths[j + 1] == n + 1):
            continue
        b0 = j - n + 1
        best, best_ok = -1, -1
        for end in sam.end_positions(states[j]):
            ok = _verified_count(end - n + 1, b0, n, ta, tb)
            if ok > best_ok:
                best, best_ok = end - n + 1, ok
                if ok == n:
                    break
        out.append(Block(best, b0, n))
    return out


def verified_blocks(a: SentenceString, b: SentenceString, min_block: int) -> list[Block]:
    """Common blocks of A and B (automaton over A) cut by verification (Feng 2015 §2.1-2.3)."""
    sam = SuffixAutomaton(a.codes.tolist())
    return _verify_all(sam, a, b, min_block)


def _verify_all(
    sam: SuffixAutomaton, a: SentenceString, b: SentenceString, min_block: int
) -> list[Block]:
    ta, tb = a.terms.tolist(), b.terms.tolist()
    out: list[Block] = []
    for block in common_blocks(sam, a, b, min_block):
        out.extend(split_verified(block, ta, tb, min_block))
    return out


def block_jaccard(blocks: Sequence[Block], size_a: int, size_b: int) -> float:
    """``J = c / (|A| + |B| - c)`` with ``c = min(|C_A|, |C_B|)`` (module docstring, §2.4)."""
    cov_a: set[int] = set()
    cov_b: set[int] = set()
    for blk in blocks:
        cov_a.update(range(blk.a, blk.a + blk.length))
        cov_b.update(range(blk.b, blk.b + blk.length))
    c = min(len(cov_a), len(cov_b))
    union = size_a + size_b - c
    return c / union if union > 0 else 0.0


def _ordered(x: SentenceString, y: SentenceString) -> tuple[SentenceString, SentenceString]:
    """(automaton side, scanned side): fewer sentences first, then smaller payload bytes."""
    kx, ky = (len(x), x.payload().tobytes()), (len(y), y.payload().tobytes())
    return (x, y) if kx <= ky else (y, x)


def _identical(x: SentenceString, y: SentenceString) -> bool:
    return np.array_equal(x.codes, y.codes) and np.array_equal(x.terms, y.terms)


def slst_similarity(x: SentenceString, y: SentenceString, min_block: int = 2) -> float:
    """SL+ST similarity of two documents, symmetric, in [0, 1] (module docstring, step 5)."""
    if len(x) and _identical(x, y):
        return 1.0
    a, b = _ordered(x, y)
    if len(a) < min_block:
        return 0.0
    return block_jaccard(verified_blocks(a, b, min_block), len(a), len(b))


# -- corpus columns ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SentenceStrings:
    """Sentence strings of a batch, concatenated.

    Attributes:
        codes, terms: uint64 (total,), all documents' codes and first-terms hashes.
        offsets: int64 (count + 1,); document ``i`` is ``offsets[i]:offsets[i + 1]``.
    """

    codes: np.ndarray
    terms: np.ndarray
    offsets: np.ndarray

    @property
    def sizes(self) -> np.ndarray:
        """int64 (count,): sentences per document."""
        return np.diff(self.offsets)

    def get(self, i: int) -> SentenceString:
        """Document ``i``'s :class:`SentenceString` (views)."""
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return SentenceString(self.codes[lo:hi], self.terms[lo:hi])


def window_keys(
    strings: SentenceStrings, window: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Hashes of all windows of ``window`` consecutive (code, terms) symbols, vectorised.

    A document with ``0 < n < window`` sentences has one window, its whole string.

    Returns:
        ``(keys, docs)``: uint64 and int64 arrays of equal length.
    """
    sizes = strings.sizes
    with np.errstate(over="ignore"):
        sym = fmix64(strings.terms ^ fmix64(strings.codes + np.uint64(seed + 1)))
    counts = np.where(sizes >= window, sizes - window + 1, (sizes > 0).astype(np.int64))
    docs = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), counts)
    starts = np.repeat(strings.offsets[:-1], counts)
    starts += np.arange(docs.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts)
    width = np.minimum(np.repeat(sizes, counts), window)
    h = np.zeros(docs.shape[0], dtype=U64)
    with np.errstate(over="ignore"):
        for k in range(window):
            live = width > k
            idx = np.flatnonzero(live)
            hk = h[idx]
            h[idx] = fmix64(
                ((hk << np.uint64(31)) | (hk >> np.uint64(33))) * _P ^ sym[starts[idx] + k]
            )
        h = fmix64(h ^ width.astype(U64))
    return h, docs


def window_bounds(
    strings: SentenceStrings, window: int, max_df: int, *, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs sharing a window and an upper bound of their SL+ST Jaccard, vectorised.

    Every verified block has ``L >= min_block >= window`` sentences, so the windows that
    start inside it cover it and all occur in the other document: ``|C_A| <= window * w_A``
    with ``w_A`` the number of A's window positions whose key occurs in B (and the same for
    B). With ``u = min(|A|, |B|, window * w_A, window * w_B)``, ``J <= u / (|A| + |B| - u)``
    (which also holds the length bound ``min(|A|, |B|) / max(|A|, |B|)``). Windows shared by
    more than ``max_df`` documents give star pairs (as before) and count as shared for every
    pair of their documents (so the bound stays an upper bound).

    Returns:
        ``(pairs, bound)``: int64 (p, 2) sorted unique pairs, ``a < b``, and float64 (p,).
    """
    keys, docs = window_keys(strings, window, seed)
    n_docs = strings.sizes.shape[0]
    order = np.lexsort((docs, keys))
    keys, docs = keys[order], docs[order]
    first = np.ones(keys.shape[0], bool)
    first[1:] = (keys[1:] != keys[:-1]) | (docs[1:] != docs[:-1])
    run = np.flatnonzero(first)
    positions = np.diff(np.append(run, keys.shape[0]))  # window positions per (key, doc)
    keys, docs = keys[run], docs[run]
    starts, sizes = group_bounds(keys)
    big = sizes > max_df
    small = ~big & (sizes >= 2)
    rows = pairs_in_groups(
        np.arange(keys.shape[0], dtype=np.int64), starts[small], sizes[small]
    )  # row indexes, docs ascending within a key
    a, b = docs[rows[:, 0]], docs[rows[:, 1]]
    code, inverse = np.unique(a * n_docs + b, return_inverse=True)
    inverse = inverse.reshape(-1)
    w_a = np.bincount(inverse, weights=positions[rows[:, 0]], minlength=code.shape[0])
    w_b = np.bincount(inverse, weights=positions[rows[:, 1]], minlength=code.shape[0])
    in_big = np.repeat(big, sizes)
    big_positions = np.bincount(docs[in_big], weights=positions[in_big], minlength=n_docs)
    star = pairs_in_groups(docs, starts[big], sizes[big], max_group=1)
    pairs = np.stack([code // n_docs, code % n_docs], axis=1)
    if star.size:  # pairs only a star gives share no small window: w = 0 from them
        pairs = unique_pairs(np.concatenate([pairs, star]), n_docs)
        w_a, w_b = (_lookup(code, w, pairs[:, 0] * n_docs + pairs[:, 1]) for w in (w_a, w_b))
    w_a = w_a + big_positions[pairs[:, 0]]
    w_b = w_b + big_positions[pairs[:, 1]]
    size_a = strings.sizes[pairs[:, 0]].astype(np.float64)
    size_b = strings.sizes[pairs[:, 1]].astype(np.float64)
    u = np.minimum(np.minimum(size_a, size_b), window * np.minimum(w_a, w_b))
    union = size_a + size_b - u
    return pairs, np.divide(u, union, out=np.zeros_like(u), where=union > 0)


def _lookup(code: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``values`` at the positions of ``query`` in the sorted ``code``; 0 where absent."""
    if code.size == 0:
        return np.zeros(query.shape[0])
    at = np.minimum(np.searchsorted(code, query), code.shape[0] - 1)
    return np.where(code[at] == query, values[at], 0.0)


def _symbols(strings: SentenceStrings, seed: int) -> np.ndarray:
    """One uint64 per sentence: a hash of its (length code, first-terms hash)."""
    with np.errstate(over="ignore"):
        return fmix64(strings.terms ^ fmix64(strings.codes + np.uint64(seed + 1)))


def symbol_bounds(
    strings: SentenceStrings, pairs: np.ndarray, *, seed: int = 0, chunk: int = 2_000_000
) -> np.ndarray:
    """An upper bound of the SL+ST Jaccard of each pair, vectorised: float64 (p,).

    With ``s_A`` the number of A's sentences whose symbol (length code, first-terms hash)
    occurs in B, and ``s_B`` the reverse, ``c <= min(s_A, s_B)`` (every sentence covered by a
    verified block has an equal symbol on the other side), so
    ``J <= u / (|A| + |B| - u)`` with ``u = min(s_A, s_B)``.

    Args:
        strings: the corpus's sentence strings.
        pairs: int64 (p, 2) document indexes.
        seed: hash seed of the symbols (any seed gives a valid bound).
        chunk: approximate symbols gathered per step (bounds memory).
    """
    out = np.zeros(pairs.shape[0], dtype=np.float64)
    if pairs.shape[0] == 0:
        return out
    sym = _symbols(strings, seed)
    sizes = strings.sizes
    doc = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
    labels = np.unique(sym, return_inverse=True)[1].astype(np.int64).reshape(-1)
    order = np.lexsort((labels, doc))
    d, lab = doc[order], labels[order]
    first = np.ones(d.shape[0], dtype=bool)
    first[1:] = (d[1:] != d[:-1]) | (lab[1:] != lab[:-1])
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, d.shape[0]))
    u_doc, u_lab = d[starts], lab[starts]
    u_off = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(u_doc, minlength=sizes.shape[0]), out=u_off[1:])
    u_size = np.diff(u_off)
    cost = u_size[pairs[:, 0]] + u_size[pairs[:, 1]]
    cum = np.cumsum(cost)
    lo = 0
    while lo < pairs.shape[0]:
        hi = int(np.searchsorted(cum, (cum[lo - 1] if lo else 0) + chunk, side="right"))
        hi = max(hi, lo + 1)
        part = pairs[lo:hi]
        s_a, s_b = _shared_counts(part, u_off, u_size, u_lab, counts)
        c = np.minimum(s_a, s_b).astype(np.float64)
        union = sizes[part[:, 0]] + sizes[part[:, 1]] - c
        out[lo:hi] = np.divide(c, union, out=np.zeros_like(c), where=union > 0)
        lo = hi
    return out


def _shared_counts(
    pairs: np.ndarray,
    u_off: np.ndarray,
    u_size: np.ndarray,
    u_lab: np.ndarray,
    counts: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per pair: sentences of A whose symbol is in B, and of B whose symbol is in A."""
    a, b = pairs[:, 0], pairs[:, 1]
    starts = np.column_stack([u_off[a], u_off[b]]).reshape(-1)
    lengths = np.column_stack([u_size[a], u_size[b]]).reshape(-1)
    idx = seg_arange(starts, lengths)
    owner = np.repeat(np.arange(2 * pairs.shape[0], dtype=np.int64) >> 1, lengths)
    # A's run then B's run per pair; a stable sort keeps A's copy of a shared label first
    key = (owner << 32) | u_lab[idx]
    order = np.argsort(key, kind="stable")
    key, weight = key[order], counts[idx][order]
    dup = np.flatnonzero(key[1:] == key[:-1])
    pair_of = key[dup] >> 32
    s_a = np.bincount(pair_of, weights=weight[dup], minlength=pairs.shape[0])
    s_b = np.bincount(pair_of, weights=weight[dup + 1], minlength=pairs.shape[0])
    return s_a, s_b


# -- the method --------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class SLST(MethodBase):
    """SL+ST (Feng 2015): sentence-length strings, suffix-automaton blocks, verified Jaccard.

    Args:
        min_block: shortest verified block kept, 2-1000 (Feng 2015 drops blocks of 1).
        max_length: longest sentence kept in the string, 1-35 (Feng 2015: 35, ``a``-``z``
            stand for 10-35).
        window: sentences per candidate-index window, ``1 <= window <= min_block``
            (completeness needs ``window <= min_block``).
        seed: XXH64 seed of the first-terms hashes, ``0 <= seed < 2**32``.
        cjk_lengths: ``words`` (default: Chinese/Japanese runs counted in jieba words, the
            ``cjk`` extra) or ``characters`` (one per character, the canonical tokens).
        threshold: Jaccard the candidate length filter is built for, (0, 1]: pairs with
            ``min(|A|,|B|) / max(|A|,|B|) < threshold`` cannot reach it and are pruned.
        max_df: windows shared by more documents give star candidates only, >= 2.
        canonical: how sentences become terms (stop words removed by default, §2.1).

    Raises:
        ParameterError: a parameter is out of range (the message names it).
    """

    name: ClassVar[str] = "sl-st"
    source: ClassVar[str] = (
        "Feng 2015 (SL+ST): sentence-length string, suffix-structure common "
        "blocks, first-two-terms verification, J = c / (|A| + |B| - c)"
    )
    #: :meth:`sign` reads ``Prepared.text`` only (the job need not keep token lists).
    capabilities: ClassVar[Capabilities] = Capabilities(signs_from_text=True, keys="rows")
    decision_rule: ClassVar[DecisionRule] = SimilarityAtLeast(
        "SL+ST Jaccard of sentence-length blocks >= threshold (Feng 2015)",
        label="SL+ST Jaccard >= {bar}",
    )

    min_block: int = 2
    max_length: int = 35
    window: int = 2
    seed: int = 0
    cjk_lengths: Literal["words", "characters"] = "words"
    threshold: float = 0.5
    max_df: int = OPTIONS["max_df"].default
    canonical: CanonicalForm = field(default_factory=CanonicalForm)

    parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "cjk_lengths": Options(CJK_LENGTHS),
        "min_block": Interval("int", 2, 1000),
        "max_length": Interval("int", 1, len(ALPHABET) - 1),
        "window": Interval("int", 1, "min_block"),
        "seed": Interval("int", 0, 2**32 - 1),
        "threshold": Interval("float", 0.0, 1.0, low_open=True),
        "max_df": OPTIONS["max_df"].constraint,
    }

    def params(self) -> dict[str, Any]:
        """JSON-ready parameters (recorded in signatures)."""
        return {
            "min_block": self.min_block,
            "max_length": self.max_length,
            "window": self.window,
            "seed": self.seed,
            "threshold": self.threshold,
            "cjk_lengths": self.cjk_lengths,
        }

    def string(self, text: str) -> SentenceString:
        """The :class:`SentenceString` of one clean text."""
        return sentence_string(
            text,
            self.canonical,
            max_length=self.max_length,
            seed=self.seed,
            cjk_lengths=self.cjk_lengths,
        )

    def sign(self, docs: Sequence[Prepared]) -> Signatures:
        """Sentence strings of a batch (from ``Prepared.text`` only; the tokens are not
        read): :class:`SentenceStrings`."""
        texts = [d.text for d in docs]
        data = sentence_strings(
            texts,
            self.canonical,
            max_length=self.max_length,
            seed=self.seed,
            cjk_lengths=self.cjk_lengths,
        )
        return Signatures(self.key(), data, len(docs))

    def candidates(self, sigs: Signatures) -> np.ndarray:
        """Pairs sharing a sentence window and passing the length and symbol bounds (module
        docstring): int64 (p, 2); no pair with ``J >= threshold`` is missed."""
        strings: SentenceStrings = sigs.data
        pairs, bound = window_bounds(strings, self.window, self.max_df, seed=self.seed)
        pairs = pairs[bound >= self.threshold - 1e-9]
        bound = symbol_bounds(strings, pairs, seed=self.seed)
        return pairs[bound >= self.threshold - 1e-9]

    def keys(self, sigs: Signatures) -> KeyRows:
        """Index keys of each document on its own (a collection's ``nd_index`` rows): the
        distinct q-grams of its length string, ``q = window`` consecutive (length code,
        first-terms hash) symbols (:func:`window_keys`; a document with fewer sentences has
        one key, its whole string; an empty string none). Every verified block of
        ``min_block >= window`` sentences holds a shared q-gram, so two documents with
        ``J > 0`` always share a key (the candidates of :meth:`candidates` before its
        bounds).

        Returns:
            :class:`~neardup.methods.keys.KeyRows`, band 0, document order, no repeats.
        """
        keys, docs = window_keys(sigs.data, self.window, self.seed)
        code = np.unique(np.stack([docs, keys.view(np.int64)], axis=1), axis=0)
        zero = np.zeros(code.shape[0], np.int64)
        return KeyRows(code[:, 0].copy(), zero, code[:, 1].copy())

    def similarity(self, sigs: Signatures, pairs: np.ndarray) -> np.ndarray:
        """SL+ST Jaccard of each pair: float64 (p,); one automaton per document and group."""
        strings: SentenceStrings = sigs.data
        out = np.zeros(pairs.shape[0], dtype=np.float64)
        groups: dict[int, list[tuple[int, int]]] = {}
        for row, (i, j) in enumerate(pairs.tolist()):
            x, y = strings.get(i), strings.get(j)
            if len(x) and _identical(x, y):
                out[row] = 1.0
                continue
            a, b = _ordered(x, y)
            if len(a) < self.min_block:
                continue
            groups.setdefault(i if a is x else j, []).append((row, j if a is x else i))
        for ai, members in groups.items():
            a = strings.get(ai)
            sam = SuffixAutomaton(a.codes.tolist())
            for row, bi in members:
                b = strings.get(bi)
                out[row] = block_jaccard(_verify_all(sam, a, b, self.min_block), len(a), len(b))
        return out

    def payload(self, data: Any, i: int) -> np.ndarray:
        """Document ``i``'s signature payload: uint64 (2n,), codes then first-terms hashes."""
        strings: SentenceStrings = data
        return strings.get(i).payload()

    def compare(self, a: Signature, b: Signature) -> float:
        """SL+ST similarity of two signatures, in [0, 1] (the pair's :meth:`similarity`,
        without a batch: sentence strings have no stacked form).

        Raises:
            IncompatibleSignatureError: the signatures were made differently.
        """
        a.key.require_same(b.key)
        x, y = SentenceString.from_payload(a.payload), SentenceString.from_payload(b.payload)
        return slst_similarity(x, y, self.min_block)


register(SLST)
