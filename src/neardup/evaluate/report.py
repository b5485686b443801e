"""Reports of an :class:`~neardup.evaluate.run.Evaluation`: Rich tables, JSON, HTML with plots.

The HTML report is one self-contained file: the tables and four matplotlib figures embedded
as base64 PNG (``<img src="data:image/png;base64,...">``):

* ``found``: pairs found vs threshold per method, gold positives as a dashed line (Zagorulko et al.
  2013,
  Fig. 3: number of similar pairs vs t); a method whose curve repeats an earlier one
  exactly is labelled ``b (= a)`` in the legends;
* ``pr``: precision-recall per method across thresholds, grey iso-F1 curves, the best-F1
  point of each method starred;
* ``f1``: F1 vs threshold per method with its bootstrap interval as a band;
* ``cost``: median seconds per dedup run and peak memory (MiB) per method.

matplotlib is needed only for the HTML report (``pip install 'neardup[report]'``);
:func:`require_matplotlib` checks for it before any run starts.
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from neardup.errors import NeardupError, UsageError
from neardup.evaluate.run import EvalRow, Evaluation
from neardup.evaluate.table2 import (
    TOTAL,
    formula3_note,
    scope_note,
    table2_collections,
    table2_rows,
)

FIGURES: tuple[str, ...] = ("found", "pr", "f1", "cost")
#: Headings of the figures in the HTML report.
FIGURE_TITLES: dict[str, str] = {
    "found": "Pairs found vs threshold",
    "pr": "Precision and recall",
    "f1": "F1 vs threshold",
    "cost": "Time and memory per method",
}
#: Labels of the metadata keys in the HTML report (other keys are shown as they are).
META_LABELS: dict[str, str] = {
    "mode": "Evaluation of",
    "documents": "Documents",
    "gold": "Gold standard",
    "gold_kind": "Gold standard kind",
    "gold_positives": "Duplicate pairs in the gold standard",
    "gold_negatives": "Non-duplicate pairs in the gold standard",
    "gold_ids": "Documents named in the gold standard",
    "gold_ids_not_in_corpus": "Gold documents missing from the corpus",
    "scope": "Pairs scored",
    "measure": "Measure",
    "decision": "Decision rule",
    "methods": "Methods",
    "thresholds": "Thresholds",
    "method_thresholds": "Thresholds per method",
    "memory": "Memory measured as",
    "bootstrap": "Bootstrap",
    "reuse": "Runs reused across thresholds",
    "pairs_dir": "dedup output read",
}
_META_VALUES: dict[str, dict[str, str]] = {
    "mode": {"run": "methods run on the corpus", "pairs": "an existing dedup output"},
    "scope": {
        "all": "all pairs (pairs the gold standard does not list are non-duplicates)",
        "labelled": "only the pairs the gold standard labels",
    },
    "memory": {"rss": "peak resident memory", "tracemalloc": "tracemalloc peak", "off": "off"},
}
_MARKERS = "osD^v<>pPX*h"


# -- terminal -----------------------------------------------------------------------------------
def _f(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _with_ci(value: float, ci: Any) -> str:
    return f"{value:.3f}" if ci is None else f"{value:.3f} [{ci.low:.2f},{ci.high:.2f}]"


def _t(r: EvalRow) -> str:
    """The ``t`` cell: ``any`` for a method whose own rule takes no threshold (one row)."""
    return "any" if r.threshold_free else f"{r.threshold:g}"


def _cells(r: EvalRow) -> list[str]:
    if r.error is not None:
        return [r.method, _t(r), f"error: {_short(r.error)}"] + [""] * 11
    s, ci, cl, us = r.scores, r.intervals, r.clusters, r.usage
    mem = None if us is None else us.peak_mib
    return [
        r.method,
        _t(r),
        str(r.found),
        str(s.tp),
        str(s.fp),
        _with_ci(s.precision, ci.precision if ci else None),
        _with_ci(s.recall, ci.recall if ci else None),
        _with_ci(s.f1, ci.f1 if ci else None),
        f"{100 * s.type_i:.1f}",
        f"{100 * s.type_ii:.1f}",
        _f(cl.bcubed_f1 if cl else None),
        _f(cl.ari if cl else None),
        (_f(us.seconds, 2) if us else "-") + ("*" if r.reused else ""),
        _f(mem, 1),
    ]


HEADERS: tuple[str, ...] = (
    "method",
    "t",
    "found",
    "TP",
    "FP",
    "precision [95% CI]",
    "recall [95% CI]",
    "F1 [95% CI]",
    "type-I %",
    "type-II %",
    "B³ F1",
    "ARI",
    "seconds",
    "peak MiB",
)


def rows_table(rows: Sequence[EvalRow], title: str) -> Table:
    """A Rich table of ``rows`` (one line per method and threshold)."""
    table = Table(*HEADERS, title=title)
    for r in rows:
        table.add_row(*_cells(r))
    return table


def table2_table(evaluation: Evaluation) -> Table:
    """Zagorulko et al.'s (2013) Table 2 layout: per threshold, pairs found and type-I error % per
    method."""
    methods = evaluation.methods()
    notes = [scope_note(str(evaluation.meta.get("scope", "all"))), formula3_note(evaluation)]
    table = Table(
        "t",
        title="Table 2 (Zagorulko et al. 2013): к. д. = pairs found, о. п. р. = type-I error %",
        caption="\n".join(n for n in notes if n),
    )
    for m in methods:
        table.add_column(f"{m}\nк. д.", justify="right")
        table.add_column(f"{m}\nо. п. р., %", justify="right")
    for row in table2_rows(evaluation):
        cells = [f"{row['t']:g}"]
        for m in methods:
            cells.extend(_t2_cell(row[m]))
        table.add_row(*cells)
    return table


def table2_collections_table(results: Sequence[tuple[str, Evaluation]]) -> Table:
    """Table 2 over several collections (Zagorulko et al. 2013): per threshold, one line per
    collection and the total line (:func:`neardup.evaluate.table2.table2_collections`)."""
    rows = table2_collections(results)
    methods = [k for k in (rows[0] if rows else {}) if k not in ("t", "collection")]
    table = Table(
        "t",
        "collection",
        title="Table 2 (Zagorulko et al. 2013): к. д. = pairs found, о. п. р. = type-I error %",
        caption="\n".join(_set_notes(results)),
    )
    for m in methods:
        table.add_column(f"{m}\nк. д.", justify="right")
        table.add_column(f"{m}\nо. п. р., %", justify="right")
    for row in rows:
        cells = [f"{row['t']:g}", row["collection"]]
        for m in methods:
            cells.extend(_t2_cell(row[m]))
        table.add_row(*cells, style="bold" if row["collection"] == TOTAL else None)
    return table


def _set_notes(results: Sequence[tuple[str, Evaluation]]) -> list[str]:
    """The scope note, then each collection's formula (3) line."""
    scope = str(results[0][1].meta.get("scope", "all")) if results else "all"
    notes = [scope_note(scope)]
    notes += [f"{name}: {n}" for name, ev in results if (n := formula3_note(ev))]
    return notes


