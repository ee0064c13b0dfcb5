"""`atlas-kit experiment`: run a sweep of Atlas tickets (or a published design, `--preset`) into a results
folder, print its table and charts, and ask before a live sweep spends money. The work lives in experiments,
presets and charts; chapter 11 teaches the sweep, the preset and the budget.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .args import STYLE_NAMES, _one_line

if TYPE_CHECKING:
    from ..experiments.sweep import Sweep
    from ..types import Record
    from ..models.pricing import Estimate

__all__ = ["experiment_command", "preset_command"]


def experiment_command(args: argparse.Namespace) -> int:
    """Exit 0 when every episode ran; 1 when the API stopped the sweep; 2 on bad input, a refused live sweep, or a
    model that cannot finish a turn (guard.RUNAWAY_EPISODES); 3 when the budget stopped it; 130 on Ctrl-C. Every
    stop but 2 is resumable by rerunning."""
    from ..agent import Bounds
    from ..experiments.spec import SweepSpec
    from ..experiments.sweep import sweep
    from ..experiments.guard import SweepInterrupted, SweepStopped

    out: Path = args.out  # main() has checked that it can hold the results
    jsonl = out / f"{args.name or 'experiment'}.jsonl"
    problem = _misplaced(args)
    if problem:
        print(f"atlas-kit experiment: error: {problem}", file=sys.stderr)
        return 2
    if args.preset:
        return preset_command(args)
    try:
        result = sweep(SweepSpec(
            name=args.name or "experiment", styles=args.styles, faults=args.faults, break_loops=args.loop_breaker,
            profiles=(args.profile,), tickets=args.tickets, trials=args.trials, first_seed=args.first_seed,
            model=args.model or "offline", base_url=args.base_url, cassette=args.cassette, record=args.record,
            out=jsonl,
            concurrency=args.concurrency, progress=not args.no_progress, max_cost_usd=math.inf,
            budget_usd=args.budget, confirm=lambda estimate: _confirm(estimate, yes=args.yes), via=args.via,
            bounds=None if args.max_tokens is None else Bounds(max_tokens=args.max_tokens,
                                                               retry_max_tokens=args.max_tokens)))
    except (SweepInterrupted, SweepStopped, ValueError, OSError) as err:  # incl. a bad cassette, an unwritable file
        return _failed(err)
    return _report(result, args, jsonl)


def _report(result: Sweep, args: argparse.Namespace, jsonl: Path) -> int:
    """Print a sweep that ran: its notes, tables, charts and spend; the exit code (see experiment_command)."""
    from ..face.tables import paired_table, recovery_table

    records = result.records
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    varying = [f for f in ("faults", "break_loops", "profile", "model") if len({r[f] for r in records}) > 1]
    print(recovery_table(records, by=("style", *varying)))
    if len({r["style"] for r in records}) > 1:  # two arms or more: the paired test, each against the contract
        print()
        print(paired_table(records))
    print(f"\n{len(records)} episodes in {jsonl}")
    if not args.no_charts and _charts(records, args.out, args.name or "experiment") != 0:
        return 2
    print(result.guard.spend_line(records))
    if result.stopped is not None:
        print(f"atlas-kit experiment: {result.message}", file=sys.stderr)
        return {"budget": 3, "runaway": 2}.get(result.stopped, 1)
    return 0


def _charts(records: list[Record], out: Path, name: str) -> int:
    """Draw the sweep's charts beside its results; 2 when they cannot be written (the results are kept)."""
    from ..face.charts import save_charts

    try:
        for path in save_charts(records, out, prefix=f"{name}_"):
            print(f"chart: {path}")
    except OSError as err:
        print(f"atlas-kit experiment: error: the charts could not be written: {_one_line(err)}", file=sys.stderr)
        return 2
    return 0


