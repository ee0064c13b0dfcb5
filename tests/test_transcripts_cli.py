"""`atlas-kit transcripts`: the dashboard names its source and says it is observational, --out writes the CSV and
the charts, and a bad file or folder is one line and exit code 2."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from atlas_kit.cli import main
from atlas_kit.cli.transcripts import FORMATS
from atlas_kit.transcripts.model import FORMATS as READER_FORMATS
from atlas_kit.transcripts.report import OBSERVATIONAL
from atlas_kit.transcripts import tau_bench_airline

DATA = Path(__file__).parent / "data" / "transcripts"


def test_the_dashboard_names_each_source_and_the_format_it_chose(capsys):
    assert main(["transcripts", str(DATA / "tau_bench_small.json"), str(DATA / "anthropic_episodes.jsonl")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Source: real transcripts: {DATA / 'tau_bench_small.json'}, model unknown; "
                          f"real transcripts: {DATA / 'anthropic_episodes.jsonl'}, claude-test-model (observational)")
    assert "read as tau-bench (a JSON list of episodes" in out and "read as anthropic (chat messages" in out
    assert OBSERVATIONAL in out and "episodes                                        5" in out
    assert "recovery: correct | an error reached the model  33% [6%, 79%] (1/3)" in out
    assert "Error: gift card balance is not enough" in out


def test_out_writes_the_csv_of_error_events_and_three_charts(tmp_path, capsys):
    out = tmp_path / "dash"
    assert main(["transcripts", str(tau_bench_airline()), "--out", str(out), "--skip-tools", "think"]) == 0
    printed = capsys.readouterr().out
    assert "real transcripts: " in printed and ", gpt-4o (observational)" in printed
    assert "(calls to think passed over)" in printed
    rows = list(csv.DictReader((out / "transcripts_errors.csv").open()))
    assert len(rows) == 73 and {r["next_action"] for r in rows} >= {"reply", "other_tool", "identical_retry"}
    assert {(r["evidence"], r["model"]) for r in rows} == {("real", "gpt-4o")}
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == ["transcripts_error_groups.png", "transcripts_next_action.png", "transcripts_recovery.png"]
    assert all((out / p).read_bytes().startswith(b"\x89PNG") for p in pngs)
    assert f"wrote {out / 'transcripts_errors.csv'}" in printed


def test_a_file_no_reader_understands_is_one_line_and_exit_2(capsys):
    assert main(["transcripts", str(DATA / "unknown_call.json")]) == 2
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert line.startswith("atlas-kit transcripts: error: ") and "answers call 'toolu_9'" in line
    assert captured.out == ""


def test_a_named_format_is_used_and_a_wrong_one_fails_in_one_line(capsys):
    assert main(["transcripts", str(DATA / "openai_chat.json"), "--format", "anthropic"]) == 2
    assert "has role 'system'" in capsys.readouterr().err


def test_a_missing_file_or_an_out_that_is_a_file_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as bad:
        main(["transcripts", str(tmp_path / "nowhere.json")])
    assert bad.value.code == 2 and "is not a file or folder; give transcript files" in capsys.readouterr().err
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["transcripts", str(DATA / "tau_bench_small.json"), "--out", str(blocker)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"atlas-kit transcripts: error: --out {blocker}: ")


def test_the_commands_formats_are_the_readers():
    assert FORMATS == ("auto", *READER_FORMATS)
