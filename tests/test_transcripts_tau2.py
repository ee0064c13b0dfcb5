"""tau2-bench results (tests/data/transcripts/tau2_results.json, written by hand in the shape of tau2-bench's
`Results`: info, tasks, simulations of messages): the agent's model from info, the tool message's own error flag,
the simulated user's own tools kept out of the agent's turns and counted apart, calls without ids, the dir form, and
a bad simulation named in one line."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from atlas_kit.cli import main
from atlas_kit.transcripts.model import Outcome, ToolCall, ToolResult, UserText
from atlas_kit.transcripts import TranscriptError, dashboard, error_events, pass_hat_k, read_transcripts
from atlas_kit.transcripts.readers.files import read_file
from atlas_kit.transcripts.readers.sniff import sniff

DATA = Path(__file__).parent / "data" / "transcripts"
RESULTS = DATA / "tau2_results.json"


def test_auto_reads_tau2_results_and_the_model_is_the_agent_s_not_the_user_simulator_s():
    assert sniff(RESULTS).format == "tau2-bench" and "'info' and 'simulations'" in sniff(RESULTS).reason
    episodes, note = read_file(RESULTS)
    assert [e.id for e in episodes] == ["sim-a", "sim-b", "sim-c"] and note.models == ("gpt-4.1-mini",)
    assert [(e.task_id, e.trial) for e in episodes] == [("1", 0), ("1", 1), ("2", 0)]
    assert [e.outcome for e in episodes] == [Outcome(False, 0.0), Outcome(True, 1.0), Outcome()]
    assert episodes[0].metadata["domain"] == "telecom" and episodes[2].metadata["termination"] == "too_many_errors"


def test_the_error_flag_is_the_tool_message_s_own_and_the_user_s_tools_are_not_the_agent_s():
    first = read_file(RESULTS)[0][0]
    results = [t for t in first.turns if isinstance(t, ToolResult)]
    assert [(r.call_id, r.is_error, r.basis) for r in results] == [("call_a1", True, "flag"),
                                                                  ("call_a2", False, "flag")]
    assert [t.tool for t in first.turns if isinstance(t, ToolCall)] == ["get_customer_by_phone"] * 2
    assert "toggle_airplane_mode" not in repr(first.turns) and "the device is off" not in repr(first.turns)
    assert (first.metadata["user_tool_calls"], first.metadata["user_tool_errors"]) == (1, 1)
    assert [t.text for t in first.turns if isinstance(t, UserText)] == [
        "My phone has no data. My number is 555-0100.", "It is 555-0199, sorry."]


def test_calls_without_ids_are_answered_in_order_even_inside_a_multi_tool_message():
    second = read_file(RESULTS)[0][1]
    calls = [t for t in second.turns if isinstance(t, ToolCall)]
    results = [t for t in second.turns if isinstance(t, ToolResult)]
    assert [c.id for c in calls] == [r.call_id for r in results] == ["call@1.0", "call@1.1"]
    assert [r.is_error for r in results] == [False, True]
    [late] = [ev for ev in error_events([second])]
    assert (late.tool, late.next.action) == ("get_data_usage", "reply")


def test_the_dashboard_counts_the_agent_s_errors_and_says_what_the_user_s_tools_did():
    transcripts = read_transcripts([RESULTS])
    assert len(error_events(transcripts.episodes)) == 2
    text = dashboard(transcripts)
    assert "tool errors: 2 (known by an error flag in the data: 2" in text
    assert "the simulated user's own tool calls (tau2-bench): 1, 1 of them errors" in text
    assert [(p.k, p.value, p.tasks) for p in pass_hat_k(transcripts.episodes)] == [(1, 0.5, 1), (2, 0.0, 1)]


def test_the_dir_form_reads_the_simulations_beside_its_results_json(tmp_path):
    whole = json.loads(RESULTS.read_text())
    (tmp_path / "simulations").mkdir()
    for sim in whole["simulations"]:
        (tmp_path / "simulations" / f"{sim['id']}.json").write_text(json.dumps(sim))
    index = [{"id": s["id"], "task_id": s["task_id"], "trial": s["trial"]} for s in whole["simulations"]]
    (tmp_path / "results.json").write_text(json.dumps({**whole, "simulations": [], "simulation_index": index}))
    episodes, note = read_file(tmp_path / "results.json")
    assert [e.turns for e in episodes] == [e.turns for e in read_file(RESULTS)[0]] and note.format == "tau2-bench"


def test_a_bad_simulation_is_one_line_naming_the_file_and_the_simulation(tmp_path, capsys):
    whole = json.loads(RESULTS.read_text())
    del whole["simulations"][1]["messages"]
    bad = tmp_path / "results.json"
    bad.write_text(json.dumps(whole))
    with pytest.raises(TranscriptError, match=rf"^{bad}: simulation 1: has no messages"):
        read_file(bad)
    whole["simulations"] = []
    bad.write_text(json.dumps(whole))
    assert main(["transcripts", str(bad)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "holds no simulations" in line


def test_a_reward_short_of_one_is_not_success_and_a_missing_agent_llm_is_model_unknown(tmp_path):
    whole = json.loads(RESULTS.read_text())
    whole["simulations"][1]["reward_info"]["reward"] = 0.5
    del whole["info"]["agent_info"]["llm"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(whole))
    episodes, note = read_file(path)
    assert episodes[1].outcome == Outcome(False, 0.5) and note.models == () and episodes[0].model is None
    assert math.isnan(pass_hat_k(episodes, [3])[0].value)
