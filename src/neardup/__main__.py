"""``python -m neardup``: the ``neardup`` command line, entered as the console script enters
it (:func:`neardup.cli.entry.run`)."""

from __future__ import annotations

if __name__ == "__main__":  # not when a worker re-imports the main module (multiprocessing)
    from neardup.cli.entry import run

    run()
