"""``neardup compare A B --passages``: the shared passages of two texts as a reader wants them:
each passage with a little context, what changed inside it as a word diff, and on request one
HTML page of the pair (``--html FILE``).

The word diff marks removed words ``[-like this-]`` and inserted ones ``{+like this+}`` (the
``wdiff`` convention), in colour on a terminal and as the same markers when piped, so the
marking survives ``| less`` and a file. Long unchanged runs are shortened to their ends.
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Words of an unchanged run shown at each end before it is shortened with "...".
KEEP_WORDS = 6
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Change:
    """One run of a word diff: ``kind`` is ``equal``, ``removed`` or ``inserted``."""

    kind: str
    words: tuple[str, ...]


def word_diff(a: str, b: str) -> list[Change]:
    """The word diff of passage ``a`` (in A) to passage ``b`` (in B), by whitespace words
    (difflib's longest matching blocks); a replaced run is a removal then an insertion."""
    wa, wb = _WORD.findall(a), _WORD.findall(b)
    out: list[Change] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(Change("equal", tuple(wa[i1:i2])))
            continue
        if i2 > i1:
            out.append(Change("removed", tuple(wa[i1:i2])))
        if j2 > j1:
            out.append(Change("inserted", tuple(wb[j1:j2])))
    return out


def diff_counts(changes: Sequence[Change]) -> tuple[int, int, int]:
    """Words (unchanged, removed, inserted) of a word diff."""
    n = {"equal": 0, "removed": 0, "inserted": 0}
    for c in changes:
        n[c.kind] += len(c.words)
    return n["equal"], n["removed"], n["inserted"]


def diff_text(changes: Sequence[Change], *, keep: int = KEEP_WORDS) -> str:
    """The diff as one line of plain text with ``[-removed-]`` and ``{+inserted+}`` markers,
    unchanged runs longer than ``2 * keep`` words shortened to their ends."""
    parts: list[str] = []
    for c in changes:
        if c.kind == "removed":
            parts.append("[-" + " ".join(c.words) + "-]")
        elif c.kind == "inserted":
            parts.append("{+" + " ".join(c.words) + "+}")
        elif len(c.words) > 2 * keep:
            parts.append(" ".join(c.words[:keep]) + " ... " + " ".join(c.words[-keep:]))
        else:
            parts.append(" ".join(c.words))
    return " ".join(parts)


def _context(text: str, start: int, end: int, width: int) -> tuple[str, str, str]:
    """(before, passage, after) with up to ``width`` characters of context, one line each."""
    before = text[max(0, start - width) : start]
    after = text[end : end + width]
    flat = [" ".join(s.split()) for s in (before, text[start:end], after)]
    return (
        ("..." if start > width else "") + flat[0],
        flat[1],
        flat[2] + ("..." if end + width < len(text) else ""),
    )


def print_passages(
    console: Any,
    passages: Sequence[Any],
    text_a: str,
    text_b: str,
    *,
    name_a: str,
    name_b: str,
    context: int = 60,
) -> None:
    """Each passage: where it is in both texts, a little context in A, and the word diff of
    the passage in A to the passage in B (markers kept when not on a terminal).

    Args:
        console: a Rich console; passages: values with ``a_start, a_end, b_start, b_end``
            (character offsets); context: characters of context shown before and after.
    """
    from rich.markup import escape

    if not passages:
        console.print("no shared passages")
        return
    for i, p in enumerate(passages, 1):
        changes = word_diff(text_a[p.a_start : p.a_end], text_b[p.b_start : p.b_end])
        same, removed, inserted = diff_counts(changes)
        console.print(
            f"[bold]passage {i} of {len(passages)}[/]: {escape(name_a)} "
            f"\\[{p.a_start}, {p.a_end}) = {escape(name_b)} \\[{p.b_start}, {p.b_end}); "
            f"{same} words the same, {removed} removed, {inserted} inserted",
            highlight=False,
        )
        before, _passage, after = _context(text_a, p.a_start, p.a_end, context)
        line = diff_text(changes)
        styled = escape(line)
        styled = _styled_markers(styled, "\\[-", "-]", "red strike")
        styled = _styled_markers(styled, "{+", "+}", "green")
        console.print(
            f"  [dim]{escape(before)}[/] {styled} [dim]{escape(after)}[/]", highlight=False
        )


def _styled_markers(text: str, opening: str, closing: str, style: str) -> str:
    """``text`` with each ``opening ... closing`` span of one line (the first ``closing``
    after its ``opening``) wrapped in Rich markup ``[style]...[/]``; an ``opening`` of
    ``"\\["`` also matches an unescaped ``"["``. What ``re.sub(r"\\?\\[-(.*?)-\\]", ...)``
    did, in linear time: that pattern rescanned a line from each unclosed marker."""
    bare = opening.lstrip("\\")
    out: list[str] = []
    pos = 0
    while (i := text.find(bare, pos)) >= 0:
        j = text.find(closing, i + len(bare))
        if j < 0:
            break  # no later marker closes either
        newline = text.find("\n", i, j)
        if newline >= 0:  # no marker before this line break closes on its line
            out.append(text[pos : newline + 1])
            pos = newline + 1
            continue
        start = i - 1 if bare != opening and i > pos and text[i - 1] == "\\" else i
        end = j + len(closing)
        out.append(f"{text[pos:start]}[{style}]{text[start:end]}[/]")
        pos = end
    out.append(text[pos:])
    return "".join(out)


#: What the scores of :meth:`neardup.job.compare.Comparison.as_dict` are called on the page.
SCORE_LABELS: dict[str, str] = {
    "method": "Method",
    "resemblance": "Resemblance (shared shingles over all shingles)",
    "containment_ab": "Containment of A in B (share of A's shingles in B)",
    "containment_ba": "Containment of B in A (share of B's shingles in A)",
    "dice": "Dice of the shingle sets",
    "dice_multiset": "Dice of the shingle lists, repeats kept",
    "compaire": "Rodnenko's (2009) similarity of A's list to B's (may exceed 1 with repeats)",
    "score": "Method score",
    "shared": "Shared shingles",
    "size_a": "Shingles of A",
    "size_b": "Shingles of B",
    "tokens_a": "Words of A (canonical form)",
    "tokens_b": "Words of B (canonical form)",
    "empty_lexicon": "No lexicon word found (the method score means nothing)",
}


def html_report(
    path: Path,
    passages: Sequence[Any],
    text_a: str,
    text_b: str,
    *,
    name_a: str,
    name_b: str,
    scores: dict[str, Any],
) -> None:
    """One self-contained HTML page of the pair: the scores under readable names
    (:data:`SCORE_LABELS`), both whole texts side by side (A left, B right) with the shared
    passages highlighted and numbered and the rest of each text shown as it is, then each
    passage's word diff (removed words struck in A, inserted words marked in B).

    Raises:
        OSError: ``path`` cannot be written.
    """
    rows = []
    for i, p in enumerate(passages, 1):
        changes = word_diff(text_a[p.a_start : p.a_end], text_b[p.b_start : p.b_end])
        left = " ".join(_span(c, "del") for c in changes if c.kind in ("equal", "removed"))
        right = " ".join(_span(c, "ins") for c in changes if c.kind in ("equal", "inserted"))
        rows.append(
            f"<tr><th colspan=2>passage {i}: A [{p.a_start}, {p.a_end}) = "
            f"B [{p.b_start}, {p.b_end})</th></tr><tr><td>{left}</td><td>{right}</td></tr>"
        )
    score_rows = "".join(
        f"<tr><th>{html.escape(SCORE_LABELS.get(k, k.replace('_', ' ')))}</th>"
        f"<td>{html.escape(_fmt(v))}</td></tr>"
        for k, v in scores.items()
    )
    spans_a = [(p.a_start, p.a_end, i) for i, p in enumerate(passages, 1)]
    spans_b = [(p.b_start, p.b_end, i) for i, p in enumerate(passages, 1)]
    share_a, share_b = _covered(spans_a, len(text_a)), _covered(spans_b, len(text_b))
    title = f"{html.escape(name_a)} vs {html.escape(name_b)}"
    head = f"<tr><th>A: {html.escape(name_a)}</th><th>B: {html.escape(name_b)}</th></tr>"
    page = (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{title}</title><style>"
        "body{font-family:sans-serif;margin:2em;max-width:1200px}"
        "table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.4em;"
        "vertical-align:top;text-align:left}td{width:50%}"
        "td.text{white-space:pre-wrap;color:#555}mark{background:#fe9;color:#000}"
        "mark sup{color:#a60;font-size:.7em}"
        "del{background:#fdd;color:#900}ins{background:#dfd;color:#060;text-decoration:none}"
        "</style></head><body>"
        f"<h1>{title}</h1><table>{score_rows}</table>"
        f"<h2>The two texts: {len(passages)} shared passage(s) highlighted</h2>"
        f"<p>{share_a:.0%} of A and {share_b:.0%} of B (characters) lie in shared "
        "passages; the rest of each text is not matched in the other.</p>"
        f"<table>{head}<tr><td class=text>{_highlighted(text_a, spans_a)}</td>"
        f"<td class=text>{_highlighted(text_b, spans_b)}</td></tr></table>"
        f"<h2>What changed inside each passage</h2><table>{head}"
        + "".join(rows)
        + "</table></body></html>\n"
    )
    path.write_text(page, encoding="utf-8")


def _highlighted(text: str, spans: list[tuple[int, int, int]]) -> str:
    """``text`` escaped, each span ``[start, end)`` in a ``<mark>`` headed by its passage
    number (a span overlapping an earlier one starts where that one ends)."""
    out, at = [], 0
    for start, end, number in sorted(spans):
        start = max(start, at)
        if start >= end:
            continue
        out.append(html.escape(text[at:start]))
        out.append(
            f"<mark title='passage {number}'><sup>{number}</sup>"
            f"{html.escape(text[start:end])}</mark>"
        )
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out)


def _covered(spans: list[tuple[int, int, int]], length: int) -> float:
    """Share of ``length`` characters inside the union of ``spans`` (0 for no text)."""
    covered, at = 0, 0
    for start, end, _ in sorted(spans):
        start = max(start, at)
        if end > start:
            covered += end - start
            at = end
    return covered / length if length else 0.0


def _span(change: Change, tag: str) -> str:
    words = html.escape(" ".join(change.words))
    return words if change.kind == "equal" else f"<{tag}>{words}</{tag}>"


def _fmt(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)
