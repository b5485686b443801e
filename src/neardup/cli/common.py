"""Helpers shared by the ``neardup`` commands (:mod:`neardup.cli.main` and its sibling
modules): the Rich consoles ``err`` and ``out``, error exit, markup escaping, and the method
parameters of the common options."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import typer

from neardup.errors import NeardupError, ParameterError, UsageError


def console(name: str) -> Any:
    """``err`` (stderr) or ``out`` (stdout): Rich consoles made on first use, so that
    ``--help`` and ``--version`` do not import Rich's console (see :func:`__getattr__`)."""
    made = globals().get(name)
    if made is None:
        from rich.console import Console

        made = globals()[name] = Console(stderr=name == "err")
    return made


def __getattr__(name: str) -> Any:
    """``from neardup.cli.common import err, out`` (PEP 562): the consoles of :func:`console`."""
    if name in ("err", "out"):
        return console(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def escape(text: str) -> str:
    """``text`` with Rich markup escaped (file names such as ``[draft].txt`` print as is)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def parse_value(raw: str) -> Any:
    """A ``--param`` value: bool, None, int, float, or the text itself."""
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(raw)
        except ValueError:
            pass
    return raw


def stop_words_choice(stop_words: str | None, no_stop_words: bool) -> bool | tuple[str, ...] | None:
    """``--stop-words FILE|snowball`` and ``--no-stop-words`` as one value: ``None`` (the
    method's default), ``False``, ``True`` (Snowball lists) or the words of a file.

    Raises:
        UsageError: both options given. InputError: an unreadable file.
    """
    if stop_words is not None and no_stop_words:
        raise UsageError("--stop-words and --no-stop-words contradict each other")
    if no_stop_words:
        return False
    if stop_words is None:
        return None
    if stop_words == "snowball":
        return True
    from neardup.text.stopwords import read_stop_words

    return read_stop_words(stop_words)


def _unescape(symbols: str) -> str:
    return symbols.replace("\\n", "\n").replace("\\r", "\r").replace("\\t", "\t")


def canonical_changes(
    stop_words: bool | tuple[str, ...] | None,
    morphology: str | None,
    stop_symbols: str | None = None,
) -> dict[str, Any]:
    """Fields of :class:`~neardup.text.CanonicalForm` the canonical options replace."""
    changes: dict[str, Any] = {}
    if isinstance(stop_words, tuple):
        changes.update(stop_words=True, stop_word_list=stop_words)
    elif stop_words is True:
        changes.update(stop_words=True, stop_word_list=None)
    elif stop_words is False:
        changes["stop_words"] = False
    if morphology is not None:
        changes["morphology"] = morphology
    if stop_symbols is not None:
        changes["stop_symbols"] = _unescape(stop_symbols)
    return changes


def method_params(
    method: str,
    shingle_size: int | None,
    params: list[str] | None,
    stop_words: bool | tuple[str, ...] | None,
    morphology: str | None,
    *,
    stop_symbols: str | None = None,
    preset: str | None = None,
) -> dict[str, Any]:
    """Collect method parameters from the common options and ``--param KEY=VALUE``.

    ``preset`` (:mod:`neardup.methods.presets`) comes first; the other options override it.
    ``stop_words``: ``None`` keeps the canonical form's, ``True``/``False`` the Snowball
    lists or none, a tuple the user's words.

    Raises:
        ParameterError: a malformed ``--param``, a parameter the method does not have, or
            an unknown preset.
    """
    from neardup.methods.registry import method_class

    fields = {f.name for f in dataclasses.fields(method_class(method)) if f.init}
    result: dict[str, Any] = {}
    if preset is not None:
        from neardup.methods.presets import preset as named_preset

        result.update(named_preset(preset).params_for(method))
    if shingle_size is not None:
        if "shingle_size" not in fields:
            raise ParameterError("--shingle-size", shingle_size, f"not a parameter of {method}")
        result["shingle_size"] = shingle_size
    for item in params or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ParameterError("--param", item, "KEY=VALUE")
        result[key.strip().replace("-", "_")] = parse_value(value.strip())
    changes = canonical_changes(stop_words, morphology, stop_symbols)
    if "canonical" in fields and changes:
        base: Any = result.get("canonical")
        if base is None:
            spec = next(
                f for f in dataclasses.fields(method_class(method)) if f.name == "canonical"
            )
            factory = spec.default_factory
            base = spec.default if factory is dataclasses.MISSING else factory()
        result["canonical"] = dataclasses.replace(base, **changes)
    return result


def method_choice(
    method: str | None,
    default: str,
    *,
    stop_words: str | None,
    no_stop_words: bool,
    stop_symbols: str | None,
    morphology: str | None,
    preset: str | None,
    shingle_size: int | None = None,
    params: list[str] | None = None,
) -> tuple[str, dict[str, Any]]:
    """The method a command runs and its parameters, from the flags ``dedup``, ``compare``
    and ``collection create`` share, read here once for every command: ``--method`` (None:
    the preset's, Rodnenko 2009: ``shingles-dice``, Zagorulko et al. 2013:
    ``shingles-mod``; else ``default``), the canonical-form flags (``--stop-words
    FILE|snowball``, ``--no-stop-words``, ``--stop-symbols`` with ``\\n``, ``\\r``, ``\\t``
    escapes, ``--morphology``, ``--preset``), ``--shingle-size`` and ``--param KEY=VALUE``
    (:func:`method_params`).

    Returns:
        ``(method name, parameters)`` for :func:`~neardup.methods.registry.make_method`.

    Raises:
        UsageError: ``--stop-words`` with ``--no-stop-words``.
        InputError: an unreadable stop-word file.
        ParameterError: an unknown preset (the message lists them) or method, a parameter
            the method does not have.
    """
    if method is None:
        method = default
        if preset is not None:
            from neardup.methods.presets import preset as named_preset

            method = named_preset(preset).method or default
    words = stop_words_choice(stop_words, no_stop_words)
    given = method_params(
        method, shingle_size, params, words, morphology, stop_symbols=stop_symbols, preset=preset
    )
    return method, given


def given(name: str) -> bool:
    """Whether the running command's parameter ``name`` was given (on the command line, by
    an environment variable or a ``--config`` file), not left at its default."""
    try:  # Typer >= 0.2x runs its own copy of Click
        from typer._click.globals import get_current_context
    except ImportError:
        from click import get_current_context  # type: ignore[no-redef]

    ctx = get_current_context(silent=True)
    source = None if ctx is None else ctx.get_parameter_source(name)
    return source is not None and source.name != "DEFAULT"


def warn_unused_threshold(method: str, threshold: float, decision: str | None) -> None:
    """Warn on stderr when ``-t/--threshold`` was given (:func:`given`) but ``method``
    decides by its own rule and that rule takes no threshold (I-Match, TF-RIDF, anchor
    words, mega-shingles, SimHash: :attr:`~neardup.methods.decision.DecisionRule.
    threshold_free`), naming the method, its rule and how to apply the threshold."""
    if not given("threshold"):
        return
    from neardup.methods.decision import rule_of
    from neardup.methods.registry import method_class

    rule = rule_of(method_class(method))
    if not rule.threshold_free or (decision or rule.default) != "own":
        return
    console("err").print(
        f"warning: -t/--threshold {threshold:g} is not used: {method} decides by its own "
        f"rule ({rule.text}), which takes no threshold; --decision verified applies the "
        "threshold to the exact shingle sets of its candidates",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def check_output_path(flag: str, path: Path, *, kind: str) -> None:
    """Refuse an output path that cannot be written, before any input is read.

    Args:
        flag: the option naming it (``--out``, ``--kept``), for the message.
        path: where the output goes.
        kind: ``"file"`` (its folder must exist and be writable; it must not be a folder) or
            ``"directory"`` (created with its parents if missing: the nearest existing one
            must be a writable folder).

    Raises:
        ParameterError: the path cannot be written (exit code 2), naming why.
    """
    if kind == "file":
        if path.is_dir():
            raise ParameterError(flag, str(path), "a file path, not a directory")
        folder = path.parent
        if not folder.exists():
            raise ParameterError(flag, str(path), f"a path in an existing folder ({folder} is not)")
    else:
        if path.exists() and not path.is_dir():
            raise ParameterError(flag, str(path), "a directory (a file of that name exists)")
        folder = path
        while not folder.exists():
            folder = folder.parent
        if not folder.is_dir():
            raise ParameterError(flag, str(path), f"a directory ({folder} is a file)")
    if not folder.is_dir():
        raise ParameterError(flag, str(path), f"a path in a folder ({folder} is not a folder)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ParameterError(flag, str(path), f"a writable location ({folder} is not writable)")


def fail(exc: NeardupError) -> typer.Exit:
    """Print ``exc`` on stderr; the exit to raise (code 2 for a usage error, else 1)."""
    console("err").print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
    return typer.Exit(2 if isinstance(exc, UsageError) else 1)
