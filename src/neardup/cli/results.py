"""How ``neardup dedup`` shows its result: a table, one JSON document, or JSON lines.

``table`` (the default) prints the counts, the largest clusters and the closest pairs, and
says where the full result is (``--out DIR``) or how to get it. ``json`` prints one object
``{"summary", "pairs", "clusters", "dropped", "skipped"}``; ``jsonl`` streams one object per
line, each with a ``"type"`` of ``pair``, ``cluster``, ``dropped`` or ``skipped``, and ends
with one ``{"type": "summary", ...}`` line, so memory stays one block however many pairs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import IO, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

#: Values of ``--format``.
FORMATS: tuple[str, ...] = ("table", "json", "jsonl")


def top_pairs(pairs: Sequence[Any], measure: str, n: int) -> list[Any]:
    """The ``n`` pairs with the highest resemblance (``measure="resemblance"``) or the
    highest of the two containments (``"containment"``); ties keep input order.

    Args:
        pairs: a :class:`~neardup.pairs.PairTable` or a sequence of :class:`~neardup.pairs.Pair`.
        measure: ``resemblance`` or ``containment``; n: how many, >= 0.
    """
    from neardup.pairs import PairTable

    if n <= 0 or not len(pairs):
        return []
    if isinstance(pairs, PairTable):
        import numpy as np

        rows = pairs.rows
        key = rows[:, 2] if measure == "resemblance" else np.maximum(rows[:, 3], rows[:, 4])
        order = np.argsort(-key, kind="stable")[:n]
        return [pairs[int(i)] for i in order]

    def score(p: Any) -> float:
        if measure == "resemblance":
            return float(p.resemblance)
        return float(max(p.containment_ab, p.containment_ba))

    return sorted(pairs, key=score, reverse=True)[:n]


def largest_clusters(clusters: Sequence[Any], n: int) -> list[Any]:
    """The ``n`` largest clusters, ties in cluster order."""
    return sorted(clusters, key=lambda c: -len(c.members))[: max(n, 0)]


def add_count_rows(table: Table, summary: dict[str, Any]) -> None:
    """The summary's counts: records read = kept + removed + skipped first (the job's own
    check, :func:`neardup.dedup.check_accounting`), then documents, pairs, clusters."""
    if "read" in summary:
        removed = summary.get("removed", summary["dropped"])
        table.add_row(
            "records read",
            f"{summary['read']} = {summary['kept']} kept + {removed} removed"
            f" + {summary['skipped']} skipped",
        )
    for key in ("documents", "skipped", "candidate_pairs", "pairs", "clusters", "kept", "dropped"):
        table.add_row(key.replace("_", " "), str(summary[key]))


def print_table(console: Console, result: Any, out_dir: str | None, *, top: int = 10) -> None:
    """Counts, then the ``top`` largest clusters and closest pairs, then where the rest is."""
    summary = result.summary
    table = Table(title=f"neardup dedup ({escape(summary['method'])})", show_header=False)
    add_count_rows(table, summary)
    table.add_row("seconds", f"{summary['seconds']['total']:.2f}")
    table.add_row("peak memory", f"{summary['peak_memory_mib']} MiB")
    if out_dir is not None:
        table.add_row("output", escape(str(out_dir)))
    console.print(table)
    clusters = largest_clusters(result.clusters, top)
    if clusters:
        ct = Table(
            "cluster",
            "size",
            "kept",
            "dropped",
            title=_title("largest clusters", len(clusters), len(result.clusters)),
        )
        for c in clusters:
            others = [
                d for d, m in zip(c.members, c.member_indexes, strict=True) if m != c.keep_index
            ]
            shown = ", ".join(others[:3]) + (
                f", ... (+{len(others) - 3})" if len(others) > 3 else ""
            )
            ct.add_row(str(c.cluster), str(len(c.members)), escape(c.keep), escape(shown))
        console.print(ct)
    measure = summary.get("options", {}).get("measure", "resemblance")
    pairs = top_pairs(result.pairs, measure, top)
    if pairs:
        pt = Table(
            "a",
            "b",
            "resemblance",
            "a in b",
            "b in a",
            title=_title("closest pairs", len(pairs), len(result.pairs)),
        )
        for p in pairs:
            pt.add_row(
                escape(p.a),
                escape(p.b),
                f"{p.resemblance:.3f}",
                f"{p.containment_ab:.3f}",
                f"{p.containment_ba:.3f}",
            )
        console.print(pt)
    console.print(_where(out_dir, len(result.pairs)), highlight=False)


def _title(what: str, shown: int, total: int) -> str:
    return f"{what} ({shown} of {total})" if shown < total else what


def _where(out_dir: str | None, n_pairs: int) -> str:
    if out_dir is not None:
        names = "pairs.jsonl, clusters.jsonl, dropped.jsonl, skipped.jsonl, summary.json"
        return f"full results in {escape(str(out_dir))}/ ({names})"
    if n_pairs == 0:
        return "no near-duplicates at this threshold"
    return (
        "full results: --out DIR writes every pair, cluster and dropped document as JSON "
        "lines; --format json or --format jsonl prints them"
    )


def result_dict(result: Any) -> dict[str, Any]:
    """``{"summary", "pairs", "clusters", "dropped", "skipped"}`` with document ids."""
    return {
        "summary": result.summary,
        "pairs": [p.as_dict() for p in result.pairs],
        "clusters": list(result.cluster_rows()),
        "dropped": [d.as_dict() for d in result.dropped],
        "skipped": [s.as_dict() for s in result.skipped],
    }


def write_json(fh: IO[str], result: Any) -> None:
    """The whole result as one JSON document (see :func:`result_dict`)."""
    from neardup.output import json_text

    fh.write(json_text(result_dict(result), indent=2) + "\n")


def jsonl_lines(result: Any) -> Iterator[str]:
    """JSON lines (with ``\\n``): pairs, clusters, dropped, skipped, then the summary."""
    from neardup.output import json_text
    from neardup.pairs import PairTable

    pairs = result.pairs
    if isinstance(pairs, PairTable):
        for line in pairs.lines():
            yield '{"type": "pair", ' + line[1:]
    else:
        for p in pairs:
            yield json_text({"type": "pair", **p.as_dict()}) + "\n"
    for row in result.cluster_rows():
        yield json_text({"type": "cluster", **row}) + "\n"
    for d in result.dropped:
        yield json_text({"type": "dropped", **d.as_dict()}) + "\n"
    for s in result.skipped:
        yield json_text({"type": "skipped", **s.as_dict()}) + "\n"
    yield json_text({"type": "summary", **result.summary}) + "\n"


def write_jsonl(fh: IO[str], result: Any) -> int:
    """Stream :func:`jsonl_lines` to ``fh`` in blocks; returns the number of lines."""
    from neardup.output import write_lines

    return write_lines(fh, jsonl_lines(result))


def summary_only(summary: dict[str, Any], out_dir: str | None, fmt: str) -> str:
    """JSON for a run whose pairs and clusters are only in files (``--engine dask``)."""
    files = {} if out_dir is None else {"out": str(out_dir)}
    if fmt == "jsonl":
        return json.dumps({"type": "summary", **summary, **files}, ensure_ascii=False) + "\n"
    return json.dumps({"summary": summary, **files}, ensure_ascii=False, indent=2) + "\n"
