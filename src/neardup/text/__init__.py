"""Text stage: read a corpus, decode, sniff, extract clean text, canonical tokens, sentences.

:func:`read_corpus` turns files, directory trees, JSONL and CSV into :class:`Document` (clean
text) or :class:`Skipped` values; :class:`CanonicalForm` turns a clean text into the tokens
shingles are built from.
"""

from neardup.text.canonical import CANONICAL_VERSION, CanonicalForm, normalize
from neardup.text.encoding import decode
from neardup.text.extract import extract, html_to_text, wiki_to_text
from neardup.text.read import read_corpus
from neardup.text.sentences import split_sentences
from neardup.text.sniff import sniff_content_type
from neardup.text.stopwords import stop_words
from neardup.text.types import Document, Skipped

__all__ = [
    "CANONICAL_VERSION",
    "CanonicalForm",
    "Document",
    "Skipped",
    "decode",
    "extract",
    "html_to_text",
    "normalize",
    "read_corpus",
    "sniff_content_type",
    "split_sentences",
    "stop_words",
    "wiki_to_text",
]
