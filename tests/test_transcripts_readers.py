"""The transcript readers (atlas_kit/transcripts/readers): each format round-trips on a small file written by hand
in tests/data/transcripts/, `auto` sniffs each one, and each malformed file gives one line naming file, place and
what was expected."""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from atlas_kit.transcripts.model import ModelText, Outcome, ToolCall, ToolResult, UserText
from atlas_kit.transcripts import TranscriptError, read_transcripts
from atlas_kit.transcripts.readers.files import read_file
from atlas_kit.transcripts.readers.sniff import sniff
from atlas_kit.transcripts.readers.inspect_log import NEEDS
from atlas_kit.transcripts.readers.openai import looks_like_error

DATA = Path(__file__).parent / "data" / "transcripts"


def test_an_anthropic_list_of_messages_reads_turn_for_turn_with_an_unknown_outcome():
    [episode], note = read_file(DATA / "anthropic_list.json")
    assert note.format == "anthropic" and "tool_use / tool_result" in note.reason
    assert episode.turns == (
        UserText("Refund invoice INV-20411, please.", 0),
        ModelText("Let me look at the invoice.", 1),
        ToolCall("toolu_1", "get_invoice", {"invoice_id": "20411"}, 1),
        ToolResult("toolu_1", True, "flag", "invalid_argument: invoice_id must look like INV-12345", 2),
        ToolCall("toolu_2", "get_invoice", {"invoice_id": "INV-20411"}, 3),  # the thinking block is passed over
        ToolResult("toolu_2", False, "absent", '{"invoice_id": "INV-20411", "amount_cents": 65000}', 4),
        ModelText("I found INV-20411 for $650.00.", 5),
    )
    assert episode.outcome == Outcome(None, None) and episode.id == "record-0" and episode.model is None
    assert episode.evidence == "real" and episode.where == "record 0"


def test_anthropic_jsonl_keeps_each_lines_id_model_task_and_outcome():
    episodes, note = read_file(DATA / "anthropic_episodes.jsonl")
    assert [(e.id, e.task_id, e.trial, e.line, e.outcome.correct) for e in episodes] == [
        ("recovered", "T04", 0, 1, True), ("looped", "T05", 0, 2, False), ("clean", "T01", 1, 3, True)]
    assert episodes[2].outcome.reward == 1.0  # reward 1 with no `correct`: correct
    assert note.models == ("claude-test-model",) and note.evidence == ("real",)
    flagged = [t for e in episodes for t in e.turns if isinstance(t, ToolResult)]
    assert [(t.is_error, t.basis) for t in flagged] == [(True, "flag"), (False, "flag"), (True, "flag"), (True, "flag"),
                                                        (False, "absent")]


def test_openai_chat_reads_system_text_parts_and_infers_errors_from_text():
    [episode], note = read_file(DATA / "openai_chat.json")
    assert note.format == "openai" and episode.system == "You are a travel agent."
    calls = [t for t in episode.turns if isinstance(t, ToolCall)]
    assert calls[0].arguments == {"flight": "HAT030", "date": "2024-05-13"}  # the JSON string, parsed
    results = [t for t in episode.turns if isinstance(t, ToolResult)]
    assert [(r.is_error, r.basis) for r in results] == [(True, "text"), (False, "text")]
    assert episode.turns[-1] == ModelText("HAT030 is full; HAT031 flies that day. Shall I book it?", 6)
    assert episode.outcome == Outcome(None, 0.5)  # a reward of 0.5 says nothing about correct


def test_openai_older_function_calling_reads_each_call_and_the_function_message_that_answers_it():
    [episode], note = read_file(DATA / "openai_functions.json")
    assert note.format == "openai" and "older function calling" in note.reason and note.models == ("gpt-3.5-turbo-0613",)
    assert episode.turns == (
        UserText("Book HAT030 on 2024-05-13.", 1),
        ToolCall("function_call@2", "book_flight", {"flight": "HAT030", "date": "2024-05-13"}, 2),
        ToolResult("function_call@2", True, "text", "Error: flight HAT030 is full", 3),
        ModelText("Let me look for another.", 4),
        ToolCall("function_call@4", "search_flights", {"date": "2024-05-13"}, 4),
        ToolResult("function_call@4", False, "text", '["HAT031"]', 5),
        ModelText("HAT030 is full; HAT031 flies that day.", 6),
    )
    assert episode.system == "You book flights." and episode.outcome == Outcome(False, None)


