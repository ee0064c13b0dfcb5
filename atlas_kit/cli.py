"""The `atlas-kit` command: run the course offline, and run experiments into a results folder.

Argument parsing and printing only; the work lives in experiments, metrics and charts.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Any, Callable

__all__ = ["main"]

STYLE_NAMES = ("raw", "generic", "contract")
ON_OFF = {"on": True, "off": False}


def _course(args: argparse.Namespace) -> int:
    from .course import closing_line, run_course

    try:
        timings = run_course(args.out, folder=args.chapters)
    except FileNotFoundError as err:
        print(f"atlas-kit course: error: {err}", file=sys.stderr)
        return 2
    total = sum(seconds for _, seconds in timings)
    print(f"{len(timings)} chapters ran offline (no API key, simulated results) in {total:.0f} s.")
    print(closing_line(args.out, folder=args.chapters))
    return 0


def _experiment(args: argparse.Namespace) -> int:
    """Exit 0 when every episode ran; 1 when the API stopped the sweep; 2 on bad input or a refused live
    sweep; 3 when the budget stopped it; 130 on Ctrl-C. Every stop but 2 is resumable by rerunning."""
    from .charts import save_charts
    from .experiments import sweep
    from .guard import SweepInterrupted, SweepRefused
    from .tables import recovery_table

    out: Path = args.out
    jsonl = out / f"{args.name}.jsonl"
    problem = _unwritable(out)
    if problem:
        print(f"atlas-kit experiment: error: --out {out}: {problem}", file=sys.stderr)
        return 2
    if args.preset:
        return _preset(args)
    try:
        result = sweep(
            name=args.name, styles=args.styles, faults=args.faults, break_loops=args.loop_breaker,
            profiles=(args.profile,), tickets=args.tickets, trials=args.trials, first_seed=args.first_seed, model=args.model,
            cassette=args.cassette, record=args.record, out=jsonl, concurrency=args.concurrency, progress=not args.no_progress,
            max_cost_usd=math.inf, budget_usd=args.budget, confirm=lambda estimate: _confirm(estimate, yes=args.yes),
            via=args.via,
        )
    except SweepInterrupted as stop:
        print(f"atlas-kit experiment: {stop}", file=sys.stderr)
        return 130
    except SweepRefused as err:
        print(f"atlas-kit experiment: refused: {err}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:  # a value only the run can check, a bad cassette, an unwritable file
        print(f"atlas-kit experiment: error: {_one_line(err)}", file=sys.stderr)
        return 2
    records = result.records
    varying = [f for f in ("faults", "break_loops", "profile", "model") if len({r[f] for r in records}) > 1]
    print(recovery_table(records, by=("style", *varying)))
    print(f"\n{len(records)} episodes in {jsonl}")
    try:
        for path in save_charts(records, out, prefix=f"{args.name}_"):
            print(f"chart: {path}")
    except OSError as err:
        print(f"atlas-kit experiment: error: the charts could not be written: {_one_line(err)}", file=sys.stderr)
        return 2
    print(result.guard.spend_line(records))
    if result.stopped is not None:
        print(f"atlas-kit experiment: {result.message}", file=sys.stderr)
        return 3 if result.stopped == "budget" else 1
    return 0


def _preset(args: argparse.Namespace) -> int:
    """`--preset NAME`: audit the design, run it for each model in --model (comma-separated), print the table."""
    from .guard import SweepInterrupted, SweepRefused, SweepStopped
    from .presets import run_preset

    given = {"--styles": args.styles != list(STYLE_NAMES), "--tickets": args.tickets is not None,
             "--faults": args.faults != [True, False], "--loop-breaker": args.loop_breaker != [True],
             "--profile": args.profile is not None, "--cassette": args.cassette is not None,
             "--record": args.record is not None}
    if any(given.values()):
        print(f"atlas-kit experiment: error: --preset {args.preset} fixes its arms, tickets and faults; drop "
              f"{', '.join(flag for flag, on in given.items() if on)}.", file=sys.stderr)
        return 2
    try:
        result = run_preset(args.preset, models=[m.strip() for m in args.model.split(",") if m.strip()],
                            trials=args.trials, first_seed=args.first_seed, via=args.via, out=args.out,
                            progress=not args.no_progress, max_cost_usd=math.inf, budget_usd=args.budget,
                            confirm=lambda estimate: _confirm(estimate, yes=args.yes))
    except SweepInterrupted as stop:
        print(f"atlas-kit experiment: {stop}", file=sys.stderr)
        return 130
    except SweepRefused as err:
        print(f"atlas-kit experiment: refused: {err}", file=sys.stderr)
        return 2
    except SweepStopped as err:
        print(f"atlas-kit experiment: {_one_line(err)}", file=sys.stderr)
        return 1
    except (ValueError, OSError) as err:
        print(f"atlas-kit experiment: error: {_one_line(err)}", file=sys.stderr)
        return 2
    print(result.table())
    print(f"\n{len(result.records)} episodes in {args.out}/{args.preset}_MODEL.jsonl. Audit passed: no error text "
          f"states a task's expected answer ({result.audited} ticket, arm and seed runs read).")
    return 3 if result.stopped == "budget" else 0


def _preset_name(text: str) -> str:
    from .presets import PRESETS

    if text not in PRESETS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a preset; accepted values: {', '.join(PRESETS)}.")
    return text


def _confirm(estimate: Any, *, yes: bool) -> bool:
    """Ask on a terminal whether to start a live sweep; with no terminal, only --yes starts it."""
    from .guard import SweepRefused

    if yes:
        return True
    try:
        interactive = sys.stdin.isatty()
    except (AttributeError, ValueError, OSError):
        interactive = False
    if not interactive:
        raise SweepRefused("no terminal to confirm the estimate above on; run the same command with --yes to start "
                           "this live sweep, or lower --trials or --tickets.")
    try:
        answer = input(f"Start {estimate.episodes:,} live episodes (high estimate ${estimate.high_usd:,.2f}, "
                       f"cap ${estimate.cap_usd:,.2f})? [y/N] ")
    except EOFError:
        answer = ""
    return answer.strip().lower() in ("y", "yes")


def _unwritable(folder: Path) -> str:
    """Why results cannot be written into `folder` (made if missing), or "" when they can."""
    if folder.exists() and not folder.is_dir():
        return "is a file; give a folder for NAME.jsonl and the charts."
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is a file, so the folder cannot be made; give another --out."
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is not writable; give a folder you can write to."
    return ""


def _one_line(err: BaseException) -> str:
    from .trace import redact

    text = f"{err.strerror}: {err.filename}" if isinstance(err, OSError) and err.strerror else str(err)
    return redact(" ".join(text.split()))


def _name(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}", text) or ".." in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not a plain file name; use letters, digits, '_', '-' and '.' "
                                         "(no '/' or '..'), e.g. sweep-01. The files go in --out.")
    return text


def _dollars(text: str) -> float:
    try:
        value = float(text.strip().lstrip("$"))
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; give a number of US dollars above 0, e.g. 25.")
    return value


def _csv(kind: str, accepted: tuple[str, ...], convert: Callable[[str], object] = str) -> Callable[[str], list[object]]:
    """An argparse type: a comma-separated list, each item one of `accepted`, else the accepted values."""
    def parse(text: str) -> list[object]:
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


def _tickets(text: str) -> list[object]:
    from .atlas import ALL_TICKETS  # the core 27 and the implicit-failure tickets of chapter 14

    return _csv("ticket id", tuple(ALL_TICKETS))(text)


def _ticket(text: str) -> str:
    from .atlas import TICKETS

    if text not in TICKETS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a ticket id; give one of T01 to T{len(TICKETS):02d}.")
    return text


def _mcp(args: argparse.Namespace) -> int:
    try:  # the MCP SDK is an optional extra: import it only for this command
        from .mcp_server import AtlasMCP, client_config, serve_stdio
        from .results import read_records
    except ImportError as err:
        print(f"atlas-kit mcp: error: {err}", file=sys.stderr)
        return 2
    log: Path | None = args.log.resolve() if args.log else None
    if args.print_config:
        exe = Path(sys.executable).with_name("atlas-kit")
        command = [str(exe)] if exe.exists() else [sys.executable, "-m", "atlas_kit"]
        options = ["mcp", "--style", args.style, "--faults", args.faults, "--seed", str(args.seed),
                   "--log", str(log or Path("results/mcp/atlas.jsonl").resolve())]
        print(client_config(args.print_config, executable=command[0], args=[*command[1:], *options]))
        return 0
    try:
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            read_records(log)  # an existing file must be a results log, or every episode would fail to append
        server = AtlasMCP(style=args.style, faults=ON_OFF[args.faults], seed=args.seed, log=log, max_calls=args.max_calls)
    except (OSError, ValueError) as err:
        print(f"atlas-kit mcp: error: --log {args.log}: {err}", file=sys.stderr)
        return 2
    if args.ticket:
        server.open(args.ticket)
    print(f"atlas-kit mcp: serving Atlas over stdio (style {args.style}, faults {args.faults}, "
          f"seed {args.seed}); log: {log or 'none'}. Waiting for an MCP client on stdin; Ctrl-C stops.", file=sys.stderr)
    import anyio

    try:
        anyio.run(serve_stdio, server)
    except KeyboardInterrupt:
        pass
    return 0


def _grade(args: argparse.Namespace) -> int:
    from .grading import grade_class, summarize

    try:
        book = grade_class(args.submissions, out=args.out, chapter=args.chapter, solutions=args.solutions,
                           timeout=args.timeout, cell_timeout=args.cell_timeout, jobs=args.jobs)
    except (FileNotFoundError, ValueError) as err:
        print(f"atlas-kit grade: error: {err}", file=sys.stderr)
        return 2

    def shown(text: str) -> str:  # names and notes are learner-written
        return "".join(c if c.isprintable() else "?" for c in text)

    print(f"Graded {len(book.grades)} notebooks (chapter {', '.join(book.plans) or 'none'}) in {book.seconds:.0f} s "
          f"with the offline stand-in only (simulated); network: {book.isolation}.")
    for s in summarize(book):
        print(f"  {s.key} {s.title}: {s.passed} of {s.rows} passed, {s.blank} not answered")
    for g in book.grades:
        if g.status != "ok":
            print(f"  {shown(g.learner)}: {g.status}{' - ' + shown(g.notes[-1]) if g.notes else ''}")
    print(f"Wrote {args.out / 'grades.csv'} and {args.out / 'report.html'}.")
    return 0


def _chapter(text: str) -> str:
    head = text.strip()[:2]
    if not head.isdigit() or not (len(text.strip()) <= 2 or text.strip()[2] == "_"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a chapter; give its number, e.g. 02 (or its stem, "
                                         "02_four_branches).")
    return f"{int(head):02d}"


def _existing(text: str) -> Path:
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{text!r} does not exist; give exercise notebooks (.ipynb) or folders of them.")
    return path


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; give a number of seconds above 0.")
    return value


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
                    "running the same command again resumes and never repeats an episode (episodes that failed at "
                    "the API are rerun). A live sweep prints its cost estimate and asks before it starts.",
        epilog="exit codes: 0 done; 1 stopped by the API (a rejected key, an outage); 2 bad input, or a live sweep "
               "refused; 3 budget reached; 130 interrupted. Rerun the same command to resume after 1, 3 or 130. "
               "Example: atlas-kit experiment --model offline --styles raw,contract --trials 20 --out results/")
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
    exp.add_argument("--name", type=_name, default="experiment", help="experiment name, a plain file name: the "
                     "files are OUT/NAME.jsonl and OUT/NAME_<chart>.png (default: experiment)")
    exp.add_argument("--tickets", type=_tickets, default=None, metavar="LIST",
                     help="ticket ids, comma-separated, e.g. T01,T04; T28 to T39 are chapter 14's implicit-failure "
                          "tickets (default: the core 27, T01 to T27)")
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
    exp.add_argument("--budget", type=_dollars, default=None, metavar="USD",
                     help="live only: stop the sweep cleanly once it has spent this many US dollars; rerun to resume "
                          "(default: no budget beyond the confirmed estimate)")
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
    exp.set_defaults(func=_experiment)

    mcp = sub.add_parser(
        "mcp", help="serve Atlas over MCP (stdio) so a real model in Claude Code, Claude Desktop or the MCP Inspector "
                    "can work the tickets; needs the extra: pip install -e '.[mcp]'",
        description="Serve Atlas's seven tools, a finish tool and the 27 tickets (as prompts T01-T27) over stdio. "
                    "Pick a ticket prompt in your client to open an episode; the model hands its reply in with finish, "
                    "and the server grades it.",
        epilog="example: atlas-kit mcp --print-config claude-code   (prints the exact `claude mcp add` line)")
    mcp.add_argument("--style", choices=STYLE_NAMES, default="contract",
                     help="how failed tool calls are worded: raw, generic or contract (default: contract)")
    mcp.add_argument("--faults", choices=tuple(ON_OFF), default="on", help="inject each ticket's faults (default: on)")
    mcp.add_argument("--seed", type=_seed, default=0, help="the seed of Atlas's data and faults (default: 0)")
    mcp.add_argument("--log", type=Path, default=None, metavar="FILE",
                     help="append each episode (calls, answer, grade, client) to this JSONL results file")
    mcp.add_argument("--ticket", type=_ticket, default=None, metavar="ID",
                     help="open this ticket at start, for clients that do not offer prompts (e.g. T04)")
    mcp.add_argument("--max-calls", type=_positive, default=12, metavar="N",
                     help="tool calls per episode before it ends on step_limit (default: 12)")
    mcp.add_argument("--print-config", choices=("claude-code", "claude-desktop", "inspector"), default=None,
                     help="print the exact command or config snippet that connects that client, then exit")
    mcp.set_defaults(func=_mcp)

    grade = sub.add_parser(
        "grade", help="grade learners' exercise notebooks: run each offline and confined, write grades.csv and "
                      "report.html",
        description="Run each submitted exercise notebook in a kernel of its own (no API key, no network, the offline "
                    "stand-in only, a time limit), check every exercise with the course's own checks, and write "
                    "OUT/grades.csv (a row per notebook) and OUT/report.html (by exercise, then by learner).",
        epilog="example: atlas-kit grade submissions/ --chapter 02 --out grades/")
    grade.add_argument("submissions", nargs="+", type=_existing, metavar="SUBMISSION",
                       help="an exercise notebook, or a folder searched for them")
    grade.add_argument("--out", type=Path, default=Path("grades"), metavar="DIR",
                       help="folder for grades.csv and report.html (default: grades)")
    grade.add_argument("--chapter", type=_chapter, default=None, metavar="NN",
                       help="the chapter the class was set; a notebook of another chapter gets a row saying so "
                            "(default: each notebook's own chapter, from its metadata or file name)")
    grade.add_argument("--timeout", type=_seconds, default=300.0, metavar="S",
                       help="seconds for a whole notebook, its cells and checks together; then its kernel is "
                            "killed (default: 300)")
    grade.add_argument("--cell-timeout", type=_seconds, default=60.0, metavar="S",
                       help="seconds for one cell or one check; then it is interrupted (default: 60)")
    grade.add_argument("--jobs", type=_positive, default=None, metavar="N",
                       help="notebooks graded at once, each in its own kernel (default: the number of CPU cores)")
    grade.add_argument("--solutions", type=Path, default=None, metavar="DIR",
                       help="the course's solutions/ folder, where each exercise's answer expression is read "
                            "(default: solutions/ of this checkout)")
    grade.set_defaults(func=_grade)
    return parser


def _note(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None,
          line: str | None = None) -> None:
    """Print a warning as a plain note: no file, line or class name for a user to decode."""
    from .trace import redact

    print(f"note: {redact(str(message))}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """`atlas-kit`: parse the command line, run the command, and return its exit status."""
    args = build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _note
        try:
            status: int = args.func(args)
            return status
        except KeyboardInterrupt:  # a command that stops on Ctrl-C says more itself; this is the plain fallback
            print(f"atlas-kit {args.command}: interrupted.", file=sys.stderr)
            return 130


if __name__ == "__main__":
    sys.exit(main())
