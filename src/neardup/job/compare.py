"""Compare two documents: resemblance, containment both ways, shared and total shingles.

The measures are computed on the exact shingle sets (Zagorulko et al. 2013, eqs. 1-2; Dice
``2|A∩B|/(|A|+|B|)`` as ``dice``), Dice on the shingle *lists* with repeats (Rodnenko 2009's
``compaire``, as ``dice_multiset`` in its symmetric form and ``compaire`` as the script
computes it) and, for the chosen method, its own score on the two signatures (for example
MinHash's estimate).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from neardup._array import sorted_unique
from neardup.errors import InputError, ParameterError
from neardup.frames import names_path
from neardup.methods.base import Method, Prepared
from neardup.methods.keys import key_rows
from neardup.methods.measures import Overlap, compaire, dice_multiset, overlap
from neardup.methods.plan import plan_for
from neardup.methods.registry import make_method
from neardup.options import OPTIONS
from neardup.text.types import Document, Skipped


@dataclass(frozen=True, slots=True)
class Comparison:
    """The result of comparing document A with document B.

    Attributes:
        overlap: exact shingle-set overlap (:class:`~neardup.methods.measures.Overlap`).
        score: the method's own score in [0, 1].
        method: method name; tokens_a, tokens_b: canonical token counts.
        dice_multiset: Dice over the shingle lists, repeats kept
            (:func:`~neardup.methods.measures.dice_multiset`), in [0, 1].
        compaire: Rodnenko's (2009) ``compaire`` of A's list against B's, as a fraction
            (:func:`~neardup.methods.measures.compaire`; may exceed 1 with repeats).
        empty_lexicon: a lexical method (``needs_fit``) made no signature for A or B:
            its lexicon is empty on the statistics it was given, so ``score`` is 0 whatever
            the texts (pass the collection they come from as ``corpus``).
    """

    overlap: Overlap
    score: float
    method: str
    tokens_a: int
    tokens_b: int
    dice_multiset: float = 0.0
    compaire: float = 0.0
    empty_lexicon: bool = False

    @property
    def resemblance(self) -> float:
        """Jaccard of the shingle sets (Zagorulko et al. 2013, eq. 1)."""
        return self.overlap.resemblance

    @property
    def containment_ab(self) -> float:
        """Share of A's shingles found in B (Zagorulko et al. 2013, eq. 2)."""
        return self.overlap.containment_ab

    @property
    def containment_ba(self) -> float:
        """Share of B's shingles found in A."""
        return self.overlap.containment_ba

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready result."""
        return {
            "method": self.method,
            **self.overlap.as_dict(),
            "dice_multiset": round(self.dice_multiset, 6),
            "compaire": round(self.compaire, 6),
            "score": round(self.score, 6),
            "tokens_a": self.tokens_a,
            "tokens_b": self.tokens_b,
            "empty_lexicon": self.empty_lexicon,
        }


def read_document(
    path: str | os.PathLike[str], *, content_type: str = OPTIONS["content_type"].default
) -> str:
    """The text of the file at ``path``, read as ``dedup`` reads it
    (:func:`neardup.text.read.read_corpus`: markup removed; a record file's records joined
    by blank lines).

    Raises:
        InputError: not a file, or no document could be read from it (the reason named).
    """
    from neardup.text.read import read_corpus

    if not os.path.isfile(path):
        raise InputError(f"{os.fspath(path)}: not a file")
    items = list(read_corpus([path], content_type=content_type))
    docs = [i for i in items if isinstance(i, Document)]
    if not docs:
        reason = items[0] if items else None
        detail = "no document"
        if isinstance(reason, Skipped):
            detail = f"{reason.reason} {reason.detail}"
        raise InputError(f"{os.fspath(path)}: cannot be compared ({detail})")
    return "\n\n".join(d.text for d in docs)


def _text_of(name: str, doc: str | os.PathLike[str] | Document) -> str:
    """A side of :func:`compare` as a text: a Document's text, a path's file read, a string
    as given unless it names an existing file or folder (refused: pass a ``Path``)."""
    if isinstance(doc, Document):
        return doc.text
    if isinstance(doc, os.PathLike):
        return read_document(doc)
    if not isinstance(doc, str):
        raise ParameterError(name, type(doc).__name__, "a text (str), a pathlib.Path or a Document")
    if names_path(doc):
        raise ParameterError(
            name,
            doc,
            "a text; this string names an existing path: pass pathlib.Path(...) to compare "
            "the file's text",
        )
    return doc


def compare(
    text_a: str | os.PathLike[str] | Document,
    text_b: str | os.PathLike[str] | Document,
    *,
    method: str | Method = OPTIONS["dedup_method"].default,
    corpus: Iterable[str] | None = None,
    **method_params: Any,
) -> Comparison:
    """Compare two documents, as ``dedup`` takes them.

    Args:
        text_a: the first document: its clean text (markup already removed), a
            :class:`~neardup.text.types.Document`, or a ``pathlib.Path`` (the file is read
            as ``dedup`` reads it, :func:`read_document`). A string that names an existing
            file or folder is refused: it would be compared as text.
        text_b: the second document, the same way.
        method: registry name or a :class:`~neardup.methods.base.Method`.
        corpus: texts of a reference collection for methods that need statistics
            (I-Match, anchor words, TF-RIDF); A and B are added to it. Without one, the
            statistics are those of A and B alone, which leaves mid-frequency lexicons
            nearly empty: pass the collection the documents come from.
        **method_params: parameters of the named method.

    Returns:
        :class:`Comparison`.

    Raises:
        ParameterError: unknown method or bad parameter; a string side that names an
            existing path; a side of another type.
        InputError: a path side that is not a readable file.
    """
    text_a, text_b = _text_of("text_a", text_a), _text_of("text_b", text_b)
    meth = make_method(method, **method_params) if isinstance(method, str) else method
    canonical, shingling = meth.canonical, meth.shingling
    ta, tb = canonical.tokens(text_a), canonical.tokens(text_b)
    list_a, list_b = shingling.occurrences(ta)[0], shingling.occurrences(tb)[0]
    ov = overlap(sorted_unique(list_a), sorted_unique(list_b))
    docs = [Prepared("a", text_a, ta), Prepared("b", text_b, tb)]
    lexical = plan_for(meth).needs_fit
    if lexical:
        from neardup.methods.corpus_stats import CorpusStatistics

        reference = (canonical.tokens(t) for t in corpus or ())
        meth.fit(CorpusStatistics.from_token_lists([ta, tb, *reference]))
    sigs = meth.sign(docs)
    score = meth.compare(meth.signature(sigs, 0), meth.signature(sigs, 1))
    empty = False
    if lexical:
        keys = key_rows(meth.keys(sigs))
        empty = keys.for_row(0).size == 0 or keys.for_row(1).size == 0
    return Comparison(
        ov,
        float(score),
        meth.name,
        len(ta),
        len(tb),
        dice_multiset(list_a, list_b),
        compaire(list_a, list_b),
        empty,
    )
