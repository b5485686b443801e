"""Method registry: names -> method classes, and building a method from options."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any, TypeVar

from neardup.errors import ParameterError, UsageError
from neardup.methods.base import Method, MethodBase
from neardup.methods.decision import rule_of
from neardup.methods.params import describe_constraints

_REGISTRY: dict[str, type[MethodBase]] = {}
_LOADED: list[bool] = []
#: Held while the built-in modules register (re-entrant: a module may look a method up).
_LOADING = threading.RLock()
M = TypeVar("M")


def register(cls: type[M]) -> type[M]:
    """Class decorator (or call) adding a method class under its ``name``.

    Adding a method is one module defining a :class:`~neardup.methods.base.MethodBase`
    dataclass with a ``name`` and a ``register`` call; a built-in module is also listed in
    :data:`BUILTIN_MODULES`.

    Raises:
        UsageError: ``cls`` is not a :class:`~neardup.methods.base.MethodBase` dataclass, has
            no non-empty ``name``, leaves ``source`` or a required hook undefined (the
            message names them), or the name is taken by another class (registering the same class
            again, as a module reload does, replaces it).
    """
    name = getattr(cls, "name", None)
    if not (isinstance(cls, type) and issubclass(cls, MethodBase)):
        raise UsageError(f"cannot register {cls!r}: not a neardup.methods.base.MethodBase")
    if not dataclasses.is_dataclass(cls):
        raise UsageError(f"cannot register {cls.__qualname__}: not a dataclass")
    if not isinstance(name, str) or not name:
        raise UsageError(f"cannot register {cls.__qualname__}: no 'name'")
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
    """Registered method names, sorted."""
    _load_builtin()
    return tuple(sorted(_REGISTRY))


def method_classes() -> tuple[type[MethodBase], ...]:
    """Registered method classes: the built-ins in :data:`BUILTIN_MODULES` order (in each
    module, as it registers them), then the others in registration order."""
    _load_builtin()
    order = {f"neardup.methods.{mod}": i for i, mod in enumerate(BUILTIN_MODULES)}
    return tuple(sorted(_REGISTRY.values(), key=lambda c: order.get(c.__module__, len(order))))


def method_class(name: str) -> type[MethodBase]:
    """The class registered as ``name``.

    Raises:
        ParameterError: no such method (the message lists the known ones).
    """
    if name not in _REGISTRY:  # a built-in's own module first (start-up): the others on need
        _load_builtin(BUILTIN_NAMES.get(name) if isinstance(name, str) else None)
    try:
        return _REGISTRY[name]
    except KeyError:
        _load_builtin()  # the message lists every method
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
    :meth:`neardup.methods.params.Interval.as_dict` or the like; the canonical form is
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