def table2_collections_dict(results: Sequence[tuple[str, Evaluation]]) -> dict[str, Any]:
    """JSON-ready ``{collections: {name: {meta, rows, best}}, table2: rows with totals}``."""
    return {
        "collections": {name: ev.as_dict() for name, ev in results},
        "table2": table2_collections(results),
    }


def table2_collections_html(results: Sequence[tuple[str, Evaluation]], *, title: str) -> str:
    """A self-contained HTML page of Table 2 over several collections, with each
    collection's best F1 per method."""
    rows = table2_collections(results)
    methods = [k for k in (rows[0] if rows else {}) if k not in ("t", "collection")]
    headers = ["t", "collection"]
    headers += [f"{m} {col}" for m in methods for col in ("к. д.", "о. п. р., %")]
    body = []
    for row in rows:
        cells = [f"{row['t']:g}", row["collection"]]
        for m in methods:
            cells.extend(_t2_cell(row[m]))
        body.append(cells)
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
        f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>",
        "<h2>Table 2 (Zagorulko et al. 2013)</h2>",
        _html_table(headers, body),
        *(f"<p>{html.escape(n)}</p>" for n in _set_notes(results)),
    ]
    for name, ev in results:
        best = sorted(ev.best().values(), key=lambda r: -r.scores.f1)
        parts.append(f"<h2>{html.escape(name)}: best F1 per method</h2>")
        parts.append(_html_table(HEADERS, [_cells(r) for r in best]))
    parts.append("</body></html>")
    return "\n".join(parts)


def _t2_cell(cell: dict[str, Any] | None) -> list[str]:
    if cell is None:
        return ["", ""]
    if "error" in cell:
        return ["error", ""]
    return [str(cell["found"]), f"{cell['type_i_pct']:g}"]


