"""`atlas-kit experiment` as a user meets it: an estimate and a question before spending, one line for each mistake,
exit codes that say what happened, Ctrl-C that says how to resume, and never a traceback."""
from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from live_api import FAKE_KEY, LocalAPI

from atlas_kit.cli import main
from atlas_kit.types.sets import STYLE_NAMES
from atlas_kit.models.standin.model import OfflineModel
from atlas_kit.models.transport import APIFault

MODEL = "claude-sonnet-5-5"
# No charts: these tests are about money, trust and files; test_cli.py draws a sweep's charts (a second a run here).
SMALL = ["--styles", "contract", "--faults", "on", "--tickets", "T01,T04", "--trials", "1", "--no-progress", "--no-charts"]


@pytest.fixture
def server(monkeypatch):
    """The stand-in behind a local HTTP server, with a live model's environment pointed at it."""
    with LocalAPI(OfflineModel(seed=0)) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        monkeypatch.delenv("ATLAS_MODEL", raising=False)
        yield api


def _env(api: LocalAPI) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ATLAS_MODEL"}
    env.update(ANTHROPIC_BASE_URL=api.url, ANTHROPIC_API_KEY=FAKE_KEY)
    return env


def test_a_big_live_sweep_with_no_terminal_prints_its_estimate_and_is_refused_without_yes(server, tmp_path, capsys,
                                                                                         monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO())  # no terminal, and nothing to read: a script's or CI's stdin
    code = main(["experiment", "--model", MODEL, "--trials", "50", "--out", str(tmp_path / "out")])
    assert server.messages == []  # nothing was called, so nothing was spent
    done = capsys.readouterr()
    assert code == 2 and "Traceback" not in done.err
    from atlas_kit.types.sets import STYLE_NAMES

    episodes = len(STYLE_NAMES) * 2 * 27 * 50  # every style (the default), faults on and off, 27 tickets, 50 trials
    assert f"Cost estimate: {episodes:,} live episodes of claude-sonnet-5-5" in done.out
    assert all(f"  {word} " in done.out for word in ("low", "high", "cap"))
    assert "refused: no terminal to confirm the estimate above on; run the same command with --yes" in done.err
    assert not (tmp_path / "out").exists() and FAKE_KEY not in done.out + done.err


def test_with_yes_a_live_sweep_runs_and_prints_what_it_spent(server, tmp_path, capsys):
    assert main(["experiment", "--model", MODEL, *SMALL, "--out", str(tmp_path), "--yes"]) == 0
    out = capsys.readouterr().out
    records = [json.loads(line) for line in (tmp_path / "experiment.jsonl").read_text().splitlines()]
    spent = sum(r["cost_usd"] for r in records)
    assert len(records) == 2 and out.index("Cost estimate: 2 live episodes") < out.index("recovery [95% CI]")
    assert f"Cost: ${spent:,.4f} spent by this run on 2 live episode(s)" in out and len(server.messages) >= 2


def costly(body):
    """The stand-in, every reply billed 10,000 tokens in and 1,000 out ($0.03 a call at claude-sonnet-5-5's price)."""
    reply = OfflineModel(seed=0)(body)
    reply["usage"] = {"input_tokens": 10_000, "output_tokens": 1_000}
    return reply


def _spent(path: Path) -> tuple[float, int]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return sum(r["cost_usd"] for r in lines), len(lines)


