"""How ``neardup dedup`` shows its result: a table, one JSON document, or JSON lines.

``table`` (the default) prints the counts, the largest clusters and the closest pairs, and
says where the full result is (``--out DIR``) or how to get it. ``json`` prints one object
``{"summary", "pairs", "clusters", "dropped", "skipped"}``; ``jsonl`` streams one object per
line, each with a ``"type"`` of ``pair``, ``cluster``, ``dropped`` or ``skipped``, and ends
with one ``{"type": "summary", ...}`` line, so memory stays one block however many pairs.
"""

from __future__ import annotations

import json
import os
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
        pairs: a :class:`~neardup.job.pairs.PairTable` or a sequence of
            :class:`~neardup.job.pairs.Pair`.
        measure: ``resemblance`` or ``containment``; n: how many, >= 0.
    """
    from neardup.job.pairs import PairTable

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
    check, :func:`neardup.job.pipeline.check_accounting`), then documents, pairs, clusters."""
    if "read" in summary:
        removed = summary.get("removed", summary["dropped"])
        table.add_row(
            "records read",
            f"{summary['read']} = {summary['kept']} kept + {removed} removed"
            f" + {summary['skipped']} skipped",
        )
    for key in ("documents", "skipped", "candidate_pairs", "pairs", "clusters", "kept", "dropped"):
        table.add_row(key.replace("_", " "), str(summary[key]))
    against = summary.get("against")
    if against:
        where = (
            f"collection {against['collection']}"
            if "collection" in against
            else f"{against['documents']} documents ({against['skipped']} skipped)"
        )
        within = "" if against["within"] else ", --no-within"
        table.add_row("against", f"{where}: {against['matched']} matched{within}")


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
    # against a second corpus, ids are long paths under two trees: each column shows them
    # without the directory its shown ids share, named in its header
    shorten = shared_dir if summary.get("against") else _no_dir
    clusters = largest_clusters(result.clusters, top)
    if clusters:
        others = [
            [d for d, m in zip(c.members, c.member_indexes, strict=True) if m != c.keep_index]
            for c in clusters
        ]
        kept_dir = shorten([c.keep for c in clusters])
        dropped_dir = shorten([d for o in others for d in o[:3]])
        ct = Table(
            "cluster",
            "size",
            column_header("kept", kept_dir),
            column_header("dropped", dropped_dir),
            title=_title("largest clusters", len(clusters), len(result.clusters)),
        )
        for c, other in zip(clusters, others, strict=True):
            shown = ", ".join(d[len(dropped_dir) :] for d in other[:3]) + (
                f", ... (+{len(other) - 3})" if len(other) > 3 else ""
            )
            keep = c.keep[len(kept_dir) :]
            ct.add_row(str(c.cluster), str(len(c.members)), escape(keep), escape(shown))
        console.print(ct)
    measure = summary.get("options", {}).get("measure", "resemblance")
    pairs = top_pairs(result.pairs, measure, top)
    if pairs:
        a_dir, b_dir = shorten([p.a for p in pairs]), shorten([p.b for p in pairs])
        pt = Table(
            column_header("a", a_dir),
            column_header("b", b_dir),
            "resemblance",
            "a in b",
            "b in a",
            title=_title("closest pairs", len(pairs), len(result.pairs)),
        )
        for p in pairs:
            pt.add_row(
                escape(p.a[len(a_dir) :]),
                escape(p.b[len(b_dir) :]),
                f"{p.resemblance:.3f}",
                f"{p.containment_ab:.3f}",
                f"{p.containment_ba:.3f}",
            )
        console.print(pt)
    console.print(_where(out_dir, len(result.pairs)), highlight=False)


def shared_dir(ids: Sequence[str]) -> str:
    """The directory (ending in ``/``) that every one of ``ids`` lies under, ``""`` if none:
    a table column shows ids without it and names it in its header (the ids of the outputs
    are the whole ones)."""
    # by character, then cut at the last "/": the directories all the ids share
    prefix = os.path.commonprefix(list(ids)) if ids else ""  # noqa: RUF071
    return prefix[: prefix.rfind("/") + 1]


def _no_dir(ids: Sequence[str]) -> str:
    return ""


def column_header(name: str, directory: str) -> str:
    """``name``, with the :func:`shared_dir` its cells are shown without."""
    return f"{name} (in {escape(directory)})" if directory else name


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
    from neardup.job.pairs import PairTable
    from neardup.output import json_text

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


