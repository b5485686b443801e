"""The method registry loads its built-in modules once, and threads asking meanwhile wait for
all of them (a crawl's worker thread was refused ``tf-ridf`` while the main thread was still
importing the built-ins)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import threading
from neardup.methods import registry

barrier = threading.Barrier(8)
seen = []

def ask():
    barrier.wait()
    try:
        seen.append(registry.method_class("tf-ridf").name)
    except Exception as exc:
        seen.append(repr(exc))

threads = [threading.Thread(target=ask) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(sorted(set(seen)))
"""


def test_threads_racing_the_first_lookup_all_find_the_method() -> None:
    for _ in range(3):  # a fresh interpreter each time: the registry is empty at start
        out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "['tf-ridf']"


LOAD_ONE = """
import sys
from neardup.methods import registry

cls = registry.method_class(sys.argv[1])
loaded = sorted(m for m in registry.BUILTIN_MODULES if f"neardup.methods.{m}" in sys.modules)
print(cls.name, loaded)
"""


def test_a_lookup_by_name_imports_that_method_module_alone() -> None:
    """``method_class('minhash-lsh')`` (a one-file check) imports shingle_methods, not the
    other eight built-in modules; an unknown name loads them all for its message."""
    out = subprocess.run(
        [sys.executable, "-c", LOAD_ONE, "minhash-lsh"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "minhash-lsh ['shingle_methods']"
    out = subprocess.run([sys.executable, "-c", LOAD_ONE, "nope"], capture_output=True, text=True)
    assert out.returncode == 1
    assert "one of anchor-words, imatch, imatch-random, megashingles, minhash-lsh" in out.stderr


def test_the_name_table_matches_what_the_modules_register() -> None:
    from neardup.methods import registry

    classes = registry.method_classes()  # every built-in module imported
    builtin = {
        c.name: c.__module__.removeprefix("neardup.methods.")
        for c in classes
        if c.__module__.removeprefix("neardup.methods.") in registry.BUILTIN_MODULES
    }
    assert builtin == registry.BUILTIN_NAMES
