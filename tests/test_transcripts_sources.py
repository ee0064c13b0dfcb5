"""Logs made offline go through the same dashboard: an inspect_ai log written with inspect's public API, an Atlas
results file from run_experiment, an MCP log from mcp_episode, and an agent Run in memory. All are the stand-in's
or a scripted mock's, so each must say simulated."""
from __future__ import annotations

from pathlib import Path

import pytest

from atlas_kit.experiments.results import ResultsWriter
from atlas_kit.types.results import read_records
from atlas_kit.transcripts.model import ModelText, ToolCall, ToolResult, UserText
from atlas_kit.transcripts import TranscriptError, dashboard, error_events, read_transcripts
from atlas_kit.transcripts.readers.files import read_file
from atlas_kit.transcripts.rates import recovery
from atlas_kit.transcripts.readers.atlas import run_episode
from atlas_kit.transcripts.readers.inspect_log import InspectReader, outcome_of_value


def _inspect_log(path: Path, *, model: str = "mockllm/model") -> Path:
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser
    from inspect_ai.scorer import Score
    from inspect_ai.tool import ToolCall as InspectCall, ToolCallError

    def sample(id: str, scores: dict[str, Score] | None) -> EvalSample:
        messages = [ChatMessageSystem(content="You are Atlas support."), ChatMessageUser(content="Refund INV-20411."),
                    ChatMessageAssistant(content="", tool_calls=[InspectCall(id=f"{id}-1", function="issue_refund",
                                                                             arguments={"invoice_id": "INV-20411"})]),
                    ChatMessageTool(content="", tool_call_id=f"{id}-1", function="issue_refund",
                                    error=ToolCallError("unknown", "limit_exceeded: refunds above $500 need a person")),
                    ChatMessageAssistant(content="I passed it to a person.")]
        return EvalSample(id=id, epoch=1, input="Refund INV-20411.", target="", messages=messages, scores=scores)

    spec = EvalSpec(created="2025-01-01T00:00:00+00:00", task="hand_made", dataset=EvalDataset(), model=model,
                    config=EvalConfig())
    log = EvalLog(eval=spec, status="success", samples=[sample("T04", {"acc": Score(value="C")}), sample("T05", None)])
    write_eval_log(log, str(path))
    return path


def test_an_inspect_log_reads_its_flagged_errors_scores_and_model(tmp_path):
    pytest.importorskip("inspect_ai")
    episodes, note = read_file(_inspect_log(tmp_path / "hand.eval"))
    assert (note.format, note.models, note.evidence) == ("inspect", ("mockllm/model",), ("simulated",))
    first = episodes[0]
    assert first.turns == (UserText("Refund INV-20411.", 1),
                           ToolCall("T04-1", "issue_refund", {"invoice_id": "INV-20411"}, 2),
                           ToolResult("T04-1", True, "flag", "limit_exceeded: refunds above $500 need a person", 3),
                           ModelText("I passed it to a person.", 4))
    assert first.system == "You are Atlas support." and first.id == "T04/epoch-1" and first.metadata["score"] == "acc"
    assert [e.outcome.correct for e in episodes] == [True, None]  # "C" is correct; no scores, unknown
    assert [ev.next.action for ev in error_events(episodes)] == ["reply", "reply"]
    text = dashboard(read_transcripts([tmp_path / "hand.eval"]))
    assert text.startswith("Source: simulated transcripts") and "outcome unknown (left out)" in text
    with pytest.raises(TranscriptError, match="has no score 'accuracy'; its scores are acc"):
        InspectReader(score="accuracy").read(tmp_path / "hand.eval")


def test_a_file_inspect_cannot_read_is_one_line(tmp_path):
    pytest.importorskip("inspect_ai")
    bad = tmp_path / "broken.eval"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(TranscriptError) as caught:
        read_file(bad)
    assert "inspect_ai cannot read it as an eval log" in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("value, correct, reward", [
    (True, True, 1.0), ("C", True, None), ("I", False, None), ("P", None, None), (1, True, 1.0), (0.0, False, 0.0),
    (0.5, None, 0.5), ({"correct": 1.0, "loop": 0.0}, True, 1.0), ({"loop": 1.0}, None, None), (["C"], None, None),
])
def test_a_score_value_becomes_an_outcome_as_documented(value, correct, reward):
    outcome = outcome_of_value(value)
    assert (outcome.correct, outcome.reward) == (correct, reward)


def test_an_atlas_results_file_gives_outcomes_and_whether_errors_hit_but_no_turns(tmp_path):
    from atlas_kit.experiments import run_experiment

    out = tmp_path / "sweep.jsonl"
    records = run_experiment(name="t", styles=("raw", "contract"), faults=(True,), tickets=["T04", "T05"],
                                       trials=1, out=out, progress=False)
    episodes, note = read_file(out)
    assert note.format == "atlas" and "results JSONL" in note.reason and note.evidence == ("simulated",)
    assert [e.id for e in episodes] == [r["key"] for r in records]
    assert [e.outcome.correct for e in episodes] == [r["correct"] for r in records]
    assert all(e.detail == "summary" and e.turns == () for e in episodes) and error_events(episodes) == []
    rec = recovery(episodes)
    assert rec.hit == sum(r["hit_error"] for r in records)
    assert rec.with_error.successes == sum(r["correct"] for r in records if r["hit_error"])
    text = dashboard(read_transcripts([out]))
    assert "simulated transcripts (a rule-based stand-in" in text and "4 episodes are results records without" in text


def test_an_mcp_log_gives_turns_and_an_episode_not_handed_in_has_an_unknown_outcome(tmp_path):
    from atlas_kit.bridges.mcp.episode import open_episode

    done = open_episode("T04", style="contract", simulated=True)
    done.call("issue_refund", {"invoice_id": "INV-20411", "amount_cents": 65000, "reason": "Course cancelled."})
    done.call("escalate_to_human", {"account_id": "ACC-4471", "queue": "billing_refunds",
                                    "reason": "Full refund of $650.00 on INV-20411: course cancelled."})
    done.hand_in({"answer": "I passed your $650.00 refund on INV-20411 to billing refunds."})
    left = open_episode("T05", style="raw", simulated=True)
    left.call("get_account", {"account_id": "ACC-4472"})
    log = tmp_path / "mcp.jsonl"
    with ResultsWriter(log) as writer:
        writer.append(done.record(trial=0))
        writer.append(left.record(trial=0))
    first, second = read_file(log)[0]
    assert [t.kind for t in first.turns] == ["tool_call", "tool_result", "tool_call", "tool_result", "model_text"]
    assert first.turns[1] == ToolResult("mcp_001", True, "flag", done.calls[0]["result"], 0)
    assert first.outcome.correct is read_records(log)[0]["correct"] and second.outcome.correct is None
    [refund, account] = error_events([first, second])
    assert (refund.next.action, refund.next.tool) == ("other_tool", "escalate_to_human")
    assert account.next.action == "end" and recovery([first, second]).unknown_with_error == 1


def test_a_run_in_memory_is_an_episode_with_the_runs_own_errors():
    from atlas_kit.agent import run_agent
    from atlas_kit.atlas import atlas_session, grade
    from atlas_kit.models.standin.model import OFFLINE_MODEL, offline_client

    run = run_agent(offline_client(seed=0), atlas_session("T04", style="raw"), model=OFFLINE_MODEL)
    episode = run_episode(run, correct=grade(run).correct, id="T04-raw")
    assert episode.evidence == "simulated" and episode.outcome.correct is grade(run).correct
    assert len(error_events([episode])) == len(run.tool_errors) > 0
