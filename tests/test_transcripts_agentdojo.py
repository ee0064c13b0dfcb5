"""AgentDojo's benign runs: the shipped bundle is the published runs verbatim with their licence, and what the reader
and `atlas-kit transcripts` count (episodes, tool errors, episodes an error reached, recovery and success without
errors, per model) equals a recount that reads the raw files with plain json, independently of the reader. The
native runs folder is read when it is on this machine (/work/shared, or ATLAS_AGENTDOJO_RUNS); the bundle always."""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from atlas_kit.cli import main
from atlas_kit.transcripts.shipped import AGENTDOJO, agentdojo_licence
from atlas_kit.transcripts.model import ToolCall, ToolResult
from atlas_kit.transcripts import (TranscriptError, Transcripts, agentdojo_runs, error_events, read_transcripts,
    recovery_by_model)
from atlas_kit.transcripts.readers.files import read_file
from atlas_kit.transcripts.readers.agentdojo import write_bundle
from atlas_kit.transcripts.readers.openai import looks_like_error

RUNS = Path(os.environ.get("ATLAS_AGENTDOJO_RUNS", "/work/shared/data/agentdojo/runs"))
native = pytest.mark.skipif(not RUNS.is_dir(), reason=f"AgentDojo's runs folder is not on this machine ({RUNS})")


@dataclass
class Count:
    """One model's figures, recounted from the raw runs."""

    episodes: int = 0
    errors: int = 0
    hit: int = 0
    hit_correct: int = 0
    clean_correct: int = 0


def recount(runs: list[dict]) -> dict[str, Count]:
    """Per pipeline_name, from the runs as plain JSON: a tool message with a non-null `error` is a tool error."""
    counts: dict[str, Count] = {}
    for run in runs:
        c = counts.setdefault(run["pipeline_name"], Count())
        errors = sum(m["role"] == "tool" and m.get("error") is not None for m in run["messages"])
        c.episodes += 1
        c.errors += errors
        c.hit += errors > 0
        c.hit_correct += errors > 0 and run["utility"] is True
        c.clean_correct += errors == 0 and run["utility"] is True
    return counts


@functools.cache
def bundled_runs() -> list[dict]:
    lines = gzip.decompress(agentdojo_runs().read_bytes()).decode("utf-8").splitlines()
    return [json.loads(json.loads(line)["run"]) for line in lines]


def folder_runs() -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(RUNS.glob("*/*/*/none/none.json"))]


@functools.cache
def shipped() -> Transcripts:
    """The shipped runs as the reader reads them, once for this module."""
    return read_transcripts([agentdojo_runs()])


def as_read(transcripts: Transcripts) -> dict[str, Count]:
    """The same figures as the reader gives them (recovery_by_model)."""
    return {r.model: Count(r.recovery.episodes, r.errors, r.recovery.hit, r.recovery.with_error.successes,
                           r.recovery.without_error.successes)
            for r in recovery_by_model(transcripts.episodes) if r.model is not None}


def test_the_recount_of_the_bundle_is_the_readme_s_21_models_2037_runs_303_errors_in_210():
    counts = recount(bundled_runs())
    assert len(counts) == 21 and sum(c.episodes for c in counts.values()) == 2037
    assert (sum(c.errors for c in counts.values()), sum(c.hit for c in counts.values())) == (303, 210)
    assert {c.episodes for c in counts.values()} == {97}


def test_the_reader_counts_the_bundle_as_the_plain_json_recount_does():
    assert as_read(shipped()) == recount(bundled_runs())


@native
def test_the_reader_counts_the_native_folder_as_the_plain_json_recount_does():
    counts = recount(folder_runs())
    assert (len(counts), sum(c.errors for c in counts.values()), sum(c.hit for c in counts.values())) == (21, 303, 210)
    assert as_read(read_transcripts([RUNS])) == counts


