"""A method of another package, installed by pip with a ``neardup.methods`` entry point
(tests/methods/plugin_pkg: MinHash-LSH signed by independent permutations, named
``demo-minhash-perm``), is seen without an import: listed by ``neardup methods``, run by
``neardup dedup`` on worker processes (``--jobs 2``, the Dask engine), backing a collection,
served by the REST API; the registry imports it only when its name or a listing
needs it, and a broken plugin is skipped with a warning naming its entry point."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fresh_python import python_env
from shared_data import require

PLUGIN = "demo-minhash-perm"
MODULE = "neardup_demo_plugin"
PACKAGE = Path(__file__).parent / "plugin_pkg"
NEARDUP = str(Path(sys.executable).parent / "neardup")
BASE = [f"w{i}" for i in range(200)]
TEXTS = {  # a and b: one word of 200 changed (resemblance 0.95); c: no shared word
    "a": " ".join(BASE),
    "b": " ".join(BASE).replace("w100", "x100"),
    "c": " ".join(f"v{i}" for i in range(200)),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder the plugin package is installed into by pip (a copy is built: the build
    writes into its source tree)."""
    tmp = tmp_path_factory.mktemp("plugin")
    source = shutil.copytree(PACKAGE, tmp / "src")
    target = tmp / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation"]
    cmd += ["--no-index", "--quiet", "--target", str(target), str(source)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert (target / f"{MODULE}.py").is_file()
    return target


def _env(*paths: Path) -> dict[str, str]:
    env = python_env()
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], *map(str, paths)])
    return env


