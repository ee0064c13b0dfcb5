"""Transcripts from a careless or hostile source: keys in error texts never reach the dashboard, the CSV or an
excerpt; a damaged, deep or absurd file is one line and exit 2; an episode never counts twice; a reused call id
does not hide a retry; --out is written whole or not at all. Each case was found by trying the command on files it
had not seen."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from atlas_kit.cli import main
from atlas_kit.transcripts.masking import MASKED_CHARS
from atlas_kit.transcripts.model import ToolResult
from atlas_kit.transcripts import TranscriptError, dashboard, error_events, next_action_counts, read_transcripts
from atlas_kit.transcripts.excerpt import excerpt_rows
from atlas_kit.transcripts.rubric import read_by_rubric
from atlas_kit.transcripts.readers.files import read_file
from atlas_kit.transcripts.report import write_error_csv
from atlas_kit.transcripts.masking import masked

ANT = "sk-" + "ant-"  # key shapes are built from pieces: the repository holds no literal key
KEYS = (ANT + "abcdefghijklmnop", "Bearer abcdefghijklmnopqrstuv", "password=correcthorsebattery",
        "AKIA" + "IOSFODNN7EXAMPLE", ANT + "api03-ARGSECRETxyz")
SECRETS = ("abcdefghijklmnop", "abcdefghijklmnopqrstuv", "correcthorsebattery", "IOSFODNN7EXAMPLE", "ARGSECRET")


def _chat(*turns: dict, **fields: object) -> dict:
    return {"messages": [{"role": "user", "content": "hi"}, *turns], **fields}


def _call(call_id: str, name: str, args: dict) -> dict:
    return {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": name, "input": args}]}


def _result(call_id: str, text: object, error: bool = True) -> dict:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": text,
                                         "is_error": error}]}


def _write(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value))
    return path


def _secret_file(tmp_path: Path) -> Path:
    text = "Error: upstream refused " + " and ".join(KEYS)
    return _write(tmp_path / "keys.json", _chat(_call("a", "lookup", {"token": KEYS[4]}), _result("a", text),
                                                {"role": "assistant", "content": "Sorry."}, correct=False))


def test_a_key_in_an_error_or_its_arguments_reaches_no_output(tmp_path, capsys):
    path = _secret_file(tmp_path)
    transcripts = read_transcripts([path])
    [event] = error_events(transcripts.episodes)
    assert KEYS[0] in event.text  # the data's own text, for the rubric to judge
    shown = [dashboard(transcripts), event.masked, *(str(c) for row in excerpt_rows(transcripts.episodes[0], 2).rows
                                                     for c in row)]
    csv_path = write_error_csv([event], tmp_path / "errors.csv")
    assert main(["transcripts", str(path), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    written = [csv_path.read_text(), printed, (tmp_path / "out" / "transcripts_errors.csv").read_text()]
    for text in [*shown, *written]:
        assert not any(s in text for s in SECRETS), text
    assert all("[redacted]" in text for text in [shown[0], event.masked, *written])
    [reading] = read_by_rubric([event])  # the rubric still reads the key as what belongs in the trace
    assert reading.judgement.verdict("internals").status == "fail"


def _dashboard_text(tmp_path: Path, value: object, name: str = "f.json") -> str:
    return dashboard(read_transcripts([_write(tmp_path / name, value)]))


@pytest.mark.parametrize("name, data, said", [
    ("damaged.json.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage-after-a-gzip-header", "cannot be read"),
    ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("deep_messages.json", b'{"messages": [{"role": "user", "content": ' + b"[" * 60_000 + b"]" * 60_000 + b"}]}",
     "nested too deeply"),
])
def test_a_damaged_or_absurdly_deep_file_is_one_line(tmp_path, capsys, name, data, said):
    path = tmp_path / name
    path.write_bytes(data)
    assert main(["transcripts", str(path)]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("reward", ["1e400", "NaN", "Infinity", "-Infinity", str(10 ** 400)])
@pytest.mark.parametrize("shape", ["tau-bench", "chat"])
def test_a_reward_that_is_no_finite_number_is_refused(tmp_path, reward, shape):
    if shape == "tau-bench":
        text = f'[{{"task_id": 1, "trial": 0, "reward": {reward}, "traj": [{{"role": "user", "content": "hi"}}]}}]'
    else:
        text = f'{{"messages": [{{"role": "user", "content": "hi"}}], "reward": {reward}}}'
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(TranscriptError, match="'reward' is .*expected a finite number"):
        read_file(path)


def test_a_lone_surrogate_is_printed_and_written_as_an_escape(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_chat(_call("a", "t", {"q": "\ud800"}), _result("a", "Error: bad \ud800 byte"))))
    assert main(["transcripts", str(path), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "Error: bad \\<id> byte" in printed  # the escape, masked like any id
    printed.encode("utf-8")  # nothing a terminal cannot hold
    rows = (tmp_path / "out" / "transcripts_errors.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 2 and "\\ud800" in rows[1]


def test_a_file_given_twice_is_refused_and_a_copied_episode_counts_once(tmp_path):
    tau = [{"task_id": 3, "trial": t, "reward": 0.0, "traj": [{"role": "user", "content": "hi"}]} for t in (0, 1)]
    once = _write(tmp_path / "once.json", tau)
    with pytest.raises(TranscriptError, match="is given twice"):
        read_transcripts([once, tmp_path / "." / "once.json"])
    twice = read_transcripts([_write(tmp_path / "twice.json", tau + tau)])  # a file concatenated with itself
    assert [e.id for e in twice.episodes] == ["task-3/trial-0", "task-3/trial-1"] and twice.files[0].dropped == 2
    assert [(c.where, c.of_where) for c in twice.copies] == [("record 2", "record 0"), ("record 3", "record 1")]
    both = read_transcripts([once, _write(tmp_path / "copy.json", tau[:1])])
    [copy] = both.copies
    assert (len(both.episodes), copy.file, copy.of_file, copy.identity) == (2, str(tmp_path / "copy.json"), str(once),
                                                                           "task 3, trial 0")
    assert "1 duplicates dropped" in dashboard(both) and "no duplicates found" in dashboard(read_transcripts([once]))


def test_two_episodes_with_one_id_stay_two_and_make_no_loop(tmp_path):
    lines = [_chat(_call("a", "t", {}), _result("a", "Error: down"), id="run", correct=c) for c in (True, False)]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    transcripts = read_transcripts([path])
    assert [e.id for e in transcripts.episodes] == ["run (line 1)", "run (line 2)"]
    assert "loop signal (the same tool, arguments and error text twice in one episode): 0" in dashboard(transcripts)


def test_a_call_id_used_again_does_not_hide_the_retry_behind_a_skipped_tool(tmp_path):
    # tau-bench uses one id for two calls at times: here the note and the retry share "c2"
    messages = [{"role": "user", "content": "book it"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "book", "arguments": '{"f": 1}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "Error: seat taken"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c2", "type": "function", "function": {"name": "think", "arguments": '{"t": "hm"}'}}]},
                {"role": "tool", "tool_call_id": "c2", "content": ""},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c2", "type": "function", "function": {"name": "book", "arguments": '{"f": 1}'}}]},
                {"role": "tool", "tool_call_id": "c2", "content": "Error: seat taken"},
                {"role": "assistant", "content": "I could not book it."}]
    episodes = read_transcripts([_write(tmp_path / "t.json", messages)]).episodes
    counts = {c.action: c.count for c in next_action_counts(error_events(episodes, skip={"think"}))}
    assert counts["identical_retry"] == 1 and counts["reply"] == 1 and counts["other_tool"] == 0


def test_a_call_answered_twice_is_refused_not_counted_twice(tmp_path):
    path = _write(tmp_path / "twice.json", _chat(_call("a", "t", {}), _result("a", "Error: x"), _result("a", "Error: x")))
    with pytest.raises(TranscriptError, match="a second tool result answers call 'a'"):
        read_file(path)


def test_out_is_written_whole_or_not_at_all_and_never_through_a_link(tmp_path, capsys):
    path = _secret_file(tmp_path)
    blocked = tmp_path / "blocked"
    (blocked / "transcripts_next_action.png").mkdir(parents=True)
    assert main(["transcripts", str(path), "--out", str(blocked)]) == 2
    err = capsys.readouterr().err
    assert "nothing was written there" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in blocked.iterdir()) == ["transcripts_next_action.png"]  # no CSV, no hidden folder
    linked = tmp_path / "linked"
    linked.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (linked / "transcripts_errors.csv").symlink_to(victim)
    assert main(["transcripts", str(path), "--out", str(linked)]) == 0
    assert victim.read_text() == "keep me" and not (linked / "transcripts_errors.csv").is_symlink()


def test_a_megabyte_error_is_grouped_and_shown_by_its_first_characters(tmp_path):
    text = "Error: " + "word " * 400_000 + ANT + "tailsecretabcdef"
    assert len(masked(text)) < MASKED_CHARS + 60 and "more characters" in masked(text)
    head_key = "x" * (MASKED_CHARS - 10) + " " + ANT + "cutsecretabcdefghij"  # a key that starts before the cut
    assert "cutsecret" not in masked(head_key + " tail" * 100)
    out = _dashboard_text(tmp_path, _chat(_call("a", "t", {}), _result("a", text)))
    assert len(out) < 20_000 and "tailsecret" not in out


def test_an_atlas_results_file_without_a_final_newline_or_gzipped_loses_no_record(tmp_path):
    record = {"key": "k", "correct": True, "hit_error": False, "stop_reason": "finished", "ticket": "T01",
              "trial": 0, "model": "claude-x", "source_kind": "live", "style": "contract"}
    lines = [json.dumps({**record, "key": f"k{i}", "trial": i}) for i in range(3)]
    plain = tmp_path / "r.jsonl"
    plain.write_text("\n".join(lines))  # no newline after the last record
    assert len(read_file(plain)[0]) == 3
    torn = tmp_path / "torn.jsonl"
    torn.write_text("\n".join(lines) + "\n" + lines[0][:25])  # a write cut short is passed over
    assert len(read_file(torn)[0]) == 3
    zipped = tmp_path / "r.jsonl.gz"
    zipped.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    assert len(read_file(zipped, format="atlas")[0]) == 3
    assert len(read_file(zipped)[0]) == 3


def test_tau_bench_as_jsonl_reads_and_a_task_id_must_be_a_name_or_nothing(tmp_path):
    episode = {"task_id": 4, "trial": 0, "reward": 1.0, "traj": [{"role": "user", "content": "hi"}]}
    lines = tmp_path / "tau.jsonl"
    lines.write_text("\n".join(json.dumps({**episode, "trial": t}) for t in range(3)) + "\n")
    episodes, note = read_file(lines)
    assert note.format == "tau-bench" and [e.trial for e in episodes] == [0, 1, 2]
    unnamed = read_file(_write(tmp_path / "none.json", [{**episode, "task_id": None}]))[0]
    assert unnamed[0].task_id is None
    with pytest.raises(TranscriptError, match="'task_id' is an object"):
        read_file(_write(tmp_path / "obj.json", [{**episode, "task_id": {"x": 1}}]))


def test_the_apis_own_tool_errors_count_and_an_image_is_a_placeholder(tmp_path):
    mcp = _chat({"role": "assistant", "content": [
        {"type": "mcp_tool_use", "id": "m1", "name": "db", "server_name": "s", "input": {}},
        {"type": "mcp_tool_result", "tool_use_id": "m1", "is_error": True,
         "content": [{"type": "text", "text": "Error: db down"}]}]})
    search = _chat({"role": "assistant", "content": [
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "x"}},
        {"type": "web_search_tool_result", "tool_use_id": "s1",
         "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
        {"type": "server_tool_use", "id": "s2", "name": "web_search", "input": {"query": "y"}},
        {"type": "web_search_tool_result", "tool_use_id": "s2", "content": [{"type": "web_search_result", "url": "u"}]},
        {"type": "text", "text": "Found it."}]})
    image = _chat(_call("a", "render", {}), _result("a", [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR" * 500}},
        {"type": "text", "text": "Error: render failed"}]))
    texts = {}
    for name, value in (("mcp", mcp), ("search", search), ("image", image)):
        [episode], _ = read_file(_write(tmp_path / f"{name}.json", value))
        texts[name] = [(t.is_error, t.text) for t in episode.turns if isinstance(t, ToolResult)]
    assert texts == {"mcp": [(True, "Error: db down")],
                     "search": [(True, "max_uses_exceeded"), (False, "[web_search_result]")],
                     "image": [(True, "[image] Error: render failed")]}


def test_a_byte_order_mark_is_read_and_a_skipped_tool_never_called_is_said(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(_chat(_call("a", "t", {}), _result("a", "Error: x"))).encode())
    transcripts = read_transcripts([path])
    assert "no call to thnik in these files" in dashboard(transcripts, skip=["thnik"])


def test_the_same_prompt_run_twice_with_nothing_to_name_it_is_two_runs_not_a_copy(tmp_path):
    run = _chat(_call("a", "t", {}), _result("a", "Error: down"), {"role": "assistant", "content": "Sorry."})
    path = tmp_path / "repeats.jsonl"  # temperature 0: the same turns each time, and no id, task or trial
    path.write_text("\n".join(json.dumps(run) for _ in range(3)) + "\n")
    assert len(read_transcripts([path]).episodes) == 3
    named = tmp_path / "named.jsonl"  # an id the data gives, twice with the same turns: a copy
    named.write_text("\n".join(json.dumps({**run, "id": "run-7"}) for _ in range(2)) + "\n")
    copies = read_transcripts([named]).copies
    assert [(c.where, c.of_where, c.identity) for c in copies] == [("line 2", "line 1", "run-7")]
    elsewhere = tmp_path / "elsewhere.jsonl"  # the same unnamed run at the same place of another file: a copy
    elsewhere.write_text(json.dumps(run) + "\n")
    again = read_transcripts([path, elsewhere])
    assert len(again.episodes) == 3 and [c.of_where for c in again.copies] == ["line 1"]
