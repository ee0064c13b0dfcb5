"""The transcript analysis: the next action after an error (each class and each edge its docstring decides), the
loop signal, recovery with its counts and exact test, error groups with masking, and the CSV (the contract rubric's
reading is tests/test_transcripts_rubric.py's)."""
from __future__ import annotations

import csv
import math
import re
from dataclasses import replace

import pytest
from hypothesis import given, strategies as st

from atlas_kit.stats import fisher_exact
from atlas_kit.transcripts.report import CSV_COLUMNS, write_error_csv
from atlas_kit.transcripts import Episode, error_events, next_action_counts
from atlas_kit.transcripts.model import ModelText, Outcome, Summary, ToolCall, ToolResult, Turn, UserText
from atlas_kit.transcripts.analysis import episode_rows, find_episode, hit_error, loops, next_action, window
from atlas_kit.transcripts.groups import error_groups
from atlas_kit.transcripts.masking import mask
from atlas_kit.transcripts.rates import recovery


def episode(turns: list[Turn], *, id: str = "e", correct: bool | None = True, **fields: object) -> Episode:
    return Episode(id=id, format="anthropic", file="f.json", record=0, turns=tuple(turns),
                   outcome=Outcome(correct), evidence="real", **fields)  # type: ignore[arg-type]


def failed(args: dict[str, object] | str, then: list[Turn], *, tool: str = "book",
           text: str = "Error: full") -> Episode:
    """A call of `tool` with `args` that fails, then `then` (messages numbered from 2)."""
    return episode([UserText("go", 0), ToolCall("c1", tool, args, 1), ToolResult("c1", True, "text", text, 1), *then])


@pytest.mark.parametrize("then, action, tool", [
    ([ToolCall("c2", "book", {"b": 2, "a": 1}, 2)], "identical_retry", "book"),  # key order aside
    ([ToolCall("c2", "book", {"a": 1, "b": 3}, 2)], "changed_arguments", "book"),
    ([ToolCall("c2", "search", {"a": 1, "b": 2}, 2)], "other_tool", "search"),
    ([ModelText("Sorry, it is full.", 2)], "reply", None),
    ([], "end", None),
    ([UserText("anyone there?", 2)], "end", None),  # a user message is not the model's step
])
def test_each_next_action_is_what_its_definition_says(then, action, tool):
    ep = failed({"a": 1, "b": 2}, then)
    assert next_action(ep, 2).action == action and next_action(ep, 2).tool == tool


def test_a_step_with_text_and_a_call_is_classified_by_its_call_and_says_it_also_wrote():
    ep = failed({"a": 1}, [ModelText("Trying another day.", 2), ToolCall("c2", "book", {"a": 2}, 2)])
    assert next_action(ep, 2) == next_action(ep, 2).__class__("changed_arguments", "book", True, False)


def test_parallel_calls_take_the_first_match_identical_before_changed_before_other():
    ep = failed({"a": 1}, [ToolCall("c2", "search", {}, 2), ToolCall("c3", "book", {"a": 9}, 2),
                           ToolCall("c4", "book", {"a": 1}, 2)])
    assert next_action(ep, 2).action == "identical_retry"


def test_the_step_is_one_message_and_a_user_message_before_it_is_noted():
    ep = failed({"a": 1}, [UserText("try again", 2), ModelText("OK.", 3), ToolCall("c2", "book", {"a": 1}, 4)])
    nxt = next_action(ep, 2)
    assert (nxt.action, nxt.user_first) == ("reply", True)  # the call in message 4 is a later step


def test_raw_string_arguments_are_the_same_only_when_identical():
    same = failed("{a: 1", [ToolCall("c2", "book", "{a: 1", 2)])
    other = failed("{a: 1", [ToolCall("c2", "book", {"a": 1}, 2)])
    assert next_action(same, 2).action == "identical_retry" and next_action(other, 2).action == "changed_arguments"


def test_next_action_refuses_a_position_that_is_not_an_error():
    with pytest.raises(ValueError, match=r"position must index a tool error in episode 'e'; turns\[1\] is ToolCall"):
        next_action(failed({}, []), 1)


def test_error_events_carry_what_the_rubric_needs_and_the_outcome():
    ep = failed({"a": 1}, [ModelText("No seats on HAT030.", 2)], text="Error: not enough seats on flight HAT030")
    [ev] = error_events([ep])
    assert (ev.tool, ev.arguments, ev.text, ev.masked) == ("book", {"a": 1}, "Error: not enough seats on flight HAT030",
                                                           "Error: not enough seats on flight <id>")
    assert (ev.ordinal, ev.position, ev.correct, ev.basis, ev.next.action) == (1, 2, True, "text", "reply")