def neardup(
    *args: str, paths: tuple[Path, ...], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The console script with ``paths`` on its PYTHONPATH."""
    return subprocess.run(
        [NEARDUP, *args], capture_output=True, text=True, env=_env(*paths), cwd=cwd, timeout=600
    )


def python(code: str, *, paths: tuple[Path, ...]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(*paths), timeout=600
    )


def _pairs(path: Path) -> list[tuple[str, str, str, str]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [(r["a"], r["b"], r["method"], r["decision"]) for r in rows]


def test_an_installed_plugin_is_listed_by_neardup_methods(site: Path) -> None:
    res = neardup("methods", "--json", paths=(site,))
    assert res.returncode == 0 and res.stderr == "", res.stderr
    rows = {r["name"]: r for r in json.loads(res.stdout)}
    assert PLUGIN in rows and "minhash-lsh" in rows
    row = rows[PLUGIN]
    assert row["source"] == "Broder 1997 min-wise independent permutations (a plugin)"
    assert row["parameters"]["scheme"]["default"] == "perm"  # the plugin's own default
    assert row["parameters"]["num_perm"]["default"] == 128  # inherited from minhash-lsh
    table = neardup("methods", paths=(site,))
    assert table.returncode == 0 and PLUGIN in table.stdout
    without = neardup("methods", "--json", paths=())
    assert PLUGIN not in {r["name"] for r in json.loads(without.stdout)}


def test_an_installed_plugin_runs_in_dedup_on_worker_processes(site: Path, tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name, text in TEXTS.items():
        (inputs / f"{name}.txt").write_text(text, encoding="utf-8")
    res = neardup(
        "dedup", str(inputs), "-m", PLUGIN, "-t", "0.8", "--jobs", "2", "--out", "out", "-q",
        paths=(site,), cwd=tmp_path,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert _pairs(tmp_path / "out" / "pairs.jsonl") == [("a.txt", "b.txt", PLUGIN, "verified")]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["method"] == PLUGIN and summary["method_params"]["scheme"] == "perm"
    # two worker processes read, shingled and signed (one sketch row a document) by the
    # plugin's class
    workers = summary["executor"]["worker_seconds"]
    assert workers["jobs"] == 2 and workers["sign"] > 0


@pytest.mark.slow  # a Dask cluster of 2 workers: 7.5 s at load 11 on 2 cores
def test_an_installed_plugin_runs_on_the_dask_engine(site: Path, tmp_path: Path) -> None:
    require("distributed")
    rows = [{"id": k, "text": v} for k, v in TEXTS.items()]
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    res = neardup(
        "dedup", str(docs), "-m", PLUGIN, "-t", "0.8", "--engine", "dask", "--workers", "2",
        "--out", "out", "-q", paths=(site,), cwd=tmp_path,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert _pairs(tmp_path / "out" / "pairs.jsonl") == [("a", "b", PLUGIN, "verified")]


def test_an_installed_plugin_backs_a_collection(site: Path, tmp_path: Path) -> None:
    for name, text in TEXTS.items():
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
    db = ["--db", f"sqlite:///{tmp_path / 'c.db'}"]
    made = neardup("collection", "create", "c", "-m", PLUGIN, "-t", "0.8", *db, paths=(site,))
    assert made.returncode == 0, made.stderr
    assert f"created collection c: {PLUGIN} " in made.stdout
    added = neardup("collection", "add", "c", "a.txt", "c.txt", *db, paths=(site,), cwd=tmp_path)
    assert added.returncode == 0 and "added 2 documents to c" in added.stdout, added.stderr
    found = neardup("collection", "check", "c", "b.txt", *db, paths=(site,), cwd=tmp_path)
    assert found.returncode == 1, found.stderr  # 1: a duplicate was found
    assert "b.txt: duplicate of a.txt (resemblance 0.950" in found.stdout
    (tmp_path / "d.txt").write_text(" ".join(f"u{i}" for i in range(200)), encoding="utf-8")
    unique = neardup("collection", "check", "c", "d.txt", *db, paths=(site,), cwd=tmp_path)
    assert unique.returncode == 0, unique.stderr
    assert unique.stdout == "d.txt: no duplicate (0 candidates)\n"


SERVICE = """
import json, sys
from fastapi.testclient import TestClient
from neardup.service import ServiceConfig, create_app

texts = json.loads(sys.argv[1])
app = create_app(ServiceConfig(db="sqlite:///" + sys.argv[2]))
with TestClient(app) as client:
    names = [r["name"] for r in client.get("/methods").json()]
    made = client.post("/collections", json={"name": "c", "method": "demo-minhash-perm",
                                              "threshold": 0.8})
    for key in ("a", "c"):
        client.post("/collections/c/documents", json={"id": key, "text": texts[key]})
    found = client.post("/collections/c/check", json={"text": texts["b"]}).json()
    print(json.dumps(["demo-minhash-perm" in names, made.status_code, made.json()["method"],
                      [m["id"] for m in found["matches"]]]))
"""


@pytest.mark.slow  # the service app in a fresh interpreter: 7 s at load 11 on 2 cores
def test_an_installed_plugin_is_served(site: Path, tmp_path: Path) -> None:
    """The REST API lists it (GET /methods) and creates a collection of it."""
    args = [json.dumps(TEXTS), str(tmp_path / "s.db")]
    res = subprocess.run(
        [sys.executable, "-c", SERVICE, *args], capture_output=True, text=True,
        env=_env(site), timeout=600,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout.splitlines()[-1]) == [True, 201, PLUGIN, ["a"]]


LAZY = """
import sys
from neardup.cli.main import run
sys.argv = ["neardup", "--version"]
try:
    run()
except SystemExit:
    pass
seen = ["neardup_demo_plugin" in sys.modules]
from neardup.methods.registry import method_class, method_names
method_class("minhash-lsh")
seen.append("neardup_demo_plugin" in sys.modules)
method_class("demo-minhash-perm")
seen.append("neardup_demo_plugin" in sys.modules)
print(seen, "demo-minhash-perm" in method_names())
"""


def test_the_plugin_module_is_imported_only_when_its_name_is_looked_up(site: Path) -> None:
    res = python(LAZY, paths=(site,))
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == "[False, False, True] True"


BROKEN = """\
[neardup.methods]
broken-import = no_such_module_xyz:Method
not-a-method = string:Template
minhash-lsh = neardup_demo_plugin:MinHashPerm
wrong-name = neardup_demo_plugin:MinHashPerm
"""


def test_a_broken_plugin_is_skipped_with_a_warning_naming_it(site: Path, tmp_path: Path) -> None:
    dist = tmp_path / "broken_plugins-0.1.dist-info"  # as pip leaves an installed package
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: broken-plugins\nVersion: 0.1\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(BROKEN, encoding="utf-8")
    res = neardup("methods", "--json", paths=(site, tmp_path))
    assert res.returncode == 0, res.stderr
    names = [r["name"] for r in json.loads(res.stdout)]
    assert PLUGIN in names and names.count("minhash-lsh") == 1
    assert not {"broken-import", "not-a-method", "wrong-name"} & set(names)
    head = "neardup.methods:0: PluginWarning: method plugin"
    of = "(entry point of broken-plugins 0.1) is skipped:"
    assert res.stderr.splitlines() == [
        f"{head} broken-import = no_such_module_xyz:Method {of} cannot import "
        "no_such_module_xyz:Method: ModuleNotFoundError: No module named 'no_such_module_xyz'",
        f"{head} minhash-lsh = neardup_demo_plugin:MinHashPerm {of} the name is taken by the "
        "built-in method minhash-lsh",
        f"{head} not-a-method = string:Template {of} string:Template is <class "
        "'string.Template'>, not a neardup.methods.base.MethodBase class",
        f"{head} wrong-name = neardup_demo_plugin:MinHashPerm {of} neardup_demo_plugin:"
        "MinHashPerm is named 'demo-minhash-perm', not 'wrong-name'",
    ]
    # the built-in of the clashing name is the one used; the broken one is a usage error
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "a", "text": TEXTS["a"]}) + "\n", encoding="utf-8")
    ok = neardup("dedup", str(docs), "-m", "minhash-lsh", "-f", "json", paths=(site, tmp_path))
    assert ok.returncode == 0 and ok.stderr == "", ok.stderr  # no plugin was even read
    assert json.loads(ok.stdout)["summary"]["method"] == "minhash-lsh"
    bad = neardup("dedup", str(docs), "-m", "broken-import", paths=(site, tmp_path))
    assert bad.returncode == 2
    assert "error: method='broken-import' is not allowed: one of anchor-words, " in bad.stderr
    assert bad.stderr.count("PluginWarning") == 4  # each once
