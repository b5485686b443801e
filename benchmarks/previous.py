"""The release before, beside this tree in the same benchmark run (as ``bench_scale.py``
does): a temporary ``git worktree`` of a revision, with its compiled prepare kernel built
when that revision declares one, whose ``src/`` a benchmark puts first on ``PYTHONPATH``.

    with previous_tree("2b454db", Path(tmp)) as src:
        env = {**os.environ, "PYTHONPATH": str(src)}
        subprocess.run([sys.executable, "-c", CODE], env=env, check=True)

Figures of a revision and of this tree taken in one run share the machine's load; figures
from different runs do not compare on a shared machine.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def previous_tree(rev: str, work: Path, *, build: bool = True) -> Iterator[Path]:
    """The ``src/`` of a temporary worktree of ``rev`` (removed on exit).

    Args:
        rev: a git revision of this repository; work: a scratch directory.
        build: build the revision's compiled kernel (:func:`build_kernel`), so that it
            runs as installed.
    """
    tree = work / f"prev-{rev}"
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "-f", "--detach", str(tree), rev],
        check=True,
        capture_output=True,
    )
    try:
        if build:
            build_kernel(tree, work)
        yield tree / "src"
    finally:
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
            check=False,
            capture_output=True,
        )


def build_kernel(tree: Path, work: Path) -> bool:
    """Build the compiled modules of the source tree ``tree`` when its ``setup.py`` declares
    its kernel: a wheel by ``pip wheel`` (its ``[build-system]`` requirements in an isolated
    environment, about a minute), whose extension modules (every one under ``neardup/``:
    the prepare kernel and the JSONL reader's ``neardup.text._scan``) are copied into
    ``tree/src``. Nothing is installed. Returns whether the kernel was copied; without it
    that revision runs its numpy path (its ``summary.json`` says ``"kernel": "python"``).

    Until 2026-12-03 only the kernel was copied: a revision with ``_scan`` ran its reader's
    pure-Python path, its read+prepare stage 1.25-1.36x this tree's with the same code."""
    setup = tree / "setup.py"
    if not setup.exists() or "_kernel" not in setup.read_text(encoding="utf-8"):
        return False
    wheels = work / f"wheel-{tree.name}"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(tree)],
        check=False,
        capture_output=True,
    )
    copied = False
    for wheel in wheels.glob("*.whl") if done.returncode == 0 else ():
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.startswith("neardup/") and name.endswith((".so", ".pyd")):
                    target = tree / "src" / name
                    target.write_bytes(archive.read(name))
                    copied = copied or name.startswith("neardup/methods/_kernel")
    return copied
