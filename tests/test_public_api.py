"""The public names of `neardup` resolve on first use (lazy imports), and the functions
`neardup.dedup` / `neardup.compare` are not replaced by their modules."""

from __future__ import annotations

import subprocess
import sys

import neardup


def test_every_public_name_resolves():
    for name in neardup.__all__:
        assert getattr(neardup, name) is not None, name
    assert set(neardup.__all__) <= set(dir(neardup))


def test_functions_win_over_modules_of_the_same_name():
    code = (
        "import neardup.dedup, neardup.compare, neardup\n"
        "assert callable(neardup.dedup) and neardup.dedup.__module__ == 'neardup.dedup'\n"
        "assert callable(neardup.compare) and neardup.compare.__name__ == 'compare'\n"
        "from neardup import dedup, compare\n"
        "assert dedup is neardup.dedup\n"
        "import sys; assert 'neardup.dedup' in sys.modules\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_import_neardup_is_light():
    code = "import sys, neardup; print('numpy' in sys.modules)"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.stdout.strip() == "False", res.stderr


def test_unknown_name_is_an_attribute_error():
    try:
        neardup.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("no AttributeError")
