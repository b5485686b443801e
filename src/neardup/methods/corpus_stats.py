"""Collection statistics for lexical methods: document and collection frequencies.

``df(t)``: number of documents containing term ``t``; ``cf(t)``: total occurrences of ``t``
in the collection; ``N``: number of documents (Romanov's (2019) ``word``/``article_word``
tables). Statistics grow incrementally with :meth:`CorpusStatistics.add`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence


class CorpusStatistics:
    """Mutable document/collection frequencies of a collection (implements ``CorpusStats``)."""

    def __init__(self) -> None:
        self._df: Counter[str] = Counter()
        self._cf: Counter[str] = Counter()
        self._n = 0

    @classmethod
    def from_token_lists(cls, token_lists: Iterable[Sequence[str]]) -> CorpusStatistics:
        """Statistics of the given documents' tokens."""
        stats = cls()
        for tokens in token_lists:
            stats.add(tokens)
        return stats

    def add(self, tokens: Sequence[str]) -> None:
        """Count one more document."""
        self._n += 1
        self._cf.update(tokens)
        self._df.update(set(tokens))

    def remove(self, tokens: Sequence[str]) -> None:
        """Uncount a document previously added with the same tokens."""
        self._n -= 1
        self._cf.subtract(tokens)
        self._df.subtract(set(tokens))

    @property
    def num_docs(self) -> int:
        """``N``, the number of documents counted."""
        return self._n

    def df(self, term: str) -> int:
        """Document frequency of ``term`` (0 if unseen)."""
        return self._df.get(term, 0)

    def cf(self, term: str) -> int:
        """Collection frequency of ``term`` (0 if unseen)."""
        return self._cf.get(term, 0)

    def terms(self) -> list[str]:
        """All terms with ``df > 0``, sorted."""
        return sorted(t for t, c in self._df.items() if c > 0)

    @property
    def vocabulary_size(self) -> int:
        """Number of distinct terms with ``df > 0``."""
        return sum(1 for c in self._df.values() if c > 0)
