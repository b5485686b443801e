"""The store's method cache: each collection's built method, its fitted copy (lexical
methods) and the parsed collection row a check reuses, with the method's plan
(:func:`neardup.methods.plan.plan_for`, made once per collection row instead of three times a
check).

Thread-safe (one lock). A collection's entries are dropped by :meth:`MethodCache.forget`
when it is deleted; a fitted method is kept with the marker of the documents it was
fitted on (their count and largest id) and rebuilt when the marker moves.
"""

from __future__ import annotations

import threading
from typing import Any

from neardup.index.methods import build_method
from neardup.index.results import CollectionInfo
from neardup.methods.base import Method
from neardup.methods.plan import MethodPlan, plan_for
from neardup.store.catalog import dumps

#: Collections whose parsed row and method a check keeps (cleared when full).
CHECKED_MAX = 256

#: What a check keeps of a collection: its parsed row, built method and the method's plan.
Checked = tuple[CollectionInfo, Method, MethodPlan]


class MethodCache:
    """Built methods by collection (and parameters), fitted ones by collection, and the
    collections a check saw (by name, with their raw row)."""

    def __init__(self) -> None:
        self._methods: dict[tuple[int, str], Method] = {}
        self._fitted: dict[int, tuple[tuple[int, int], Method]] = {}
        self._checked: dict[str, tuple[tuple[Any, ...], Checked]] = {}
        self._lock = threading.Lock()

    def method(self, info: CollectionInfo) -> Method:
        """The collection's method (built once, not fitted).

        Raises:
            UnsupportedMethod / ParameterError: the stored method cannot be built.
        """
        key = (info.id, dumps(info.params) + dumps(info.canonical))
        with self._lock:
            meth = self._methods.get(key)
        if meth is None:
            meth = build_method(info.method, info.params, info.canonical)
            with self._lock:
                self._methods[key] = meth
        return meth

    def fitted(self, collection_id: int, marker: tuple[int, int]) -> Method | None:
        """The method fitted on the documents ``marker`` describes, if kept."""
        with self._lock:
            cached = self._fitted.get(collection_id)
        return cached[1] if cached is not None and cached[0] == marker else None

    def keep_fitted(self, collection_id: int, marker: tuple[int, int], meth: Method) -> None:
        """Keep ``meth`` as fitted on the documents ``marker`` describes."""
        with self._lock:
            self._fitted[collection_id] = (marker, meth)

    def drop_fitted(self, collection_id: int) -> None:
        """Forget the fitted method (the statistics changed)."""
        with self._lock:
            self._fitted.pop(collection_id, None)

    def checked(self, name: str, raw: tuple[Any, ...]) -> Checked | None:
        """The collection, method and plan a check kept for ``name``, if its row is still
        ``raw``."""
        with self._lock:
            cached = self._checked.get(name)
        if cached is not None and cached[0] == raw:
            return cached[1]
        return None

    def reads_only(self, name: str) -> bool:
        """Whether the last check of ``name`` needed no fit: its method's keys and
        signatures do not depend on word statistics, so a check reads the database and
        never writes (no recompute). ``False`` for a collection no check has seen yet."""
        with self._lock:
            cached = self._checked.get(name)
        return cached is not None and not cached[1][2].needs_fit

    def keep_checked(
        self, name: str, raw: tuple[Any, ...], info: CollectionInfo, meth: Method
    ) -> Checked:
        """Keep a checked collection with its plan (``plan_for(meth, info)``), and return
        them (all are dropped when :data:`CHECKED_MAX` are kept).

        Raises:
            ParameterError: the method's own rule cannot decide on the collection's measure
                (:func:`~neardup.methods.plan.plan_for`).
        """
        kept = (info, meth, plan_for(meth, info))
        with self._lock:
            if len(self._checked) >= CHECKED_MAX:
                self._checked.clear()
            self._checked[name] = (raw, kept)
        return kept

    def forget(self, collection_id: int) -> None:
        """Drop everything kept for a collection (it was deleted)."""
        with self._lock:
            self._fitted.pop(collection_id, None)
            self._checked.clear()
            for key in [k for k in self._methods if k[0] == collection_id]:
                del self._methods[key]
