"""Method registry: names -> method classes, and building a method from options."""

from __future__ import annotations

import dataclasses
from typing import Any

from neardup.errors import ParameterError
from neardup.methods.base import Method
from neardup.methods.decision import rule_of
from neardup.methods.params import describe_constraints

_REGISTRY: dict[str, type] = {}
_LOADED: list[bool] = []


def register(cls: type) -> type:
    """Class decorator (or call) adding a method class under its ``name``."""
    _REGISTRY[cls.name] = cls  # type: ignore[attr-defined]
    return cls


def method_names() -> tuple[str, ...]:
    """Registered method names, sorted."""
    _load_builtin()
    return tuple(sorted(_REGISTRY))


def method_class(name: str) -> type:
    """The class registered as ``name``.

    Raises:
        ParameterError: no such method (the message lists the known ones).
    """
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
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
    """JSON-ready description: name, source, needs_fit, decision rule (``kind``, ``rule``,
    ``default``, ``measures``), parameters with defaults and what each allows (``allowed``:
    :meth:`neardup.methods.params.Interval.as_dict` or the like; ``None`` for the canonical
    form, validated by :class:`~neardup.text.canonical.CanonicalForm`)."""
    cls = method_class(name)
    allowed = describe_constraints(getattr(cls, "parameter_constraints", {}))
    params = {}
    for f in dataclasses.fields(cls):
        if not f.init or f.name == "canonical":
            continue
        default = f.default if f.default is not dataclasses.MISSING else None
        params[f.name] = {"default": default, "type": str(f.type), "allowed": allowed.get(f.name)}
    doc = (cls.__doc__ or "").strip().splitlines()
    return {
        "name": name,
        "summary": doc[0] if doc else "",
        "source": cls.source,  # type: ignore[attr-defined]
        "needs_fit": cls.needs_fit,  # type: ignore[attr-defined]
        "exact_key": cls.exact_key,  # type: ignore[attr-defined]
        "decision": rule_of(cls).as_dict(),
        "parameters": params,
    }


def _load_builtin() -> None:
    if _LOADED:
        return
    _LOADED.append(True)
    from neardup.methods import shingle_methods as sm

    for cls in (sm.ShinglesFull, sm.ShinglesMod, sm.ShinglesMin, sm.MinHashLSH):
        register(cls)
    _load_optional()


def _load_optional() -> None:
    """Methods of later modules register themselves on import (see methods/__init__)."""
    import importlib

    for mod in ("megashingles", "imatch", "anchors", "tfridf", "slst", "spotsigs", "simhash"):
        try:
            importlib.import_module(f"neardup.methods.{mod}")
        except ModuleNotFoundError as exc:
            if exc.name != f"neardup.methods.{mod}":
                raise