@native
def test_the_command_prints_per_model_rows_whose_counts_match_the_recount(capsys):
    assert main(["transcripts", str(RUNS)]) == 0
    out = capsys.readouterr().out
    rows = {}
    for line in out.splitlines():  # model, episodes, errors, hit, recovery (k/n), success without errors (k/n)
        m = re.fullmatch(r"  (\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\S+ \[\S+ \S+\] \((\d+)/(\d+)\)\s+\S+ \[\S+ \S+\] "
                         r"\((\d+)/(\d+)\)\s+.*", line)
        if m:
            name, episodes, errors, hit, hit_ok, hit_n, clean_ok, clean_n = m.groups()
            assert int(hit_n) == int(hit) and int(hit_n) + int(clean_n) == int(episodes)
            rows[name] = Count(int(episodes), int(errors), int(hit), int(hit_ok), int(clean_ok))
    assert rows == recount(folder_runs())
    assert "read as agentdojo (a folder of 2,037 AgentDojo runs" in out and "21 models, each named by" in out
    assert "tool errors: 303 (known by an error flag in the data: 303; inferred from the text: 0)" in out


@native
def test_the_bundle_is_the_native_runs_verbatim_and_write_bundle_remakes_it(tmp_path):
    lines = [json.loads(line) for line in gzip.decompress(agentdojo_runs().read_bytes()).decode("utf-8").splitlines()]
    files = sorted(RUNS.glob("*/*/*/none/none.json"))
    assert [line["path"] for line in lines] == [f.relative_to(RUNS).as_posix() for f in files]
    assert all(line["run"] == f.read_text(encoding="utf-8") for line, f in zip(lines, files))
    assert write_bundle(RUNS, tmp_path / "again.jsonl.gz") == 2037
    assert gzip.decompress((tmp_path / "again.jsonl.gz").read_bytes()) == gzip.decompress(agentdojo_runs().read_bytes())


@native
def test_the_folder_and_the_bundle_read_together_count_each_run_once(capsys):
    both = read_transcripts([RUNS, agentdojo_runs()])
    assert len(both.episodes) == 2037 and len(both.copies) == 2037 and both.files[1].dropped == 2037
    assert {c.of_file for c in both.copies} == {str(RUNS)}
    first = both.copies[0]
    assert (first.where, first.of_where) == ("line 1 (claude-3-5-sonnet-20240620/banking/user_task_0/none/none.json)",
                                             "record 0 (claude-3-5-sonnet-20240620/banking/user_task_0/none/none.json)")


def test_runs_copied_out_of_the_bundle_into_a_folder_count_once(tmp_path, capsys):
    lines = [json.loads(line) for line in gzip.decompress(agentdojo_runs().read_bytes()).decode("utf-8").splitlines()]
    for line in lines[:3]:
        target = tmp_path / "runs" / line["path"]
        target.parent.mkdir(parents=True)
        target.write_text(line["run"], encoding="utf-8")
    both = read_transcripts([tmp_path / "runs", agentdojo_runs()])
    assert (len(both.episodes), len(both.copies), [f.dropped for f in both.files]) == (2037, 3, [0, 3])
    assert [c.where for c in both.copies] == [f"line {n} ({line['path']})" for n, line in enumerate(lines[:3], 1)]
    assert main(["transcripts", str(tmp_path / "runs"), str(agentdojo_runs())]) == 0
    assert "Identical episodes count once: 3 duplicates dropped" in capsys.readouterr().out


def test_the_bundle_ships_small_with_its_licence_and_provenance():
    assert agentdojo_runs().stat().st_size < 5_000_000
    licence = agentdojo_licence().read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Copyright (c) 2024 Edoardo Debenedetti" in licence
    readme = (agentdojo_runs().parent / "README.md").read_text(encoding="utf-8")
    digest = hashlib.sha256(gzip.decompress(agentdojo_runs().read_bytes())).hexdigest()
    assert digest in readme and AGENTDOJO.commit in readme and "arXiv 2406.13352" in AGENTDOJO.line
    assert "What it cannot say" in readme.split("# AgentDojo")[1]


