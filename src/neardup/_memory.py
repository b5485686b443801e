"""Give freed heap memory back to the operating system (glibc ``malloc_trim``).

Numpy arrays under glibc's mmap threshold (which grows to 32 MiB after the first large
free) live on the heap; freeing many of them leaves the pages resident, so a job that
copies a corpus' shingle sets out of per-unit parts would hold them twice. :func:`trim`
returns those pages; elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
        lib.malloc_trim.argtypes = [ctypes.c_size_t]
        return lib
    except (OSError, AttributeError):  # not glibc
        return None


def trim() -> bool:
    """Release the free heap pages of this process; True if any were released."""
    lib = _libc()
    return bool(lib is not None and lib.malloc_trim(0))
