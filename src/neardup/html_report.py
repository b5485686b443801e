"""A dedup result as one self-contained HTML page (``neardup view OUT`` -> ``OUT/view.html``).

The page holds the clusters (kept and dropped members, sizes), the decided pairs with their
scores and the rule that decided each, and, for the highest-scoring pairs, both texts side
by side with the passages :func:`~neardup.passages.align_passages` aligns highlighted and
the unmatched text shown around them. Sorting, filtering (score, rule, cluster size) and
paging run in the page's own script: no network, no server, it opens from ``file://``.

Large runs stay usable: every pair up to ``max_pairs`` is listed (100,000 by default; a
note says how many more the run has), and the texts of the first ``text_pairs`` pairs by
score are embedded (each cut at ``max_chars`` characters, said on the page).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from neardup.errors import InputError, check_int
from neardup.passages import align_passages
from neardup.passages.write import texts_of

#: What ``summary.json`` says of a page: these keys are shown in its header.
_SUMMARY_KEYS = (
    "method", "method_params", "options", "read", "documents", "skipped", "pairs",
    "clusters", "kept", "dropped", "removed", "kernel", "neardup_version",
)  # fmt: skip


@dataclass(frozen=True)
class ViewLimits:
    """How much of a run one page holds.

    Attributes:
        max_pairs: pairs listed (the highest-scoring first); >= 0.
        text_pairs: pairs whose two texts and passages are embedded; >= 0.
        max_chars: characters of one embedded text; >= 1 (a longer text is cut, said).
    """

    max_pairs: int = 100_000
    text_pairs: int = 200
    max_chars: int = 200_000

    def __post_init__(self) -> None:
        check_int("max_pairs", self.max_pairs, low=0)
        check_int("text_pairs", self.text_pairs, low=0)
        check_int("max_chars", self.max_chars, low=1)


def _rows(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL output file (none when it is absent)."""
    if not path.is_file():
        return
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _load(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """``summary.json``, the pairs (highest score first) and the clusters of ``out``."""
    summary_path = out / "summary.json"
    if not summary_path.is_file():
        raise InputError(f"{out}: no summary.json (not a finished `neardup dedup --out` folder)")
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
        pairs = list(_rows(out / "pairs.jsonl"))
        clusters = list(_rows(out / "clusters.jsonl"))
        dropped = {r["id"]: r for r in _rows(out / "dropped.jsonl")}
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{out}: not a dedup output folder ({exc})") from None
    for c in clusters:
        c["dropped"] = {m: dropped[m].get("reason", "") for m in c["members"] if m in dropped}
    pairs.sort(key=lambda p: (-float(p.get("score", 0.0)), p["a"], p["b"]))
    return summary, pairs, clusters


def _embedded_texts(
    pairs: list[dict[str, Any]],
    inputs: list[str],
    read_options: dict[str, Any],
    limits: ViewLimits,
) -> tuple[dict[str, str], list[str], dict[str, list[list[int]]]]:
    """The texts of the first ``limits.text_pairs`` pairs, the ids cut at ``max_chars``,
    and each such pair's aligned passages as ``[a_start, a_end, b_start, b_end]``."""
    shown = pairs[: limits.text_pairs]
    if not shown or not inputs:
        return {}, [], {}
    found = texts_of({i for p in shown for i in (p["a"], p["b"])}, inputs, read_options)
    cut = sorted(i for i, t in found.items() if len(t) > limits.max_chars)
    texts = {i: t[: limits.max_chars] for i, t in found.items()}
    passages: dict[str, list[list[int]]] = {}
    for n, p in enumerate(shown):
        a, b = texts.get(p["a"]), texts.get(p["b"])
        if a is None or b is None:
            continue
        passages[str(n)] = [[x.a_start, x.a_end, x.b_start, x.b_end] for x in align_passages(a, b)]
    return texts, cut, passages


def _columns(pairs: list[dict[str, Any]], ids: dict[str, int]) -> dict[str, list[Any]]:
    """The pairs as columns: document and rule numbers, scores rounded to 6 places."""

    def num(i: str) -> int:
        return ids.setdefault(i, len(ids))

    rules: dict[str, int] = {}
    cols: dict[str, list[Any]] = {k: [] for k in ("a", "b", "s", "r", "cab", "cba", "rule")}
    for p in pairs:
        cols["a"].append(num(p["a"]))
        cols["b"].append(num(p["b"]))
        cols["s"].append(round(float(p.get("score", 0.0)), 6))
        cols["r"].append(p.get("resemblance"))
        cols["cab"].append(p.get("containment_ab"))
        cols["cba"].append(p.get("containment_ba"))
        rule = str(p.get("rule") or p.get("decision", ""))
        cols["rule"].append(rules.setdefault(rule, len(rules)))
    cols["rules"] = list(rules)
    return cols


def view_data(
    out_dir: str | os.PathLike[str],
    *,
    inputs: list[str] | None = None,
    limits: ViewLimits | None = None,
) -> dict[str, Any]:
    """What the page of ``out_dir`` shows, as one JSON-ready dict.

    Args:
        out_dir: a folder written by ``neardup dedup --out`` (``summary.json`` required;
            ``pairs.jsonl``, ``clusters.jsonl``, ``dropped.jsonl`` read when present).
        inputs: the corpus paths, read again for the texts; default: the ``inputs`` that
            ``summary.json`` records (with its ``read_options``); none, no texts.
        limits: how much of the run the page holds (:class:`ViewLimits`).

    Returns:
        ``{"summary", "ids", "pairs", "clusters", "texts", "cut", "passages", "total_pairs",
        "text_pairs"}``: ids as one list, pairs and clusters naming them by position;
        passages keyed by the pair's rank (its position by score), offsets in characters.

    Raises:
        InputError: ``out_dir`` is not a finished dedup output folder.
    """
    limits = limits or ViewLimits()
    out = Path(out_dir)
    summary, pairs, clusters = _load(out)
    recorded = summary.get("inputs")
    if inputs is None and isinstance(recorded, list):
        inputs = [str(x) for x in recorded]
    read_options = summary.get("read_options") or {}
    listed = pairs[: limits.max_pairs]
    texts, cut, passages = _embedded_texts(listed, inputs or [], read_options, limits)
    ids: dict[str, int] = {}
    cols = _columns(listed, ids)
    cluster_rows = [
        {
            "c": c["cluster"],
            "m": [ids.setdefault(m, len(ids)) for m in c["members"]],
            "k": ids.setdefault(c["keep"], len(ids)),
            "d": {str(ids[m]): why for m, why in c["dropped"].items()},
        }
        for c in clusters
    ]
    return {
        "summary": {k: summary[k] for k in _SUMMARY_KEYS if k in summary},
        "ids": list(ids),
        "pairs": cols,
        "clusters": cluster_rows,
        "texts": {str(ids[i]): t for i, t in texts.items() if i in ids},
        "cut": [ids[i] for i in cut if i in ids],
        "passages": passages,
        "total_pairs": len(pairs),
        "text_pairs": min(limits.text_pairs, len(listed)),
        "has_inputs": bool(inputs),
    }


def _script_json(data: dict[str, Any]) -> str:
    """``data`` as JSON safe inside a ``<script>`` element (no ``<``, so no ``</script>``)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render_view(data: dict[str, Any]) -> str:
    """The HTML page of :func:`view_data`'s ``data`` (one file: styles, script and data)."""
    page = resources.files("neardup").joinpath("view.html").read_text(encoding="utf-8")
    return page.replace("/*NEARDUP_VIEW_DATA*/null", _script_json(data), 1)


def write_view(
    out_dir: str | os.PathLike[str],
    *,
    path: str | os.PathLike[str] | None = None,
    inputs: list[str] | None = None,
    limits: ViewLimits | None = None,
) -> Path:
    """Write the page of a dedup output folder (:func:`view_data`, :func:`render_view`).

    Args:
        out_dir: the ``neardup dedup --out`` folder.
        path: the page's file; default ``out_dir/view.html``.
        inputs, limits: as :func:`view_data`.

    Returns:
        The page's path.

    Raises:
        InputError: ``out_dir`` is not a finished dedup output folder.
        OSError: the page cannot be written.
    """
    target = Path(path) if path is not None else Path(out_dir) / "view.html"
    html = render_view(view_data(out_dir, inputs=inputs, limits=limits))
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, target)
    return target
