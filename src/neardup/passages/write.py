"""``passages.jsonl`` of a dedup job: the :func:`~neardup.passages.align_passages` passages
of each verified pair."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

from neardup.passages.align import align_passages


def texts_of(
    ids: Collection[str], inputs: Sequence[str], read_options: dict[str, Any]
) -> dict[str, str]:
    """The texts of the documents ``ids`` of a corpus, read again as the job read it.

    Args:
        ids: document ids (as a job names them in its outputs).
        inputs: the corpus paths the job read.
        read_options: keyword arguments of :func:`neardup.text.read.read_corpus`.

    Returns:
        ``{id: text}`` for the ids found; an id the corpus no longer holds is absent.
    """
    from neardup.text.read import read_corpus
    from neardup.text.types import Document

    wanted = set(ids)
    if not wanted:
        return {}
    return {
        d.id: d.text
        for d in read_corpus(list(inputs), **read_options)
        if isinstance(d, Document) and d.id in wanted
    }


def write_pair_passages(
    pairs: Iterable[Any],
    inputs: Sequence[str],
    read_options: dict[str, Any],
    out_dir: str | os.PathLike[str],
) -> Path:
    """Write ``passages.jsonl``: the :func:`align_passages` passages of each pair.

    One row a passage, ``{"a", "b", "a_start", "a_end", "b_start", "b_end", "seeds"}``,
    offsets in the documents' texts as read (``read_options`` as given to the job); pairs
    in their order, passages by position in ``a``. The corpus is read again, keeping only
    the documents of a pair. The file is written to a temporary name and renamed.

    Args:
        pairs: objects with ``a`` and ``b`` document ids (e.g. a job's verified pairs).
        inputs: the corpus paths the job read.
        read_options: keyword arguments of :func:`neardup.text.read.read_corpus`.
        out_dir: an existing or new directory.

    Returns:
        The path of ``passages.jsonl``.

    Raises:
        OSError: the file cannot be written.
    """
    import json
    import tempfile

    wanted = [(p.a, p.b) for p in pairs]
    texts = texts_of({i for pair in wanted for i in pair}, inputs, read_options)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "passages.jsonl"
    fd, tmp = tempfile.mkstemp(prefix=".passages.jsonl.", dir=out)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for a, b in wanted:
                if a not in texts or b not in texts:
                    continue
                for p in align_passages(texts[a], texts[b]):
                    row = {"a": a, "b": b, "a_start": p.a_start, "a_end": p.a_end}
                    row |= {"b_start": p.b_start, "b_end": p.b_end, "seeds": p.seeds}
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
