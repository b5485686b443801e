"""Every code block of README.md and of docs/ runs (Sybil), in a temporary directory holding
a copy of the repository's ``examples/``:

* ``python`` blocks run in one namespace per page; a block written as a doctest (``>>>``)
  has its shown output checked;
* ``sh`` and ``bash`` blocks run in ``bash -e``; a command that exits non-zero on purpose
  says so in its comment (``# exit 1: ...``) and that status is checked;
* ``console`` blocks are ``$ command`` lines followed by the output they print, checked
  (``...`` matches any text, runs of white space are equal);
* the inputs a page names for the reader's own (``corpus.jsonl``, ``chapters.jsonl``,
  ``docs/``, ``new.txt``, ...) are stand-ins made from ``examples/`` (:func:`stand_ins`);
* a block that cannot run here says why in a marker before it:
  ``<!-- skip: next "needs a running server" -->``; a marker without a reason fails.

A fenced block of another language (other than ``text``, which is a picture of output or of
states, not code) fails the test, so that no example is left out unnoticed.
"""

from __future__ import annotations

import doctest
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from unittest import SkipTest

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sybil import Document, Example, Sybil
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

from fresh_python import python_env
from neardup import Document as Record
from neardup import read_corpus

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Fenced languages that are pictures, not code.
NOT_CODE = {"text"}
SHELL_TIMEOUT = 120.0
EXIT = re.compile(r"#.*\bexit (\d+)\b")
CHECKER = doctest.OutputChecker()
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def shell_env() -> dict[str, str]:
    """The test session's environment for the shell: its ``neardup`` first on ``PATH``, a
    fixed terminal width and no colour, so that shown tables match, and the working
    directory's database."""
    env = python_env()
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(COLUMNS="100", NO_COLOR="1", TERM="dumb")
    # collections made by a page go to a database in the page's directory
    env["NEARDUP_DB"] = f"sqlite:///{Path.cwd() / 'neardup.db'}"
    env["XDG_DATA_HOME"] = str(Path.cwd() / "data")
    env.pop("FORCE_COLOR", None)
    return env


def commands(source: str) -> list[str]:
    """The block's logical commands: lines joined where one ends with a backslash."""
    out: list[str] = []
    current = ""
    for line in source.splitlines():
        current += line + "\n"
        if not line.rstrip().endswith("\\"):
            out.append(current)
            current = ""
    if current:
        out.append(current)
    return out


def script(source: str) -> str:
    """A ``bash -e`` script of a block: a command whose comment says ``exit N`` runs with
    ``-e`` off and its status must be N."""
    lines = ["set -euo pipefail"]
    for command in commands(source):
        if not command.strip():
            continue
        match = EXIT.search(command.rstrip().splitlines()[-1])
        if match is None:
            lines.append(command.rstrip("\n"))
            continue
        want = match.group(1)
        lines += [
            "set +e",
            command.rstrip("\n"),
            "rc=$?; set -e",
            f'[ "$rc" = {want} ] || {{ echo "exit $rc, the page says {want}" >&2; exit 1; }}',
        ]
    return "\n".join(lines) + "\n"


def run_shell(source: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script(source)], capture_output=True, text=True, env=shell_env(),
        timeout=SHELL_TIMEOUT, cwd=Path.cwd(),
    )  # fmt: skip


def evaluate_shell(example: Example) -> str | None:
    res = run_shell(str(example.parsed))
    if res.returncode != 0:
        return f"exit {res.returncode}\n{res.stdout}{res.stderr}"
    return None


def evaluate_console(example: Example) -> str | None:
    """``$ command`` lines, each followed by its output; the output is checked."""
    steps: list[tuple[str, str]] = []
    for line in str(example.parsed).splitlines(keepends=True):
        if line.startswith("$ "):
            steps.append((line[2:], ""))
        elif steps and steps[-1][0].rstrip().endswith("\\"):
            steps[-1] = (steps[-1][0] + line, "")
        elif steps:
            steps[-1] = (steps[-1][0], steps[-1][1] + line)
        else:
            return f"console block must start with '$ ': {line!r}"
    for command, want in steps:
        res = run_shell(command)
        wanted = EXIT.search(command.splitlines()[-1])
        if res.returncode != 0 and wanted is None:
            return f"$ {command}exit {res.returncode}\n{res.stdout}{res.stderr}"
        if want.strip() and not CHECKER.check_output(want, res.stdout, FLAGS):
            return f"$ {command}shown:\n{want}printed:\n{res.stdout}"
    return None


def evaluate_toml(example: Example) -> str | None:
    """A TOML block (a ``pyproject.toml`` or ``--config`` file shown) must parse."""
    import tomllib

    try:
        tomllib.loads(str(example.parsed))
    except tomllib.TOMLDecodeError as exc:
        return f"not TOML: {exc}"
    return None


