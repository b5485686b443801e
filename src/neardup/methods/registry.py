"""Method registry: names -> method classes, and building a method from options.

Besides the built-in methods (:data:`BUILTIN_MODULES`), a method of another package is
found by its entry point in the :data:`ENTRY_POINT_GROUP` group (``neardup.methods``): each
entry is named as the method and points to its class (``name = "package.module:Class"``,
docs/methods.md "A method in another package"). The entry points are read on the first
lookup of a name that is not a built-in one or the first listing, and each plugin module is
imported then, once; a plugin that cannot be loaded is skipped with a
:class:`PluginWarning` naming its entry point and the reason.
"""

from __future__ import annotations

import dataclasses
import threading
import warnings
from typing import TYPE_CHECKING, Any, TypeVar

from neardup.errors import ParameterError, UsageError
from neardup.methods.base import Method, MethodBase
from neardup.methods.decision import rule_of
from neardup.params import describe_constraints

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

_REGISTRY: dict[str, type[MethodBase]] = {}
_LOADED: list[bool] = []
#: Held while the built-in modules register (re-entrant: a module may look a method up).
_LOADING = threading.RLock()
M = TypeVar("M")

#: The entry-point group of the methods of other packages: each entry names a method class
#: (``[project.entry-points."neardup.methods"]`` in the plugin's ``pyproject.toml``).
ENTRY_POINT_GROUP = "neardup.methods"
#: The group's entry points by name, read once (empty: not yet read).
_ENTRIES: list[dict[str, list[EntryPoint]]] = []
#: Entry points tried already (loaded or skipped): ``(name, value, distribution)``.
_TRIED: set[tuple[str, str, str]] = set()
#: Holds True once every entry point was tried (a listing's fast path).
_TRIED_ALL: list[bool] = []


class PluginWarning(UserWarning):
    """A method plugin (an entry point of :data:`ENTRY_POINT_GROUP`) was skipped: its module
    failed to import, it names no method class, or its name is taken; the message names
    the entry point, its distribution and the reason. neardup runs on without it."""


def register(cls: type[M]) -> type[M]:
    """Class decorator (or call) adding a method class under its ``name``.

    Adding a method is one module defining a :class:`~neardup.methods.base.MethodBase`
    dataclass with a ``name`` and a ``register`` call; a built-in module is also listed in
    :data:`BUILTIN_MODULES`.

    Raises:
        UsageError: ``cls`` is not a :class:`~neardup.methods.base.MethodBase` dataclass, has
            no non-empty ``name``, leaves ``source`` or a required hook undefined (the
            message names them), or the name is taken by another class or reserved for a
            built-in method (:data:`BUILTIN_NAMES`); registering the same class again, as a
            module reload does, replaces it.
    """
    name = getattr(cls, "name", None)
    if not (isinstance(cls, type) and issubclass(cls, MethodBase)):
        raise UsageError(f"cannot register {cls!r}: not a neardup.methods.base.MethodBase")
    if not dataclasses.is_dataclass(cls):
        raise UsageError(f"cannot register {cls.__qualname__}: not a dataclass")
    if not isinstance(name, str) or not name:
        raise UsageError(f"cannot register {cls.__qualname__}: no 'name'")
    home = BUILTIN_NAMES.get(name)
    if home is not None and cls.__module__ != f"neardup.methods.{home}":
        raise UsageError(f"method name {name!r} is taken by neardup.methods.{home} (built-in)")
    old = _REGISTRY.get(name)
    if old is not None and _qualname(old) != _qualname(cls):
        raise UsageError(f"method name {name!r} is taken by {_qualname(old)}")
    missing = sorted(getattr(cls, "__abstractmethods__", ()))
    if not isinstance(getattr(cls, "source", None), str):
        missing.append("'source'")
    if missing:
        raise UsageError(f"cannot register {cls.__qualname__}: no {', '.join(missing)}")
    _REGISTRY[name] = cls
    return cls


def unregister(name: str) -> None:
    """Remove the method registered as ``name`` (a plugin's tests clean up with it).

    Raises:
        ParameterError: no such method.
    """
    method_class(name)
    del _REGISTRY[name]


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def method_names() -> tuple[str, ...]:
    """Registered method names, sorted: the built-in ones and the plugins'."""
    _load_all()
    return tuple(sorted(_REGISTRY))


def method_classes() -> tuple[type[MethodBase], ...]:
    """Registered method classes: the built-ins in :data:`BUILTIN_MODULES` order (in each
    module, as it registers them), then the others (plugins: by entry-point name) in
    registration order."""
    _load_all()
    order = {f"neardup.methods.{mod}": i for i, mod in enumerate(BUILTIN_MODULES)}
    return tuple(sorted(_REGISTRY.values(), key=lambda c: order.get(c.__module__, len(order))))


def method_class(name: str) -> type[MethodBase]:
    """The class registered as ``name``.

    Raises:
        ParameterError: no such method (the message lists the known ones).
    """
    if name not in _REGISTRY and isinstance(name, str):
        home = BUILTIN_NAMES.get(name)  # a built-in's own module only (start-up)
        if home is not None:
            _load_builtin(home)
        else:  # the plugin of that name only
            _load_plugins(name)
    try:
        return _REGISTRY[name]
    except KeyError:
        _load_all()  # the message lists every method
        raise ParameterError("method", name, "one of " + ", ".join(sorted(_REGISTRY))) from None


