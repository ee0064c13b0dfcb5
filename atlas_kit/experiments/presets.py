"""A published design, reproduced on Atlas: "Self-Reflective APIs" (arXiv 2606.05037), as `--preset self-reflective`.

Plain-English diagnoses (the plain style) against structured errors with recovery suggestions (the contract), on
ten tickets that need recovery, N episodes per (model, arm) cell, any models. It audits that no error text gives a
task's expected answer away (leaks.py), estimates the live cost first, and reports the runs in one table and the
paper's figures in another. Chapter 11.
"""
from __future__ import annotations

import math
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal, Sequence

from ..agent import Bounds
from .episodes import plan
from .leaks import Leak, expected_answers, find_leaks
from .spec import SweepSpec
from .sweep import Sweep, sweep
from .guard import SweepRefused, SweepStopped, spent_in, sweep_estimate
from ..models.pricing import Estimate
from .results import source_label
from ..types.records import Record, TableRows
from .stats import Comparison, compare_arms
from ..types.exceptions import AtlasKitValueError

Via = Literal["messages", "batch"]


@dataclass(frozen=True)
class Published:
    """What a paper reported, as it reported it: the source, its design's size, and its findings in words."""

    source: str
    n_per_cell: int
    models: int
    tasks: int
    anthropic: str  # the difference, structured minus plain, in points of task completion
    gpt_4o_mini: str


@dataclass(frozen=True)
class Preset:
    """A design: two arms (Atlas styles, the control first), the tickets it runs with faults on, and why each."""

    name: str
    title: str
    control: str
    treatment: str
    tasks: tuple[tuple[str, str], ...]  # (ticket id, what recovery it needs)
    published: Published

    @property
    def tickets(self) -> tuple[str, ...]:
        return tuple(t for t, _ in self.tasks)


SELF_REFLECTIVE = Preset(
    name="self-reflective",
    title="Self-Reflective APIs (arXiv 2606.05037): plain-English diagnoses against structured recovery suggestions",
    # The paper's arms: a plain-English diagnosis with no recovery suggestion is Atlas's `plain` (one sentence on
    # what went wrong, no code, no retry, no next step; `generic`'s "please try again" is a suggestion, so it is
    # not this arm); the structured errors are the contract: a code, retryable and a `next` (the suggestion).
    control="plain",
    treatment="contract",
    tasks=(  # every one fails on a permanent error the model must read and act on; none on a passing outage
        ("T19", "invalid_argument: narrow the query, retry changed"),
        ("T04", "limit_exceeded: switch to escalate_to_human"),
        ("T27", "limit_exceeded: switch to escalate_to_human"),
        ("T07", "not_permitted: switch to escalate_to_human (returns)"),
        ("T09", "not_found: switch to list_invoices, then retry"),
        ("T05", "not_permitted: stop on the other customer's account"),
        ("T08", "not_found: stop and tell the customer"),
        ("T16", "limit_exceeded: stop at the quantity cap"),
        ("T18", "limit_exceeded: stop outside the refund window"),
        ("T23", "not_found: stop and ask for the right number"),
    ),  # T22 (invalid_argument) is left out: its errors state the refundable amount, the answer itself
    published=Published(source="arXiv 2606.05037 (a pilot: validation errors)", n_per_cell=30, models=3, tasks=10,
                        anthropic="+36.7 to +40.0", gpt_4o_mini="not significant"),
)
PRESETS: dict[str, Preset] = {SELF_REFLECTIVE.name: SELF_REFLECTIVE}


def _preset(preset: Preset | str) -> Preset:
    if not isinstance(preset, Preset) and preset not in PRESETS:
        raise AtlasKitValueError(f"preset {preset!r} is not one of: {', '.join(PRESETS)}.")
    return preset if isinstance(preset, Preset) else PRESETS[preset]


def assign(trials: int, tickets: Sequence[str]) -> list[tuple[tuple[str, ...], int]]:
    """Spread `trials` episodes per cell over the tickets, round-robin: [(tickets, trials each), ...].

    30 over 10 tickets is 3 each (the paper's N = 30 per cell); 25 is 3 for the first five and 2 for the rest.
    """
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise AtlasKitValueError(f"trials (episodes per model and arm) must be a whole number of at least 1; got {trials!r}.")
    q, r = divmod(trials, len(tickets))
    groups = [(tuple(tickets[:r]), q + 1), (tuple(tickets[r:]), q)]
    return [(group, n) for group, n in groups if group and n]


