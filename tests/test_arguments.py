"""Argument checking: the words a model reads, and the subset validator that spares importing jsonschema.

The reference is jsonschema itself: for every schema the subset covers, the errors (keyword,
path, message, order) must be the ones jsonschema yields, and a schema is refused exactly
when jsonschema's meta-schema check refuses it.
"""
from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.contract import schema_subset
from atlas_kit.contract.arguments import check_arguments, check_schema
from atlas_kit.atlas import atlas_session

ATLAS_SCHEMAS = [d["input_schema"] for d in atlas_session("T01").dispatcher.definitions()]


def _reference(schema: dict, instance: object) -> list[tuple[str, list, str]]:
    ordered = json.loads(json.dumps(schema, sort_keys=True))
    found = sorted(jsonschema.Draft202012Validator(ordered).iter_errors(instance),
                   key=lambda e: (len(e.path), e.validator != "required"))
    return [(e.validator, list(e.path), e.message) for e in found]


def _subset(schema: dict, instance: object) -> list[tuple[str, list, str]]:
    ordered = json.loads(json.dumps(schema, sort_keys=True))
    found = sorted(schema_subset.errors(ordered, instance), key=lambda e: (len(e.path), e.validator != "required"))
    return [(e.validator, list(e.path), e.message) for e in found]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 70) | st.floats(-5, 70, allow_nan=False) | st.sampled_from(
        ["", "ACC-4471", "4471", "ORD-1", "paid", "detailed", "SKU-3300", "east", "x" * 90]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
    max_leaves=4,
)


@st.composite
def atlas_arguments(draw: st.DrawFn) -> tuple[dict, dict]:
    schema = draw(st.sampled_from(ATLAS_SCHEMAS))
    names = sorted(schema.get("properties", {})) + ["unexpected", "amount_cents"]
    args = draw(st.dictionaries(st.sampled_from(names), json_values, max_size=5))
    return schema, args


def test_atlas_schemas_are_all_covered_by_the_subset():
    assert ATLAS_SCHEMAS and all(schema_subset.covers(s) for s in ATLAS_SCHEMAS)


@settings(max_examples=200, deadline=None)
@given(atlas_arguments())
def test_subset_errors_equal_jsonschema_on_atlas_tools(case):
    schema, args = case
    assert _subset(schema, args) == _reference(schema, args)


small_schema = st.recursive(
    st.fixed_dictionaries({}, optional={
        "type": st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object"])
        | st.lists(st.sampled_from(["string", "integer", "null"]), min_size=1, max_size=2, unique=True),
        "enum": st.lists(st.sampled_from(["a", "b", 1, 2.0, True, None]), min_size=1, max_size=3),
        "const": st.sampled_from(["a", 0, False, None]),
        "pattern": st.sampled_from(["^a", "[0-9]{2}$", "b"]),
        "minLength": st.integers(0, 3), "maxLength": st.integers(0, 3),
        "minimum": st.integers(0, 5), "maximum": st.integers(0, 5),
        "exclusiveMinimum": st.integers(0, 5), "exclusiveMaximum": st.floats(0, 5),
        "minItems": st.integers(0, 2), "maxItems": st.integers(0, 2),
        "description": st.just("words"), "format": st.sampled_from(["date", "iri", "email"]),
    }),
    lambda inner: st.fixed_dictionaries({"type": st.just("object")}, optional={
        "properties": st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
        "required": st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=2),
        "additionalProperties": st.booleans() | inner,
    }) | st.fixed_dictionaries({"type": st.just("array"), "items": inner}),
    max_leaves=5,
)


@settings(max_examples=200, deadline=None)
@given(small_schema, st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), json_values, max_size=4) | json_values)
def test_subset_errors_equal_jsonschema_on_generated_schemas(schema, instance):
    assert schema_subset.covers(schema)
    assert _subset(schema, instance) == _reference(schema, instance)


