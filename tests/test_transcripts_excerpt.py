"""Reading one error in its episode: the rows around it, counted from the error, a call as tool(arguments), the
caption with how the episode ended, and a position that is not an error refused in one line."""
from __future__ import annotations

import pytest

from atlas_kit.transcripts import Episode, read_transcripts, tau_bench_airline
from atlas_kit.transcripts.model import ModelText, Outcome, ToolCall, ToolResult, UserText
from atlas_kit.transcripts.excerpt import ended, excerpt_rows
from atlas_kit.transcripts.analysis import find_episode


def episode(outcome: Outcome) -> Episode:
    turns = (UserText("Book HAT1, please.", 0), ToolCall("c1", "book", {"flight": "HAT1"}, 1),
             ToolResult("c1", True, "text", "Error: no seats", 1), ModelText("HAT1 is full.", 2),
             UserText("Then HAT2.", 3), ToolCall("c2", "book", {"flight": "HAT2"}, 4),
             ToolResult("c2", False, "text", "", 4))
    return Episode(id="e1", format="anthropic", file="f.json", record=0, turns=turns, outcome=outcome,
                   evidence="real", model="m-1")


def test_the_rows_count_from_the_error_and_say_who_did_what():
    rows = excerpt_rows(episode(Outcome(True, 1.0)), 2, before=1, after=4)
    assert [r[0] for r in rows.rows] == ["-1", "0", "+1", "+2", "+3", "+4"]
    assert rows.rows[0][1:] == ["model calls", 'book({"flight": "HAT1"})']
    assert rows.rows[1][1:] == ["tool error", "Error: no seats"] and rows.rows[2][1] == "model writes"
    assert rows.rows[5][1:] == ["tool result", "(empty)"]
    assert rows.caption == "e1, m-1, real transcript; the episode ended correct (reward 1)"


@pytest.mark.parametrize("outcome, said", [(Outcome(False, 0.0), "not correct (reward 0)"), (Outcome(True), "correct"),
                                          (Outcome(), "outcome unknown (the data does not say)")])
def test_ended_says_what_the_data_says(outcome, said):
    assert ended(episode(outcome)) == said


@pytest.mark.parametrize("position, what", [(1, "ToolCall"), (6, "ToolResult"), (99, "out of range")])
def test_a_position_that_is_not_an_error_is_refused_in_one_line(position, what):
    with pytest.raises(ValueError, match=rf"position must index a tool error in episode 'e1'; turns\[{position}\] is {what}"):
        excerpt_rows(episode(Outcome(True)), position)


def test_task_26_trial_0_reads_as_the_chapter_shows_it():
    ep = find_episode(read_transcripts([tau_bench_airline()]).episodes, task_id=26, trial=0)
    rows = excerpt_rows(ep, 22, before=1, after=1)
    assert [r[1] for r in rows.rows] == ["model calls", "tool error", "model calls"]
    assert rows.rows[1][2] == "Error: payment method not found" and rows.rows[2][2].startswith("get_user_details(")
    assert rows.caption.endswith("gpt-4o, real transcript; the episode ended correct (reward 1)")
