"""The API's response models, derived from the result types (:mod:`neardup.index.results`).

Each model is made from the dataclass's fields and type hints (:func:`result_model`), with
the renames, omissions and additions of its ``as_dict`` (``doc_id`` is ``id``, a
collection's database ``id`` is left out, a check's ``duplicate`` is added): the OpenAPI
schema describes what the routes send, and a result type that gains a field gains it in the
schema. ``tests/service/test_schemas.py`` checks that every model's fields are exactly the
keys its ``as_dict`` gives on real results, so the two cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from neardup.index.results import (
    AddReport,
    CheckResult,
    CollectionInfo,
    DocumentInfo,
    DocumentPage,
    Match,
    SkippedDoc,
)
from neardup.store.recompute import RecomputeReport


def _json_type(hint: Any, nested: Mapping[type, type[BaseModel]]) -> Any:
    """The JSON type of a field's hint: ``datetime`` an ISO 8601 string, ``tuple[X, ...]``
    a list, a nested result type its model."""
    if hint is datetime:
        return str
    if isinstance(hint, type) and hint in nested:
        return nested[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return list[_json_type(args[0], nested)]  # type: ignore[misc]
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(_json_type(a, nested) for a in args)]  # noqa: UP007
    return hint


def result_model(
    cls: type,
    *,
    name: str | None = None,
    rename: Mapping[str, str] | None = None,
    drop: tuple[str, ...] = (),
    extra: Mapping[str, Any] | None = None,
    nested: Mapping[type, type[BaseModel]] | None = None,
) -> type[BaseModel]:
    """A pydantic model of ``cls.as_dict()`` derived from the dataclass ``cls``.

    Args:
        cls: a result dataclass; name: the model's name (default ``cls.__name__``).
        rename: field name -> key in ``as_dict``; drop: fields ``as_dict`` leaves out;
        extra: keys ``as_dict`` adds, with their types (after the fields).
        nested: result types held by ``cls`` -> their models.

    Returns:
        The model, every field required (``as_dict`` always gives every key).
    """
    hints = typing.get_type_hints(cls)
    names = rename or {}
    fields: dict[str, Any] = {
        names.get(f.name, f.name): (_json_type(hints[f.name], nested or {}), ...)
        for f in dataclasses.fields(cls)
        if f.name not in drop
    }
    fields.update({k: (t, ...) for k, t in (extra or {}).items()})
    model: type[BaseModel] = create_model(
        name or cls.__name__,
        __config__=ConfigDict(extra="forbid"),
        __doc__=(cls.__doc__ or "").split("\n\n")[0],
        **fields,
    )
    return model


SkippedOut = result_model(SkippedDoc)
AddReportOut = result_model(AddReport, nested={SkippedDoc: SkippedOut})
CollectionOut = result_model(CollectionInfo, drop=("id",))
MatchOut = result_model(Match, rename={"doc_id": "id"})
CheckOut = result_model(CheckResult, nested={Match: MatchOut}, extra={"duplicate": bool})
DocumentOut = result_model(
    DocumentInfo, name="Document", rename={"doc_id": "id"}, extra={"text": str | None}
)
PageDocumentOut = result_model(
    DocumentInfo,
    name="PageDocument",
    rename={"doc_id": "id", "length": "tokens"},
    drop=("content_hash", "shingles"),
)
DocumentPageOut = result_model(DocumentPage, nested={DocumentInfo: PageDocumentOut})
RecomputeOut = result_model(RecomputeReport)
#: ``GET /collections``: every collection.
CollectionListOut: Any = list[CollectionOut]  # type: ignore[valid-type]
