"""Issue 50's four misreadings of real files, each fixed and held: an identical file under another name or converted
to JSONL counted twice; the model label taken from the file name; "same tasks" pooling different files' task ids;
and the OpenAI heuristic missing exception-shaped errors. With them, the rubric's reading of an exception's key and
the printing of small p-values."""
from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path

import pytest

from atlas_kit.cli import main
from atlas_kit.stats import fisher_exact
from atlas_kit.transcripts import (Episode, Transcripts, agentdojo_runs, dashboard, error_events, paired_by_task,
    pass_hat_k, read_transcripts, recovery_by_model, tau_bench_airline)
from atlas_kit.transcripts.model import Outcome, ToolCall, ToolResult, UserText
from atlas_kit.transcripts.rubric import judge_event
from atlas_kit.transcripts.labels import p_text
from atlas_kit.transcripts.rates import recovery, task_split
from atlas_kit.transcripts.readers.openai import looks_like_error


@functools.cache
def dojo() -> Transcripts:
    """The shipped AgentDojo runs, read once for this module."""
    return read_transcripts([agentdojo_runs()])


@pytest.fixture(scope="module")
def tau() -> list[dict]:
    return json.loads(gzip.decompress(tau_bench_airline().read_bytes()))


def test_an_identical_file_under_another_name_or_converted_to_jsonl_counts_once(tmp_path, tau, capsys):
    renamed = tmp_path / "sonnet-airline.json"
    renamed.write_bytes(gzip.decompress(tau_bench_airline().read_bytes()))
    lines = tmp_path / "converted.jsonl"  # tau-bench's own records, one per line
    lines.write_text("".join(json.dumps(r) + "\n" for r in tau))
    chat = tmp_path / "chat.jsonl"  # the same episodes as OpenAI chat envelopes: another format altogether
    chat.write_text("".join(json.dumps({"messages": r["traj"], "task_id": r["task_id"], "trial": r["trial"],
                                        "reward": r["reward"]}) + "\n" for r in tau))
    transcripts = read_transcripts([tau_bench_airline(), renamed, lines, chat])
    assert [f.format for f in transcripts.files] == ["tau-bench", "tau-bench", "tau-bench", "openai"]
    assert len(transcripts.episodes) == 200 and [f.dropped for f in transcripts.files] == [0, 200, 200, 200]
    rec = recovery(transcripts.episodes)
    assert (rec.with_error.successes, rec.with_error.n, rec.without_error.successes, rec.without_error.n) == \
        (9, 36, 75, 164)
    assert rec.p_value == fisher_exact(9, 27, 75, 89)  # p = 0.025 still, not 0.001
    assert main(["transcripts", str(tau_bench_airline()), str(renamed), str(lines), str(chat)]) == 0
    out = capsys.readouterr().out
    assert "Identical episodes count once: 600 duplicates dropped" in out and f"200 in {chat} (copies of" in out
    assert "p = 0.025" in out


def test_the_model_label_comes_from_the_records_never_the_file_name(tmp_path, tau, capsys):
    published = tmp_path / "claude-3-opus-airline.json"  # the published bytes under another model's name
    published.write_bytes(gzip.decompress(tau_bench_airline().read_bytes()))
    changed = tmp_path / "gpt-4o-airline.json"  # gpt-4o's name on other bytes: the records name no model
    changed.write_text(json.dumps(tau[:3]))
    [known, unknown] = read_transcripts([published, changed]).files
    assert (known.models, unknown.models) == (("gpt-4o",), ())
    assert main(["transcripts", str(changed)]) == 0
    assert capsys.readouterr().out.startswith(f"Source: real transcripts: {changed}, model unknown (observational)")


def _episode(file: str, task: str, *, model: str | None = "m", error: bool, correct: bool, trial: int = 0) -> Episode:
    result = ToolResult("c", error, "flag", "Error: x" if error else "ok", 2)
    turns = (UserText("go", 0), ToolCall("c", "t", {}, 1), result)
    return Episode(id=f"{model}/{task}/{trial}", format="agentdojo", file=file, record=0, turns=turns,
                   outcome=Outcome(correct), evidence="real", task_id=task, trial=trial, model=model)


