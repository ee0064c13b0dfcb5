"""The trace and the redaction every record, cassette and transcript goes through."""
from __future__ import annotations

import json
from collections import OrderedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from atlas_kit.dispatch.trace import Trace
from atlas_kit.contract.redaction import looks_secret, redact

KEYS = ["sk-ant-api03-" + "x" * 30, "sk-proj-" + "A1b2" * 6, "AKIAABCDEFGHIJKLMNOP", "ghp_" + "a1" * 12,
        "xoxb-1234567890-abcdef", "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4"]
NOT_SECRET = ["ACC-4471", "INV-20410", "msg_0123456789abcdef01234567", "toolu_01", "$1,250.00", "2024-12-31",
              "a" * 64, "claude-sonnet-5-5"]


@pytest.mark.parametrize("key", KEYS)
def test_a_key_is_redacted_wherever_it_sits(key):
    shown = redact({"note": f"use {key} now", "list": [key, (key, 1)], "nested": {"k": key}})
    assert key not in json.dumps(shown)
    assert shown["note"] == "use [redacted] now" and shown["list"][1] == ["[redacted]", 1]
    assert looks_secret(key)


@pytest.mark.parametrize("text", ["api_key=abcd1234efgh", "password: hunter2hunter2", "Bearer abcdefghijklmnop"])
def test_a_named_secret_loses_its_value(text):
    assert "[redacted]" in redact(text) and looks_secret(text)


@pytest.mark.parametrize("text", NOT_SECRET)
def test_ids_amounts_and_fingerprints_are_left_alone(text):
    assert redact(text) == text and not looks_secret(text)


def test_redact_keeps_the_shape_of_json_and_strs_the_rest():
    record = OrderedDict([("b", 1), ("a", [True, None, 2.5])])
    out = redact(record)
    assert out == {"b": 1, "a": [True, None, 2.5]} and list(out) == ["b", "a"]  # keys and their order kept
    assert redact({1: "x"}) == {"1": "x"}  # JSON's keys are strings
    assert redact(object) == str(object) and redact(b"sk-ant-" + b"x" * 10) == "b'[redacted]'"


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=20))
def test_redacting_twice_changes_nothing_more_and_the_result_is_json(value):
    once = redact(value)
    assert redact(once) == once
    json.dumps(once)


def test_events_are_numbered_in_order_and_redacted_on_the_way_in():
    trace = Trace()
    first = trace.add("call", tool_use_id="t1", tool="get_account", args='{"account_id":"ACC-4471"}')
    trace.add("error", tool_use_id="t1", tool="get_account", code="not_found", branch="stop",
              detail=f"upstream said {KEYS[0]}")
    trace.add("call", tool_use_id="t2", tool="get_order", args="{}")
    assert first == {"seq": 0, "kind": "call", "tool_use_id": "t1", "tool": "get_account",
                     "args": '{"account_id":"ACC-4471"}'}
    assert [e["seq"] for e in trace] == [0, 1, 2] and len(trace) == 3
    assert trace.of_kind("error")[0]["detail"] == "upstream said [redacted]"
    assert [e["tool_use_id"] for e in trace.of_kind("call")] == ["t1", "t2"] and trace.of_kind("bound") == []


def test_the_trace_is_one_json_array_of_its_events():
    trace = Trace()
    trace.add("finished", model_stop_reason="end_turn")
    trace.add("bound", bound="steps", steps=12)
    assert json.loads(trace.to_json()) == trace.events
    assert json.loads(Trace().to_json()) == []