def test_the_budget_is_a_total_for_the_results_file_and_a_rerun_cannot_spend_it_again(monkeypatch, tmp_path, capsys):
    with LocalAPI(costly) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        argv = ["experiment", "--model", MODEL, *SMALL, "--tickets", "T01,T02,T05,T06,T07,T08", "--out", str(tmp_path),
                "--yes"]
        assert main([*argv, "--budget", "0.10"]) == 3
        err = capsys.readouterr().err
        spent, n = _spent(tmp_path / "experiment.jsonl")
        assert 1 <= n < 6 and spent >= 0.10 and "Traceback" not in err
        # what was really spent, counted once the episodes in flight had ended: never the figure when it stopped admitting
        assert f"budget reached: ${spent:,.4f} spent by this run on {n} episode(s)" in err
        assert f"have cost ${spent:,.4f} of the $0.10 budget, a total for the file" in err
        assert "run again with a larger --budget" in err
        asked = len(api.requests)
        assert main([*argv, "--budget", "0.10"]) == 2  # the same budget again: refused, nothing sent
        err = capsys.readouterr().err
        assert len(api.requests) == asked and err.count("\n") == 1
        assert f"refused: The budget is already spent: the episodes in {tmp_path / 'experiment.jsonl'} cost ${spent:,.4f}" in err
        assert main([*argv, "--budget", f"{spent + 0.05:.4f}"]) == 3  # five cents more: one episode, alone, then stops
        assert _spent(tmp_path / "experiment.jsonl")[1] == n + 1
        assert main([*argv, "--budget", "5"]) == 0
        err = capsys.readouterr().err
    assert _spent(tmp_path / "experiment.jsonl")[1] == 6