def test_the_model_is_the_run_s_own_pipeline_name_never_its_folder(tmp_path):
    [llama] = [r for r in bundled_runs() if r["pipeline_name"] == "local" and r["user_task_id"] == "user_task_0"
               and r["suite_name"] == "banking"]
    misleading = tmp_path / "gpt-4o-2024-05-13" / "banking" / "user_task_0" / "none" / "none.json"
    misleading.parent.mkdir(parents=True)
    misleading.write_text(json.dumps(llama))
    [episode], note = read_file(tmp_path)
    assert (episode.model, note.models, episode.task_id) == ("local", ("local",), "banking/user_task_0")
    nameless = {**llama, "pipeline_name": None}
    misleading.write_text(json.dumps(nameless))
    [episode], note = read_file(tmp_path)
    assert episode.model is None and note.models == ()
    assert main(["transcripts", str(tmp_path)]) == 0


def test_every_result_answers_the_call_its_own_copy_names_even_without_ids():
    """Some adapters give no call ids (2,422 tool messages have none), and a few runs give one id to two calls: each
    result answers the call its own copy (`tool_call`) names."""
    transcripts = shipped()
    raw = {f"{r['pipeline_name']}/{r['suite_name']}/{r['user_task_id']}": r for r in bundled_runs()}
    nameless = 0
    for episode in transcripts.episodes:
        tools = [m for m in raw[episode.id]["messages"] if m["role"] == "tool"]
        results = [(i, t) for i, t in enumerate(episode.turns) if isinstance(t, ToolResult)]
        assert len(results) == len(tools)
        for (i, result), message in zip(results, tools):  # some runs use one id again: the latest call before
            call = next(t for t in reversed(episode.turns[:i]) if isinstance(t, ToolCall) and t.id == result.call_id)
            assert (call.tool, call.arguments) == (message["tool_call"]["function"], message["tool_call"]["args"])
            assert result.is_error is (message["error"] is not None)
            nameless += not message["tool_call_id"]
    assert nameless == 2422


def test_the_error_text_is_what_the_model_read_and_the_openai_heuristic_finds_every_one():
    """The issue's fourth misreading, on real texts: AgentDojo flags 303 errors, most a Python exception's words
    (ValueError: ..., ValidationError: ..., TypeError: ...); read as OpenAI chat, with no flag, the heuristic finds
    each of them and no other tool result."""
    events = error_events(shipped().episodes)
    heads = {ev.text.split(":")[0] for ev in events}
    assert heads == {"ValueError", "ValidationError", "TypeError", "AttributeError", "ToolNotFoundException"}
    assert all(looks_like_error(ev.text) for ev in events)
    results = [t for e in shipped().episodes for t in e.turns if isinstance(t, ToolResult)]
    assert sum(looks_like_error(t.text) for t in results if not t.is_error) == 0 and len(results) == 6598


def test_a_broken_run_is_one_line_naming_its_file_or_its_bundle_line(tmp_path, capsys):
    run = tmp_path / "runs" / "m" / "workspace" / "user_task_1" / "none" / "none.json"
    run.parent.mkdir(parents=True)
    run.write_text(json.dumps({"suite_name": "workspace", "pipeline_name": "m", "user_task_id": "user_task_1",
                               "utility": "yes", "messages": []}))
    with pytest.raises(TranscriptError, match=rf"^{re.escape(str(run))}: 'utility' is 'yes'; expected true or false"):
        read_transcripts([tmp_path / "runs"])
    bundle = tmp_path / "bundle.jsonl"
    good = json.dumps({"path": "a/none/none.json", "run": json.dumps(bundled_runs()[0])})
    bundle.write_text(good + "\n" + json.dumps({"path": "b/none/none.json", "run": "{not json"}) + "\n")
    assert main(["transcripts", str(bundle)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"atlas-kit transcripts: error: {bundle}: line 2 (b/none/none.json): 'run' is not JSON")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["transcripts", str(empty)]) == 2
    assert "is a folder with no AgentDojo runs" in capsys.readouterr().err
    shutil.rmtree(tmp_path / "runs")
