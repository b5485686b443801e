"""MkDocs hooks of the neardup site (``mkdocs.yml``: ``hooks``): parts of pages made at build
time from the code and the measured results, so they cannot drift from them.

A page asks for a part with a marker line:

* ``<!-- neardup:cli-reference -->``: every command's ``--help`` (:mod:`neardup.cli.reference`);
* ``<!-- neardup:api-reference -->``: one mkdocstrings block per name of ``neardup.__all__``;
* ``<!-- neardup:method-table -->``: each method's idea, papers and decision rule (from the
  registry) and its F1 and speed on the labelled sets (``benchmarks/results/decisions.json``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[2]
DECISIONS = ROOT / "benchmarks" / "results" / "decisions.json"
#: The set whose run times give the speed column (the largest labelled set).
SPEED_SET = "linux-doc-revisions"

#: Decision rules without a threshold (the same pairs at every t).
THRESHOLD_FREE = frozenset({"equal-signature", "shared-mega-shingle", "hamming"})

#: API sections: title -> public names, in reading order. A public name missing here is
#: listed under "Other" (the site never leaves one out).
API_GROUPS: dict[str, list[str]] = {
    "Deduplicating a corpus": [
        "dedup",
        "DedupOptions",
        "DedupResult",
        "Pair",
        "PairTable",
        "Cluster",
        "Dropped",
        "write_result",
        "against_collection",
    ],
    "Comparing texts": [
        "compare",
        "Comparison",
        "overlap",
        "Overlap",
        "align_passages",
        "AlignedPassage",
        "matched_passages",
        "Passage",
        "highlight",
    ],
    "Indexes and collections": [
        "Collection",
        "Index",
        "Store",
        "StoreCollection",
        "CollectionInfo",
        "AddReport",
        "CheckResult",
        "Match",
    ],
    "Reading and preparing text": ["read_corpus", "Document", "Skipped", "CanonicalForm"],
    "Methods and building blocks": [
        "make_method",
        "method_names",
        "Method",
        "Prepared",
        "Signature",
        "SignatureKey",
        "Signatures",
        "Shingling",
        "ShingleSets",
        "MinHasher",
        "LSHParams",
        "optimal_params",
    ],
    "Errors": [
        "NeardupError",
        "UsageError",
        "ParameterError",
        "InputError",
        "DecodeError",
        "FormatError",
        "IncompatibleSignatureError",
    ],
}


def cli_reference() -> str:
    """Markdown of every command's help."""
    from neardup.cli.reference import markdown

    return markdown(level=2)


def api_reference() -> str:
    """mkdocstrings blocks for the public names, by section."""
    import neardup

    names = [n for n in neardup.__all__ if n != "__version__"]
    grouped = {n for group in API_GROUPS.values() for n in group}
    unknown = sorted(set(grouped) - set(names))
    if unknown:
        raise ValueError(f"API_GROUPS names that are not in neardup.__all__: {unknown}")
    groups = dict(API_GROUPS)
    other = [n for n in names if n not in grouped]
    if other:
        groups["Other"] = other
    parts = []
    for title, members in groups.items():
        parts.append(f"## {title}\n")
        for name in members:
            module = neardup._EXPORTS[name]
            parts.append(f"::: {module}.{name}\n    options:\n      heading_level: 3\n")
    return "\n".join(parts)