def test_the_help_and_the_readme_say_the_budget_is_a_total(capsys):
    with pytest.raises(SystemExit):
        main(["experiment", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "a total for the results file" in shown and "refused once it is spent" in shown
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text().split())
    assert "`--budget USD` is a total for the results file" in readme


def test_a_rejected_key_exits_1_at_once_with_the_fix_and_no_key_shown(monkeypatch, tmp_path, capsys):
    def refuse(body):
        raise APIFault(401, f"invalid x-api-key {FAKE_KEY}")

    with LocalAPI(refuse) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        code = main(["experiment", "--model", MODEL, *SMALL, "--concurrency", "1", "--out", str(tmp_path), "--yes"])
        assert len(api.messages) == 1  # the second episode never started
    captured = capsys.readouterr()
    assert code == 1 and "stopped at once: authentication" in captured.err and "ANTHROPIC_API_KEY" in captured.err
    assert "1 episode(s) failed at the API (authentication 1)" in captured.out
    assert FAKE_KEY not in captured.out + captured.err + (tmp_path / "experiment.jsonl").read_text()


def test_offline_and_replayed_sweeps_say_they_cost_nothing(server, tmp_path, capsys):
    assert main(["experiment", "--model", MODEL, *SMALL, "--out", str(tmp_path / "live"), "--yes",
                 "--record", str(tmp_path / "tape.json")]) == 0
    capsys.readouterr()
    assert main(["experiment", *SMALL, "--out", str(tmp_path / "sim")]) == 0
    assert "Cost: $0 (simulated: the offline stand-in calls no API" in capsys.readouterr().out
    assert main(["experiment", *SMALL, "--cassette", str(tmp_path / "tape.json"), "--out", str(tmp_path / "replay")]) == 0
    assert "Cost: $0 (replayed from a cassette, no API calls" in capsys.readouterr().out


@pytest.mark.parametrize("make, says", [
    (lambda tmp: (tmp / "f").write_text("x") and tmp / "f", "is a file; give a folder"),
    (lambda tmp: (tmp / "f").write_text("x") and tmp / "f" / "sub", "is a file, so the folder cannot be made"),
])
def test_an_out_that_cannot_hold_results_is_one_line_and_exit_2(tmp_path, capsys, make, says):
    out = make(tmp_path)
    assert main(["experiment", *SMALL, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_results_file_that_is_a_folder_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "experiment.jsonl").mkdir()
    assert main(["experiment", *SMALL, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is a folder; pass the results file" in err and err.count("\n") == 1


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can write anywhere")
def test_an_unwritable_out_is_one_line_and_exit_2(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    assert main(["experiment", *SMALL, "--out", str(locked / "results")]) == 2
    assert "is not writable" in capsys.readouterr().err


@pytest.mark.parametrize("content, says", [
    ('{"format": "atlas_kit.cassette/1", "model": "m", "recorded_on": "2026-01-02"}', "the field 'entries' is missing"),
    ('{"format": "atlas_kit.cassette/1", "model": "m", "recorded_on": "d", "entries": [{"request": {}}]}',
     "entries[0] has no valid 'fingerprint' field"),
    ('{"format": "atlas_kit.cassette/1", "model": ', "is not valid JSON"),
    ('{"entries": []}', "is not an atlas_kit cassette"),
])
def test_a_bad_cassette_names_the_file_and_the_field(tmp_path, capsys, content, says):
    tape = tmp_path / "bad.json"
    tape.write_text(content)
    assert main(["experiment", *SMALL, "--cassette", str(tape), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert says in err and str(tape) in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv, says", [
    (["--name", "../escape"], "is not a plain file name"), (["--name", "a/b"], "is not a plain file name"),
    (["--name", ".."], "is not a plain file name"), (["--budget", "nan"], "US dollars above 0"),
    (["--budget", "-3"], "US dollars above 0"), (["--budget", "ten"], "US dollars above 0"),
])
def test_bad_names_and_budgets_are_refused_before_anything_is_written(tmp_path, capsys, argv, says):
    with pytest.raises(SystemExit) as stop:
        main(["experiment", *SMALL, "--out", str(tmp_path / "out"), *argv])
    assert stop.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not (tmp_path / "escape.jsonl").exists()


def test_warnings_print_as_plain_notes(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["experiment", "--model", MODEL, *SMALL, "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("note: No ANTHROPIC_API_KEY is set") and "UserWarning" not in err and ".py:" not in err


# A shell that starts the suite in the background hands its children SIGINT ignored, and Python then installs no
# KeyboardInterrupt handler; the child puts back the handler a terminal's Ctrl-C meets.
SLOW = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import atlas_kit.experiments.running as R
real = R.run_episode
def slow(*args, **kwargs):
    time.sleep(0.05)
    return real(*args, **kwargs)
R.run_episode = slow
from atlas_kit.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _interrupt(argv: list[str], out: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    child = subprocess.Popen([sys.executable, "-c", SLOW, *argv], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 60
    while (not out.exists() or out.read_bytes().count(b"\n") < 3) and time.monotonic() < deadline:
        assert child.poll() is None, child.communicate()
        time.sleep(0.02)
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=60)
    return subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr)


def test_ctrl_c_says_how_many_episodes_finished_and_that_rerunning_resumes(tmp_path):
    tickets = ",".join(f"T{i:02d}" for i in range(1, 9))
    argv = ["experiment", "--styles", "raw,contract", "--faults", "on", "--trials", "2", "--tickets", tickets,
            "--out", str(tmp_path), "--no-progress", "--no-charts"]
    done = _interrupt(argv, tmp_path / "experiment.jsonl")
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr
    assert "interrupted after" in done.stderr and "run the same command again to resume" in done.stderr
    finished = int(done.stderr.split("interrupted after ")[1].split(" ")[0])
    assert finished == len((tmp_path / "experiment.jsonl").read_text().splitlines()) >= 3
    assert main(argv) == 0
    keys = [json.loads(line)["key"] for line in (tmp_path / "experiment.jsonl").read_text().splitlines()]
    assert len(keys) == len(set(keys)) == 2 * 8 * 2


class _Terminal:
    """stdin as a terminal: isatty() is True; `input` is patched separately."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("answer, code", [("y", 0), ("yes", 0), ("n", 2), ("", 2)])
def test_on_a_terminal_the_estimate_is_followed_by_a_question(server, tmp_path, capsys, monkeypatch, answer, code):
    asked: list[str] = []
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or answer)
    assert main(["experiment", "--model", MODEL, *SMALL, "--out", str(tmp_path)]) == code
    assert len(asked) == 1 and asked[0].startswith("Start 2 live episodes (high estimate $") and "[y/N]" in asked[0]
    captured = capsys.readouterr()
    assert "Cost estimate: 2 live episodes" in captured.out
    if code:
        assert "refused: The live sweep was not confirmed; nothing ran" in captured.err and server.messages == []
    else:
        assert (tmp_path / "experiment.jsonl").exists() and server.messages


def test_a_plan_too_big_to_hold_is_refused_at_once_with_the_most_trials_it_allows(server, tmp_path, capsys):
    from atlas_kit.types.sets import MAX_EPISODES

    code = main(["experiment", "--model", MODEL, "--trials", "1000000", "--out", str(tmp_path / "out"), "--yes"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    per_trial = len(STYLE_NAMES) * 2 * 27  # the default conditions (every style, faults on and off) x 27 tickets
    assert f"trials=1,000,000 plans {per_trial * 1_000_000:,} episodes" in err
    assert f"the {MAX_EPISODES:,} one sweep may hold" in err
    assert f"give at most {MAX_EPISODES // per_trial:,} trials" in err  # refused before a plan is built
    assert server.requests == [] and not (tmp_path / "out" / "experiment.jsonl").exists()
    assert main(["experiment", *SMALL, "--trials", str(MAX_EPISODES // 2 + 1), "--tickets", "T01,T04",
                 "--out", str(tmp_path / "out")]) == 2  # 2 tickets x 1 condition: just over the bound
    assert "give at most 50,000 trials" in capsys.readouterr().err


def test_the_help_says_how_many_episodes_a_sweep_may_plan(capsys):
    from atlas_kit.types.sets import MAX_EPISODES

    with pytest.raises(SystemExit):
        main(["experiment", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert f"at most {MAX_EPISODES:,} episodes" in shown and "refused at once, naming the most trials it allows" in shown


# --- a paid recording is never lost ---------------------------------------------------------------------------


def _bad_record_paths(tmp: Path) -> dict[str, tuple[Path, str]]:
    (tmp / "a-file").write_text("x")
    (tmp / "a-folder").mkdir()
    paths = {"under a file": (tmp / "a-file" / "tape.json", f"cannot be written ({tmp / 'a-file'} is a file"),
             "a folder": (tmp / "a-folder", "is a folder")}
    if Path("/dev/full").exists():
        paths["a device"] = (Path("/dev/full"), "is not a regular file")
    if Path("/proc/self").is_dir():
        paths["in /proc"] = (Path("/proc/self/atlas/tape.json"), "cannot be written")
    return paths


@pytest.mark.parametrize("where", ["under a file", "a folder", "a device", "in /proc"])
def test_a_record_path_that_cannot_be_written_is_refused_before_anything_is_sent(server, tmp_path, capsys, where):
    paths = _bad_record_paths(tmp_path)
    if where not in paths:
        pytest.skip(f"this system has no {where}")
    path, says = paths[where]
    code = main(["experiment", "--model", MODEL, *SMALL, "--out", str(tmp_path / "out"), "--yes", "--record", str(path)])
    captured = capsys.readouterr()
    assert code == 2 and server.requests == [] and "Cost estimate" not in captured.out
    assert f"the cassette path {path} (record=, --record) {says}" in captured.err and "nothing was sent" in captured.err
    assert captured.err.count("atlas-kit experiment:") == 1 and "Traceback" not in captured.err
    assert not (tmp_path / "out" / "experiment.jsonl").exists()


def test_a_cassette_that_could_not_be_saved_is_written_by_the_next_run_without_calling_again(server, tmp_path, capsys,
                                                                                            monkeypatch):
    import errno

    from atlas_kit.models.cassette import Cassette

    out, tape = tmp_path / "live", tmp_path / "tapes" / "class.json"
    argv = ["experiment", "--model", MODEL, *SMALL, "--tickets", "T01,T02,T04", "--out", str(out), "--yes"]
    real = Cassette.save

    def full(self, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(Cassette, "save", full)  # the disk fills while the sweep runs: the check before it passed
    assert main([*argv, "--record", str(tmp_path / "full" / "class.json")]) == 2
    err = capsys.readouterr().err
    assert "could not be written (No space left on device); every recorded call is kept in" in err
    assert f"{out / 'experiment.jsonl.tape'}: run the same command with a record path" in err
    assert err.count("atlas-kit experiment:") == 1 and "Traceback" not in err
    paid, sent = len(server.messages), len(server.requests)
    assert paid >= 3 and len((out / "experiment.jsonl").read_text().splitlines()) == 3
    monkeypatch.setattr(Cassette, "save", real)
    assert main([*argv, "--record", str(tape)]) == 0  # every episode is done: it writes the cassette, and calls nothing
    assert len(server.requests) == sent
    held = Cassette.load(tape)
    assert len(held.entries) == paid and len(held.episodes()) == 3
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    capsys.readouterr()
    assert main(["experiment", *SMALL, "--tickets", "T01,T02,T04", "--cassette", str(tape),
                 "--out", str(tmp_path / "class")]) == 0  # and it replays the whole sweep
    live = [json.loads(line) for line in (out / "experiment.jsonl").read_text().splitlines()]
    replayed = [json.loads(line) for line in (tmp_path / "class" / "experiment.jsonl").read_text().splitlines()]
    same = ("key", "stop_reason", "correct", "steps", "tool_calls")
    assert [{f: r[f] for f in same} for r in replayed] == [{f: r[f] for f in same} for r in live]


def test_a_sweep_recorded_over_several_runs_makes_one_whole_cassette(monkeypatch, tmp_path, capsys):
    from atlas_kit.models.cassette import Cassette

    with LocalAPI(costly) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        argv = ["experiment", "--model", MODEL, *SMALL, "--tickets", "T01,T02,T05,T06", "--out", str(tmp_path / "live"),
                "--yes", "--record", str(tmp_path / "class.json")]
        assert main([*argv, "--budget", "0.07"]) == 3  # stopped part way: the cassette holds what ran
        first = Cassette.load(tmp_path / "class.json").episodes()
        assert 1 <= len(first) < 4
        assert main([*argv, "--budget", "5"]) == 0  # the rest: the cassette gets them too, and keeps the first ones
        whole = Cassette.load(tmp_path / "class.json")
        assert len(whole.episodes()) == 4 and first < whole.episodes() and len(whole.entries) == len(api.messages)


def test_a_rerun_that_recorded_nothing_writes_no_empty_cassette(server, tmp_path, capsys):
    argv = ["experiment", "--model", MODEL, *SMALL, "--out", str(tmp_path / "live"), "--yes"]
    assert main(argv) == 0  # without --record
    capsys.readouterr()
    assert main([*argv, "--record", str(tmp_path / "class.json")]) == 2
    err = capsys.readouterr().err
    assert "nothing to record: the 2 episode(s) of this sweep in" in err and "ran without record= (--record)" in err
    assert not (tmp_path / "class.json").exists() and err.count("atlas-kit experiment:") == 1


def test_a_recording_interrupted_with_ctrl_c_keeps_what_finished_and_a_rerun_completes_the_cassette(tmp_path,
                                                                                                    monkeypatch):
    from atlas_kit.models.cassette import Cassette

    def slow(body):
        time.sleep(0.05)
        return OfflineModel(seed=0)(body)

    tickets = ",".join(f"T{i:02d}" for i in range(1, 7))
    argv = ["experiment", "--model", MODEL, "--styles", "contract", "--faults", "on", "--trials", "1", "--tickets",
            tickets, "--out", str(tmp_path / "live"), "--no-progress", "--no-charts", "--yes", "--record",
            str(tmp_path / "class.json")]
    with LocalAPI(slow) as api:
        done = _interrupt(argv, tmp_path / "live" / "experiment.jsonl", env=_env(api))
        # A live sweep stops on Ctrl-C as an offline one does (the test above), and keeps what it recorded.
        assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr
        assert "interrupted after" in done.stderr and "run the same command again to resume" in done.stderr
        finished = len((tmp_path / "live" / "experiment.jsonl").read_text().splitlines())
        assert len(Cassette.load(tmp_path / "class.json").episodes()) == finished  # what finished is replayable
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        monkeypatch.delenv("ATLAS_MODEL", raising=False)
        assert main(argv) == 0
    assert len(Cassette.load(tmp_path / "class.json").episodes()) == 6