def test_openai_responses_items_read_as_calls_and_outputs_beside_the_messages():
    first, second = read_file(DATA / "openai_responses.jsonl")[0]
    assert sniff(DATA / "openai_responses.jsonl").format == "openai"
    assert first.turns == (
        UserText("Cancel order 12.", 0),  # the reasoning item is passed over
        ToolCall("call_a", "cancel_order", {"order_id": "12"}, 2),
        ToolResult("call_a", True, "text", '{"error": "order 12 has shipped"}', 3),
        ModelText("Order 12 has shipped, so it cannot be cancelled.", 4),  # `output` follows `input`
    )
    assert first.id == "resp-1" and first.model == "gpt-4.1" and first.outcome == Outcome(True, 1.0)
    assert second.turns[1] == ToolCall("call_b", "get_order", "not json", 1)
    assert second.turns[2] == ToolResult("call_b", False, "text", "Order 13: delivered", 2)


def test_openai_keeps_arguments_that_are_not_json_as_written_and_its_heuristic_misses_plain_words():
    raw, bare = read_file(DATA / "openai_episodes.jsonl")[0]
    assert [t.arguments for t in raw.turns if isinstance(t, ToolCall)] == ["{order: 7", "{order: 7"]
    assert [t.is_error for t in raw.turns if isinstance(t, ToolResult)] == [True, True]  # a JSON body with "error"
    assert [t.is_error for t in bare.turns if isinstance(t, ToolResult)] == [False]  # "Flight not found": missed
    assert bare.outcome.known is False and bare.line == 2


@pytest.mark.parametrize("text, expected", [
    ("Error: no such flight", True), ("error - timeout", True), ("  Exception: boom", True),
    ("Traceback (most recent call last):\n  File", True), ('{"error": "not_found"}', True),
    ('{"isError": true, "content": []}', True), ('{"error": null, "data": 1}', False), ("Errors are rare", False),
    ("Flight not found", False), ('{"ok": true}', False), ("[1, 2]", False),
])
def test_the_openai_error_heuristic_says_what_it_reads(text, expected):
    assert looks_like_error(text) is expected


def test_tau_bench_reads_reward_as_correct_and_the_error_prefix_as_an_error():
    episodes, note = read_file(DATA / "tau_bench_small.json")
    assert note.format == "tau-bench" and [e.id for e in episodes] == ["task-7/trial-1", "task-8/trial-0"]
    assert [e.outcome for e in episodes] == [Outcome(False, 0.0), Outcome(True, 1.0)]
    [error] = [t for t in episodes[0].turns if isinstance(t, ToolResult)]
    assert error.is_error and error.basis == "text" and error.text == "Error: gift card balance is not enough"
    assert episodes[0].system == "# Airline Agent Policy" and episodes[0].model is None  # the file name names none


def test_a_tau_bench_file_named_after_a_model_is_still_model_unknown(tmp_path):
    named = tmp_path / "claude-3-opus-airline.json"  # tau-bench's own naming: the records name no model
    named.write_bytes((DATA / "tau_bench_small.json").read_bytes())
    episodes, note = read_file(named)
    assert {e.model for e in episodes} == {None} and note.models == ()
    assert all(e.metadata["model_from"] is None for e in episodes)


def test_a_gzipped_file_reads_as_the_file_itself(tmp_path):
    packed = tmp_path / "gpt-4o-airline.json.gz"
    packed.write_bytes(gzip.compress((DATA / "tau_bench_small.json").read_bytes()))
    plain, _ = read_file(DATA / "tau_bench_small.json")
    episodes, note = read_file(packed)
    assert [e.turns for e in episodes] == [e.turns for e in plain] and note.models == ()