def _load_decisions(path: Path = DECISIONS) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def method_table(path: Path = DECISIONS) -> str:
    """Two tables: what each method is (registry), and how it did (``path``)."""
    from neardup.methods.registry import describe, method_names

    data = _load_decisions(path)
    sets = list(data["sets"])
    lines = [
        "| method | idea | papers | decision rule (default) |",
        "|---|---|---|---|",
    ]
    for name in method_names():
        d = describe(name)
        rule = d["decision"]
        idea = d["summary"].rstrip(".").replace("``", "`").replace("|", "\\|")
        lines.append(
            f"| `{name}` | {idea} | {_cell(d['source'])} | {_cell(rule['rule'])} "
            f"({rule['default']}) |"
        )
    lines += ["", _results_caption(data, sets, path), ""]
    head = " | ".join(f"{s} ({data['sets'][s]['documents']:,} docs)" for s in sets)
    lines += [
        f"| method | {head} | {SPEED_SET}: seconds (documents/s) |",
        "|---|" + "---:|" * (len(sets) + 1),
    ]
    for name in method_names():
        cells = []
        fixed = describe(name)["decision"]["kind"] in THRESHOLD_FREE
        for s in sets:
            row = _own_row(data, s, name)
            if row is None:
                cells.append("n/a")
            else:
                cells.append(f"{row['f1']:.3f}" + ("" if fixed else f" (t={row['threshold']})"))
        speed = _own_row(data, SPEED_SET, name) if SPEED_SET in data["sets"] else None
        if speed is None:
            pace = "n/a"
        else:
            docs = data["sets"][SPEED_SET]["documents"]
            pace = f"{speed['seconds']:.1f} ({docs / speed['seconds']:,.0f})"
        lines.append(f"| `{name}` | " + " | ".join(cells) + f" | {pace} |")
    return "\n".join(lines) + "\n"


def _own_row(data: dict[str, Any], set_name: str, method: str) -> dict[str, Any] | None:
    rows = data["sets"][set_name]["rows"]
    return next((r for r in rows if r["method"] == method and r["decision"] == "own"), None)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _results_caption(data: dict[str, Any], sets: list[str], path: Path) -> str:
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    thresholds = ", ".join(str(t) for t in data["thresholds"])
    return (
        f"Measured (`{where}`, written by `benchmarks/eval_decisions.py`): F1 of each "
        f"method under its own rule at its best threshold t in {{{thresholds}}} (no t for "
        "rules without one: equal signatures, a shared mega-shingle, SimHash's Hamming "
        f"distance) on the "
        f"labelled sets of the shared data ({', '.join(sets)}); the speed column is the "
        f"wall time of one run on {SPEED_SET}, reading included. Machine: 2 cores, shared "
        f"and under load (load average at the start: "
        f"{data['uptime_before'].split('load average:')[-1].strip()}), so compare the "
        "methods with each other, not with other machines."
    )


#: Marker -> the function making its Markdown.
MARKERS: dict[str, Callable[[], str]] = {
    "<!-- neardup:cli-reference -->": cli_reference,
    "<!-- neardup:api-reference -->": api_reference,
    "<!-- neardup:method-table -->": method_table,
}


#: A Sphinx role left in a docstring, as mkdocstrings renders it: ``:class:<code>Name</code>``.
ROLE = re.compile(
    r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):<code>~?([\w.]+?)(\(\))?</code>"
)


def public_anchors() -> dict[str, str]:
    """Public name -> the id of its heading on the API page (mkdocstrings: the full path)."""
    import neardup

    return {
        name: f"{module}.{name}"
        for name, module in neardup._EXPORTS.items()
        if name != "__version__"
    }


def resolve_roles(html: str, *, api_url: str, anchors: dict[str, str]) -> str:
    """Replace each Sphinx role in ``html`` by a link to the API page or plain code.

    ``:class:`~neardup.methods.base.MethodBase``` renders in mkdocstrings as
    ``:class:<code>~neardup.methods.base.MethodBase</code>``; a role whose name (or, for
    ``Class.method``, whose class) is public becomes a link to its entry on the API page
    (``api_url`` + ``#`` + its id), any other role its name in code. ``~`` shows the last
    part only, as in Sphinx.
    """

    def replace(match: re.Match[str]) -> str:
        raw = match.group(0)
        target, call = match.group(1), match.group(2) or ""
        shown = target.rsplit(".", 1)[-1] if "<code>~" in raw else target
        parts = target.split(".")
        for i in range(len(parts) - 1, -1, -1):
            if parts[i] in anchors:
                anchor = anchors[parts[i]] + "".join(f".{p}" for p in parts[i + 1 :])
                return f'<a href="{api_url}#{anchor}"><code>{shown}{call}</code></a>'
        return f"<code>{shown}{call}</code>"

    return ROLE.sub(replace, html)