def make_method(name: str, **params: Any) -> Method:
    """Build the method ``name`` with keyword parameters; unknown parameters are refused.

    Raises:
        ParameterError: unknown method, unknown parameter, or a value out of range.
    """
    cls = method_class(name)
    fields = {f.name for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(params) - fields)
    if unknown:
        raise ParameterError(
            unknown[0], params[unknown[0]], f"a parameter of {name}: {sorted(fields)}"
        )
    return cls(**params)


def describe(name: str) -> dict[str, Any]:
    """JSON-ready description: name, summary (the first paragraph of the class docstring),
    source, needs_fit, decision rule (``kind``, ``rule``, ``default``, ``measures``),
    parameters with defaults and what each allows (``allowed``:
    :meth:`neardup.params.Interval.as_dict` or the like; the canonical form is
    validated by :class:`~neardup.text.canonical.CanonicalForm`)."""
    cls = method_class(name)
    allowed = describe_constraints(cls.parameter_constraints)
    params = {}
    for f in dataclasses.fields(cls):
        if not f.init or f.name == "canonical":
            continue
        default = f.default if f.default is not dataclasses.MISSING else None
        params[f.name] = {"default": default, "type": str(f.type), "allowed": allowed.get(f.name)}
    first = (cls.__doc__ or "").strip().split("\n\n")[0]
    return {
        "name": name,
        "summary": " ".join(first.split()),
        "source": cls.source,
        "needs_fit": cls.capabilities.needs_fit,
        "exact_key": cls.capabilities.exact_key,
        "decision": rule_of(cls).as_dict(),
        "parameters": params,
    }


#: The modules of the built-in methods, imported (and so registered) on first use; a module
#: missing or failing to import is an error, not a method that silently vanishes.
BUILTIN_MODULES: tuple[str, ...] = (
    "shingle_methods",
    "megashingles",
    "imatch",
    "anchors",
    "tfridf",
    "slst",
    "spotsigs",
    "simhash",
    "dice",
)


#: Built-in method name -> the module of :data:`BUILTIN_MODULES` registering it, so that
#: :func:`method_class` imports that module alone (a one-file ``neardup check`` loads one
#: method, not nine modules; tests/methods/test_registry.py checks this table).
BUILTIN_NAMES: dict[str, str] = {
    "shingles-full": "shingle_methods",
    "shingles-mod": "shingle_methods",
    "shingles-min": "shingle_methods",
    "minhash-lsh": "shingle_methods",
    "megashingles": "megashingles",
    "imatch": "imatch",
    "imatch-random": "imatch",
    "anchor-words": "anchors",
    "tf-ridf": "tfridf",
    "sl-st": "slst",
    "spotsigs": "spotsigs",
    "simhash": "simhash",
    "shingles-dice": "dice",
}


def _load_builtin(module: str | None = None) -> None:
    """Import the built-in method modules once (with ``module``: that one only). Another
    thread asking meanwhile waits until they have registered (it once saw a partial
    registry: a crawl's worker thread was refused ``tf-ridf`` while the main thread was
    still importing it)."""
    if _LOADED:
        return
    import importlib

    with _LOADING:
        if _LOADED:
            return
        if module is not None:
            importlib.import_module(f"neardup.methods.{module}")
            return
        for mod in BUILTIN_MODULES:
            importlib.import_module(f"neardup.methods.{mod}")
        _LOADED.append(True)


def _load_all() -> None:
    """The built-in methods, then every plugin."""
    _load_builtin()
    _load_plugins()


def _entries() -> dict[str, list[EntryPoint]]:
    """The :data:`ENTRY_POINT_GROUP` entry points by name, read once (no module imported);
    held under :data:`_LOADING`."""
    if not _ENTRIES:
        from importlib.metadata import entry_points

        found: dict[str, list[EntryPoint]] = {}
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            found.setdefault(ep.name, []).append(ep)
        _ENTRIES.append(found)
    return _ENTRIES[0]


def _load_plugins(name: str | None = None) -> None:
    """Import and register the plugins (with ``name``: those of that entry-point name
    only), each once; a plugin that fails is skipped with a :class:`PluginWarning`."""
    if _TRIED_ALL:
        return
    with _LOADING:
        entries = _entries()
        for ep_name in [name] if name is not None else list(entries):
            for ep in entries.get(ep_name, ()):
                dist = f"{ep.dist.name} {ep.dist.version}" if ep.dist is not None else "?"
                tried = (ep.name, ep.value, dist)
                if tried not in _TRIED:
                    _TRIED.add(tried)
                    _load_plugin(ep, dist)
        if name is None:
            _TRIED_ALL.append(True)


def _load_plugin(ep: EntryPoint, dist: str) -> None:
    """Import the class ``ep`` names and register it, or warn why not."""
    reason = None
    if ep.name in BUILTIN_NAMES:
        reason = f"the name is taken by the built-in method {ep.name}"
    else:
        try:
            cls = ep.load()
        except Exception as exc:  # a plugin's failure is its own: neardup runs on
            reason = f"cannot import {ep.value}: {type(exc).__name__}: {exc}"
        else:
            if not (isinstance(cls, type) and issubclass(cls, MethodBase)):
                reason = f"{ep.value} is {cls!r}, not a neardup.methods.base.MethodBase class"
            elif getattr(cls, "name", None) != ep.name:
                reason = f"{ep.value} is named {getattr(cls, 'name', None)!r}, not {ep.name!r}"
            else:
                try:
                    register(cls)
                except UsageError as exc:
                    reason = str(exc)
    if reason is not None:  # shown as "neardup.methods:0: PluginWarning: method plugin ..."
        text = f"method plugin {ep.name} = {ep.value} (entry point of {dist}) is skipped: {reason}"
        warnings.warn_explicit(text, PluginWarning, filename=ENTRY_POINT_GROUP, lineno=0)
