"""Malformed `atlas-kit` invocations, one list per subcommand: the corpus tests/test_cli_bad_input.py runs, each of
which must end in one line on stderr and exit 2. `make_files(tmp)` makes what the cases point at (an existing file, a
notebook, a transcript, a cassette) and `corpus(files)` returns (label, argv) pairs; argv is what follows `atlas-kit`.

Every case is wrong in exactly one way, so the line it gets can be read for that one fault; the rest of its argv
would run (a notebook to grade, a transcript to read), so no other check can answer in its place.
"""
from __future__ import annotations

from pathlib import Path

import nbformat

from atlas_kit.models.replay import Cassette

__all__ = ["BIDI", "CONTROL", "PLACES", "Case", "corpus", "make_files"]

DATA = Path(__file__).resolve().parent / "data" / "transcripts"
CONTROL = "\x1b[31m\x07\x08"  # an escape sequence, a bell and a backspace: a name made of control characters
BIDI = "a\u202eb"  # a right-to-left override inside a name
Case = tuple[str, list[str]]
PLACES = ("file", "tape", "under", "notebook", "tmp", "transcript", "sys", "proc")


def make_files(tmp: Path) -> dict[str, str]:
    """What the cases point at: a file, a path under it, a notebook to grade, a transcript, folders in /sys, /proc."""
    file = tmp / "a_file.txt"
    file.write_text("not a folder\n")
    notebook = tmp / "subs" / "02_four_branches.ipynb"
    notebook.parent.mkdir(exist_ok=True)
    title = nbformat.v4.new_markdown_cell("# 02 · Four branches: exercises")
    nbformat.write(nbformat.v4.new_notebook(cells=[title]), notebook)
    tape = tmp / "tape.json"
    Cassette(model="claude-sonnet-4-5", recorded_on="2026-01-02").save(tape)
    return {"file": str(file), "tape": str(tape), "under": str(file / "inside"), "notebook": str(notebook),
            "tmp": str(tmp), "transcript": str(DATA / "anthropic_episodes.jsonl"), "sys": "/sys/atlas-kit-out",
            "proc": "/proc/atlas-kit"}


def _named(command: str, base: list[str], cases: list[tuple[str, list[str]]]) -> list[Case]:
    return [(f"{command} {label}", [command, *base, *extra]) for label, extra in cases]


def _experiment(f: dict[str, str]) -> list[Case]:
    run = ["--out", f"{f['tmp']}/results", "--no-progress", "--no-charts", "--trials", "1", "--tickets", "T01",
           "--styles", "contract", "--faults", "on"]
    plain = [["--trials"], ["--trials", "0"], ["--trials", "x"], ["--trials", "-1"], ["--trials", "inf"],
             ["--first-seed", "-2"], ["--first-seed", "1.5"], ["--styles", "fancy"], ["--tickets", "T99"],
             ["--faults", "maybe"], ["--budget", "inf"], ["--budget", "nan"], ["--budget", "-5"],
             ["--concurrency", "0"], ["--max-tokens", "0"], ["--name", "../x"], ["--profile", "reckless"], ["--via", "carrier-pigeon"],
             ["--preset", "nope"]]
    return _named("experiment", run, [(" ".join(extra), extra) for extra in plain] + [
        ("unknown flag", ["--bogus"]),
        ("--styles with an empty item", ["--styles", "raw,,contract"]), ("--styles empty", ["--styles", ""]),
        ("--styles with a trailing comma", ["--styles", "raw,"]),
        ("--tickets with an empty item", ["--tickets", "T01,,T02"]), ("--tickets a lone comma", ["--tickets", ","]),
        ("--loop-breaker with an empty item", ["--loop-breaker", "on,,off"]),
        ("--budget offline", ["--budget", "5"]), ("--concurrency offline", ["--concurrency", "4"]),
        ("--base-url offline", ["--base-url", "http://127.0.0.1:9"]), ("--record offline", ["--record", "t.json"]),
        ("--model of control characters", ["--model", CONTROL]), ("--model with a bidi override", ["--model", BIDI]),
        ("--model empty", ["--model", ""]), ("--model with a newline", ["--model", "claude\nsonnet"]),
        ("--name with a bidi override", ["--name", BIDI]),
        ("--out an existing file", ["--out", f["file"]]), ("--out under a file", ["--out", f["under"]]),
        ("--out in /sys", ["--out", f["sys"]]), ("--out in /proc", ["--out", f["proc"]]),
        ("--out empty", ["--out", ""]), ("--out with a control character", ["--out", f"{f['tmp']}/a\x1bb"]),
        ("--cassette missing", ["--cassette", f"{f['tmp']}/nowhere.json"]),
        ("--cassette a folder", ["--cassette", f["tmp"]]),
        ("--record a folder", ["--record", f["tmp"]]), ("--record in /sys", ["--record", f"{f['sys']}/tape.json"]),
        ("--preset with --styles", ["--preset", "self-reflective", "--styles", "raw"]),
        ("--cassette and --model", ["--cassette", f["tape"], "--model", "claude-sonnet-4-5"]),
    ])


