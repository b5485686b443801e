"""Detection methods behind one contract (:class:`~neardup.methods.base.Method`).

Shingles and samples, MinHash-LSH, mega-shingles, I-Match, anchor words, TF-RIDF, SL+ST,
SpotSigs and SimHash, with their indexes.
"""