def audit(preset: Preset | str = SELF_REFLECTIVE, *, seeds: Sequence[int] = (0,),
          tickets: Sequence[str] | None = None) -> list[Leak]:
    """Every leak in the errors each arm shows, per seed: on the ticket's scripted path and on the stand-in's run.

    An empty list is a pass. It reads errors the tools really return, in both arms' wording, with the faults on
    (leaks.find_leaks).
    """
    p = _preset(preset)
    return find_leaks(tickets or p.tickets, styles=(p.control, p.treatment), seeds=seeds)


@dataclass
class PresetResult:
    """A preset's records (every model), its comparisons per model, and the audit it passed."""

    preset: Preset
    records: list[Record]
    comparisons: dict[str, Comparison]
    audited: int  # (ticket, arm, seed) combinations audited
    stopped: str | None = None  # "budget" when the budget stopped it (rerun to resume)
    message: str = ""

    def rows(self) -> TableRows:
        """The runs' report: see `preset_rows`. The paper's figures are `published_rows`, a table of their own."""
        return preset_rows(self.records, preset=self.preset)


def preset_estimate(preset: Preset | str = SELF_REFLECTIVE, *, models: Sequence[str], trials: int = 30,
                    via: Via = "messages", bounds: Bounds | None = None) -> list[Estimate]:
    """What the preset would cost live, one estimate per model (the batch price with via="batch"). Needs no key."""
    p, b = _preset(preset), bounds or Bounds()
    out = []
    for model in models:
        episodes = [e for group, n in assign(trials, p.tickets)
                    for e in plan(styles=(p.control, p.treatment), faults=(True,), break_loops=(True,), profiles=(None,),
                                  tickets=group, trials=n, model=model)]
        out.append(sweep_estimate(episodes, model=model, max_cost_per_episode=b.max_cost_usd,
                                  max_tokens=b.retry_max_tokens, batch=via == "batch"))
    return out


def run_preset(preset: Preset | str = SELF_REFLECTIVE, *, models: Sequence[str] = ("offline",), trials: int = 30,
               first_seed: int = 0, via: Via = "messages", out: str | os.PathLike[str] | None = None,
               progress: bool = True, max_cost_usd: float | None = None, budget_usd: float | None = None,
               confirm: Callable[[Estimate], bool] | None = None) -> PresetResult:
    """Audit, then run the preset for each model: `trials` episodes per (model, arm), faults on, paired by seed.

    A design whose errors leak an answer is refused. out: a folder; each model's results go to
    OUT/NAME_MODEL.jsonl and resume like any sweep. A live model's sweeps print their estimates; `confirm` is
    asked once per live model, with the whole design's estimate for it, before anything is sent.
    """
    p = _preset(preset)
    if isinstance(models, str) or not models or not all(isinstance(m, str) and m.strip() for m in models):
        raise AtlasKitValueError(f"models must be a non-empty list of model names, such as ['offline']; got {models!r}.")
    groups = assign(trials, p.tickets)
    seeds = range(first_seed, first_seed + groups[0][1])
    leaks = audit(p, seeds=seeds)
    if leaks:
        raise AtlasKitValueError(f"the {p.name} design leaks answers in {len(leaks)} error text(s), so it would measure "
                         f"reading, not recovery; first: {leaks[0]}")
    paths = {m: None if out is None else Path(out) / f"{p.name}_{re.sub(r'[^A-Za-z0-9_.-]', '_', m)}.jsonl"
             for m in dict.fromkeys(m.strip() for m in models)}
    # The budget is a total for the design's results files; each sweep's is a total for its own file.
    already = sum(spent_in(path) for path in paths.values())
    left = None if budget_usd is None else budget_usd - already
    if budget_usd is not None and already >= budget_usd:
        raise SweepRefused(f"The budget is already spent: the {p.name} design's results in {out} cost ${already:,.4f}, "
                           f"and the budget is a total of ${budget_usd:,.2f} for them; give a larger one to go on.")
    records, stopped = _sweeps(p, paths, groups, trials=trials, first_seed=first_seed, via=via, progress=progress,
                               max_cost_usd=max_cost_usd, left=left, confirm=confirm)
    unique = list({r["key"]: r for r in records}.values())  # a live name without a key answers as the stand-in
    comparisons = {m: compare_arms([r for r in unique if r["model"] == m], by="style", a=p.treatment, b=p.control)
                   for m in dict.fromkeys(r["model"] for r in unique)}
    return PresetResult(p, unique, comparisons, len(p.tickets) * 2 * len(seeds),
                        stopped.stopped if stopped else None, stopped.message if stopped else "")


