"""The five walk-throughs of the documentation site (``docs/journeys.md``) run as written, on
``examples/``: every command exits as the page says, and the outputs say what the page
promises (the site shows the same commands' real output, made at build time)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "neardup_docs", ROOT / "docs" / "hooks" / "neardup_docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def steps() -> list[Any]:
    page = (ROOT / "docs" / "journeys.md").read_text(encoding="utf-8")
    return _hooks().run_steps(page, "out/walk-test")


def test_every_step_exits_as_the_page_says(steps: list[Any]) -> None:
    assert len(steps) >= 12
    for step in steps:
        assert step.code == step.expected, (step.command, step.output)


def test_the_steps_show_what_each_journey_is_for(steps: list[Any]) -> None:
    text = "\n".join(step.output for step in steps)
    assert "nothing is read or written" in text  # --dry-run
    assert "skipped 3 input(s):" in text  # skipped inputs summed up by reason
    assert "kept.jsonl" in text and "removed.jsonl" in text
    assert "duplicate of" in text and "2 checked" in text  # check, with its closing line
    assert "{+" in text and "[-" in text  # the word diff of two revisions
    assert "F1" in text  # evaluate


def test_render_puts_each_command_with_its_output() -> None:
    hooks = _hooks()
    page = "intro\n<!-- neardup:run exit=1\nfalse\n-->\nend"
    step = hooks.Step(command="false", expected=1, code=1, output="")
    assert hooks.render_steps(page, [step]) == (
        "intro\n```console\n$ false\n# exit code 1\n```\nend"
    )
    with pytest.raises(RuntimeError, match="exited 0, not 1"):
        hooks.render_steps(page, [hooks.Step("false", 1, 0, "")])
