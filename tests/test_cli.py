from __future__ import annotations

import json
import re

import pytest

from atlas_kit.cli import build_parser, main
from atlas_kit.models.replay import Cassette


def test_course_runs_the_chapters_it_finds_and_names_a_missing_folder(tmp_path, capsys):
    import nbformat

    src = tmp_path / "chapters"
    src.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('ok')")]), src / "00_a.ipynb")
    assert main(["course", "--chapters", str(src), "--out", str(tmp_path / "out")]) == 0
    assert "1 chapter ran offline" in capsys.readouterr().out and (tmp_path / "out" / "00_a.ipynb").exists()
    with pytest.raises(SystemExit) as bad:
        main(["course", "--jobs", "0", "--chapters", str(src), "--out", str(tmp_path / "out")])
    assert bad.value.code == 2 and "'0' is not accepted; give a whole number of at least 1." in capsys.readouterr().err
    with pytest.raises(SystemExit) as missing:
        main(["course", "--chapters", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")])
    assert missing.value.code == 2 and "argument --chapters: " in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["course", "--chapters", str(empty), "--out", str(tmp_path / "out")]) == 2
    assert "No chapter notebooks" in capsys.readouterr().err


def test_experiment_end_to_end_writes_results_charts_and_a_labelled_summary(tmp_path, capsys):
    argv = ["experiment", "--model", "offline", "--styles", "raw,contract", "--trials", "2", "--tickets", "T01,T04",
            "--faults", "on", "--loop-breaker", "on,off", "--out", str(tmp_path), "--name", "demo", "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = (tmp_path / "demo.jsonl").read_text().splitlines()
    assert len(lines) == 2 * 2 * 2 * 2
    assert {json.loads(line)["style"] for line in lines} == {"raw", "contract"}
    assert "Data: simulated (offline stand-in)." in out
    assert "contract  off" in out and "raw       on" in out  # one row per style and loop-breaker arm
    assert "recovery [95% CI]" in out and f"16 episodes in {tmp_path / 'demo.jsonl'}" in out
    # Two styles: the paired test, labelled with what was paired and how many pairs, per loop-breaker setting.
    assert "same ticket, trial and seed" in out and "McNemar p" in out and "Newcombe's 95% interval" in out
    assert re.search(r"contract - raw +loop breaker off +4 ", out) and re.search(r"contract - raw +loop breaker on +4 ", out)
    pngs = sorted(p.name for p in tmp_path.glob("demo_*.png"))
    assert pngs == sorted(f"demo_{n}.png" for n in ("recovery_by_style", "recovery_by_code", "failure_modes",
                                                     "context_tokens", "loop_breaker"))
    assert main(argv) == 0  # run again: resumes, adds nothing
    assert (tmp_path / "demo.jsonl").read_text().splitlines() == lines


def test_no_charts_writes_the_results_and_tables_but_no_png(tmp_path, capsys):
    argv = ["experiment", "--styles", "raw,contract", "--trials", "1", "--tickets", "T01", "--faults", "on",
            "--out", str(tmp_path), "--name", "plain", "--no-progress", "--no-charts"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert len((tmp_path / "plain.jsonl").read_text().splitlines()) == 2
    assert "recovery [95% CI]" in out and "chart:" not in out
    assert not list(tmp_path.glob("*.png"))


@pytest.mark.parametrize("argv, flag, accepted", [
    (["--styles", "raw,fancy"], "--styles", "accepted values: raw,generic,plain,contract"),
    (["--faults", "yes"], "--faults", "accepted values: on,off"),
    (["--loop-breaker", "maybe"], "--loop-breaker", "accepted values: on,off"),
    (["--tickets", "T01,T99"], "--tickets", "accepted values: T01,T02,"),
    (["--trials", "zero"], "--trials", "a whole number of at least 1"),
    (["--concurrency", "0"], "--concurrency", "a whole number of at least 1"),
    (["--profile", "reckless"], "--profile", "accepted values: cautious, default, stubborn"),
    (["--cassette", "/nonexistent/tape.json"], "--cassette", "is not a file"),
])
def test_bad_values_name_the_flag_and_the_accepted_values(argv, flag, accepted, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["experiment", "--out", str(tmp_path), *argv])
    assert stop.value.code != 0
    err = capsys.readouterr().err
    assert f"argument {flag}:" in err and accepted in err
    assert not list(tmp_path.iterdir())  # nothing ran


def test_an_unknown_flag_is_refused(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["experiment", "--bogus"])
    assert stop.value.code == 2 and "--bogus" in capsys.readouterr().err


def test_a_combination_only_the_run_can_check_exits_non_zero_with_the_reason(tmp_path, capsys):
    Cassette(model="claude-sonnet-5-5", recorded_on="2026-01-02").save(tmp_path / "tape.json")
    code = main(["experiment", "--cassette", str(tmp_path / "tape.json"), "--profile", "default",
                 "--out", str(tmp_path / "out"), "--no-progress"])
    assert code == 2
    assert "profiles apply only to the offline stand-in" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_help_explains_every_option():
    text = build_parser()._subparsers._group_actions[0].choices["experiment"].format_help()
    for flag in ("--model", "--styles", "--trials", "--out", "--tickets", "--faults", "--loop-breaker", "--profile",
                 "--concurrency", "--cassette", "--no-progress", "--name"):
        assert flag in text
    assert text.count("(default:") >= 9
    top = build_parser().format_help()
    assert "experiment" in top and "course" in top


def test_first_seed_flag_is_checked_and_used(tmp_path, capsys):
    argv = ["experiment", "--styles", "raw", "--trials", "1", "--tickets", "T05", "--faults", "on",
            "--out", str(tmp_path), "--name", "s", "--no-progress"]
    assert main(argv + ["--first-seed", "4"]) == 0
    assert json.loads((tmp_path / "s.jsonl").read_text().splitlines()[0])["seed"] == 4
    with pytest.raises(SystemExit):
        main(argv + ["--first-seed", "-2"])
    assert "--first-seed" in capsys.readouterr().err