def preset_command(args: argparse.Namespace) -> int:
    """`--preset NAME`: audit the design, run it for each model in --model (comma-separated), print the table."""
    from ..experiments.guard import SweepInterrupted, SweepStopped
    from ..experiments.presets import run_preset

    given = {"--styles": args.styles != list(STYLE_NAMES), "--tickets": args.tickets is not None,
             "--faults": args.faults != [True, False], "--loop-breaker": args.loop_breaker != [True],
             "--profile": args.profile is not None, "--cassette": args.cassette is not None,
             "--record": args.record is not None, "--max-tokens": args.max_tokens is not None}
    if any(given.values()):
        print(f"atlas-kit experiment: error: --preset {args.preset} fixes its arms, tickets and faults; drop "
              f"{', '.join(flag for flag, on in given.items() if on)}.", file=sys.stderr)
        return 2
    try:
        result = run_preset(args.preset, models=_models(args),
                            trials=args.trials, first_seed=args.first_seed, via=args.via, out=args.out,
                            progress=not args.no_progress, max_cost_usd=math.inf, budget_usd=args.budget,
                            confirm=lambda estimate: _confirm(estimate, yes=args.yes))
    except (SweepInterrupted, SweepStopped, ValueError, OSError) as err:
        return _failed(err)
    from ..experiments.presets import published_rows
    from ..experiments.results import source_label
    from ..face.tables import Table

    # Two tables, never one: a run (simulated, live or replayed) and a paper's measurement are different evidence.
    print(f"== This run: {source_label(result.records)} ==")
    print(Table.of(result.rows()))
    print("\n== Published: a paper's measurement, not a run of this design ==")
    print(Table.of(published_rows(args.preset)))
    print(f"\n{len(result.records)} episodes in {args.out}/{args.preset}_MODEL.jsonl. Audit passed: no error text "
          f"states a task's expected answer ({result.audited} ticket, arm and seed runs read).")
    return 3 if result.stopped == "budget" else 0


def _failed(err: BaseException) -> int:
    """One line on stderr for a sweep that did not start or finish, and its exit code (see experiment_command)."""
    from ..experiments.guard import SweepInterrupted, SweepRefused, SweepStopped

    if isinstance(err, SweepInterrupted):
        line, code = str(err), 130
    elif isinstance(err, SweepRefused):
        line, code = f"refused: {err}", 2
    elif isinstance(err, SweepStopped):
        line, code = _one_line(err), 1
    else:  # a value only the run can check, a bad cassette, an unwritable file
        line, code = f"error: {_one_line(err)}", 2
    print(f"atlas-kit experiment: {line}", file=sys.stderr)
    return code


def _confirm(estimate: Estimate, *, yes: bool) -> bool:
    """Ask on a terminal whether to start a live sweep; with no terminal, only --yes starts it."""
    from ..experiments.guard import SweepRefused

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


def _models(args: argparse.Namespace) -> list[str]:
    """The models --model names (a comma-separated list with --preset; args._model has refused empty items)."""
    return [m.strip() for m in (args.model or "offline").split(",")]


def _misplaced(args: argparse.Namespace) -> str:
    """A flag given that this sweep cannot use (so it would be ignored), as the line that says so; "" when none.
    --yes is never one: it only allows what a sweep that asks nothing never asks."""
    if args.cassette is not None:
        given = _given(args, "--model", "--base-url", "--budget", "--record")
        return f"--cassette replays the model it recorded, at no cost: drop {given}." if given else ""
    if args.preset:
        given = _given(args, "--base-url", "--concurrency", "--name")
        if given:
            return (f"--preset {args.preset} runs each model it is given at its defaults into its own files: "
                    f"drop {given}.")
    elif "," in (args.model or ""):
        return f"--model takes one model here; a comma-separated list is for --preset: give one of {args.model!r}."
    runs = {_runs(model, args.base_url) for model in _models(args)}
    if "live" not in runs:
        why = ("the offline stand-in answers" if runs == {"offline"} else
               "no ANTHROPIC_API_KEY is set, so the offline stand-in answers instead")
        given = _given(args, "--budget", "--concurrency", "--record", *(() if args.preset else ("--base-url",)))
        if given:
            return (f"{given} cannot apply: {why}, at no cost, one episode at a time, and the same again from its "
                    f"seed; drop {given}.")
    return ""


def _runs(model: str, base_url: str | None) -> str:
    """How `model` would run: "offline" (the stand-in), "simulated" (a Claude model with no key, which the stand-in
    answers for) or "live" (Claude with a key, a local or another server)."""
    from ..models.choose import parse_model
    from ..models.env import KEY_ENV

    server = parse_model(model, base_url=base_url).server
    if server == "standin":
        return "offline"
    return "simulated" if server == "anthropic" and not os.environ.get(KEY_ENV) else "live"


def _given(args: argparse.Namespace, *flags: str) -> str:
    """Which of `flags` the command line set (each differs from its default), as "--a, --b"."""
    unset: dict[str, object] = {"--model": None, "--base-url": None, "--budget": None, "--concurrency": None,
                                "--name": None, "--record": None}
    return ", ".join(f for f in flags if getattr(args, f[2:].replace("-", "_")) != unset[f])