broken_schema = st.fixed_dictionaries({"type": st.just("object")}, optional={
    "properties": st.dictionaries(st.sampled_from(["a", "b"]), st.fixed_dictionaries({}, optional={
        "type": st.sampled_from(["string", "strin", "integer", 3, ["string", "string"], []]),
        "minLength": st.sampled_from([0, 2, -1, 1.5, "2"]),
        "maximum": st.sampled_from([3, 2.5, "3", True]),
        "pattern": st.sampled_from(["^a", "(", "[0-9"]),
        "enum": st.sampled_from([["a"], "a", []]),
        "description": st.sampled_from(["x", 3]),
    }), max_size=2),
    "required": st.sampled_from([["a"], "a", ["a", "a"], [1]]),
})


@settings(max_examples=200, deadline=None)
@given(broken_schema)
def test_schema_problems_agree_with_jsonschema(schema):
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        valid = True
    except jsonschema.SchemaError:
        valid = False
    if schema_subset.covers(schema):
        assert (schema_subset.schema_problem(schema) is None) == valid, schema_subset.schema_problem(schema)
    try:
        check_schema(schema, tool="t")
        accepted = True
    except ValueError:
        accepted = False
    assert accepted == valid


def test_a_schema_outside_the_subset_still_uses_jsonschema():
    schema = {"type": "object", "properties": {"x": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}
    assert not schema_subset.covers(schema)
    problem = check_arguments(schema, {"x": 1.5})
    assert problem is not None and problem.argument == "x"
    assert problem.raw.startswith("jsonschema.exceptions.ValidationError: 1.5 is not valid under any")
    with pytest.raises(ValueError, match="not valid JSON Schema"):
        check_schema({"type": "object", "properties": {"x": {"anyOf": "no"}}}, tool="t")


@pytest.mark.parametrize("args, argument, words", [
    ({}, "account_id", "Argument account_id is required; call the tool again with it."),
    ({"account_id": "4471"}, "account_id", "Argument account_id must look like ACC-4471. Change it and call the tool again."),
    ({"account_id": 4471}, "account_id", "Argument account_id must be a string. Change it and call the tool again."),
    ({"account_id": "ACC-4471", "colour": "red"}, None, "An argument this tool does not take was passed; it accepts only:"),
])
def test_messages_name_the_argument_and_never_the_value(args, argument, words):
    schema = next(s for s in ATLAS_SCHEMAS if s.get("required") == ["account_id"])
    problem = check_arguments(schema, args)
    assert problem is not None and problem.argument == argument
    assert problem.message.startswith(words)
    assert all(repr(value) not in problem.message for value in args.values())
    assert "colour" not in problem.message


def test_valid_arguments_and_non_objects():
    schema = next(s for s in ATLAS_SCHEMAS if s.get("required") == ["account_id"])
    assert check_arguments(schema, {"account_id": "ACC-4471"}) is None
    problem = check_arguments(schema, ["ACC-4471"])
    assert problem is not None and problem.argument is None and "JSON object" in problem.message


@pytest.mark.parametrize("schema, fragment", [
    ({"type": "object", "properties": {"a": {"type": "strin"}}}, "type"),
    ({"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}}, "pattern"),
    ({"type": "object", "required": "a"}, "required"),
])
def test_check_schema_refuses_invalid_schemas(schema, fragment):
    with pytest.raises(ValueError, match=f"not valid JSON Schema.*{fragment}"):
        check_schema(schema, tool="t")


def test_atlas_validation_does_not_import_jsonschema():
    # The point of the subset: a notebook kernel validating Atlas tools never pays jsonschema's import.
    code = ("import sys; from atlas_kit.atlas import atlas_session; from atlas_kit import run_agent; "
            "from atlas_kit.models import offline_client\n"
            "run_agent(offline_client(seed=0), atlas_session('T19', style='contract', faults=True), model='atlas-offline-1')\n"
            "print('jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
