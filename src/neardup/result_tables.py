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


def need(module: str, caller: str) -> Any:
    """The optional dependency ``module`` (``pyarrow``, ``pandas``), imported.

    Raises:
        InputError: it is not installed (the message names ``caller`` and how to install it).
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ModuleNotFoundError:
        raise InputError(f"{caller} needs {module}: pip install {module}") from None


def arrow_type(kind: ColumnKind) -> Any:
    """The ``pyarrow.DataType`` of a column kind.

    Raises:
        ValueError: an unknown kind.
    """
    pa = need("pyarrow", "to_arrow()")
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
    pa = need("pyarrow", "to_arrow()")
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
    pd = need("pandas", "to_pandas()")
    rows = list(rows)
    dtypes = {"int": "int64", "float": "float64", "bool": "bool"}
    return pd.DataFrame({
        name: pd.Series(_column(rows, name, kind), dtype=dtypes.get(kind, object))
        for name, kind in columns.items()
    })  # fmt: skip