@pytest.mark.parametrize("name, format", [
    ("anthropic_list.json", "anthropic"), ("anthropic_episodes.jsonl", "anthropic"), ("openai_chat.json", "openai"),
    ("openai_episodes.jsonl", "openai"), ("tau_bench_small.json", "tau-bench"),
])
def test_auto_sniffs_each_format_and_names_it(name, format):
    assert sniff(DATA / name).format == format
    assert read_transcripts([DATA / name]).files[0].format == format


def test_plain_text_chat_is_read_as_anthropic_and_says_why(tmp_path):
    path = tmp_path / "plain.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    chosen = sniff(path)
    assert chosen.format == "anthropic" and "no tool calls" in chosen.reason


@pytest.mark.parametrize("name, format, words", [
    ("not_json.json", "auto", "not_json.json: line 2, column 1: is not JSON (Expecting ',' delimiter)"),
    ("wrong_shape.json", "auto", "wrong_shape.json: fits no known format; expected a tau-bench trajectory list"),
    ("wrong_shape.json", "anthropic", "wrong_shape.json: record 0: is an object with keys transcript; expected an "
                                      "object with a 'messages' list"),
    ("unknown_call.json", "auto", "unknown_call.json: record 0, message 2, block 0: a tool result answers call "
                                  "'toolu_9', which no earlier message made"),
    ("missing_field.jsonl", "auto", "missing_field.jsonl: line 2, message 2: this tool message has no "
                                    "'tool_call_id' (a non-empty string)"),
    ("tau_missing_reward.json", "tau-bench", "tau_missing_reward.json: record 0: has no reward; expected an episode"),
    ("anthropic_list.json", "openai", "message 1: holds an Anthropic tool_use or tool_result block"),
    ("openai_chat.json", "anthropic", "message 0: has role 'system'; expected a message with role 'user' or"),
    ("tau_bench_small.json", "atlas", "tau_bench_small.json: line 1: is not JSON (Expecting value); expected one "
                                      "atlas_kit results record per line"),
    ("anthropic_list.json", "tau-bench", "record 0: has no task_id, trial, reward, traj"),
    ("openai_orphan_function.json", "auto", "record 0, message 1: a function message answers no function_call made "
                                            "before it"),
])
def test_a_malformed_file_gives_one_line_naming_the_file_the_place_and_what_was_expected(name, format, words):
    with pytest.raises(TranscriptError) as caught:
        read_file(DATA / name, format=format)
    line = str(caught.value)
    assert words in line and "\n" not in line and line.startswith(str(DATA / name))


def test_a_missing_file_and_a_jsonl_line_that_is_not_json_are_named(tmp_path):
    with pytest.raises(TranscriptError, match="nowhere.json: no such file"):
        read_file(tmp_path / "nowhere.json")
    path = tmp_path / "two.jsonl"
    path.write_text('{"messages": []}\n{"messages": [\n')
    with pytest.raises(TranscriptError, match=r"two.jsonl: line 2: is not JSON .* one JSON value per line"):
        read_file(path, format="anthropic")


def test_a_wrong_format_name_is_refused_in_its_own_words():
    with pytest.raises(ValueError, match="format must be auto or one of tau-bench, tau2-bench, agentdojo, anthropic, "
                                         "openai, inspect, atlas"):
        read_file(DATA / "openai_chat.json", format="csv")  # type: ignore[arg-type]


def test_without_inspect_ai_an_inspect_log_gets_one_line_saying_how_to_install_it(tmp_path, monkeypatch):
    log = tmp_path / "run.eval"
    log.write_bytes(b"PK\x03\x04")
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import inspect_ai.log now raises ImportError
    with pytest.raises(TranscriptError) as caught:
        read_file(log)
    assert str(caught.value) == f"{log}: {NEEDS}" and "pip install 'atlas_kit[inspect]'" in NEEDS



# Near-valid files: the right keys with values of any kind, so the readers' every check is reached.
_SCALARS = st.none() | st.booleans() | st.integers(-2, 2) | st.floats(0, 1) | st.sampled_from(
    ["", "x", "c1", "c2", "Error: no", "{}", '{"a": 1}', "text", "tool_use", "tool_result", "simulated", "live"])
