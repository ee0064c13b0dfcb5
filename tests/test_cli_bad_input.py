"""Issue 52: every `atlas-kit` command answers bad input with one line on stderr and exit 2, never the usage block
(that is --help's) and never a traceback: a corpus of malformed invocations of every subcommand, a hypothesis fuzz
that drives every option of every subcommand with generated bad values, and a few through a real process."""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import atlas_kit.bridges.mcp.stdio as mcp_stdio
from atlas_kit.cli.command import build_parser
from atlas_kit.cli import main
from cli_bad_inputs import BIDI, CONTROL, PLACES, corpus, make_files

ROOT = Path(__file__).resolve().parents[1]
LABELS = [label for label, _ in corpus({place: place for place in PLACES})]


@pytest.fixture(autouse=True)
def no_key_and_no_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline, at the root (audit --python imports tests.*), and an MCP server that starts would fail the test."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(ROOT)

    def served(*_: object) -> None:
        raise AssertionError("bad input reached the MCP server")

    monkeypatch.setattr(mcp_stdio, "serve_stdio", served)


def run(argv: list[str]) -> tuple[object, str, str]:
    """main(argv) in this process: its exit status (returned, or SystemExit's code), stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: object = main(argv)
        except SystemExit as stop:
            code = stop.code
    return code, out.getvalue(), err.getvalue()


def assert_one_line(code: object, out: str, err: str, argv: list[str]) -> str:
    """Exit 2, nothing on stdout, and one printable line on stderr naming the command; returns the line."""
    assert code == 2, (argv, code, err)
    assert out == "", (argv, out[:300])
    assert err.count("\n") == 1 and err.endswith("\n"), (argv, err)
    line = err[:-1]
    assert line.isprintable(), (argv, line)  # no escape sequence, bell, bidi override or line break reaches a terminal
    assert line.startswith("atlas-kit") and "Traceback" not in line and "usage:" not in line, (argv, line)
    return line


@pytest.mark.parametrize("index", range(len(LABELS)), ids=LABELS)
def test_each_malformed_invocation_is_one_line_and_exit_2(index: int, tmp_path: Path) -> None:
    label, argv = corpus(make_files(tmp_path))[index]
    line = assert_one_line(*run(argv), argv)
    flag = next((word for word in label.split() if word.startswith("--")), None)
    if flag is not None and flag not in ("--bogus",):  # the line names the option it refuses
        assert flag in line or "unrecognized" in line, (label, line)
    assert not (tmp_path / "results").exists() and not (tmp_path / "grades").exists()  # nothing ran


def test_the_lines_say_what_to_do_for_the_cases_the_issue_found(tmp_path: Path) -> None:
    files = make_files(tmp_path)
    cases = dict(corpus(files))
    said = {label: assert_one_line(*run(cases[label]), cases[label]) for label in (
        "experiment --tickets with an empty item", "experiment --budget offline", "grade --out an existing file",
        "grade --out in /sys", "grade --out under a file", "course --out an existing file", "audit --call-timeout inf",
        "experiment --model of control characters", "experiment unknown flag")}
    assert "'T01,,T02' has an empty item" in said["experiment --tickets with an empty item"]
    assert "--budget cannot apply: the offline stand-in answers" in said["experiment --budget offline"]
    assert said["grade --out an existing file"].endswith("a_file.txt: is a file; give a folder for the results.")
    assert "/sys is the kernel's own filesystem" in said["grade --out in /sys"]
    assert "a_file.txt is a file, so the folder cannot be made under it" in said["grade --out under a file"]
    assert "is a file; give a folder" in said["course --out an existing file"]
    assert "'inf' is not accepted; give a number of seconds above 0" in said["audit --call-timeout inf"]
    assert "'\\x1b[31m\\x07\\x08' holds" in said["experiment --model of control characters"]
    assert said["experiment unknown flag"] == ("atlas-kit experiment: error: unrecognized arguments: --bogus; "
                                               "`atlas-kit experiment --help` lists what it takes.")


def test_help_still_prints_the_usage_and_exits_0() -> None:
    code, out, err = run(["experiment", "--help"])
    assert code == 0 and out.startswith("usage: atlas-kit experiment") and "--budget USD" in out and err == ""


# --- the fuzz: every option of every subcommand, each with values it must refuse -----------------------------------

BASE = {  # an invocation of each command that would run; the fuzz adds one bad piece to it
    "experiment": ["--out", "{tmp}/results", "--trials", "1", "--tickets", "T01", "--styles", "contract",
                   "--faults", "on", "--no-progress", "--no-charts"],
    "course": ["--out", "{tmp}/results", "--chapters", "{tmp}/subs"],
    "grade": ["{notebook}", "--out", "{tmp}/grades"],
    "transcripts": ["{transcript}", "--out", "{tmp}/results"],
    "audit": ["--python", "tests.audit_sample_tools:CONTRACT", "--no-progress"],
    "mcp": ["--print-config", "inspector"],
}
STYLES, ON_OFF = ["raw", "generic", "plain", "contract"], ["on", "off"]
RULES = ["is_error", "structure", "code", "retryable", "next", "echo", "internals", "length"]
# How each option's bad values are made; the fuzz fails on an option missing here.
KINDS: dict[tuple[str, str], str] = {
    **{("experiment", f): k for f, k in [
        ("--model", "name"), ("--base-url", "name"), ("--styles", "list:styles"), ("--trials", "count"),
        ("--first-seed", "seed"), ("--out", "out-folder"), ("--name", "name"), ("--tickets", "list:tickets"),
        ("--faults", "list:on_off"), ("--loop-breaker", "list:on_off"), ("--profile", "name"),
        ("--concurrency", "count"), ("--max-tokens", "count"),
        ("--cassette", "in-file"), ("--record", "out-file"), ("--budget", "dollars"), ("--via", "choice"),
        ("--preset", "name")]},
    **{("course", f): k for f, k in [("--out", "out-folder"), ("--chapters", "in-folder"), ("--jobs", "count")]},
    **{("grade", f): k for f, k in [
        ("--out", "out-folder"), ("--chapter", "name"), ("--timeout", "seconds"), ("--cell-timeout", "seconds"),
        ("--jobs", "count"), ("--solutions", "in-folder")]},
    **{("transcripts", f): k for f, k in [
        ("--format", "choice"), ("--skip-tools", "list:names"), ("--out", "out-folder")]},
    **{("audit", f): k for f, k in [
        ("--url", "name"), ("--python", "name"), ("--cases", "in-file"), ("--json", "out-file"), ("--html", "out-file"),
        ("--min-score", "score"), ("--fail-on", "list:rules"), ("--call-timeout", "seconds"),
        ("--time-limit", "seconds"),
        ("--max-calls", "count"), ("--connect-timeout", "seconds"), ("--env", "name")]},
    **{("mcp", f): k for f, k in [
        ("--style", "choice"), ("--faults", "choice"), ("--seed", "seed"), ("--log", "out-file"), ("--ticket", "name"),
        ("--max-calls", "count"), ("--print-config", "choice")]},
}
ITEMS = {"styles": STYLES, "tickets": ["T01", "T02", "T28"], "on_off": ON_OFF, "rules": RULES, "names": ["think", "x"]}

unprintable = st.characters(categories=["Cc", "Cf", "Zl", "Zp"])
with_unprintable = st.tuples(st.text(max_size=8), unprintable, st.text(max_size=8)).map("".join)
numbers = st.floats(allow_nan=True, allow_infinity=True).map(repr)


def _options() -> Iterator[tuple[str, argparse.Action]]:
    """Every option that takes a value, of every subcommand (read off the real parser)."""
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in commands.choices.items():
        for action in parser._actions:
            if action.option_strings and action.nargs != 0:
                yield name, action


OPTIONS = sorted((name, action.option_strings[-1]) for name, action in _options())
CHOICES = {(name, action.option_strings[-1]): list(action.choices or ()) for name, action in _options()}


def _bad(kind: str, places: dict[str, str], choices: list[str]) -> st.SearchStrategy[str]:
    """Values an option of this kind must refuse."""
    if kind.startswith("list:"):
        items = ITEMS[kind[5:]]
        some = st.lists(st.sampled_from(items), max_size=3)
        empty_item = st.tuples(some, some)
        return st.one_of(empty_item.map(lambda two: ",".join([*two[0], "", *two[1]])), with_unprintable)
    return {
        "count": st.one_of(st.integers(max_value=0).map(str), st.sampled_from(["inf", "nan", "1.5", "x", "1e3", ""]),
                           with_unprintable),
        "seed": st.one_of(st.integers(max_value=-1).map(str), st.sampled_from(["1.5", "inf", "x", ""]),
                          with_unprintable),
        "seconds": st.one_of(numbers.filter(lambda v: not 0 < float(v) <= 86_400), st.sampled_from(["1e309", "", "s"])),
        "dollars": st.one_of(numbers.filter(lambda v: not 0 < float(v) < float("inf")), st.just("$")),
        "score": numbers.filter(lambda v: not 0 <= float(v) <= 100),
        "choice": st.one_of(st.text(max_size=12), with_unprintable).filter(lambda v: v not in choices),
        "name": st.one_of(with_unprintable, st.sampled_from([CONTROL, BIDI])),
        "out-folder": st.sampled_from([places["file"], places["under"], places["sys"], places["proc"], "", "a\x1bb"]),
        "out-file": st.sampled_from([places["tmp"], places["under"] + ".json", places["sys"] + "/x.json",
                                     places["proc"] + "/x.json", "", "a\u202eb.json"]),
        "in-file": st.sampled_from([places["tmp"] + "/nowhere.json", places["tmp"] + "/" + CONTROL, ""]),
        "in-folder": st.sampled_from([places["tmp"] + "/nowhere", places["file"], "", "a\x07b"]),
    }[kind]


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return make_files(tmp_path_factory.mktemp("fuzz"))


def test_the_fuzz_covers_every_option_of_every_subcommand() -> None:
    assert set(OPTIONS) == set(KINDS), set(OPTIONS) ^ set(KINDS)
    assert {name for name, _ in OPTIONS} == set(BASE)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_generated_bad_arguments_get_one_line_and_exit_2(data: st.DataObject, places: dict[str, str]) -> None:
    command, flag = data.draw(st.sampled_from(OPTIONS), label="option")
    base = [part.format(**places) for part in BASE[command]]
    piece = data.draw(st.one_of(
        _bad(KINDS[command, flag], places, CHOICES[command, flag]).map(lambda value: [flag, value]),
        st.just([flag]),  # the value left out
        st.text("abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=10).map(lambda w: [f"--zz{w}"]),  # no such option
        st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=10).map(lambda w: [f"zz{w}"]),  # a stray word
    ), label="bad piece")
    # An option given twice takes its last value, so a bad value goes after the base's; an unknown option anywhere.
    at = len(base) if piece[0] == flag else data.draw(st.integers(0, len(base)), label="where")
    argv = [command, *base[:at], *piece, *base[at:]]
    assert_one_line(*run(argv), argv)


# --- through a real process: the interpreter's own exit, encoding and stderr ----------------------------------------

@pytest.mark.parametrize("argv", [
    [], ["experiment", "--model", CONTROL, "--no-progress"], ["grade", "{notebook}", "--out", "{file}"],
    ["course", "--out", "/sys/atlas-kit"], ["audit", "--python", "x:y", "--call-timeout", "inf"],
])
def test_a_real_process_prints_one_line_and_exits_2(argv: list[str], places: dict[str, str]) -> None:
    argv = [part.format(**places) for part in argv]
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    done = subprocess.run([sys.executable, "-m", "atlas_kit", *argv], capture_output=True, text=True, cwd=ROOT,
                          env={**env, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL, timeout=120)
    assert_one_line(done.returncode, done.stdout, done.stderr, argv)


# --- a flag the mode cannot use, and where outputs may go ------------------------------------------------------------

def _misplaced(argv: list[str]) -> str:
    from atlas_kit.cli.experiment import _misplaced as misplaced

    return misplaced(build_parser().parse_args(["experiment", *argv]))


def test_a_live_only_flag_is_refused_only_where_it_cannot_apply(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _misplaced(["--budget", "5"]).startswith("--budget cannot apply: the offline stand-in answers")
    no_key = _misplaced(["--model", "claude-sonnet-4-5", "--budget", "5", "--concurrency", "4"])
    assert no_key.startswith("--budget, --concurrency cannot apply: no ANTHROPIC_API_KEY is set")
    assert _misplaced(["--yes"]) == ""  # it allows a question an offline sweep never asks
    assert _misplaced(["--model", "a,b"]).startswith("--model takes one model here")
    assert _misplaced(["--preset", "self-reflective", "--concurrency", "2"]).endswith("drop --concurrency.")
    assert _misplaced(["--preset", "self-reflective", "--model", "offline,claude-sonnet-4-5", "--budget", "1"]) != ""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "placeholder: any value counts as set")
    for live in (["--model", "claude-sonnet-4-5", "--budget", "5", "--concurrency", "4"],
                 ["--model", "ollama:qwen3:4b", "--base-url", "http://127.0.0.1:9", "--concurrency", "2"],
                 ["--preset", "self-reflective", "--model", "offline,claude-sonnet-4-5", "--budget", "1"]):
        assert _misplaced(live) == "", live


def test_print_config_keeps_every_option_given(capsys: pytest.CaptureFixture[str]) -> None:
    given = ["--ticket", "T04", "--max-calls", "5", "--style", "plain"]
    assert main(["mcp", "--print-config", "claude-code", *given]) == 0
    line = capsys.readouterr().out
    assert "--ticket T04" in line and "--max-calls 5" in line and "--style plain" in line
    assert main(["mcp", "--print-config", "claude-code"]) == 0
    assert "--max-calls" not in capsys.readouterr().out  # the default goes without saying


def test_the_kernel_s_filesystems_are_found_in_the_mount_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from atlas_kit.cli import paths

    spaced = tmp_path / "my disk"  # the table writes its space as \040
    (spaced / "sys" / "fs").mkdir(parents=True)
    table = tmp_path / "mounts"
    escaped = str(spaced).replace(" ", "\\040")
    table.write_text(f"/dev/sda1 / ext4 rw 0 0\nsysfs {escaped}/sys sysfs rw 0 0\n"
                     f"cgroup2 {escaped}/sys/fs cgroup2 rw 0 0\n")
    monkeypatch.setattr(paths, "_MOUNTS", table)
    assert "the kernel's own filesystem" in paths.folder_problem(spaced / "sys" / "results")
    assert paths.folder_problem(spaced / "results") == ""  # beside it, on the disk
    assert paths.file_problem(spaced / "sys" / "fs" / "a.json").startswith(f"{spaced}/sys/fs is the kernel's")
    monkeypatch.setattr(paths, "_MOUNTS", tmp_path / "no-such-table")  # not Linux: judged by the folder alone
    assert paths.folder_problem(spaced / "sys" / "results") == ""


def test_a_read_only_or_unwritable_folder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from atlas_kit.cli import paths

    class ReadOnly:
        f_flag = os.ST_RDONLY

    with monkeypatch.context() as patched:
        patched.setattr(paths.os, "statvfs", lambda _: ReadOnly())
        assert paths.folder_problem(tmp_path / "out").endswith("is on a read-only filesystem; give a folder you can "
                                                               "write to.")
    monkeypatch.setattr(paths.os, "access", lambda *_: False)  # what a folder of someone else's says to a user
    assert paths.folder_problem(tmp_path / "out") == f"{tmp_path} is not writable; give a folder you can write to."
    (tmp_path / "kept.json").write_text("{}")
    assert paths.file_problem(tmp_path / "kept.json") == "is not writable; give a file you can write to."


def test_an_output_check_creates_nothing(tmp_path: Path) -> None:
    from atlas_kit.cli.paths import file_problem, folder_problem

    assert folder_problem(tmp_path / "a" / "b") == "" and file_problem(tmp_path / "c" / "d.json") == ""
    assert list(tmp_path.iterdir()) == []
    assert "cannot be looked up" in folder_problem(tmp_path / ("x" * 5000))