def test_the_loop_signal_needs_the_same_tool_arguments_and_text_twice():
    twice = failed({"a": 1}, [ToolCall("c2", "book", {"a": 1}, 2), ToolResult("c2", True, "text", "Error: full", 2)])
    other_text = failed({"a": 1}, [ToolCall("c2", "book", {"a": 1}, 2),
                                   ToolResult("c2", True, "text", "Error: shut", 2)])
    [signal] = loops(error_events([twice]))
    assert (signal.tool, signal.count, signal.positions) == ("book", 2, (2, 4))
    assert loops(error_events([other_text])) == []
    assert [r.loops for r in episode_rows([twice, other_text])] == [1, 0]


def test_recovery_splits_known_outcomes_by_error_and_counts_the_unknown_apart():
    hit = failed({}, [])
    eps = [replace(hit, outcome=Outcome(c)) for c in (True, True, False, None)]
    eps += [episode([UserText("hi", 0)], correct=c) for c in (True, True, False, None)]
    rec = recovery(eps)
    assert (rec.with_error.successes, rec.with_error.n) == (2, 3)
    assert (rec.without_error.successes, rec.without_error.n) == (2, 3)
    assert (rec.unknown_with_error, rec.unknown_without_error, rec.episodes, rec.hit) == (1, 1, 8, 4)
    assert rec.difference == pytest.approx(0.0) and rec.p_value == fisher_exact(2, 1, 2, 1)
    rec = recovery([replace(hit, outcome=Outcome(False))] * 4 + [episode([], correct=True)] * 4)
    assert rec.difference == pytest.approx(-1.0) and rec.p_value == pytest.approx(fisher_exact(0, 4, 4, 0))


def test_recovery_without_a_side_to_compare_has_no_difference():
    rec = recovery([failed({}, [])])
    assert math.isnan(rec.difference) and rec.without_error.n == 0


def test_a_results_record_counts_through_its_summary_and_gives_no_events():
    record = episode([], correct=False, detail="summary",
                     summary=Summary(True, ("not_permitted",), ("stop",), 2, False))
    assert hit_error(record) and error_events([record]) == [] and episode_rows([record])[0].errors is None
    assert recovery([record]).with_error.n == 1


def test_error_groups_count_errors_and_each_episode_once():
    a = failed({}, [ToolCall("c2", "book", {}, 2), ToolResult("c2", True, "text", "Error: flight HAT1 full", 2)],
               text="Error: flight HAT2 full")
    b = episode(list(failed({}, [], text="Error: flight HAT3 full").turns), id="b", correct=False)
    c = episode(list(failed({}, [], text="Error: payment declined").turns), id="c", correct=None)
    groups = error_groups(error_events([a, b, c]))
    assert [(g.masked, g.errors, len(g.episodes), g.recovery.successes, g.recovery.n, g.unknown) for g in groups] == [
        ("Error: flight <id> full", 3, 2, 1, 2, 0), ("Error: payment declined", 1, 1, 0, 0, 1)]
    assert groups[0].example == "Error: flight HAT2 full"


def test_next_action_counts_list_every_action_in_order():
    counts = next_action_counts(error_events([failed({}, [ModelText("sorry", 2)])]))
    assert [(c.action, c.count, c.share) for c in counts] == [
        ("identical_retry", 0, 0.0), ("changed_arguments", 0, 0.0), ("other_tool", 0, 0.0), ("reply", 1, 1.0),
        ("end", 0, 0.0)]


def test_window_and_find_episode_pick_what_a_chapter_shows():
    ep = episode([UserText("go", 0), ToolCall("c1", "book", {}, 1), ToolResult("c1", True, "text", "Error: x", 1),
                  ModelText("sorry", 2)], task_id="9", trial=2)
    assert window(ep, 2, before=1, after=1) == ep.turns[1:4]
    assert find_episode([ep], task_id=9, trial=2) is ep
    with pytest.raises(ValueError, match="task_id=9, trial=3 matches no episode"):
        find_episode([ep], task_id=9, trial=3)


def test_the_csv_has_one_row_per_error_with_its_episode_tool_masked_text_next_action_and_outcome(tmp_path):
    ep = failed({"day": "2024-05-13"}, [ModelText("Sorry.", 2)], text="Error: flight HAT030 not available")
    path = write_error_csv(error_events([ep, ep]), tmp_path / "out" / "errors.csv")
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 2 and tuple(rows[0]) == CSV_COLUMNS
    assert {k: rows[0][k] for k in ("episode", "tool", "arguments", "masked_text", "next_action", "correct")} == {
        "episode": "e", "tool": "book", "arguments": '{"day":"2024-05-13"}',
        "masked_text": "Error: flight <id> not available", "next_action": "reply", "correct": "true"}


@given(st.text(max_size=80))
def test_a_masked_text_holds_no_digit_and_masking_again_changes_nothing(text):
    masked = mask(text)
    assert not re.search(r"[0-9]", masked) and mask(masked) == masked


@given(st.lists(st.integers(min_value=0, max_value=10 ** 9), min_size=2, max_size=2))
def test_texts_that_differ_only_in_ids_and_numbers_mask_alike(numbers):
    a, b = numbers
    assert mask(f"Error: total {a}, paid {b} on HAT{a:03d}") == mask("Error: total 1, paid 2 on HAT999")
