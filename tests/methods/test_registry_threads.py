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
