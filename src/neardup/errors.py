"""One exception tree for neardup.

Every error neardup raises on purpose derives from :class:`NeardupError`. Expected outcomes
(a document skipped as empty, a text too short to shingle) are *values*
(:class:`neardup.text.Skipped`), never exceptions. The CLI maps the tree to exit codes
(:class:`UsageError` -> 2, any other ``NeardupError`` -> 1) and the service to HTTP statuses
(the statuses of the collection errors are in their docstrings).
"""

from __future__ import annotations


class NeardupError(Exception):
    """Base class of every error neardup raises on purpose."""


class UsageError(NeardupError, ValueError):
    """A caller passed a value that is not allowed (bad option, bad parameter).

    The message names the parameter, the value given and what is allowed.
    """


class ParameterError(UsageError):
    """A method or job parameter is out of its allowed range or of the wrong type."""

    def __init__(self, name: str, value: object, allowed: str) -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        super().__init__(f"{name}={value!r} is not allowed: {allowed}")


class InputError(NeardupError):
    """An input (file, directory, JSONL/CSV stream) cannot be read at all."""


class DecodeError(InputError):
    """Bytes could not be decoded to text with any plausible encoding."""


class IncompatibleSignatureError(NeardupError, ValueError):
    """Two signatures made differently (method, parameters, seed, canonical form) were compared."""


class FormatError(NeardupError, ValueError):
    """Stored bytes are not in a format (or version) this neardup can read."""


class AccountingError(NeardupError, RuntimeError):
    """A job's own check failed: its records read are not its kept + removed + skipped (a
    bug of neardup, never of the input; the job stops rather than report a wrong count)."""


def check_int(name: str, value: object, *, low: int, high: int | None = None) -> int:
    """Validate an integer parameter; raise :class:`ParameterError` naming it.

    Args:
        name: parameter name used in the message.
        value: the value given.
        low: smallest allowed value (inclusive).
        high: largest allowed value (inclusive), or ``None`` for no upper bound.

    Returns:
        ``value`` as ``int``.

    Raises:
        ParameterError: ``value`` is not an int (bools are refused) or is out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterError(name, value, "an integer")
    if value < low or (high is not None and value > high):
        allowed = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high}]"
        raise ParameterError(name, value, allowed)
    return value


def check_float(
    name: str, value: object, *, low: float, high: float, low_open: bool = False
) -> float:
    """Validate a real parameter in ``[low, high]`` (``(low, high]`` if ``low_open``).

    Raises:
        ParameterError: not a real number, NaN, or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParameterError(name, value, "a number")
    v = float(value)
    bad_low = v <= low if low_open else v < low
    if v != v or bad_low or v > high:
        bracket = "(" if low_open else "["
        raise ParameterError(name, value, f"a number in {bracket}{low}, {high}]")
    return v


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """Validate a string parameter against a fixed set of choices.

    Raises:
        ParameterError: ``value`` is not one of ``choices``.
    """
    if value not in choices:
        raise ParameterError(name, value, "one of " + ", ".join(choices))
    return str(value)


class UnsupportedMethod(UsageError):
    """The method cannot back a collection (no index key for it yet)."""


class StoreError(NeardupError):
    """The database of a collection store cannot be opened, migrated or written (HTTP 503)."""


class CollectionNotFound(InputError):
    """No collection of that name (HTTP 404)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"no collection named {name!r}")


class CollectionExists(UsageError):
    """A collection of that name exists already (HTTP 409)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"a collection named {name!r} exists already")


class DocumentNotFound(InputError):
    """No document with that id in the collection (HTTP 404)."""

    def __init__(self, collection: str, doc_id: str) -> None:
        self.collection = collection
        self.doc_id = doc_id
        super().__init__(f"no document {doc_id!r} in collection {collection!r}")


class TextNotStored(DocumentNotFound):
    """The document is stored but its text is not: it was added before the store kept texts
    (migration 0003). A :class:`DocumentNotFound` (HTTP 404); ``remove`` and ``add`` the
    document again to keep its text.
    """

    def __init__(self, collection: str, doc_id: str) -> None:
        super().__init__(collection, doc_id)
        self.args = (
            f"document {doc_id!r} in collection {collection!r} has no stored text: it was "
            "added before the store kept texts (remove it and add it again to keep it)",
        )