SYBIL = Sybil(
    parsers=[
        SkipParser(),
        PythonCodeBlockParser(doctest_optionflags=FLAGS),
        CodeBlockParser(language="sh", evaluator=evaluate_shell),
        CodeBlockParser(language="bash", evaluator=evaluate_shell),
        CodeBlockParser(language="console", evaluator=evaluate_console),
        CodeBlockParser(language="toml", evaluator=evaluate_toml),
    ],
    patterns=["*.md"],
)


def stand_ins(root: Path) -> None:
    """The inputs the pages name as stand-ins for the reader's own (``corpus.jsonl``,
    ``chapters.jsonl``, ``docs/``, ...), made from the sample corpus in ``root/examples``."""
    corpus = root / "examples" / "corpus"
    records: list[dict[str, object]] = [
        {"id": doc.id, "text": doc.text}
        for doc in read_corpus([str(corpus)])
        if isinstance(doc, Record)
    ]

    def jsonl(name: str, rows: list[dict[str, object]]) -> None:
        lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (root / name).write_text(lines, encoding="utf-8")

    for name in ("corpus.jsonl", "crawl.jsonl", "train.jsonl"):
        jsonl(name, records)
    with gzip.open(root / "crawl.jsonl.gz", "wt", encoding="utf-8") as out:
        out.write((root / "crawl.jsonl").read_text(encoding="utf-8"))
    pq.write_table(pa.Table.from_pylist(records), root / "in.parquet")
    jsonl("test.jsonl", [r for r in records if str(r["id"]).startswith("chekhov/")])
    chapters = [
        {**r, "date": f"{year}-03-01", "meta": {"version": version}}
        for r in records
        for folder, year, version in (("progit/2016/", 2016, 1), ("progit/latest/", 2024, 2))
        if str(r["id"]).startswith(folder)
    ]
    jsonl("chapters.jsonl", chapters)
    shutil.copy(root / "examples" / "gold.jsonl", root / "gold.jsonl")
    shutil.copytree(corpus, root / "docs")
    shutil.copytree(corpus / "web", root / "pages")
    shutil.copytree(corpus / "progit" / "2016", root / "old")
    shutil.copytree(corpus / "progit" / "latest", root / "new")
    (root / "new.txt").write_text(
        "Утром выпал первый снег, и весь двор стал белым и тихим до самого вечера.\n",
        encoding="utf-8",
    )


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory holding a copy of ``examples/`` and the stand-in inputs made
    from it, made the working directory."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    stand_ins(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_page(path: Path) -> tuple[list[tuple[int, int]], list[str]]:
    """Evaluate a page's examples in order: the spans of the examples run or skipped (not
    counting the skip markers) and the skip reasons."""
    document: Document = SYBIL.parse(path)
    spans, skipped = [], []
    for example in document.examples():
        marker = type(example.region.evaluator).__name__ == "Skipper"
        try:
            example.evaluate()
        except SkipTest as skip:
            skipped.append(str(skip))
        if not marker:
            spans.append((example.region.start, example.region.end))
    return spans, skipped


@pytest.mark.parametrize("path", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_code_block_runs(path: Path, workdir: Path) -> None:
    text = path.read_text(encoding="utf-8")
    markers = re.findall(r"<!-- skip: next(.*?)-->", text)
    assert all(m.strip() for m in markers), "a skip marker says why the block cannot run"
    blocks = [
        (m.start(), m.end(), m.group(1))
        for m in re.finditer(r"^ *```(\S*)\n.*?^ *```$", text, flags=re.M | re.S)
    ]
    run = {"python", "sh", "bash", "console", "toml"}
    unknown = [lang for _, _, lang in blocks if lang not in run | NOT_CODE]
    assert not unknown, f"code blocks of a language the test does not run: {unknown}"
    spans, _ = run_page(path)
    for start, end, lang in blocks:
        if lang not in NOT_CODE:
            assert any(s < end and start < e for s, e in spans), text[start:end]


def test_a_failing_block_and_a_wrong_output_are_caught(workdir: Path) -> None:
    """The runner itself: a shell command's status and a console block's shown output."""
    page = workdir / "page.md"
    page.write_text(
        "```sh\nfalse\n```\n\n"
        "```sh\nneardup dedup nowhere/  # exit 1: nothing could be read\n```\n\n"
        "```console\n$ echo 'a   b'\na b\n$ echo c\nd\n```\n\n"
        "```python\n>>> 1 + 1\n3\n```\n\n"
        '<!-- skip: next "needs a server" -->\n```sh\nneardup serve\n```\n',
        encoding="utf-8",
    )
    document = SYBIL.parse(page)
    outcomes = []
    for example in document.examples():
        try:
            example.evaluate()
            outcomes.append("ok")
        except SkipTest as skip:
            outcomes.append(f"skip {skip}")
        except Exception as error:
            outcomes.append(f"{type(error).__name__}: {error}")
    assert outcomes[0].startswith("SybilFailure") and "exit 1" in outcomes[0]
    assert outcomes[1] == "ok"
    assert outcomes[2].startswith("SybilFailure") and "$ echo c" in outcomes[2]
    assert outcomes[3].startswith("SybilFailure") or "Error" in outcomes[3]
    assert outcomes[4:] == ["ok", "skip needs a server"]
