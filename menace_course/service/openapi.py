"""The OpenAPI 3.1 document of the JSON API, built from the code that serves it.

Nothing here is written by hand twice:

- the **paths** are the app's own routes (``app.url_map``): a view joins the document by
  carrying :func:`documented`, and its path and method come from its route;
- the **request and reply bodies** are the marshmallow schemas in :mod:`.schemas`, the
  same ones that validate requests (apispec's marshmallow plugin turns them into JSON
  Schema), so the document cannot drift from what is accepted;
- the **report** (what ``menace check --format json`` prints) is derived from the
  dataclasses of :mod:`menace_course.models` by :func:`dataclass_schema`.

apispec (marshmallow-code) was chosen over flask-smorest, spectree and flasgger: it
only builds the document and owns no part of request handling, so the API keeps its own
error format and its own auth, and it brings one small pure-Python dependency
(marshmallow) instead of a framework on top of Flask or pydantic.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask

from menace_course import __version__
from menace_course.models import SubmissionReport

View = TypeVar("View", bound=Callable[..., Any])
_RULE_ARG = re.compile(r"<(?:[a-z_]+:)?([a-z_]+)>")


def documented(**operation: Any) -> Callable[[View], View]:
    """Put the view in the OpenAPI document with this operation object (summary, responses, ...)."""

    def mark(view: View) -> View:
        view.__openapi__ = operation  # type: ignore[attr-defined]
        return view

    return mark


def _json_type(hint: Any, refs: dict[str, Any]) -> dict[str, Any]:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [_json_type(h, refs) for h in typing.get_args(hint) if h is not type(None)]
        return (
            {"anyOf": [*options, {"type": "null"}]}
            if type(None) in typing.get_args(hint)
            else {"anyOf": options}
        )
    if origin in (tuple, list):
        args = [a for a in typing.get_args(hint) if a is not Ellipsis]
        return {"type": "array", "items": _json_type(args[0], refs) if args else {}}
    if origin is dict:
        return {"type": "object"}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return {"type": "string", "enum": [m.value for m in hint]}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        refs[hint.__name__] = dataclass_schema(hint, refs)
        return {"$ref": f"#/components/schemas/{hint.__name__}"}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if hint in simple:
        return {"type": simple[hint]}
    return {}


def dataclass_schema(kind: type, refs: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema of a results-model dataclass, from its type hints and docstring."""
    hints = typing.get_type_hints(kind)
    properties: dict[str, Any] = {}
    required = []
    for field in dataclasses.fields(kind):
        if field.name.startswith("_"):
            continue
        properties[field.name] = _json_type(hints[field.name], refs)
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            required.append(field.name)
    schema: dict[str, Any] = {
        "type": "object",
        "description": (kind.__doc__ or "").strip().splitlines()[0],
        "properties": properties,
        "required": required,
    }
    return schema


def report_schemas() -> dict[str, Any]:
    """``Report`` (``menace check --format json``) and the schemas it refers to."""
    refs: dict[str, Any] = {}
    report = dataclass_schema(SubmissionReport, refs)
    report["properties"]["passed"] = {"type": "boolean"}
    report["required"].append("passed")
    report["description"] = "Exactly what `menace check --format json` prints (docs/json-schema.md)."
    refs["Report"] = report
    return refs


def build_spec(app: Flask) -> dict[str, Any]:
    """The OpenAPI document of every documented route of ``app``."""
    from menace_course.service import schemas

    spec = APISpec(
        title="menace-course check service",
        version=__version__,
        openapi_version="3.1.0",
        plugins=[MarshmallowPlugin()],
        info={
            "description": "Check a submission against a challenge's visible and hidden tests. "
            "See docs/api.md."
        },
    )
    spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    for name, schema in report_schemas().items():
        spec.components.schema(name, schema)
    for name in schemas.DOCUMENTED:
        spec.components.schema(name.removesuffix("Schema"), schema=getattr(schemas, name))
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        operation = getattr(app.view_functions[rule.endpoint], "__openapi__", None)
        if operation is None:
            continue
        path = _RULE_ARG.sub(r"{\1}", rule.rule)
        methods = sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})
        spec.path(path=path, operations={m.lower(): operation for m in methods})
    document: dict[str, Any] = spec.to_dict()
    return document
