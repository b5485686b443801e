"""The executors of the dedup job that run on this machine: in this process
(:mod:`.local`) and on a pool of worker processes (:mod:`.pool`). The Dask executor is
:mod:`neardup.distributed.executor`; the protocol is :class:`neardup.job.pipeline.Executor`.
"""
