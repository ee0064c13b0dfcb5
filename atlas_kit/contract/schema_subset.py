"""JSON Schema for the keywords tool schemas use, without importing jsonschema.

`import jsonschema` costs about a second, almost all of it a URI grammar for a `format` that
no tool schema uses. This module validates the common subset (types, properties, required,
enum, pattern, lengths, bounds, items) with jsonschema's own error order and wording; a
schema with any other keyword returns None here, and the caller uses jsonschema itself.
Chapter 08 teaches what the errors become; tests/test_arguments.py checks both agree.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from numbers import Number
from typing import Any, Iterator, TypeGuard

from ..types.sets import JSONObject

# Keywords that only annotate: jsonschema without a format checker ignores them when validating.
_ANNOTATIONS = {"description", "examples", "title", "default", "$comment", "deprecated", "readOnly", "writeOnly",
                "format", "$schema"}
_CHECKED = {"type", "properties", "required", "additionalProperties", "enum", "const", "pattern", "minLength",
            "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "items", "minItems", "maxItems"}
_NESTING = {"properties", "additionalProperties", "items"}  # keywords whose values are subschemas (see _nested)
_TYPES = {"array", "boolean", "integer", "null", "number", "object", "string"}
_SCALAR = (str, int, float, bool, type(None))


@dataclass(frozen=True)
class SchemaError:
    """One validation error, shaped like jsonschema's: keyword, its value, instance path, subschema, message."""

    validator: str
    validator_value: Any
    path: tuple[str | int, ...]
    schema: JSONObject
    message: str


def covers(schema: object) -> bool:
    """True when every keyword in `schema` (recursively) is one this module implements."""
    return _covers(schema)


def _covers(schema: object) -> bool:
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or not set(schema) <= _CHECKED | _ANNOTATIONS:
        return False
    for key in ("enum", "const"):
        values = schema.get(key, []) if key == "enum" else [schema.get(key)]
        if key in schema and not (isinstance(values, list) and all(isinstance(v, _SCALAR) for v in values)):
            return False
    subs = list(schema.get("properties", {}).values()) if isinstance(schema.get("properties"), dict) else []
    subs += [schema[k] for k in ("items", "additionalProperties") if k in schema]
    return all(_covers(s) for s in subs)


def _is(instance: object, kind: str) -> bool:
    if kind == "object":
        return isinstance(instance, dict)
    if kind == "array":
        return isinstance(instance, list)
    if kind == "string":
        return isinstance(instance, str)
    if kind == "boolean":
        return isinstance(instance, bool)
    if kind == "null":
        return instance is None
    if isinstance(instance, bool):
        return False
    if kind == "integer":
        return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
    return kind == "number" and isinstance(instance, Number)


def _equal(one: object, two: object) -> bool:
    # jsonschema's equality: True is not 1 and False is not 0 (enum and const values here are scalars).
    if one is two:
        return True
    if isinstance(one, bool) or isinstance(two, bool):
        return False
    return bool(one == two)


def _iter(schema: JSONObject | bool, instance: object, path: tuple[str | int, ...]) -> Iterator[SchemaError]:
    # The same order as jsonschema: the schema's keywords in their written order.
    if schema is True:
        return
    if schema is False:
        yield SchemaError("false", False, path, {}, f"False schema does not allow {instance!r}")
        return
    for key, value in schema.items():
        if key in _ANNOTATIONS:  # most keys of a tool's schema are descriptions: nothing to check
            continue
        yield from (SchemaError(key, value, path, schema, message) for message in _failed(schema, key, instance))
        if key in _NESTING:
            yield from _nested(schema, key, instance, path)