def _sweeps(p: Preset, paths: dict[str, Path | None], groups: list[tuple[tuple[str, ...], int]], *, trials: int,
            first_seed: int, via: Via, progress: bool, max_cost_usd: float | None, left: float | None,
            confirm: Callable[[Estimate], bool] | None) -> tuple[list[Record], Sweep | None]:
    """Each model's sweeps, one per ticket group, within what is `left` of the budget; the records and the sweep
    the budget stopped, if one did."""
    records: list[Record] = []
    stopped: Sweep | None = None
    last: Sweep | None = None
    for model, path in paths.items():
        for i, (group, n) in enumerate(groups):
            if left is not None and left <= 0 and last is not None:  # spent by sweeps the budget did not have to stop
                last.stopped, last.message = "budget", (f"budget reached: the {p.name} design's results have cost "
                                                        f"all of its budget; give a larger one to resume.")
                return records, last
            asked = _whole(p, model, trials, via, confirm) if i == 0 and confirm is not None else None
            result = sweep(SweepSpec(name=p.name, styles=(p.control, p.treatment), faults=(True,), tickets=group,
                                     trials=n, first_seed=first_seed, model=model, out=path, progress=progress,
                                     max_cost_usd=max_cost_usd, budget_usd=None if left is None else left + spent_in(path),
                                     confirm=asked, via=via))
            last = result
            records += result.records
            if left is not None:
                left -= result.guard.spent_usd
            if result.stopped == "budget":
                warnings.warn(result.message, stacklevel=3)  # at run_preset's caller
                return records, result
            if result.stopped is not None:
                raise SweepStopped(result.message, cause=result.stopped)
    return records, stopped


def _whole(p: Preset, model: str, trials: int, via: Via,
           confirm: Callable[[Estimate], bool]) -> Callable[[Estimate], bool]:
    """Asked by a live sweep's guard with its own part: ask the caller once, with the whole design's estimate."""
    def ask(part: Estimate) -> bool:
        whole = preset_estimate(p, models=[model], trials=trials, via=via)[0]
        print(f"The whole {p.name} design for {model} (episodes already in the results are skipped):")
        print(whole.describe())
        return confirm(whole)

    return ask


def _points(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x * 100:+.1f}"


def _tokens(value: float) -> str:
    return "n/a (none correct)" if math.isinf(value) else f"{value:,.0f}"


def preset_rows(records: Sequence[Record], *, preset: Preset | str = SELF_REFLECTIVE) -> TableRows:
    """Completion per (model, arm) with Wilson intervals, the difference, Fisher's and McNemar's p, tokens per
    success. The caption says where the runs came from. Published figures are never in this table
    (`published_rows`): a simulated or a live run and a paper's measurement are not the same kind of evidence."""
    p = _preset(preset)
    rows: list[list[object]] = []
    for model in dict.fromkeys(r["model"] for r in records):
        c = compare_arms([r for r in records if r["model"] == model], by="style", a=p.treatment, b=p.control)
        # Every episode runs in both arms (same ticket, trial and seed), so the difference is the paired one.
        low, high = c.paired.interval if c.paired.n else (math.nan, math.nan)
        diff = c.paired.difference if c.paired.n else c.rate_a.rate - c.rate_b.rate
        rows.append([model, str(c.rate_b), str(c.rate_a), f"{_points(diff)} [{_points(low)}, {_points(high)}]",
                     c.paired.n, f"{c.fisher_p:.3g}", f"{c.paired.p_value:.3g}" if c.paired.n else "n/a",
                     _tokens(c.tokens_b.value), _tokens(c.tokens_a.value)])
    caption = (f"{p.title}. Runs: {source_label(records)}; {len(p.tickets)} tickets, faults on, episodes paired by "
               "ticket, trial and seed (pairs: how many); the difference is structured minus plain-English, in points "
               "of task completion, with Newcombe's paired interval.")
    if any(r.get("source_kind") == "simulated" for r in records):
        caption += (" Simulated: the stand-in is built to follow a contract error's next step, and to draw from its "
                    "profile when a plain diagnosis gives it no cue, so its difference is a rule read back, not a "
                    "finding.")
    return TableRows([
        "model", f"completion, plain-English ({p.control})", f"completion, structured ({p.treatment})",
        "difference, points [95% CI]", "pairs", "Fisher p", "McNemar p", "tokens/success, plain",
        "tokens/success, structured",
    ], rows, caption)


def published_rows(preset: Preset | str = SELF_REFLECTIVE) -> TableRows:
    """The paper's own figures for the design, with their N: a table apart from any run's."""
    p = _preset(preset)
    pub = p.published
    rows: list[list[object]] = [[f"Anthropic models (N = {pub.n_per_cell} a cell)", pub.anthropic],
                                [f"gpt-4o-mini (N = {pub.n_per_cell} a cell)", pub.gpt_4o_mini]]
    caption = (f"Published: {pub.source}, {pub.models} models, {pub.tasks} tasks; structured minus plain-English, "
               "in points of task completion. A measurement of those models, not of the runs above.")
    return TableRows(["models", "difference, points"], rows, caption)
