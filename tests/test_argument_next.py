"""Issue 29's contract messages, below the MCP server: a length bound is said as it is, and an argument error's `next`
names an argument of the tool or none (never "input", never a name the model made up), and then says what to do."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.atlas import atlas_session
from atlas_kit.contract.arguments import check_arguments
from atlas_kit.dispatch.dispatcher import argument_error

SCHEMAS = {d["name"]: d["input_schema"] for d in atlas_session("T01").dispatcher.definitions()}
values = st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=12) | st.lists(st.integers(), max_size=2)
names = st.sampled_from(["account_id", "order_id", "reason", "input", "answer", "zz_made_up", "queue", "amount_cents"])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(SCHEMAS)), st.dictionaries(names, values, max_size=4) | values)
def test_next_names_an_argument_of_the_tool_or_none(tool, arguments):
    schema = SCHEMAS[tool]
    problem = check_arguments(schema, arguments)
    if problem is None:
        return
    nxt = argument_error("t1", problem).body()["next"]
    assert nxt["branch"] == "retry_changed" and nxt["say"]
    assert nxt.get("argument") in (None, *schema["properties"])


@pytest.mark.parametrize("least, said", [(1, "must not be empty"), (2, "must be at least 2 characters"),
                                         (10, "must be at least 10 characters")])
def test_a_min_length_is_said_as_its_bound(least, said):
    schema = {"type": "object", "properties": {"note": {"type": "string", "minLength": least}}}
    problem = check_arguments(schema, {"note": ""})
    assert problem is not None and problem.argument == "note" and said in problem.message


def test_item_counts_are_said_as_their_bounds():
    schema = {"type": "object", "properties": {"ids": {"type": "array", "minItems": 2, "maxItems": 3}}}
    few, many = check_arguments(schema, {"ids": [1]}), check_arguments(schema, {"ids": [1, 2, 3, 4]})
    assert few is not None and "must hold at least 2 items" in few.message
    assert many is not None and "must hold at most 3 items" in many.message


def test_an_unknown_argument_and_input_that_is_not_an_object_say_what_to_send():
    unknown = argument_error("t1", check_arguments(SCHEMAS["get_account"], {"account_id": "ACC-4471", "colour": 1}))
    loose = argument_error("t1", check_arguments(SCHEMAS["get_account"], "ACC-4471"))
    for error, words in ((unknown, "Leave out the argument it does not take"), (loose, "one JSON object")):
        assert error.next is not None and error.next.argument is None and words in error.next.say
    # The raw style's words for input that is not an object are jsonschema's, as for any other schema failure.
    assert check_arguments(SCHEMAS["get_account"], "ACC-4471").raw == (
        "jsonschema.exceptions.ValidationError: 'ACC-4471' is not of type 'object'")