def on_page_content(html: str, page: Any, **_: Any) -> str:
    """MkDocs event: Sphinx roles of docstrings as links to the API page (or plain code)."""
    if ":<code>" not in html:
        return html
    api_url = "" if page.file.src_uri == "api.md" else "api.html"
    return resolve_roles(html, api_url=api_url, anchors=public_anchors())


#: Where Material's offline plugin loads its Web Worker shim from, and the vendored copy.
WORKER_SHIM_URL = "https://unpkg.com/iframe-worker/shim"
WORKER_SHIM = "assets/javascripts/iframe-worker-shim.js"


def on_post_page(output: str, page: Any, **_: Any) -> str:
    """MkDocs event: the offline search's Web Worker shim from the site, not from unpkg.com
    (a site opened from disk on a machine without a network must still search)."""
    depth = page.file.dest_uri.count("/")
    return output.replace(WORKER_SHIM_URL, "../" * depth + WORKER_SHIM)


def on_post_build(config: Any, **_: Any) -> None:
    """MkDocs event: the same for the pages made from templates alone (``404.html``)."""
    for page in Path(config["site_dir"]).glob("*.html"):
        html = page.read_text(encoding="utf-8")
        if WORKER_SHIM_URL in html:
            page.write_text(html.replace(WORKER_SHIM_URL, WORKER_SHIM), encoding="utf-8")


#: A walk-through step: ``<!-- neardup:run [exit=N]`` + shell command lines + ``-->``.
RUN = re.compile(r"<!-- neardup:run(?: exit=(\d+))?\n(.*?)\n-->", re.S)


class Step(NamedTuple):
    """One command of a walk-through as it ran: its line, exit code and output."""

    command: str
    expected: int
    code: int
    output: str


def run_steps(markdown: str, out: str = "out/walk") -> list[Step]:
    """Run every ``neardup:run`` command of a page in order, as a user would in a shell at the
    repository's root, with ``$OUT`` the folder ``out`` (relative to the root; emptied
    first) and the collections in a SQLite file there (``NEARDUP_DB``); the ``neardup`` of
    this Python comes first on PATH.

    Returns:
        The steps with their exit codes and output (stdout then stderr, as a terminal of
        100 columns would show them, without colour; the root's path left out).
    """
    import os
    import shutil
    import subprocess
    import sys

    folder = ROOT / out
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "OUT": out,
        "NEARDUP_DB": f"sqlite:///{folder / 'walk.db'}",
        "COLUMNS": "100",
        "NO_COLOR": "1",
        "TERM": "dumb",
    }
    steps = []
    for match in RUN.finditer(markdown):
        expected = int(match.group(1) or 0)
        for command in match.group(2).strip().splitlines():
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            output = (done.stdout + done.stderr).replace(f"{ROOT}/", "")
            steps.append(Step(command, expected, done.returncode, output.rstrip()))
    return steps


def render_steps(markdown: str, steps: list[Step]) -> str:
    """The page with each ``neardup:run`` block replaced by its commands and real output."""
    queue = iter(steps)

    def block(match: re.Match[str]) -> str:
        parts = []
        for _line in match.group(2).strip().splitlines():
            step = next(queue)
            if step.code != step.expected:
                raise RuntimeError(
                    f"walk-through step {step.command!r} exited {step.code}, "
                    f"not {step.expected}:\n{step.output}"
                )
            shown = f"$ {step.command}\n{step.output}".rstrip()
            tail = f"\n# exit code {step.code}" if step.code else ""
            parts.append(f"```console\n{shown}{tail}\n```")
        return "\n\n".join(parts)

    return RUN.sub(block, markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """MkDocs event: replace each marker line of a page with its generated Markdown, and run
    the page's walk-through commands into it."""
    for marker, make in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    if "<!-- neardup:run" in markdown:
        markdown = render_steps(markdown, run_steps(markdown))
    return markdown
