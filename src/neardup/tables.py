"""Result rows as tables: the ``to_arrow()`` / ``to_pandas()`` of every result object.

One rule for all of them: a table holds the rows of the result's JSON lines (``as_dict()``
of each item, the columns named alike and in the same order), with document ids, never
internal document numbers. Column types are fixed (also for an empty result), so tables of
two runs concatenate.

pyarrow is a dependency of neardup; pandas is not (``pip install pandas``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from neardup.errors import InputError

#: Column kinds: ``str``, ``int``, ``float``, ``bool``, ``list[str]``, ``json``
#: (a JSON-ready value written as its JSON text).
ColumnKind = str


def need_pyarrow() -> Any:
    """The ``pyarrow`` module.

    Raises:
        InputError: pyarrow is not installed (the message says how to install it).
    """
    try:
        import pyarrow as pa
    except ModuleNotFoundError:
        raise InputError("to_arrow() needs pyarrow: pip install pyarrow") from None
    return pa


def need_pandas() -> Any:
    """The ``pandas`` module.

    Raises:
        InputError: pandas is not installed (the message says how to install it).
    """
    try:
        import pandas as pd
    except ModuleNotFoundError:
        raise InputError("to_pandas() needs pandas: pip install pandas") from None
    return pd


def arrow_type(kind: ColumnKind) -> Any:
    """The ``pyarrow.DataType`` of a column kind.

    Raises:
        ValueError: an unknown kind.
    """
    pa = need_pyarrow()
    types = {
        "str": pa.string(),
        "int": pa.int64(),
        "float": pa.float64(),
        "bool": pa.bool_(),
        "list[str]": pa.list_(pa.string()),
        "json": pa.string(),
    }
    if kind not in types:
        raise ValueError(f"unknown column kind {kind!r}: one of {sorted(types)}")
    return types[kind]


def _column(rows: list[Mapping[str, Any]], name: str, kind: ColumnKind) -> list[Any]:
    if kind == "json":
        import json

        return [None if r[name] is None else json.dumps(r[name], ensure_ascii=False) for r in rows]
    return [r[name] for r in rows]


def rows_to_arrow(rows: Iterable[Mapping[str, Any]], columns: Mapping[str, ColumnKind]) -> Any:
    """``rows`` as a ``pyarrow.Table`` with ``columns`` (name -> kind), in that order.

    Args:
        rows: JSON-ready mappings holding at least the named keys.
        columns: column name -> kind (see :data:`ColumnKind`).

    Returns:
        ``pyarrow.Table`` of ``len(rows)`` rows, typed also when there are no rows.

    Raises:
        InputError: pyarrow is not installed.
    """
    pa = need_pyarrow()
    rows = list(rows)
    return pa.table(
        {name: pa.array(_column(rows, name, kind), type=arrow_type(kind))
         for name, kind in columns.items()}
    )  # fmt: skip


def rows_to_pandas(rows: Iterable[Mapping[str, Any]], columns: Mapping[str, ColumnKind]) -> Any:
    """``rows`` as a ``pandas.DataFrame`` with ``columns`` (name -> kind), in that order.

    The values are those of :func:`rows_to_arrow` (``list[str]`` cells are Python lists,
    ``json`` cells JSON text); integer and float columns keep int64 / float64 when empty.

    Raises:
        InputError: pandas is not installed.
    """
    pd = need_pandas()
    rows = list(rows)
    dtypes = {"int": "int64", "float": "float64", "bool": "bool"}
    return pd.DataFrame({
        name: pd.Series(_column(rows, name, kind), dtype=dtypes.get(kind, object))
        for name, kind in columns.items()
    })  # fmt: skip