def print_report(evaluation: Evaluation, console: Console, *, table2: bool = False) -> None:
    """Print the evaluation: Table 2 (if asked), every row, the best F1 per method, and
    (mega-shingles run, Table 2's notes not shown) formula (3)'s expected recall."""
    meta = evaluation.meta
    if table2:
        console.print(table2_table(evaluation))
    console.print(rows_table(evaluation.rows, _title(meta)))
    if not table2 and (note := formula3_note(evaluation)):
        console.print(f"[yellow]note:[/yellow] {escape(note)}")
    best = sorted(evaluation.best().values(), key=lambda r: -r.scores.f1)
    console.print(rows_table(best, "best F1 per method (ties: higher t)"))
    for hint in edge_hints(evaluation):
        console.print(f"[yellow]hint:[/yellow] {escape(hint)}")
    for line in left_out_lines(evaluation):
        console.print(f"[yellow]note:[/yellow] {escape(line)}")
    console.print(_footnote(meta, free=any(r.threshold_free for r in evaluation.rows)))


def _title(meta: dict[str, Any]) -> str:
    mode = meta.get("decision") or "each method's default"
    return (
        f"neardup evaluate: {meta.get('documents')} documents, "
        f"{meta.get('gold_positives')} gold positives, scope {meta.get('scope')}, "
        f"{meta.get('measure')}, decision: {mode}"
    )


def _footnote(meta: dict[str, Any], *, free: bool = False) -> str:
    memory = {
        "rss": "peak RSS above the run's start (VmHWM reset per run)",
        "tracemalloc": "tracemalloc peak (times inflated by tracing)",
    }.get(str(meta.get("memory")), str(meta.get("memory")))
    boot = meta.get("bootstrap", {})
    any_t = (
        " t any = decided by the method's own rule, which takes no threshold nor measure "
        "(one run, one row)."
    )
    return (
        f"type-I % = share of found pairs not duplicates; type-II % = share of duplicates "
        f"missed (Zagorulko et al. 2013). CIs: percentile bootstrap, "
        f"{boot.get('replicates')} replicates, "
        f"seed {boot.get('seed')}. Memory: {memory}. * = pairs reused from the method's run "
        f"at its lowest threshold (exact; time and memory of that run)."
    ) + (any_t if free else "")


def edge_hints(evaluation: Evaluation) -> list[str]:
    """One hint per method whose best F1 sits at the lowest or highest threshold it was run
    at (the best may lie outside the range): widen ``--thresholds``.

    No hint for a method whose decision takes no threshold (its own rule of kind
    :data:`~neardup.methods.decision.THRESHOLD_FREE`: TF-RIDF, I-Match, mega-shingles,
    SimHash), none for a best F1 of 1 (nothing to gain), and never one suggesting the range
    just run."""
    hints = []
    for method, best in evaluation.best().items():
        tried = sorted({r.threshold for r in evaluation.rows if r.method == method})
        if len(tried) < 2 or best.scores.f1 >= 1.0 or _threshold_free(method, evaluation.meta):
            continue
        low, high = tried[0], tried[-1]
        step = min(b - a for a, b in itertools.pairwise(tried))
        if best.threshold == low and low > step / 2:
            lower = round(low - 3 * step, 6)
            if lower <= 0:  # halve the lowest threshold instead of restarting at `step`
                lower = round(low / 2, 6)
            hints.append(
                f"{method}: the best F1 is at t={low:g}, the lowest threshold tried; "
                f"lower thresholds may do better (e.g. --thresholds {lower:g}:{high:g}:{step:g})"
            )
        elif best.threshold == high and high < 1.0:
            hints.append(
                f"{method}: the best F1 is at t={high:g}, the highest threshold tried; "
                f"higher thresholds may do better (e.g. --thresholds {_higher(low, high, step)})"
            )
    return hints


def _higher(low: float, high: float, step: float) -> str:
    """A ``--thresholds`` range reaching past ``high``: ``low:1.0:step`` when its grid does,
    else ``high:1.0`` in two steps (``0.05:1.0:0.1`` stops at 0.95, the range just run)."""
    from neardup.evaluate.thresholds import parse_thresholds

    text = f"{low:g}:1.0:{step:g}"
    if max(parse_thresholds(text)) > high:
        return text
    return f"{high:g}:1.0:{round((1.0 - high) / 2, 6):g}"