def skipped_lines(skipped: Sequence[Any], out_dir: str | None, *, examples: int = 3) -> list[str]:
    """What the console says of skipped inputs: one line per reason with its count and the
    first ``examples`` ids, most frequent reason first, then where every row is.

    Args:
        skipped: :class:`~neardup.text.types.Skipped` values (``id``, ``reason``).
        out_dir: the ``--out`` directory (its ``skipped.jsonl`` holds every row), or None.
        examples: ids shown per reason, >= 0.

    Returns:
        ``[]`` when nothing was skipped, else the lines (plain text, no markup).
    """
    if not skipped:
        return []
    by_reason: dict[str, list[str]] = {}
    for s in skipped:
        by_reason.setdefault(s.reason, []).append(s.id)
    lines = [f"skipped {len(skipped):,} input(s):"]
    for reason, ids in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(ids[:examples]) + (", ..." if len(ids) > examples else "")
        lines.append(f"  {reason}: {len(ids):,} (e.g. {shown})")
    where = (
        f"every skipped input with its reason: {out_dir}/skipped.jsonl"
        if out_dir is not None
        else "every skipped input with its reason: --out DIR writes skipped.jsonl"
    )
    lines.append(f"  {where}")
    return lines


def input_sizes(inputs: Sequence[str], options: Any = None) -> list[dict[str, Any]]:
    """Each input with the files the job reads below it and their bytes (``-`` and URLs:
    unknown), from the file system only: no file is opened. A glob pattern counts the paths
    it matches (:func:`neardup.text.inputs.expand_inputs`); a tree, the files of
    :func:`neardup.text.inputs.planned_files` (``--include``, ``--exclude``,
    ``--no-recursive`` applied).

    Args:
        inputs: the command's inputs; options: the job's
            :class:`~neardup.text.units.ReadOptions` (default: the reader's).

    Returns:
        ``[{"input", "files", "bytes"}]``; ``files``/``bytes`` None where unknown.

    Raises:
        InputError: an input does not exist (a pattern matches nothing), as the job would.
    """
    import os
    from pathlib import Path

    from neardup.text.inputs import expand_inputs, planned_files
    from neardup.text.read import read_options

    opts = read_options() if options is None else options
    rows: list[dict[str, Any]] = []
    for raw in inputs:
        if raw == "-" or "://" in raw:
            rows.append({"input": raw, "files": None, "bytes": None})
            continue
        files = [f for p in expand_inputs([raw]) for f in planned_files(Path(p), opts)]
        size = sum(os.path.getsize(f) for f in files if os.path.isfile(f))
        rows.append({"input": raw, "files": len(files), "bytes": size})
    return rows


def print_plan(
    console: Console,
    inputs: Sequence[str],
    plan: dict[str, Any],
    *,
    as_json: bool,
    options: Any = None,
) -> None:
    """``dedup --dry-run``: what the job would read, run and write, without doing it.

    Args:
        console: where the table goes; inputs: the command's inputs;
        plan: ``engine``, ``method``, ``params``, ``options``, ``jobs``, ``memory_mib``,
            ``outputs`` as the command resolved them (and ``against``, ``within``);
        as_json: print one JSON object on stdout instead of a table;
        options: the job's :class:`~neardup.text.units.ReadOptions` (the files counted).

    Raises:
        InputError: an input does not exist (:func:`input_sizes`).
    """
    from neardup._spill import default_budget
    from neardup.job.prepare_pool import default_jobs

    sizes = input_sizes(inputs, options)
    budget = plan["memory_mib"]
    if budget is None:
        default = default_budget()
        budget = None if default is None else default >> 20
    doc = {
        **plan,
        "inputs": sizes,
        "jobs": plan["jobs"] or default_jobs(),
        "memory_mib": budget,
        "outputs": {k: None if v is None else str(v) for k, v in plan["outputs"].items()},
    }
    if as_json:
        import sys

        sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2, default=str) + "\n")
        return
    table = Table(title="neardup dedup --dry-run: nothing is read or written", show_header=False)
    for row in sizes:
        if row["files"] is None:
            what = "a stream (size unknown)"
        else:
            what = f"{row['files']:,} file(s), {row['bytes'] / 2**20:,.1f} MiB"
        table.add_row("input", escape(f"{row['input']}: {what}"))
    params = ", ".join(f"{k}={v}" for k, v in doc["params"].items())
    table.add_row("method", escape(f"{doc['method']} ({params})" if params else doc["method"]))
    opts = doc["options"]
    keep = opts.get("keep")
    if opts.get("keep_by"):
        keep = f"the {opts.get('keep_order')} of {opts.get('keep_by')}"
    table.add_row(
        "decision",
        f"{opts.get('measure')} >= {opts.get('threshold')}, keep {keep}, "
        f"min tokens {opts.get('min_tokens')}",
    )
    against = doc.get("against")
    if against:
        where = against if isinstance(against, dict) else ", ".join(against)
        within = "" if doc.get("within", True) else " (--no-within)"
        table.add_row("against", escape(f"{where}{within}"))
    table.add_row("engine", f"{doc['engine']}, {doc['jobs']} worker process(es)")
    table.add_row("memory", "unbounded" if budget is None else f"{budget:,} MiB, then disk")
    for name, where in doc["outputs"].items():
        if where is not None:
            table.add_row(f"--{name}", escape(where))
    console.print(table)
