"""The shared types: the one block walker, canonical JSON, events by kind, sources, and the record's fields."""
from __future__ import annotations

import json
import typing
from types import SimpleNamespace

import pytest

from atlas_kit.types.events import EventKind, TraceEvent, events_of
from atlas_kit.types.records import RECORD_FIELDS, Record, SIMULATED, Source
from atlas_kit.types.sets import API_STOP_REASONS, RefusalKind, STOP_REASONS, STYLE_NAMES
from atlas_kit.types.walk import blocks, canonical, content_blocks, result_text
from atlas_kit.types.results import source_of
from atlas_kit.contract.errors import ErrorCode
from atlas_kit.dispatch.trace import Trace

TRANSCRIPT = [
    {"role": "user", "content": "Refund INV-20410, please."},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "On it."},
                                      {"type": "tool_use", "id": "t1", "name": "issue_refund", "input": {"x": 1}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "No."}]},
    "not a message",
]


def test_blocks_walks_every_message_in_order_with_its_index_and_role():
    placed = list(blocks(TRANSCRIPT))
    assert [(p.at, p.role, p.block["type"]) for p in placed] == [
        (0, "user", "text"), (1, "assistant", "text"), (1, "assistant", "tool_use"), (2, "user", "tool_result")]
    assert placed[0].block == {"type": "text", "text": "Refund INV-20410, please."}  # a string is one text block


def test_content_blocks_reads_sdk_objects_and_skips_kinds_it_does_not_know():
    sdk = SimpleNamespace(type="tool_use", id="t9", name="get_order", input={"order_id": "ORD-77120"})
    dumped = SimpleNamespace(model_dump=lambda exclude_none: {"type": "text", "text": "hi"})
    out = list(content_blocks([sdk, dumped, SimpleNamespace(type="server_tool_use"), 7, None]))
    assert out == [{"type": "tool_use", "id": "t9", "name": "get_order", "input": {"order_id": "ORD-77120"}},
                   {"type": "text", "text": "hi"}]
    assert list(content_blocks(None)) == [] and list(content_blocks({"type": "text"})) == []


@pytest.mark.parametrize("content, text", [
    ("plain", "plain"),
    ([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "a b"),
    ({"error": "not_found"}, '{"error": "not_found"}'),
    (None, ""),
])
def test_result_text_gives_a_tool_results_content_as_one_string(content, text):
    assert result_text(content) == text


def test_canonical_is_the_same_for_equal_values_whatever_the_key_order():
    assert canonical({"b": 1, "a": [1, {"d": 2, "c": "é"}]}) == '{"a":[1,{"c":"é","d":2}],"b":1}'
    assert canonical({"a": 1, "b": 2}) == canonical({"b": 2, "a": 1})
    assert canonical({"a": 1}) != canonical({"a": 2})
    assert canonical({"when": object}) == json.dumps({"when": str(object)}, separators=(",", ":"))


def test_events_of_returns_only_that_kind_in_order():
    trace = Trace()
    trace.add("call", tool_use_id="a", tool="get_order", args="{}")
    trace.add("error", tool_use_id="a", tool="get_order", code="not_found", branch="stop", detail="404")
    trace.add("call", tool_use_id="b", tool="get_order", args="{}")
    calls = events_of(trace, "call")
    assert [e["tool_use_id"] for e in calls] == ["a", "b"] and [e["seq"] for e in calls] == [0, 2]
    assert [e["code"] for e in events_of(trace, "error")] == ["not_found"]
    assert events_of(trace, "loop_detected") == []


def test_every_event_kind_has_one_typed_event_and_the_two_lists_agree():
    kinds = set(typing.get_args(EventKind))
    tagged = [typing.get_args(typing.get_type_hints(cls)["kind"]) for cls in typing.get_args(TraceEvent)]
    assert all(len(tag) == 1 for tag in tagged) and sorted(tag[0] for tag in tagged) == sorted(kinds)


def test_refusal_fault_kinds_are_error_codes():
    assert set(typing.get_args(RefusalKind)) <= {c.value for c in ErrorCode}


@pytest.mark.parametrize("source, label, short", [
    (Source("simulated", "atlas-offline-1"), SIMULATED, "simulated (offline stand-in)"),
    (Source("live", "claude-x", "2026-11-30"), "live (claude-x, 2026-11-30)", "live (claude-x, 2026-11-30)"),
    (Source("replayed", "claude-x", "2026-11-01"), "replayed from claude-x on 2026-11-01",
     "replayed (claude-x, 2026-11-01)"),
])
def test_a_source_says_its_kind_model_and_date_and_its_label_reads_back(source, label, short):
    assert (source.label, source.short, str(source)) == (label, short, label)
    assert source_of({"source": source.label, "model": source.model}).kind == source.kind  # an old record's label
    assert source.costs_money is (source.kind == "live")


def test_a_source_of_an_unknown_kind_is_refused_and_an_odd_label_has_no_kind():
    with pytest.raises(ValueError, match="simulated, live, replayed"):
        Source("guessed", "m")  # type: ignore[arg-type]
    assert source_of({"source": "mixed sources: a; b"}) is None and source_of({}) is None


def test_the_record_fields_are_the_record_types_keys_in_order():
    assert RECORD_FIELDS[:3] == ("key", "experiment", "style") and RECORD_FIELDS[-1] == "harness_error"
    assert len(RECORD_FIELDS) == len(set(RECORD_FIELDS)) == len(Record.__annotations__)


def test_the_closed_sets_are_the_literals_they_come_from():
    from atlas_kit.dispatch.styles import STYLES

    assert STYLE_NAMES == ("raw", "generic", "plain", "contract") == tuple(STYLES)  # the Literal and the registry
    assert "end_turn" in API_STOP_REASONS and "finished" in STOP_REASONS
    assert "harness_error" not in STOP_REASONS