def _threshold_free(method: str, meta: dict[str, Any]) -> bool:
    """True when ``method`` decided by its own rule and that rule takes no threshold."""
    from neardup.methods.decision import THRESHOLD_FREE
    from neardup.methods.registry import describe

    try:
        rule = describe(method)["decision"]
    except NeardupError:  # a report naming a method this version does not know
        return False
    decision = meta.get("decision")
    return (decision or rule["default"]) == "own" and rule["kind"] in THRESHOLD_FREE


def left_out_lines(evaluation: Evaluation) -> list[str]:
    """One line per method not run, with the reason."""
    return [f"{x['method']} left out: {x['reason']}" for x in evaluation.left_out]


def _pair_cells(p: dict[str, Any]) -> list[str]:
    scores = ("resemblance", "containment_ab", "containment_ba")
    return [p["a"], p["b"]] + [_f(p[k]) for k in scores]


def _errors_html(evaluation: Evaluation) -> str:
    heads = ["A", "B", "resemblance", "containment A in B", "containment B in A"]
    parts = []
    for method, err in evaluation.errors.items():
        t = err["threshold"]
        for key, label in (("false_positives", "false positives"), ("missed", "missed pairs")):
            shown, total = err[key], err[f"{key}_total"]
            more = f" (first {len(shown)})" if total > len(shown) else ""
            parts.append(f"<h3>{html.escape(method)} at t={t:g}: {total} {label}{more}</h3>")
            if shown:
                parts.append(_html_table(heads, [_pair_cells(p) for p in shown]))
    return "<h2>Errors at the best threshold</h2>" + "".join(parts) if parts else ""


def meta_rows(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """``(label, value)`` rows of the metadata for people: labels of :data:`META_LABELS`,
    lists joined with commas, mappings as ``key: value``, booleans as yes/no."""
    return [(META_LABELS.get(k, k), _meta_value(k, v)) for k, v in meta.items()]


_DEFAULT_RULE = (
    "each method's default (own rule for the papers' methods, verified for "
    "shingles-full and minhash-lsh)"
)


def _meta_value(key: str, value: Any) -> str:
    if key == "decision" and value is None:
        return _DEFAULT_RULE
    if key == "decision" and isinstance(value, str):
        return {"own": "each method's own rule", "verified": "exact shingle sets"}.get(value, value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key in _META_VALUES and isinstance(value, str):
        return _META_VALUES[key].get(value, value)
    if key == "bootstrap" and isinstance(value, dict):
        level = value.get("level")
        share = f"{100 * level:g}% intervals, " if isinstance(level, int | float) else ""
        return f"{share}{value.get('replicates')} replicates, seed {value.get('seed')}"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_meta_value('', v)}" for k, v in value.items()) or "none"
    if isinstance(value, list | tuple):
        return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value) or "none"
    return str(value)


def require_matplotlib() -> None:
    """Raise before any work when the HTML report cannot be drawn.

    Raises:
        UsageError: matplotlib is not installed (names ``pip install 'neardup[report]'``).
    """
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        raise UsageError(
            "--html needs matplotlib, which is not installed: pip install 'neardup[report]'"
        )


# -- JSON ------------------------------------------------------------------------------------------
def report_dict(evaluation: Evaluation, *, table2: bool = False) -> dict[str, Any]:
    """JSON-ready ``{meta, rows, best[, table2]}``."""
    out = evaluation.as_dict()
    if table2:
        out["table2"] = table2_rows(evaluation)
    return out


# -- figures ---------------------------------------------------------------------------------------
def _figure(width: float = 7.0, height: float = 4.5) -> Any:
    try:
        from matplotlib.figure import Figure
    except ModuleNotFoundError as exc:
        raise NeardupError(
            "the HTML report needs matplotlib: pip install 'neardup[report]'"
        ) from exc
    return Figure(figsize=(width, height), dpi=110, layout="constrained")


def _style(i: int) -> dict[str, Any]:
    import matplotlib

    cmap = matplotlib.colormaps["tab20" if i >= 10 else "tab10"]
    return {"color": cmap(i % cmap.N), "marker": _MARKERS[i % len(_MARKERS)], "markersize": 4}


def _along_t(ax: Any, rows: list[EvalRow], ys: list[float], label: str, style: Any) -> None:
    """Plot ``ys`` against the rows' thresholds; a method's one threshold-free row (its own
    rule takes no threshold) as a dotted line across every threshold."""
    if len(rows) == 1 and rows[0].threshold_free:
        ax.axhline(ys[0], color=style["color"], linestyle=":", label=f"{label} (any t)")
    else:
        ax.plot([r.threshold for r in rows], ys, label=label, **style)


