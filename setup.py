"""Build of the optional compiled kernels (Cython): the prepare kernel
(``neardup.methods._kernel``) and the JSONL block checks of the reader
(``neardup.text._scan``).

Everything else is in pyproject.toml. The extension is optional: without Cython or a C++
compiler the install still succeeds, prints one line saying so, and neardup runs on its
numpy path (``neardup.methods.kernel.missing_reason``).
"""

from __future__ import annotations

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_NOTE = "neardup: compiled prepare kernel not built ({}); the numpy path will be used"


class OptionalBuildExt(build_ext):
    """build_ext whose failure costs the kernel only, not the install."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, no headers: the numpy path still works
            print(_NOTE.format(f"{type(exc).__name__}: {exc}"), file=sys.stderr)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            print(_NOTE.format(f"{type(exc).__name__}: {exc}"), file=sys.stderr)


def _extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:
        print(_NOTE.format("Cython is not installed"), file=sys.stderr)
        return []
    kernel = Extension(
        "neardup.methods._kernel",
        ["src/neardup/methods/_kernel.pyx"],
        language="c++",
        extra_compile_args=["-O3"],
    )
    scan = Extension(
        "neardup.text._scan",
        ["src/neardup/text/_scan.pyx"],
        language="c++",
        extra_compile_args=["-O3"],
    )
    # both cimport neardup/text/_jsonchar.pxd (one JSON character decoder)
    return cythonize([kernel, scan], language_level=3, quiet=True, include_path=["src"])


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
