"""Checking a tool call's arguments against its `input_schema`, in words a model can act on.

Messages name the argument and the rule, never the value the model sent.
Policy limits a schema cannot express live in the tool handlers. Taught in chapter 08.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol, Sequence

from . import schema_subset
from ..types.sets import JSONObject
from ..types.exceptions import AtlasKitValueError

if TYPE_CHECKING:
    import jsonschema

_TYPE_WORDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


@dataclass(frozen=True)
class ArgumentProblem:
    """The argument to change (or None), what the model should do, and the validator's own words.

    `say`: what to do next when no one argument can be named (an argument the tool does not take, input that is
    not an object): the contract's `next.say`, since `next.argument` must then be left out.
    """

    argument: str | None
    message: str
    raw: str = ""
    say: str = "Check each argument against the tool's input_schema and call again."


def check_schema(schema: object, *, tool: str) -> None:
    """Refuse, at registration, an input_schema that is not a valid JSON Schema object."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise AtlasKitValueError(
            f"Tool {tool!r}: input_schema must be a JSON Schema dict with \"type\": \"object\"; "
            "every Anthropic tool needs one, even with no properties."
        )
    problem = _schema_problem(json.dumps(schema, sort_keys=True, default=repr))
    if problem:
        raise AtlasKitValueError(f"Tool {tool!r}: input_schema is not valid JSON Schema ({problem}); fix the schema.")


class _Error(Protocol):
    """What _describe reads of a validation error: jsonschema's ValidationError and schema_subset's both fit."""

    @property
    def validator(self) -> object: ...
    @property
    def validator_value(self) -> object: ...  # the rule's own value: a list for enum, a number for maximum, ...
    @property
    def path(self) -> Sequence[str | int]: ...
    @property
    def schema(self) -> object: ...
    @property
    def message(self) -> str: ...


@lru_cache(maxsize=256)
def _schema_problem(schema_json: str) -> str | None:
    # Checking a schema costs about a millisecond; sessions build the same tools thousands of times.
    schema = json.loads(schema_json)
    if schema_subset.covers(schema):  # the usual case: no need to import jsonschema (about a second)
        return schema_subset.schema_problem(schema)
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return exc.message
    return None


@lru_cache(maxsize=256)
def _prepared(schema_json: str) -> tuple[JSONObject, jsonschema.Draft202012Validator | None]:
    # Keys are sorted, so errors come in one order however the schema was written.
    schema = json.loads(schema_json)
    if schema_subset.covers(schema):
        return schema, None
    import jsonschema

    return schema, jsonschema.Draft202012Validator(schema)


def _errors(schema: JSONObject, args: JSONObject) -> list[_Error]:
    sorted_schema, validator = _prepared(json.dumps(schema, sort_keys=True))
    found: list[_Error] = [*schema_subset.errors(sorted_schema, args)] if validator is None else [*validator.iter_errors(args)]
    return sorted(found, key=lambda e: (len(e.path), e.validator != "required"))


def check_arguments(schema: JSONObject, args: object) -> ArgumentProblem | None:
    """Return the first problem with `args`, or None when they satisfy the schema."""
    if not isinstance(args, dict):
        # jsonschema's own words for it, value and all (the raw and generic styles show them).
        return ArgumentProblem(None, "The tool input must be a JSON object of named arguments; call the tool again with one.",
                               f"jsonschema.exceptions.ValidationError: {args!r} is not of type 'object'",
                               say="Call the tool again with its arguments as one JSON object, each under its name.")
    errors = _errors(schema, args)
    if not errors:
        return None
    problem = _describe(errors[0], schema, args)
    # What a library would have said, value and all: shown only in the raw and generic styles.
    return replace(problem, raw=f"jsonschema.exceptions.ValidationError: {errors[0].message}")


def _describe(err: _Error, schema: JSONObject, args: JSONObject) -> ArgumentProblem:
    props = schema.get("properties", {})
    names = ", ".join(sorted(props)) or "none"
    if err.validator == "required":
        missing = [n for n in _items(err.validator_value) if isinstance(n, str) and n not in args and n in props]
        name = missing[0] if missing else None
        if name:
            return ArgumentProblem(name, f"Argument {name} is required; call the tool again with it.")
        return ArgumentProblem(None, "A required argument is missing; check the tool's input_schema and call again.",
                               say="Call the tool again with every argument its input_schema requires.")
    if err.validator == "additionalProperties" and not err.path:
        return ArgumentProblem(None, f"An argument this tool does not take was passed; it accepts only: {names}.",
                               say="Leave out the argument it does not take and call the tool again.")
    top = err.path[0] if err.path else None
    name = top if isinstance(top, str) and top in props else None
    if name is None:
        return ArgumentProblem(None, "The arguments do not match the tool's input_schema; check each argument's type and call again.")
    rule = err.schema if isinstance(err.schema, dict) else {}
    return ArgumentProblem(name, _broken_rule(name, err.validator, err.validator_value, rule)
                           + " Change it and call the tool again.")


def _broken_rule(name: str, v: object, value: object, rule: JSONObject) -> str:
    """What argument `name` must be, from the rule `v` (with its `value`) it broke; never the value the model sent."""
    if v == "type":
        want = rule.get("type")
        words = " or ".join(_TYPE_WORDS.get(str(t), str(t)) for t in (want if isinstance(want, list) else [want]))
        return f"Argument {name} must be {words}."
    if v == "enum":
        return f"Argument {name} must be one of: {', '.join(str(x) for x in _items(value))}."
    if v in ("minimum", "exclusiveMinimum"):
        return f"Argument {name} must be at least {value}."
    if v in ("maximum", "exclusiveMaximum"):
        return f"Argument {name} must be at most {value}."
    if v == "minLength":
        return f"Argument {name} must not be empty." if value == 1 else f"Argument {name} must be at least {value} characters."
    if v == "maxLength":
        return f"Argument {name} must be at most {value} characters."
    if v == "minItems":
        return f"Argument {name} must hold at least {value} item{'' if value == 1 else 's'}."
    if v == "maxItems":
        return f"Argument {name} must hold at most {value} item{'' if value == 1 else 's'}."
    if v in ("pattern", "format") and rule.get("examples"):
        return f"Argument {name} must look like {rule['examples'][0]}."
    if v == "pattern" and len(str(value)) <= 60:
        # The tool's own pattern, already in its definition; the value the model sent is never quoted.
        return f"Argument {name} must match the pattern {value}."
    return f"Argument {name} is not in the form its schema describes."


def _items(value: object) -> list[object]:
    """A rule's list (required names, enum members); a checked schema gives a list, anything else is one item."""
    return list(value) if isinstance(value, (list, tuple)) else [value]
