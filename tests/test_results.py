from __future__ import annotations

import json

import pytest

from atlas_kit.agent import run_agent
from atlas_kit.models.standin.model import STANDIN_SOURCE
from atlas_kit.atlas import atlas_session, grade
from atlas_kit.types.records import SIMULATED
from atlas_kit.models.standin.model import OFFLINE_MODEL, offline_client
from atlas_kit.types import Source
from atlas_kit.experiments.results import (FIELDS, Condition, ResultsWriter, episode_key, harness_record,
    record_from_run, repair, source_label)
from atlas_kit.types.results import HARNESS_ERROR, read_records

COND = Condition("contract", True, True, "default", OFFLINE_MODEL)


def _rec(key: str, **extra) -> dict:
    return {"key": key, "source": SIMULATED, **extra}


def test_a_real_offline_run_becomes_a_flat_record_with_every_field():
    session = atlas_session("T04", style="contract", faults=True, seed=3)
    run = run_agent(offline_client(seed=3), session, model=OFFLINE_MODEL, source=STANDIN_SOURCE)
    g = grade(run)
    record = record_from_run(run, g, condition=COND, ticket="T04", trial=3, seed=3, experiment="demo")
    assert tuple(record) == FIELDS
    assert json.loads(json.dumps(record)) == record  # JSON-able, nothing lost
    assert record["key"] == episode_key(COND, "T04", 3) == "atlas-offline-1|contract|faults=on|loops=on|profile=default|T04|t3"
    assert record["correct"] is g.correct and record["labels"] == sorted(g.labels)
    assert record["hit_error"] is True and record["error_codes"]  # T04's faults reach the model
    assert record["error_codes"] == sorted({e["code"] for e in run.trace.of_kind("error")})
    assert record["steps"] == run.steps and record["tool_calls"] == run.tool_calls > 0
    assert record["input_tokens"] == run.input_tokens > 0 and record["cost_usd"] == run.cost_usd > 0
    assert record["source"] == SIMULATED and record["harness_error"] is None


def test_a_clean_run_has_no_error_fields_set():
    session = atlas_session("T01", style="raw", faults=False, seed=0)
    run = run_agent(offline_client(seed=0), session, model=OFFLINE_MODEL, source=STANDIN_SOURCE)
    record = record_from_run(run, grade(run), condition=COND, ticket="T01", trial=0, seed=0)
    assert record["hit_error"] is False and record["error_codes"] == [] and record["branches"] == []


def test_keys_differ_when_any_part_of_the_condition_differs():
    keys = {episode_key(c, "T01", 0) for c in (COND, Condition("raw", True, True, "default", OFFLINE_MODEL),
                                               Condition("contract", False, True, "default", OFFLINE_MODEL),
                                               Condition("contract", True, False, "default", OFFLINE_MODEL),
                                               Condition("contract", True, True, None, "claude-sonnet-5-5"))}
    assert len(keys) == 5
    assert episode_key(COND, "T01", 0) != episode_key(COND, "T01", 1) != episode_key(COND, "T02", 1)


def test_harness_record_keeps_the_failure_and_counts_as_not_correct():
    rec = harness_record(RuntimeError("boom"), condition=COND, ticket="T02", trial=1, seed=1, source=STANDIN_SOURCE)
    assert tuple(rec) == FIELDS and rec["stop_reason"] == HARNESS_ERROR
    assert rec["harness_error"] == "RuntimeError: boom" and rec["correct"] is False


def test_writer_appends_whole_lines_and_reader_reads_them_back(tmp_path):
    path = tmp_path / "sub" / "r.jsonl"
    with ResultsWriter(path) as w:
        w.append(_rec("a", n=1))
        w.append(_rec("b", n=2))
    assert path.read_text().count("\n") == 2
    assert [r["key"] for r in read_records(path)] == ["a", "b"]
    with pytest.raises(ValueError, match="closed"):
        w.append(_rec("c"))


def test_missing_file_reads_as_empty(tmp_path):
    assert read_records(tmp_path / "none.jsonl") == []
    assert repair(tmp_path / "none.jsonl") == 0


def test_a_truncated_last_line_is_skipped_then_repaired_on_resume(tmp_path):
    path = tmp_path / "r.jsonl"
    with ResultsWriter(path) as w:
        w.append(_rec("a"))
        w.append(_rec("b"))
    whole = path.read_bytes()
    partial = b'{"key": "c", "sour'
    path.write_bytes(whole + partial)  # what a SIGKILL in the middle of a write leaves
    assert [r["key"] for r in read_records(path)] == ["a", "b"]
    with ResultsWriter(path) as w:  # opening for a resume cuts the partial line first
        assert path.read_bytes() == whole
        w.append(_rec("c"))
    lines = path.read_text().splitlines()
    assert [json.loads(line)["key"] for line in lines] == ["a", "b", "c"]


def test_repair_of_a_file_holding_only_a_partial_line_empties_it(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"key": "a"')
    assert repair(path) == len(b'{"key": "a"') and path.read_bytes() == b""
    assert repair(path) == 0


def test_damage_before_the_last_line_is_reported_with_its_line_number(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"key": "a"}\nnot json\n{"key": "b"}\n')
    with pytest.raises(ValueError, match="line 2"):
        read_records(path)
    path.write_text('{"key": "a"}\n[1, 2]\n')
    with pytest.raises(ValueError, match="line 2 is not an episode record"):
        read_records(path)


def test_a_duplicated_key_is_read_once_first_copy_wins(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"key": "a", "n": 1}\n{"key": "b"}\n{"key": "a", "n": 2}\n')
    records = read_records(path)
    assert [r["key"] for r in records] == ["a", "b"] and records[0]["n"] == 1


REPLAYED = Source("replayed", "claude-sonnet-5-5", "2026-10-07")
LIVE = Source("live", "claude-sonnet-5-5", "2026-10-07")


def _typed(source: Source) -> dict:
    return {"source": source.label, "source_kind": source.kind, "source_date": source.date, "model": source.model}


@pytest.mark.parametrize("records, label", [
    ([{"source": SIMULATED}, _typed(Source("simulated", OFFLINE_MODEL))], "simulated (offline stand-in)"),
    ([_typed(LIVE)], "live (claude-sonnet-5-5, 2026-10-07)"),
    ([_typed(REPLAYED)], "replayed (claude-sonnet-5-5, 2026-10-07)"),
    ([{"source": "replayed from claude-sonnet-5-5 on 2026-10-07"}], "replayed from claude-sonnet-5-5 on 2026-10-07"),
    ([{"source": SIMULATED}, {"source": "live (claude-sonnet-5-5, 2026-10-07)"}],
     "mixed sources: live (claude-sonnet-5-5, 2026-10-07); simulated (offline stand-in)"),
    ([{"source": ""}], "unlabelled source"),
    ([], "no data"),
])
def test_source_label_names_the_source_and_never_hides_a_mix(records, label):
    """Typed records give the short label; an old record without source_kind shows its own label."""
    assert source_label(records) == label