def _failed(schema: JSONObject, key: str, instance: object) -> list[str]:
    """What the schema's keyword `key` says is wrong with `instance` itself (its subschemas are _nested's)."""
    value = schema[key]
    if key == "type":
        kinds = [value] if isinstance(value, str) else value
        if any(_is(instance, k) for k in kinds):
            return []
        return [f"{instance!r} is not of type {', '.join(repr(k) for k in kinds)}"]
    if key == "enum" and all(not _equal(each, instance) for each in value):
        return [f"{instance!r} is not one of {value!r}"]
    if key == "const" and not _equal(instance, value):
        return [f"{value!r} was expected"]
    if key == "pattern" and isinstance(instance, str) and not re.search(value, instance):
        return [f"{instance!r} does not match {value!r}"]
    if key in ("minLength", "minItems") and _sized(instance, key) and len(instance) < value:
        return [f"{instance!r} {'should be non-empty' if value == 1 else 'is too short'}"]
    if key in ("maxLength", "maxItems") and _sized(instance, key) and len(instance) > value:
        return [f"{instance!r} {'is expected to be empty' if value == 0 else 'is too long'}"]
    if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") and _is(instance, "number") \
            and isinstance(instance, (int, float)):  # arguments come from JSON: a number is an int or a float
        message = _bound(key, value, instance)
        return [message] if message else []
    if key == "required" and isinstance(instance, dict):
        return [f"{name!r} is a required property" for name in value if name not in instance]
    if key == "additionalProperties" and value is False and isinstance(instance, dict):
        extras = [name for name in instance if name not in schema.get("properties", {})]
        if extras:
            shown = ", ".join(repr(e) for e in sorted(set(extras), key=str))
            were = "was" if len(extras) == 1 else "were"
            return [f"Additional properties are not allowed ({shown} {were} unexpected)"]
    return []


def _nested(schema: JSONObject, key: str, instance: object, path: tuple[str | int, ...]) -> Iterator[SchemaError]:
    """The errors of the subschemas `key` applies to parts of `instance` (properties, additionalProperties, items)."""
    value = schema[key]
    if key == "properties" and isinstance(instance, dict):
        for name, sub in value.items():
            if name in instance:
                yield from _iter(sub, instance[name], (*path, name))
    elif key == "additionalProperties" and isinstance(instance, dict) and isinstance(value, dict):
        extras = [name for name in instance if name not in schema.get("properties", {})]
        for name in set(extras):  # jsonschema walks a set here; so do we, for the same order
            yield from _iter(value, instance[name], (*path, name))
    elif key == "items" and isinstance(instance, list):
        for index, item in enumerate(instance):
            yield from _iter(value, item, (*path, index))


def _sized(instance: object, key: str) -> TypeGuard[str | list[object]]:
    return isinstance(instance, str) if key.endswith("Length") else isinstance(instance, list)


def _bound(key: str, value: float, instance: float) -> str | None:
    if key == "minimum" and instance < value:
        return f"{instance!r} is less than the minimum of {value!r}"
    if key == "maximum" and instance > value:
        return f"{instance!r} is greater than the maximum of {value!r}"
    if key == "exclusiveMinimum" and instance <= value:
        return f"{instance!r} is less than or equal to the minimum of {value!r}"
    if key == "exclusiveMaximum" and instance >= value:
        return f"{instance!r} is greater than or equal to the maximum of {value!r}"
    return None


def errors(schema: JSONObject, instance: object) -> list[SchemaError]:
    """Every error, in jsonschema's order, for a schema `covers` accepts."""
    return list(_iter(schema, instance, ()))


def schema_problem(schema: object) -> str | None:
    """What makes a covered schema invalid JSON Schema (draft 2020-12), or None."""
    return _problem(schema, "schema")


def _problem(schema: object, where: str) -> str | None:
    if isinstance(schema, bool):
        return None
    if not isinstance(schema, dict):
        return f"{where} must be an object or a boolean"
    kinds = schema.get("type", "object")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if not isinstance(kinds, list) or not kinds or any(k not in _TYPES for k in kinds) or len(set(kinds)) < len(kinds):
        return f"{where}.type {schema.get('type')!r} is not one of {sorted(_TYPES)}"
    for key in ("minLength", "maxLength", "minItems", "maxItems"):
        if key in schema and not (_is(schema[key], "integer") and schema[key] >= 0):
            return f"{where}.{key} must be a whole number of 0 or more"
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if key in schema and not _is(schema[key], "number"):
            return f"{where}.{key} must be a number"
    if "pattern" in schema:
        try:
            re.compile(schema["pattern"])
        except (re.error, TypeError):
            return f"{where}.pattern {schema['pattern']!r} is not a regular expression"
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required) or len(set(required)) < len(required):
        return f"{where}.required must be a list of distinct property names"
    for key in ("description", "title", "format", "$comment"):
        if key in schema and not isinstance(schema[key], str):
            return f"{where}.{key} must be a string"
    for key in ("enum", "examples"):
        if key in schema and not isinstance(schema[key], list):
            return f"{where}.{key} must be a list"
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        return f"{where}.properties must be an object of schemas"
    subs = [(f"{where}.properties.{name}", sub) for name, sub in props.items()]
    subs += [(f"{where}.{k}", schema[k]) for k in ("items", "additionalProperties") if k in schema]
    return next((p for p in (_problem(sub, w) for w, sub in subs) if p), None)

