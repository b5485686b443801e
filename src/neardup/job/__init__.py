"""The corpus dedup job's stages, in the order the data flows: read and prepare
(:mod:`.prepare`, on a pool of worker processes by :mod:`.prepare_pool`), verified pairs
(:mod:`.pairs`), clusters (:mod:`.cluster`), the keep/drop decision (:mod:`.keep`) and the
deduplicated corpus written out (:mod:`.export`).

The job itself (:mod:`neardup.dedup`, the local engine) and the pair decision
(:mod:`neardup.decide`) are not in this package yet (issue 26 item 8).
"""