def _course(f: dict[str, str]) -> list[Case]:
    return _named("course", [], [
        ("--jobs 0", ["--jobs", "0"]), ("--jobs inf", ["--jobs", "inf"]), ("unknown flag", ["--bogus"]),
        ("--out an existing file", ["--out", f["file"]]), ("--out under a file", ["--out", f["under"]]),
        ("--out in /sys", ["--out", f["sys"]]), ("--chapters missing", ["--chapters", f"{f['tmp']}/nowhere"]),
        ("--chapters a file", ["--chapters", f["file"]]),
    ])


def _grade(f: dict[str, str]) -> list[Case]:
    plain = [["--chapter", "99x"], ["--timeout", "inf"], ["--timeout", "nan"], ["--timeout", "0"],
             ["--timeout", "1e309"], ["--cell-timeout", "-1"], ["--jobs", "0"]]
    graded = _named("grade", [f["notebook"], "--out", f"{f['tmp']}/grades", "--jobs", "1"],
                    [(" ".join(extra), extra) for extra in plain] + [
        ("--chapter empty", ["--chapter", ""]), ("unknown flag", ["--bogus"]),
        ("--out an existing file", ["--out", f["file"]]), ("--out under a file", ["--out", f["under"]]),
        ("--out in /sys", ["--out", f["sys"]]), ("--out too long to look up", ["--out", f"{f['tmp']}/{'x' * 5000}"]),
        ("--solutions missing", ["--solutions", f"{f['tmp']}/nowhere"]),
        ("--solutions a file", ["--solutions", f["file"]]),
    ])
    return graded + _named("grade", [], [
        ("with no submission", []), ("a missing submission", [f"{f['tmp']}/nowhere.ipynb"]),
        ("a submission named in control characters", [f"{f['tmp']}/{CONTROL}.ipynb"]),
    ])


def _transcripts(f: dict[str, str]) -> list[Case]:
    read = _named("transcripts", [f["transcript"]], [
        ("--format unknown", ["--format", "nope"]), ("--skip-tools only commas", ["--skip-tools", ",,"]),
        ("--skip-tools with an empty item", ["--skip-tools", "think,,x"]), ("unknown flag", ["--bogus"]),
        ("--skip-tools in control characters", ["--skip-tools", CONTROL]),
        ("--out an existing file", ["--out", f["file"]]), ("--out under a file", ["--out", f["under"]]),
        ("--out in /sys", ["--out", f["sys"]]),
    ])
    return read + _named("transcripts", [], [("with no file", []), ("a missing file", [f"{f['tmp']}/nowhere.json"]),
                                             ("a file name too long to look up", [f"{f['tmp']}/{'x' * 5000}.json"])])


def _audit(f: dict[str, str]) -> list[Case]:
    plain = [["--call-timeout", "inf"], ["--call-timeout", "nan"], ["--connect-timeout", "inf"], ["--time-limit", "0"],
             ["--min-score", "101"], ["--min-score", "nan"], ["--fail-on", "nope"], ["--max-calls", "0"]]
    target = _named("audit", ["--python", "tests.audit_sample_tools:CONTRACT", "--no-progress"],
                    [(" ".join(extra), extra) for extra in plain] + [
        ("--fail-on with an empty item", ["--fail-on", "echo,,next"]), ("unknown flag", ["--bogus"]),
        ("--json a folder", ["--json", f["tmp"]]), ("--json in /sys", ["--json", f"{f['sys']}/audit.json"]),
        ("--json under a file", ["--json", f"{f['under']}.json"]),
        ("--html in /proc", ["--html", f"{f['proc']}/a.html"]),
        ("--json and --html the same file", ["--json", f"{f['tmp']}/a.out", "--html", f"{f['tmp']}/a.out"]),
        ("--env with a Python target", ["--env", "MY_TOKEN"]), ("a second target", ["--url", "http://127.0.0.1:9/mcp"]),
        ("--cases missing", ["--cases", f"{f['tmp']}/nowhere.jsonl"]),
    ])
    return target + _named("audit", [], [("with no target", ["--no-progress"]),
                                         ("--python with no attribute", ["--python", "tests.audit_sample_tools"])])


def _mcp(f: dict[str, str]) -> list[Case]:
    plain = [["--style", "fancy"], ["--faults", "maybe"], ["--seed", "-1"], ["--ticket", "T99"], ["--max-calls", "0"],
             ["--print-config", "nope"]]
    return _named("mcp", [], [(" ".join(extra), extra) for extra in plain] + [
        ("--log a folder", ["--log", f["tmp"]]), ("--log in /sys", ["--log", f"{f['sys']}/atlas.jsonl"]),
        ("--log under a file", ["--log", f"{f['under']}.jsonl"]), ("--log empty", ["--log", ""]),
        ("--log an existing non-log file", ["--log", f["file"]]), ("unknown flag", ["--bogus"]),
        ("--ticket in control characters", ["--ticket", CONTROL]),
    ])


def corpus(f: dict[str, str]) -> list[Case]:
    """Every malformed invocation, pointing at the files of `make_files` (or at PLACES' names, for the labels)."""
    everywhere = [("no command", []), ("an unknown command", ["bogus"]), ("an unknown top-level flag", ["--bogus"]),
                  ("a command in control characters", [CONTROL])]
    return [*everywhere, *_experiment(f), *_course(f), *_grade(f), *_transcripts(f), *_audit(f), *_mcp(f)]
