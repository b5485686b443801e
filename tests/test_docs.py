"""The documentation site's generated parts (docs/hooks/neardup_docs.py): the CLI reference
lists every command with its real help, the API reference every public name, and the
method table the measured figures of benchmarks/results/decisions.json."""

from __future__ import annotations

import importlib.util
import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

import neardup
from neardup.cli.reference import commands, help_text, markdown
from neardup.methods.registry import method_names

ROOT = Path(__file__).resolve().parents[1]


def _hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "neardup_docs", ROOT / "docs" / "hooks" / "neardup_docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cli_page() -> str:
    return markdown(level=2)


def test_every_command_is_in_the_cli_reference(cli_page: str) -> None:
    paths = commands()
    names = {" ".join(p) for p in paths}
    assert {"dedup", "check", "collection create", "collection check", "serve"} <= names
    headings = re.findall(r"^#{2,3} `neardup ?([^`]*)`$", cli_page, flags=re.M)
    assert headings == [" ".join(p) for p in paths]
    assert headings[0] == ""  # the program's own help comes first


def test_the_reference_holds_each_commands_help(cli_page: str) -> None:
    check = help_text(("collection", "check"))
    assert "Usage: neardup collection check" in check and "--db" in check
    assert check in cli_page
    assert "--max-bytes INTEGER" in help_text(("dedup",))


def test_api_reference_names_every_public_name() -> None:
    page = _hooks().api_reference()
    targets = re.findall(r"^::: ([\w.]+)$", page, flags=re.M)
    documented = {t.rsplit(".", 1)[1] for t in targets}
    assert documented == set(neardup.__all__) - {"__version__"}
    assert "neardup.job.cluster.Cluster" in targets and "neardup.store.Store" in targets
    for target in targets:  # each target names the module that defines the object
        module, name = target.rsplit(".", 1)
        assert getattr(importlib.import_module(module), name) is getattr(neardup, name)


def test_method_table_holds_the_measured_figures() -> None:
    hooks = _hooks()
    table = hooks.method_table()
    data = json.loads((ROOT / "benchmarks/results/decisions.json").read_text(encoding="utf-8"))
    row = next(
        r
        for r in data["sets"]["linux-doc-revisions"]["rows"]
        if r["method"] == "minhash-lsh" and r["decision"] == "own"
    )
    line = next(x for x in table.splitlines() if x.startswith("| `minhash-lsh` | 0."))
    assert f"{row['f1']:.3f} (t={row['threshold']})" in line
    assert f"{row['seconds']:.1f} (" in line
    for name in method_names():
        assert table.count(f"| `{name}` |") == 2  # the description and the figures
    assert "benchmarks/results/decisions.json" in table
    imatch = next(x for x in table.splitlines() if x.startswith("| `imatch` | 0."))
    assert "(t=" not in imatch  # equal signatures have no threshold


def test_markers_are_replaced_and_pages_are_in_the_nav() -> None:
    hooks = _hooks()
    page = "# CLI\n\n<!-- neardup:cli-reference -->\n"
    out = hooks.on_page_markdown(page, page=None, config=None, files=None)
    assert "<!--" not in out and "## `neardup dedup`" in out
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["theme"]["font"] is False  # offline: no web fonts
    assert config["strict"] is True

    def pages(nav: list[dict[str, Any]]) -> Iterator[Any]:
        for item in nav:
            for value in item.values():
                yield from pages(value) if isinstance(value, list) else [value]

    listed = set(pages(config["nav"]))
    on_disk = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert listed == on_disk
    for name in ("methods.md", "cli.md", "api.md"):
        text = (ROOT / "docs" / name).read_text(encoding="utf-8")
        assert any(marker in text for marker in hooks.MARKERS), name


def test_the_contributing_page_layout_is_the_generated_one() -> None:
    spec = importlib.util.spec_from_file_location("layout", ROOT / "docs" / "hooks" / "layout.py")
    assert spec is not None and spec.loader is not None
    layout = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layout)
    assert layout.PAGE == ROOT / "docs" / "contributing.md"
    page = layout.PAGE.read_text(encoding="utf-8")
    section = page.split(layout.START, 1)[1].split(layout.END, 1)[0]
    assert section == "\n" + layout.markdown(), "run: python docs/hooks/layout.py"
    names = [name for layer in layout.layers() for name in layer]
    on_disk = {
        p.stem if p.is_file() else p.name
        for p in (ROOT / "src" / "neardup").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()
    }
    assert sorted(names) == sorted(on_disk)  # every module in a layer (exhaustive contract)
    assert "`_spill.py`" in section and "`store/`" in section


def test_sphinx_roles_become_api_links_or_code() -> None:
    hooks = _hooks()
    anchors = {"Index": "neardup.index.memory.Index", "dedup": "neardup.job.pipeline.dedup"}
    html = (
        "see :class:<code>~neardup.index.memory.Index</code>, "
        ":meth:<code>Index.query</code>, :func:<code>dedup()</code>... "
        ":mod:<code>neardup.index.codec</code> and :data:<code>BLOCK_BYTES</code>"
    )
    out = hooks.resolve_roles(html, api_url="api.html", anchors=anchors)
    assert out == (
        'see <a href="api.html#neardup.index.memory.Index"><code>Index</code></a>, '
        '<a href="api.html#neardup.index.memory.Index.query"><code>Index.query</code></a>, '
        '<a href="api.html#neardup.job.pipeline.dedup"><code>dedup()</code></a>... '
        "<code>neardup.index.codec</code> and <code>BLOCK_BYTES</code>"
    )


def test_site_opens_from_disk() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["use_directory_urls"] is False
    assert "offline" in config["plugins"]


def test_the_readme_is_a_getting_started_page() -> None:
    """Issue 44: a short README that starts people (install, a first run on examples/, which
    method when, the walk-throughs, the commands) and sends the evidence to the site."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 15_000
    headings = re.findall(r"^## (.+)$", readme, flags=re.M)
    assert headings[:3] == ["Quick start", "Install", "A first run"]
    assert "make demo" in readme and "make test" in readme and "pip install ." in readme
    for option in ("--mark", "--config", "--dry-run", "--include", "--keep-by"):
        assert option in readme, option
    for page in ("getting-started.md", "journeys.md", "methods.md", "guarantees.md", "speed.md"):
        assert f"](docs/{page}" in readme, page
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    for extra in extras:
        assert f"| `{extra}` |" in readme, extra
    method_rows = re.findall(
        r"^\| [^|]+ \| `[\w-]+`", readme.split("## Which method when")[1], flags=re.M
    )
    assert len(method_rows) == 5
    assert "../shared/data" not in readme and "--token " not in readme
    for link in re.findall(r"\]\((docs/[^)#]+|examples/[^)#]+|LICENSE)", readme):
        assert (ROOT / link).exists(), link
