"""The corpus dedup job and its stages, in the order the data flows: the job
(:mod:`.pipeline`, :func:`neardup.dedup`, run by an executor: :mod:`.executors`) reads and
prepares (:mod:`.prepare`, on a pool of
worker processes by :mod:`.prepare_pool`), decides candidate pairs (:mod:`.decide`, shared
with the index and the store), verifies pairs (:mod:`.pairs`), clusters (:mod:`.cluster`),
decides what to keep (:mod:`.keep`) and writes the deduplicated corpus out (:mod:`.export`);
:mod:`.compare` compares two documents with the same measures.
"""