def _series(evaluation: Evaluation) -> list[tuple[str, list[EvalRow]]]:
    out = []
    for m in evaluation.methods():
        rows = sorted(
            (r for r in evaluation.rows if r.method == m and r.error is None),
            key=lambda r: r.threshold,
        )
        if rows:
            out.append((m, rows))
    return out


def _labels(series: list[tuple[str, list[EvalRow]]]) -> dict[str, tuple[str, bool]]:
    """Legend label of each method and whether it repeats an earlier method's curve exactly
    (same thresholds, pairs found and true positives): ``"b (= a)"``, drawn without a band."""
    seen: dict[tuple[Any, ...], str] = {}
    out: dict[str, tuple[str, bool]] = {}
    for m, rows in series:
        key = tuple((r.threshold, r.found, r.scores.tp) for r in rows)
        first = seen.setdefault(key, m)
        out[m] = (m, False) if first == m else (f"{m} (= {first})", True)
    return out


def plot_found(evaluation: Evaluation) -> Any:
    """Figure: pairs found vs threshold per method (Zagorulko et al. 2013, Fig. 3)."""
    fig = _figure()
    ax = fig.add_subplot()
    series = _series(evaluation)
    labels = _labels(series)
    for i, (m, rows) in enumerate(series):
        _along_t(ax, rows, [r.found for r in rows], labels[m][0], _style(i))
    positives = evaluation.meta.get("gold_positives")
    if positives:
        ax.axhline(positives, color="grey", linestyle="--", linewidth=1, label="gold positives")
    ax.set_xlabel("threshold t")
    ax.set_ylabel("pairs found")
    ax.set_title("Pairs found vs threshold (cf. Zagorulko et al. 2013, Fig. 3)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    return fig


def plot_pr(evaluation: Evaluation) -> Any:
    """Figure: precision-recall per method across thresholds, best F1 starred."""
    import numpy as np

    fig = _figure(6.5, 5.5)
    ax = fig.add_subplot()
    grid = np.linspace(0.01, 1, 200)
    for f in (0.2, 0.4, 0.6, 0.8, 0.9):
        rec = grid[grid > f / (2 - f)]
        ax.plot(rec, f * rec / (2 * rec - f), color="0.85", linewidth=0.8, zorder=0)
        ax.annotate(f"F1={f}", (1.0, f / (2 - f)), fontsize=6, color="0.6", ha="right")
    best = evaluation.best()
    series = _series(evaluation)
    labels = _labels(series)
    for i, (m, rows) in enumerate(series):
        style = _style(i)
        recall, precision = [r.scores.recall for r in rows], [r.scores.precision for r in rows]
        ax.plot(recall, precision, label=labels[m][0], **style)
        b = best.get(m)
        if b is not None:
            ax.plot(
                b.scores.recall,
                b.scores.precision,
                marker="*",
                markersize=12,
                color=style["color"],
                markeredgecolor="black",
                linestyle="none",
            )
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_title("Precision-recall across thresholds (★ = best F1)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    return fig


def plot_f1(evaluation: Evaluation) -> Any:
    """Figure: F1 vs threshold per method, bootstrap interval as a band."""
    fig = _figure()
    ax = fig.add_subplot()
    series = _series(evaluation)
    labels = _labels(series)
    for i, (m, rows) in enumerate(series):
        style = _style(i)
        xs = [r.threshold for r in rows]
        label, repeat = labels[m]
        _along_t(ax, rows, [r.scores.f1 for r in rows], label, style)
        bands = [r.intervals.f1 if r.intervals else None for r in rows]
        if not repeat and len(xs) > 1 and any(b is not None for b in bands):
            nan = float("nan")  # no interval (nothing predicted): a gap in the band
            ax.fill_between(
                xs,
                [nan if b is None else b.low for b in bands],
                [nan if b is None else b.high for b in bands],
                color=style["color"],
                alpha=0.12,
                linewidth=0,
            )
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("threshold t")
    ax.set_ylabel("F1")
    ax.set_title("F1 vs threshold (band: bootstrap 95% CI)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    return fig


def plot_cost(evaluation: Evaluation) -> Any:
    """Figure: median seconds per dedup run and peak memory per method (own runs only)."""
    names, secs, mibs = [], [], []
    for m, rows in _series(evaluation):
        own = [r.usage for r in rows if r.usage is not None and not r.reused]
        if not own:
            continue
        names.append(m)
        secs.append(statistics.median(u.seconds for u in own))
        mibs.append(max((u.peak_mib or 0.0) for u in own))
    fig = _figure(8.0, 0.9 + 0.32 * max(len(names), 1))
    ax_t, ax_m = fig.subplots(1, 2, sharey=True)
    ax_t.barh(names, secs, color="tab:blue")
    ax_t.set_xlabel("seconds per dedup run (median)")
    ax_m.barh(names, mibs, color="tab:orange")
    ax_m.set_xlabel(f"peak memory, MiB ({evaluation.meta.get('memory')})")
    ax_t.invert_yaxis()
    for ax in (ax_t, ax_m):
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(axis="y", labelsize=8)
    fig.suptitle("Cost per method")
    return fig


PLOTS: dict[str, Callable[[Evaluation], Any]] = {
    "found": plot_found,
    "pr": plot_pr,
    "f1": plot_f1,
    "cost": plot_cost,
}


def figures_png(evaluation: Evaluation) -> dict[str, bytes]:
    """PNG bytes of each figure of :data:`FIGURES`.

    Raises:
        NeardupError: matplotlib is not installed.
    """
    out: dict[str, bytes] = {}
    for name in FIGURES:
        buf = io.BytesIO()
        PLOTS[name](evaluation).savefig(buf, format="png")
        out[name] = buf.getvalue()
    return out


# -- HTML ------------------------------------------------------------------------------------------
_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;font-size:13px;margin:1em 0}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f3f3f3} td:first-child,th:first-child{text-align:left}
img{max-width:100%;border:1px solid #eee;margin:0.5em 0} .note{color:#666;font-size:12px}
.hint{color:#8a5a00}
"""


def _html_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _table2_html(evaluation: Evaluation) -> str:
    methods = evaluation.methods()
    headers = ["t"] + [f"{m} {col}" for m in methods for col in ("к. д.", "о. п. р., %")]
    rows = []
    for row in table2_rows(evaluation):
        cells = [f"{row['t']:g}"]
        for m in methods:
            cells.extend(_t2_cell(row[m]))
        rows.append(cells)
    notes = [scope_note(str(evaluation.meta.get("scope", "all"))), formula3_note(evaluation)]
    tail = "".join(f"<p>{html.escape(n)}</p>" for n in notes if n)
    return "<h2>Table 2 (Zagorulko et al. 2013)</h2>" + _html_table(headers, rows) + tail


def render_html(
    evaluation: Evaluation, *, title: str = "neardup evaluate", table2: bool = False
) -> str:
    """The self-contained HTML report (see the module docstring).

    Raises:
        NeardupError: matplotlib is not installed.
    """
    pngs = figures_png(evaluation)
    best = sorted(evaluation.best().values(), key=lambda r: -r.scores.f1)
    meta = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
        for k, v in meta_rows(evaluation.meta)
    )
    imgs = "".join(
        f"<h3>{html.escape(FIGURE_TITLES.get(name, name))}</h3>"
        f'<img alt="{html.escape(FIGURE_TITLES.get(name, name))}" src="data:image/png;base64,'
        f'{base64.b64encode(data).decode("ascii")}">'
        for name, data in pngs.items()
    )
    hints = "".join(
        f"<li>{html.escape(h)}</li>" for h in edge_hints(evaluation) + left_out_lines(evaluation)
    )
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
        f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>",
        f"<p>{html.escape(_title(evaluation.meta))}</p><table>{meta}</table>",
        "<h2>Best F1 per method</h2>",
        _html_table(HEADERS, [_cells(r) for r in best]),
        f"<ul class='hint'>{hints}</ul>" if hints else "",
        _table2_html(evaluation) if table2 else "",
        f"<h2>Plots</h2>{imgs}",
        "<h2>All runs</h2>",
        _html_table(HEADERS, [_cells(r) for r in evaluation.rows]),
        _errors_html(evaluation),
        f"<p class='note'>{html.escape(_footnote(evaluation.meta))}</p></body></html>",
    ]
    return "\n".join(parts)


def write_html(
    evaluation: Evaluation,
    path: str | Path,
    *,
    title: str = "neardup evaluate",
    table2: bool = False,
) -> Path:
    """Write :func:`render_html` to ``path`` (parent directories created).

    Raises:
        NeardupError: matplotlib is not installed. OSError: the file cannot be written.
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(evaluation, title=title, table2=table2), encoding="utf-8")
    return out
