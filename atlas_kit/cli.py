"""The `atlas-kit` command: run the course offline, and run experiments into a results folder.

Argument parsing and printing only; the work lives in experiments, metrics and charts.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

__all__ = ["main"]

STYLE_NAMES = ("raw", "generic", "contract")
ON_OFF = {"on": True, "off": False}


def _course(args: argparse.Namespace) -> int:
    from .course import run_course

    try:
        timings = run_course(args.out, folder=args.chapters)
    except FileNotFoundError as err:
        print(f"atlas-kit course: error: {err}", file=sys.stderr)
        return 2
    total = sum(seconds for _, seconds in timings)
    print(f"{len(timings)} chapters ran offline (no API key, simulated results) in {total:.0f} s.")
    print(f"Executed copies are in {args.out}/; to work through the course: .venv/bin/jupyter lab chapters/")
    return 0


def _experiment(args: argparse.Namespace) -> int:
    from .charts import save_charts
    from .experiments import run_experiment
    from .metrics import recovery_table

    out: Path = args.out
    jsonl = out / f"{args.name}.jsonl"
    try:
        records = run_experiment(
            name=args.name, styles=args.styles, faults=args.faults, break_loops=args.loop_breaker,
            profiles=(args.profile,), tickets=args.tickets, trials=args.trials, first_seed=args.first_seed, model=args.model,
            cassette=args.cassette, record=args.record, out=jsonl, concurrency=args.concurrency, progress=not args.no_progress,
        )
    except ValueError as err:  # a value only the run can check, e.g. a deprecated model name
        print(f"atlas-kit experiment: error: {err}", file=sys.stderr)
        return 2
    varying = [f for f in ("faults", "break_loops", "profile", "model") if len({r[f] for r in records}) > 1]
    print(recovery_table(records, by=("style", *varying)))
    print(f"\n{len(records)} episodes in {jsonl}")
    for path in save_charts(records, out, prefix=f"{args.name}_"):
        print(f"chart: {path}")
    return 0


def _csv(kind: str, accepted: tuple[str, ...], convert: Callable[[str], object] = str) -> Callable[[str], list]:
    """An argparse type: a comma-separated list, each item one of `accepted`, else the accepted values."""
    def parse(text: str) -> list:
        items = [item.strip() for item in text.split(",") if item.strip()]
        wrong = [item for item in items if item not in accepted]
        if not items or wrong:
            shown = ", ".join(repr(w) for w in wrong) or "an empty list"
            raise argparse.ArgumentTypeError(f"{shown} is not a {kind}; accepted values: {','.join(accepted)} "
                                             "(comma-separated).")
        return list(dict.fromkeys(convert(item) for item in items))
    parse.__name__ = kind  # argparse names the type in some messages
    return parse


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; give a whole number of at least 1.")
    return value


def _seed(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; give a whole number of 0 or more.")
    return int(text)


def _profile(text: str) -> str:
    from .experiments import named_profiles

    known = tuple(named_profiles())
    if text not in known:
        raise argparse.ArgumentTypeError(f"{text!r} is not a profile of the offline stand-in; "
                                         f"accepted values: {', '.join(known)}.")
    return text


def _cassette(text: str) -> Path:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a file; give the path of a cassette recorded with "
                                         "choose_model(..., record=PATH).")
    return path


def _tickets(text: str) -> list:
    from .atlas import TICKETS

    return _csv("ticket id", tuple(TICKETS))(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="atlas-kit", description=__doc__.splitlines()[0],
                                     epilog="Run `atlas-kit COMMAND --help` for a command's options.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    course = sub.add_parser("course", help="run the course offline (no API key needed)")
    course.add_argument("--out", type=Path, default=Path("results/course"),
                        help="where executed notebooks go (default: results/course)")
    course.add_argument("--chapters", type=Path, default=None, metavar="DIR",
                        help="the folder of chapter notebooks (default: chapters/ of this checkout)")
    course.set_defaults(func=_course)

    exp = sub.add_parser(
        "experiment", help="run a sweep of Atlas tickets; write results (JSONL), charts (PNG) and a summary",
        description="Run every style × faults × loop-breaker condition on each ticket, --trials times "
                    "(trial i uses seed i). Each finished episode is appended to OUT/NAME.jsonl at once; "
                    "running the same command again resumes and never repeats an episode.",
        epilog="example: atlas-kit experiment --model offline --styles raw,contract --trials 20 --out results/")
    exp.add_argument("--model", default="offline", metavar="NAME",
                     help="'offline' (default): the rule-based stand-in, results labelled simulated; or a live "
                          "model name, which needs ANTHROPIC_API_KEY (without it the stand-in answers instead, "
                          "and the results say simulated)")
    exp.add_argument("--styles", type=_csv("style", STYLE_NAMES), default=list(STYLE_NAMES), metavar="LIST",
                     help=f"error styles to compare, comma-separated, from {','.join(STYLE_NAMES)} (default: all)")
    exp.add_argument("--trials", type=_positive, default=5, metavar="N",
                     help="trials per ticket and condition; trial i runs with seed FIRST_SEED + i (default: 5)")
    exp.add_argument("--first-seed", type=_seed, default=0, metavar="FIRST_SEED",
                     help="the seed of trial 0 (default: 0)")
    exp.add_argument("--out", type=Path, default=Path("results"), metavar="DIR",
                     help="folder for NAME.jsonl and the charts (default: results)")
    exp.add_argument("--name", default="experiment", help="experiment name: the files are NAME.jsonl and "
                     "NAME_<chart>.png (default: experiment)")
    exp.add_argument("--tickets", type=_tickets, default=None, metavar="LIST",
                     help="ticket ids, comma-separated, e.g. T01,T04 (default: all 27)")
    exp.add_argument("--faults", type=_csv("faults setting", tuple(ON_OFF), ON_OFF.get), default=[True, False],
                     metavar="on,off", help="inject each ticket's faults: on, off, or on,off for both (default: on,off)")
    exp.add_argument("--loop-breaker", type=_csv("loop-breaker setting", tuple(ON_OFF), ON_OFF.get), default=[True],
                     metavar="on,off", help="end a run when the same call fails the same way twice: on, off, "
                                            "or on,off to compare (default: on)")
    exp.add_argument("--profile", type=_profile, default=None, metavar="NAME",
                     help="offline only: what the stand-in does when an error gives it no cue (default: default)")
    exp.add_argument("--concurrency", type=_positive, default=16, metavar="N",
                     help="live or replayed episodes in flight at once; offline runs one at a time (default: 16)")
    exp.add_argument("--cassette", type=_cassette, default=None, metavar="PATH",
                     help="replay a recorded cassette instead of calling a model: no key, no network")
    exp.add_argument("--record", type=Path, default=None, metavar="PATH",
                     help="with a live model: record every call to this cassette, for replaying in class")
    exp.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    exp.set_defaults(func=_experiment)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
