"""Empty lexicons are not silent: a lexical collection whose documents got no index key.

I-Match (Chowdhury et al. 2002), its randomised form (Kołcz et al. 2004) and anchor words
(Ilyinsky et al. 2002) take their lexicon from the collection's word statistics (the words
of mid-range document frequency). On a collection of two or three documents no word has a
mid-range frequency: every signature is empty, no document gets an index key, and a check
of a document stored verbatim answers "no duplicate". :func:`empty_lexicon_warning` says so,
for :meth:`neardup.store.Store.add` (``AddReport.warnings``) and
:meth:`neardup.store.Store.check` (``CheckResult.warnings``); :func:`query_lexicon_warning`
says when a checked text has no lexicon word at all.
"""

from __future__ import annotations

from sqlalchemy import text

from neardup.index.results import CollectionInfo
from neardup.methods.base import Method, Prepared
from neardup.methods.keys import key_rows
from neardup.methods.plan import plan_for
from neardup.store.database import Database

_ANY_DOCUMENT = "SELECT 1 FROM nd_documents WHERE collection_id = :c LIMIT 1"
_ANY_KEY = (
    "SELECT 1 FROM nd_index WHERE collection_id = :c "
    "UNION ALL SELECT 1 FROM nd_index_runs WHERE collection_id = :c LIMIT 1"
)


def empty_lexicon_warning(db: Database, info: CollectionInfo) -> str:
    """``""``, or the warning for a lexical collection (``needs_fit``) that holds documents
    of which none has an index key (two index lookups of one row each)."""
    if not plan_for(info.method).needs_fit:
        return ""
    with db.read() as conn:
        params = {"c": info.id}
        if conn.execute(text(_ANY_DOCUMENT), params).first() is None:
            return ""
        if conn.execute(text(_ANY_KEY), params).first() is not None:
            return ""
        documents = conn.execute(
            text("SELECT COUNT(*) FROM nd_documents WHERE collection_id = :c"), params
        ).scalar_one()
    return (
        f"{info.method} built 0 index keys for the {documents} documents of {info.name}: its "
        "lexicon is empty on this collection's word statistics (too few documents for words "
        "of mid-range frequency), so no check can find a duplicate, not even a stored "
        "document; add more documents, or use tf-ridf or minhash-lsh"
    )


def query_lexicon_warning(meth: Method, text_: str) -> str:
    """``""``, or the warning for a checked text that has no index key under the fitted
    lexical method ``meth`` (none of its words is in the lexicon: its signature is empty
    and it can match nothing, whatever the collection holds)."""
    from neardup.index.codec import term_key

    tokens = [term_key(t) for t in meth.canonical.tokens(text_)]
    sigs = meth.sign([Prepared("query", text_, tokens)])
    if key_rows(meth.keys(sigs)).for_row(0).size:
        return ""
    return (
        f"this text has no word of the collection's {meth.name} lexicon, so its signature is "
        "empty and it can match no document"
    )