_ANY = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
    ["type", "text", "id", "name", "a"]), inner, max_size=3), max_leaves=8)
_BLOCK = st.fixed_dictionaries({"type": st.sampled_from(["text", "tool_use", "tool_result", "thinking"]) | _ANY},
                               optional={k: _ANY for k in ("id", "name", "input", "tool_use_id", "is_error", "text",
                                                           "content")})
_CALL = st.fixed_dictionaries({}, optional={"id": st.sampled_from(["c1", "c2"]) | _SCALARS,
                                            "function": st.fixed_dictionaries({}, optional={"name": _ANY,
                                                                                            "arguments": _ANY}) | _ANY})
_MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system", "robot"]) | _SCALARS},
    optional={"content": _SCALARS | st.lists(_BLOCK, max_size=3), "tool_calls": st.lists(_CALL, max_size=2) | _ANY,
              "tool_call_id": st.sampled_from(["c1", "c2"]) | _SCALARS})
# A Responses API item (no role): its type may be any JSON, a list or an object included.
_ITEM = st.fixed_dictionaries({"type": st.sampled_from(["function_call", "function_call_output", "reasoning",
                                                        "message"]) | _ANY},
                              optional={k: _ANY for k in ("call_id", "name", "arguments", "output", "id")})
_EPISODE = st.fixed_dictionaries({}, optional={
    "messages": st.lists(_MESSAGE, max_size=5) | _ANY, "traj": st.lists(_MESSAGE, max_size=5) | _ANY,
    "task_id": _SCALARS, "trial": _SCALARS, "reward": _SCALARS, "correct": _SCALARS, "model": _SCALARS,
    "key": _SCALARS | st.just("k"), "stop_reason": _SCALARS, "hit_error": _SCALARS, "ticket": _SCALARS,
    "calls": st.lists(st.dictionaries(st.sampled_from(["tool", "arguments", "is_error", "result"]), _ANY), max_size=3)})
_RECORD = st.fixed_dictionaries({k: _SCALARS for k in ("correct", "hit_error", "stop_reason", "ticket", "trial", "model",
                                                       "tool_calls", "error_codes", "source_kind", "source")} |
                                {"key": st.just("k")}, optional={"calls": st.lists(_ANY, max_size=2) | _ANY,
                                                                 "answer": _ANY})
_FILE = (st.lists(_MESSAGE, max_size=5) | st.lists(_MESSAGE | _ITEM, min_size=1, max_size=5)
         | st.lists(_EPISODE, min_size=1, max_size=3) | _EPISODE | _ANY
         | st.lists(_RECORD, min_size=1, max_size=2))


@pytest.mark.parametrize("value", [
    [{"type": ["function_call"], "call_id": "c1"}],  # an item whose type is a list (once a TypeError)
    [{"type": {"a": 1}}, {"role": "user", "content": "hi"}],
    [{"role": "assistant", "content": [{"type": ["tool_use"], "id": "c1"}, {"type": {"x": 1}}]}],
])
@pytest.mark.parametrize("format", ["auto", "openai", "anthropic"])
def test_a_type_that_is_no_string_is_read_or_refused_in_one_line(tmp_path, value, format):
    path = tmp_path / "f.json"
    path.write_text(json.dumps(value))
    try:
        episodes, _ = read_file(path, format=format)
    except TranscriptError as err:
        assert "\n" not in str(err) and str(err).startswith(str(path))
    else:
        assert episodes and all(isinstance(e.turns, tuple | list) for e in episodes)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_FILE, format=st.sampled_from(["auto", "anthropic", "openai", "tau-bench", "atlas"]), jsonl=st.booleans())
def test_any_json_file_is_read_or_refused_in_one_line_never_a_traceback(tmp_path, value, format, jsonl):
    path = tmp_path / ("f.jsonl" if jsonl else "f.json")
    items = value if jsonl and isinstance(value, list) else [value]
    path.write_text("".join(json.dumps(v) + "\n" for v in items) if jsonl else json.dumps(value))
    try:
        read_file(path, format=format)
    except TranscriptError as err:
        assert "\n" not in str(err) and str(err).startswith(str(path))
