"""Duplicates below and beside the document: repeated paragraphs and lines (CCNet, Dolma),
exact repeated substrings (Lee et al. 2022) and benchmark contamination (GPT-3's and
datatrove's 13-gram overlap). One module a concern:

* :mod:`.units`: a text split into lines or paragraphs, each normalised and hashed;
* :mod:`.counts`: (unit hash, document) occurrences counted in bounded memory;
* :mod:`.paragraphs`: :func:`repeated_paragraphs`, the job;
* :mod:`.substrings`: :func:`repeated_substrings` over a suffix array (libdivsufsort);
* :mod:`.contamination`: :func:`contamination` by exact word n-grams;
* :mod:`.rewrite`: ``--kept`` writers with the text field rewritten;
* :mod:`.against`: :func:`against_collection`, a corpus deduplicated against a collection
  (``dedup B --against-collection A``).
"""