def test_same_task_comparisons_never_pool_two_sources_task_ids(tmp_path):
    def tau_file(name: str, records: list[tuple[int, int, float, bool]]) -> Path:
        path = tmp_path / name
        path.write_text(json.dumps([{"task_id": t, "trial": n, "reward": r, "traj": [
            {"role": "user", "content": f"task {t} of {name}"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {
                "name": "book", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "Error: full" if err else "booked"}]}
            for t, n, r, err in records]))
        return path
    a = tau_file("a.json", [(5, 0, 0.0, True), (6, 0, 1.0, False)])
    b = tau_file("b.json", [(5, 0, 1.0, False)])  # task 5 of another benchmark file: not the same task
    split = task_split(read_transcripts([a, b]).episodes)
    assert (split.with_error.n, split.same_tasks.n, split.other_tasks.n) == (1, 0, 2)
    assert pass_hat_k(read_transcripts([a, b]).episodes)[0].tasks == 3
    one = [_episode("runs", "t", model="x", error=True, correct=False), _episode("runs", "t", model="y", error=False,
                                                                                 correct=True)]
    two = [one[0], _episode("other", "t", model="y", error=False, correct=True)]
    assert [p.others.n for p in paired_by_task(one)] == [1] and [p.others.n for p in paired_by_task(two)] == [0]


@pytest.mark.parametrize("text", [
    "ValueError: No emails found. Try with a different query.",
    "ValidationError: 1 validation error for Input schema for `share_file`\npermission\n  Input should be 'r' or "
    "'rw' [type=enum, input_value='read', input_type=str]",
    "pydantic_core._pydantic_core.ValidationError: 1 validation error for Transaction",
    "TypeError: get_channels() got an unexpected keyword argument 'properties'",
    "KeyError: 'flight_number'",
    "ToolNotFoundException: The requested function `send_email` is not available.",
    "ValueError('invoice_id must look like INV-12345')",  # repr(exc), as the Anthropic SDK's tool runner sends it
    "Tool failed.\nTraceback (most recent call last):\n  File \"tools.py\", line 3, in book",
])
def test_exception_shaped_texts_are_errors_where_a_format_has_no_flag(text):
    assert looks_like_error(text)


@pytest.mark.parametrize("text", ["The ValueError was fixed last week.", "ErrorCount: 0", "No flights match.",
                                  "- attachments: []\n  id_: '33'"])
def test_texts_that_only_mention_an_exception_are_not_errors(text):
    assert not looks_like_error(text)


def test_agentdojo_runs_converted_to_openai_chat_lose_none_of_their_303_errors(tmp_path):
    """The fourth misreading measured: with no error flag, every error AgentDojo flagged is still found."""
    lines = gzip.decompress(agentdojo_runs().read_bytes()).decode("utf-8").splitlines()
    converted = []
    for line in lines:
        run = json.loads(json.loads(line)["run"])
        messages, open_ids = [], []
        for i, m in enumerate(run["messages"]):
            text = m["content"] if isinstance(m["content"], str) or m["content"] is None else \
                "\n".join(b["content"] for b in m["content"])
            if m["role"] == "assistant":
                calls = [{"id": f"c{i}.{k}", "type": "function", "function": {"name": c["function"], "arguments":
                          json.dumps(c["args"])}} for k, c in enumerate(m["tool_calls"] or [])]
                open_ids = [c["id"] for c in calls]
                messages.append({"role": "assistant", "content": text, **({"tool_calls": calls} if calls else {})})
            elif m["role"] == "tool":
                messages.append({"role": "tool", "tool_call_id": open_ids.pop(0),
                                 "content": m["error"] if m["error"] is not None else text})
            else:
                messages.append({"role": m["role"], "content": text})
        converted.append({"messages": messages, "model": run["pipeline_name"], "correct": run["utility"],
                          "task_id": f"{run['suite_name']}/{run['user_task_id']}"})
    path = tmp_path / "agentdojo-as-openai.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in converted))
    transcripts = read_transcripts([path])
    events = error_events(transcripts.episodes)
    assert transcripts.files[0].format == "openai" and {ev.basis for ev in events} == {"text"}
    assert (len(events), len({ev.episode for ev in events})) == (303, 210)
    flagged = dojo()
    assert [(r.model, r.errors, r.recovery.hit) for r in recovery_by_model(transcripts.episodes)] == \
        [(r.model, r.errors, r.recovery.hit) for r in recovery_by_model(flagged.episodes)]


def test_an_exception_s_key_alone_is_an_internal_to_the_rubric():
    def internals(text: str) -> str:
        [event] = error_events([_text_episode(text)])
        return judge_event(event).verdict("internals").status
    assert internals("Error: 'flight_number'") == "fail" and internals("'user_id'") == "fail"
    assert internals("KeyError: 'x'") == "fail"  # the class, as the contract's rubric already read it
    assert internals("Error: flight HAT030 is not available on 2024-05-13") == "pass"
    [event] = error_events([_text_episode("Error: 'flight_number'")])
    assert "an exception's key" in judge_event(event).verdict("internals").reason


def _text_episode(text: str) -> Episode:
    turns = (ToolCall("c", "book", {"flight": "HAT030"}, 0), ToolResult("c", True, "text", text, 1))
    return Episode(id="e", format="openai", file="f", record=0, turns=turns, outcome=Outcome(False), evidence="real")


def test_a_p_value_below_a_thousandth_prints_as_less_never_as_zero():
    assert [p_text(p) for p in (0.025, 0.001, 0.0009, 1e-12, 0.0)] == ["p = 0.025", "p = 0.001", "p < 0.001",
                                                                      "p < 0.001", "p < 0.001"]
    text = dashboard(dojo())
    assert "p = 0.000" not in text and "two-sided: p < 0.001" in text
