"""Compressed bodies that inflate to much more than they weigh (decompression bombs),
built chunk by chunk so that building one never holds its inflated size."""

from __future__ import annotations

import zlib

_CHUNK = b"\0" * (1 << 20)


def bomb(coding: str, mib: int) -> bytes:
    """``mib`` MiB of zero bytes compressed with ``coding`` (gzip, deflate, br, zstd)."""
    if coding in ("gzip", "deflate"):
        z = zlib.compressobj(9, zlib.DEFLATED, 31 if coding == "gzip" else 15)
        parts = [z.compress(_CHUNK) for _ in range(mib)]
        return b"".join([*parts, z.flush()])
    if coding == "br":
        import brotli  # type: ignore[import-untyped]  # as in neardup.crawl.fetch

        c = brotli.Compressor(quality=5)
        parts = [c.process(_CHUNK) for _ in range(mib)]
        return b"".join([*parts, c.finish()])
    if coding == "zstd":
        import zstandard

        zc = zstandard.ZstdCompressor(level=3).compressobj()
        parts = [zc.compress(_CHUNK) for _ in range(mib)]
        return b"".join([*parts, zc.flush()])
    raise ValueError(coding)


def small(coding: str, data: bytes) -> bytes:
    """``data`` compressed with ``coding`` (for round trips)."""
    if coding == "gzip":
        import gzip

        return gzip.compress(data)
    if coding == "deflate":
        return zlib.compress(data)
    if coding == "br":
        import brotli

        return bytes(brotli.compress(data))
    import zstandard

    return bytes(zstandard.ZstdCompressor().compress(data))
