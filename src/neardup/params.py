"""Parameter constraints as data (in the style of scikit-learn's ``_param_validation``).

Each method class declares ``parameter_constraints``: parameter name -> :class:`Interval`,
:class:`Options`, :class:`Words` or :class:`Text`. :class:`~neardup.methods.base.MethodBase`
validates them once, in ``__post_init__``, before the method's own cross-parameter rules
(for example "``supershingles`` divides ``num_maps``"); ``neardup methods --json`` and the
API publish them (:func:`describe_constraints`), and the tests generate an invalid value
for every parameter of every method from them (:meth:`Interval.invalid_values`).

A bound may name another parameter (``Interval("int", 2, "num_maps")``): it is read from the
same method object, which validates parameters in declaration order, so the named one is
checked first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from neardup.errors import ParameterError, check_float, check_int

Bound = int | float | str | None


@dataclass(frozen=True, slots=True)
class Interval:
    """A number in ``[low, high]`` (``(low, high]`` when ``low_open``); ``high=None``: no
    upper bound; a ``str`` bound names another parameter; ``optional``: ``None`` allowed.

    Attributes:
        kind: ``"int"`` (bools refused) or ``"float"`` (ints accepted, NaN refused).
    """

    kind: Literal["int", "float"]
    low: Bound
    high: Bound = None
    low_open: bool = False
    optional: bool = False

    def check(self, name: str, value: object, owner: object) -> None:
        """Raise :class:`ParameterError` naming ``name`` unless ``value`` is allowed."""
        if value is None and self.optional:
            return
        low, high = _bound(self.low, owner), _bound(self.high, owner)
        if self.kind == "int":
            check_int(name, value, low=int(low), high=None if high is None else int(high))
        else:
            check_float(name, value, low=float(low), high=float(high), low_open=self.low_open)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"type", "low", "high", "low_open", "none"}``."""
        return {
            "type": self.kind,
            "low": self.low,
            "high": self.high,
            "low_open": self.low_open,
            "none": self.optional,
        }

    def invalid_values(self, owner: object) -> list[object]:
        """Values this constraint refuses (for tests): a wrong type, and just outside each
        numeric bound (bounds naming a parameter are read from ``owner``)."""
        out: list[object] = ["1" if self.kind == "int" else "0.5"]
        low, high = _bound(self.low, owner), _bound(self.high, owner)
        step = 1 if self.kind == "int" else 1e-6
        out.append(low if self.low_open else low - step)
        if high is not None:
            out.append(high + step)
        if self.kind == "int":
            out.append(1.5)
        if not self.optional:
            out.append(None)
        return out


@dataclass(frozen=True, slots=True)
class Options:
    """One of a fixed set of strings (``optional``: ``None`` allowed too)."""

    choices: tuple[str, ...]
    optional: bool = False

    def check(self, name: str, value: object, owner: object) -> None:
        """Raise :class:`ParameterError` naming ``name`` unless ``value`` is a choice."""
        if value is None and self.optional:
            return
        if not isinstance(value, str) or value not in self.choices:
            none = " or None" if self.optional else ""
            raise ParameterError(name, value, "one of " + ", ".join(self.choices) + none)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"type": "choice", "choices": [...], "none"}``."""
        return {"type": "choice", "choices": list(self.choices), "none": self.optional}

    def invalid_values(self, owner: object) -> list[object]:
        """Values this constraint refuses (for tests)."""
        return ["no-such-choice", 1] + ([] if self.optional else [None])


@dataclass(frozen=True, slots=True)
class Text:
    """A non-empty string (``optional``: ``None`` allowed too), e.g. a record field name."""

    optional: bool = False

    def check(self, name: str, value: object, owner: object) -> None:
        """Raise :class:`ParameterError` naming ``name`` unless ``value`` is such a string."""
        if value is None and self.optional:
            return
        if not isinstance(value, str) or not value:
            none = " or None" if self.optional else ""
            raise ParameterError(name, value, "a non-empty string" + none)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"type": "text", "none"}``."""
        return {"type": "text", "none": self.optional}

    def invalid_values(self, owner: object) -> list[object]:
        """Values this constraint refuses (for tests)."""
        return ["", 1] + ([] if self.optional else [None])


@dataclass(frozen=True, slots=True)
class Words:
    """A non-empty tuple (or list) of non-empty lower-case words."""

    def check(self, name: str, value: object, owner: object) -> None:
        """Raise :class:`ParameterError` naming ``name`` unless ``value`` is such a tuple."""
        if (
            isinstance(value, str)
            or not isinstance(value, tuple | list)
            or not value
            or not all(isinstance(w, str) and w and w == w.lower() for w in value)
        ):
            raise ParameterError(name, value, "a non-empty tuple of lower-case words")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready ``{"type": "words"}``."""
        return {"type": "words"}

    def invalid_values(self, owner: object) -> list[object]:
        """Values this constraint refuses (for tests)."""
        return [(), "the", ("The",), ("",), (1,)]


Constraint = Interval | Options | Words | Text


def _bound(bound: Bound, owner: object) -> Any:
    return getattr(owner, bound) if isinstance(bound, str) else bound


def validate_parameters(owner: object, constraints: Mapping[str, Constraint]) -> None:
    """Check every declared parameter of ``owner``, in declaration order.

    Raises:
        ParameterError: the first parameter out of its constraint (named, with its value
            and what is allowed).
    """
    for name, constraint in constraints.items():
        constraint.check(name, getattr(owner, name), owner)


def describe_constraints(constraints: Mapping[str, Constraint]) -> dict[str, dict[str, Any]]:
    """JSON-ready constraints: parameter name -> :meth:`Interval.as_dict` (or the like)."""
    return {name: c.as_dict() for name, c in constraints.items()}
