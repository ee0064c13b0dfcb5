"""The `atlas-kit` command: run the course offline, and run experiments into a results folder.

Argument parsing and printing only; the work lives in experiments, metrics and charts. This file builds the
parser and runs a command; each command's handler has its module (course, experiment, mcp, grade, transcripts,
audit), args.py the parser class and shared types, paths.py the check of where a command writes.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from typing import TextIO

from ..types.exceptions import AtlasKitError
from ..types.sets import MAX_EPISODES
from .args import (ON_OFF, STYLE_NAMES, Commands, Parser, _cassette, _csv, _dollars, _model, _name, _one_line,
    _path, _plain, _positive, _preset_name, _profile, _seed, _tickets, refuse, unprintable_argument)
from .audit import add_audit_parser
from .course import add_course_parser
from .experiment import experiment_command
from .grade import add_grade_parser
from .mcp import add_mcp_parser
from .paths import output_argument, output_problem
from .transcripts import add_transcripts

__all__ = ["main"]

COMMANDS = ("course", "experiment", "mcp", "grade", "transcripts", "audit")


def build_parser() -> argparse.ArgumentParser:
    """The `atlas-kit` parser: one subcommand per command, each added beside its handler. Every error it or a
    command's parser finds is one line and exit 2 (args.Parser)."""
    parser = Parser(prog="atlas-kit", description=__doc__.splitlines()[0],
                    epilog="Run `atlas-kit COMMAND --help` for a command's options.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_course_parser(sub)
    _add_experiment_parser(sub)
    add_mcp_parser(sub)
    add_grade_parser(sub)
    add_transcripts(sub)
    add_audit_parser(sub)
    return parser


def _add_experiment_parser(sub: Commands) -> None:
    """`atlas-kit experiment` (its handler is cli/experiment.py's)."""
    exp = sub.add_parser(
        "experiment", help="run a sweep of Atlas tickets; write results (JSONL), charts (PNG) and a summary",
        description="Run every style × faults × loop-breaker condition on each ticket, --trials times "
                    "(trial i uses seed i). Each finished episode is appended to OUT/NAME.jsonl at once; "
                    "running the same command again resumes and never repeats an episode (episodes that failed at "
                    "the API are rerun). A sweep on Claude prints its cost estimate and asks before it starts; a "
                    "local model costs nothing, and the sweep says how long it will take after its first episode "
                    "(Ctrl-C stops it; the same command resumes).",
        epilog="exit codes: 0 done; 1 stopped by the API (a rejected key, an outage); 2 bad input, or a live sweep "
               "refused; 3 budget reached; 130 interrupted. Rerun the same command to resume after 1 or 130, and "
               "with a larger --budget after 3. "
               "Example: atlas-kit experiment --model offline --styles raw,contract --trials 20 --out results/")
    _experiment_conditions(exp)
    _experiment_how(exp)
    exp.set_defaults(func=experiment_command)


def _experiment_conditions(exp: argparse.ArgumentParser) -> None:
    """The experiment options that say what runs and where the results go: the model, the styles, the trials and
    seeds, the folder and name, the tickets and the faults (in the order --help lists them)."""
    exp.add_argument("--model", type=_model, default=None, metavar="NAME",
                     help="'offline' (default): the rule-based stand-in, results labelled simulated; a local model, "
                          "free and with no key: ollama:qwen3:4b (Ollama) or llamacpp:NAME (llama-server); or a Claude "
                          "model, which needs ANTHROPIC_API_KEY (without it the stand-in answers instead, and the "
                          "results say simulated)")
    exp.add_argument("--base-url", type=_plain, default=None, metavar="URL",
                     help="where a local server listens, if not at its default (Ollama http://localhost:11434, "
                          "llama-server http://localhost:8080; ATLAS_BASE_URL sets it too); with a model name and no "
                          "prefix, any Anthropic-compatible server at URL (it never gets a key)")
    exp.add_argument("--styles", type=_csv("style", STYLE_NAMES), default=list(STYLE_NAMES), metavar="LIST",
                     help=f"error styles to compare, comma-separated, from {','.join(STYLE_NAMES)} (default: all)")
    exp.add_argument("--trials", type=_positive, default=5, metavar="N",
                     help="trials per ticket and condition; trial i runs with seed FIRST_SEED + i (default: 5). A "
                          f"sweep plans at most {MAX_EPISODES:,} episodes (conditions × tickets × trials; it holds them "
                          "and its results in memory); a larger plan is refused at once, naming the most trials it "
                          "allows")
    exp.add_argument("--first-seed", type=_seed, default=0, metavar="FIRST_SEED",
                     help="the seed of trial 0 (default: 0)")
    output_argument(exp, "--out", kind="folder", default="results", metavar="DIR",
                    help="folder for NAME.jsonl and the charts (default: results)")
    exp.add_argument("--name", type=_name, default=None, help="experiment name, a plain file name: the "
                     "files are OUT/NAME.jsonl and OUT/NAME_<chart>.png (default: experiment)")
    exp.add_argument("--tickets", type=_tickets, default=None, metavar="LIST",
                     help="ticket ids, comma-separated, e.g. T01,T04; T28 to T39 are chapter 14's implicit-failure "
                          "tickets (default: the core 27, T01 to T27)")
    exp.add_argument("--faults", type=_csv("faults setting", tuple(ON_OFF), ON_OFF.get), default=[True, False],
                     metavar="on,off", help="inject each ticket's faults: on, off, or on,off for both (default: on,off)")


def _experiment_how(exp: argparse.ArgumentParser) -> None:
    """The experiment options after the conditions: the loop breaker, the stand-in, concurrency, cassettes, money,
    batches, presets and the progress bar (in the order --help lists them)."""
    exp.add_argument("--loop-breaker", type=_csv("loop-breaker setting", tuple(ON_OFF), ON_OFF.get), default=[True],
                     metavar="on,off", help="end a run when the same call fails the same way twice: on, off, "
                                            "or on,off to compare (default: on)")
    exp.add_argument("--profile", type=_profile, default=None, metavar="NAME",
                     help="offline only: what the stand-in does when an error gives it no cue (default: default)")
    exp.add_argument("--concurrency", type=_positive, default=None, metavar="N",
                     help="live or replayed episodes in flight at once; offline runs one at a time (default: 16 on "
                          "Anthropic's API, 1 on a local server)")
    exp.add_argument("--max-tokens", type=_positive, default=None, metavar="N",
                     help="the most tokens the model may write in one reply; a reply cut off there ends its episode "
                          "as truncated (default: 1,024, and 4,096 for one retry of a reply cut mid-call; 2,048 for "
                          "that retry on a local server)")
    exp.add_argument("--cassette", type=_cassette, default=None, metavar="PATH",
                     help="replay a recorded cassette instead of calling a model: no key, no network")
    exp.add_argument("--record", type=_path, default=None, metavar="PATH",  # its own checks: experiments/recording.py
                     help="with a live model: record every call to this cassette, for replaying in class; a cassette "
                          "already there is added to, never shrunk or replaced; the path is tried before anything is "
                          "sent, and the calls are also kept beside the results (NAME.jsonl.tape), so a rerun writes "
                          "the whole cassette, whichever run made them")
    exp.add_argument("--budget", type=_dollars, default=None, metavar="USD",
                     help="live only: a total for the results file, in US dollars: what its episodes already cost "
                          "plus this run. The sweep stops cleanly once the total is spent (exit 3) and is refused once "
                          "it is spent; rerun with a larger --budget to go on (default: no budget beyond the confirmed "
                          "estimate)")
    exp.add_argument("--yes", action="store_true",
                     help="live only: start without asking; a live sweep first prints its cost estimate and, with no "
                          "terminal to ask on, is refused unless --yes is given")
    exp.add_argument("--via", choices=("messages", "batch"), default="messages",
                     help="messages (default): one call at a time; batch: each turn of every episode in one Message "
                          "Batch, at half the price, results within 24 hours; a killed batch sweep resumes its batches")
    exp.add_argument("--preset", type=_preset_name, default=None, metavar="NAME",
                     help="run a published design on Atlas: self-reflective (arXiv 2606.05037: plain-English against "
                          "structured errors, 10 tickets); --model takes a comma-separated list, --trials is N per "
                          "model and arm (30 matches the paper); files go to OUT/NAME_MODEL.jsonl")
    exp.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    exp.add_argument("--no-charts", action="store_true",
                     help="write the results and print the tables, but draw no PNG charts (a second or so a sweep; "
                          "draw them later with atlas_kit.face.charts.save_charts on read_records(NAME.jsonl))")


def _note(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: TextIO | None = None,
          line: str | None = None) -> None:
    """Print a warning as a plain note: no file, line or class name for a user to decode."""
    from ..contract.redaction import redact

    print(f"note: {redact(str(message))}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """`atlas-kit`: parse the command line, check where it writes, run the command, and return its exit status.

    Bad input is one line on stderr and exit 2 (SystemExit(2) from the parser, or 2 returned), never a traceback:
    a value the parser refuses, an output that cannot be written, or an atlas_kit error or OSError a command raises
    for what it was given. Anything else is a bug, and keeps its traceback."""
    parser = build_parser()
    given = sys.argv[1:] if argv is None else argv
    prog = f"atlas-kit {given[0]}" if given and given[0] in COMMANDS else "atlas-kit"
    hidden = unprintable_argument(given)
    if hidden:  # before parsing: argparse would echo it in some of its own messages
        refuse(prog, hidden)
    try:
        args, extra = parser.parse_known_args(given)
    except OSError as err:  # a type that looked a path up: a name too long for the file system
        refuse(prog, f"{_one_line(err)}; give another path.")
    if extra:  # said by the command's name, so the line points at the --help that lists its options
        refuse(f"atlas-kit {args.command}", f"unrecognized arguments: {' '.join(extra)}")
    problem = output_problem(args)
    if problem:
        print(f"atlas-kit {args.command}: error: {problem}", file=sys.stderr)
        return 2
    with warnings.catch_warnings():
        warnings.showwarning = _note
        try:
            status: int = args.func(args)
            return status
        except KeyboardInterrupt:  # a command that stops on Ctrl-C says more itself; this is the plain fallback
            print(f"atlas-kit {args.command}: interrupted.", file=sys.stderr)
            return 130
        except (AtlasKitError, OSError) as err:  # a command's own check of what it was given, or a path it met
            print(f"atlas-kit {args.command}: error: {_one_line(err)}", file=sys.stderr)
            return 2
