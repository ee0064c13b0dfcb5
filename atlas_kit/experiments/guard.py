"""What guards a live sweep: the estimate and its limit before, the budget and the API-failure stops during, the spend after.

A live sweep prints its estimate and is refused above `max_cost_usd` (set once per notebook by
`setup(max_cost_usd=...)`); a budget is a total for the results file (what its episodes already cost, plus
this run). During a sweep, spending the budget, a rejected key or a run of API failures stops it cleanly, and
a rerun resumes. Offline and replayed sweeps cost $0 and say so. Chapter 11.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Callable, Iterable, Literal, Mapping, Sequence, cast

from ..atlas.session import atlas_session
from ..models.counting import CountedRequest, TokenCounter, estimate_requests
from ..models.pricing import Estimate
from ..models.replies import FATAL
from .pending import pending_usd
from ..types.results import API_FAILURE, record_kind
from ..types.records import Record, Source
from ..types.exceptions import AtlasKitError, AtlasKitValueError, OneLine
from .episodes import Episode
from ..types.tokens import request_tokens

StopCause = Literal["budget", "authentication", "permission", "not_found", "api_failures", "runaway"]
DEFAULT_MAX_COST_USD = 1.00  # a live sweep whose high estimate is above this is refused unless raised
_LIMIT = {"usd": DEFAULT_MAX_COST_USD}
FAILURES_IN_A_ROW = 10  # this many episodes in a row ending at the API stop a sweep: an outage, not bad luck
# A live sweep whose first episodes all end at max_tokens having called no tool and said nothing is stopped: a base
# model, or a chat template without an end-of-turn for it, writes to the limit every call (issue 48: 4,096 tokens
# took 72 s on two cores), and the rest of the sweep would be the same nonsense, slowly.
RUNAWAY_EPISODES = 2


class SweepRefused(AtlasKitValueError):
    """A live sweep that did not start: its estimate is above the limit, or nobody confirmed it."""


class SweepStopped(AtlasKitError, RuntimeError):
    """A sweep stopped early for a reason a rerun cannot fix by itself (a rejected key, an outage)."""

    def __init__(self, message: str, *, cause: StopCause) -> None:
        super().__init__(message)
        self.cause = cause


class SweepInterrupted(OneLine, KeyboardInterrupt):
    """Ctrl-C, SIGTERM or a kernel interrupt during a sweep; every finished episode is on disk, and `kept` says
    what a live sweep kept of its unfinished ones (their replies, and what was cut off)."""

    def __init__(self, done: int, left: int, *, kept: str = "") -> None:
        super().__init__(f"interrupted after {done} episode(s), {left} left; run the same command again to resume"
                         + (f" ({kept})." if kept else "."))
        self.done, self.left, self.kept = done, left, kept


def _usd(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or value <= 0:
        raise AtlasKitValueError(f"{name} must be a positive number of US dollars (math.inf for no limit); got {value!r}.")
    return float(value)


def set_max_cost_usd(value: float) -> float:
    """Refuse, for the rest of this process, any live sweep whose high estimate is above `value` dollars."""
    _LIMIT["usd"] = _usd(value, "max_cost_usd")
    return _LIMIT["usd"]


def max_cost_usd() -> float:
    """The limit in force: the last `set_max_cost_usd` (or `setup(max_cost_usd=...)`), else DEFAULT_MAX_COST_USD."""
    return _LIMIT["usd"]


def spent_in(path: str | os.PathLike[str] | None) -> float:
    """What the live episodes in a results file cost, in US dollars: every complete line, a rerun's failed copy
    too (it was paid for), an interrupted episode's calls cut off in flight, and the kept replies of the episodes
    an interrupt left unfinished (pending.py); 0 when there is no file. Simulated and replayed records price their
    tokens but cost nothing, and a local model's cost $0."""
    kept = pending_usd(path)
    if path is None or not os.path.isfile(path):
        return kept
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")[:-1]  # the piece after the last newline is a line a crash cut short
    total = 0.0
    for line in lines:
        try:
            record = json.loads(line) if line.strip() else {}
        except ValueError:  # a damaged line: read_records names it when the sweep reads the file
            continue
        live = isinstance(record, dict) and record_kind(record) == "live"
        cost = record.get("cost_usd") if live else None
        if isinstance(cost, (int, float)) and not isinstance(cost, bool) and math.isfinite(cost) and cost > 0:
            total += cost
    return total + kept


def _first_bodies(episodes: Sequence[Episode]) -> list[CountedRequest]:
    """Each episode's first request (system, tools, ticket): one object per distinct condition."""
    bodies: dict[tuple[str, str, bool, bool], CountedRequest] = {}
    for e in episodes:
        c = e.condition
        key = (e.ticket, c.style, c.faults, c.break_loops)
        if key not in bodies:
            session = atlas_session(e.ticket, style=c.style, faults=c.faults, seed=0, break_loops=c.break_loops)
            bodies[key] = {"system": session.system, "tools": session.dispatcher.definitions(),
                           "messages": [{"role": "user", "content": session.ticket.message}]}
    return [bodies[(e.ticket, e.condition.style, e.condition.faults, e.condition.break_loops)] for e in episodes]


def _first_requests(episodes: Sequence[Episode]) -> list[int]:
    """Each episode's first request (system, tools, ticket), estimated at about 4 characters a token."""
    sizes: dict[int, int] = {}
    for body in (bodies := _first_bodies(episodes)):
        if id(body) not in sizes:
            sizes[id(body)] = request_tokens(body)
    return [sizes[id(b)] for b in bodies]


def first_request_tokens(episodes: Sequence[Episode]) -> int:
    """The longest first request among these episodes, estimated: what a local model's window must hold at least."""
    return max(_first_requests(episodes), default=0)


def sweep_estimate(episodes: Sequence[Episode], *, model: str, max_cost_per_episode: float, max_tokens: int,
                   batch: bool = False, counter: TokenCounter | None = None) -> Estimate:
    """The estimate for these episodes: their mean first request (system, tools, ticket), counted by `counter` (the
    provider's exact count) and estimated otherwise (models/counting.py), priced by `pricing.estimate`."""
    return estimate_requests(_first_bodies(episodes), model=model, max_cost_usd=max_cost_per_episode,
                             max_tokens=max_tokens, batch=batch, counter=counter)


@dataclass
class Guard:
    """Counts one sweep's spend and API failures, and decides whether another episode may start."""

    source: Source
    budget_usd: float | None = None  # what this run may spend: the smaller of max_cost_usd and the budget left
    total_usd: float | None = None  # the budget: a total for the results file, this run included
    before_usd: float = 0.0  # what the results file's episodes cost before this run
    where: str = "the results"  # the results file, for messages
    per_episode_guess: float = 0.0  # until episodes finish, what one is expected to cost
    spent_usd: float = 0.0
    in_flight: int = 0
    done: int = 0
    in_a_row: int = 0
    runaway: int = 0  # episodes so far, all of them, that ran to max_tokens with no tool call and no answer
    stopped: StopCause | None = None
    message: str = ""
    # What each resumed episode's replies answered from an earlier run's kept calls had cost: already in before_usd,
    # so its record's cost counts only the rest (filled by the sweep's CallKeeper as episodes replay).
    credit: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def before(cls, source: Source, todo: Sequence[Episode], *, max_cost_usd: float, budget_usd: float | None,
               confirm: Callable[[Estimate], bool] | None, max_cost_per_episode: float,
               max_tokens: int, batch: bool = False, spent_before: float = 0.0,
               where: str = "the results", counter: TokenCounter | None = None) -> tuple[Guard, Estimate | None]:
        """The guard of a sweep about to run `todo`; a live one prints its estimate and may be refused here.

        `budget_usd` is a total for the results file `where`, whose episodes already cost `spent_before`: this
        run may spend the rest, and no more than `max_cost_usd`. Refused (SweepRefused) when that budget is
        already spent, when the high estimate is above `max_cost_usd`, or when `confirm` says no.
        """
        max_cost_usd = _usd(max_cost_usd, "max_cost_usd")
        total = None if budget_usd is None else _usd(budget_usd, "budget_usd")
        left = math.inf if total is None else total - spent_before
        cap = min(max_cost_usd, left)
        guard = cls(source, budget_usd=None if math.isinf(cap) else cap, total_usd=total, before_usd=spent_before,
                    where=where)
        if not source.costs_money or not todo:
            return guard, None
        if left <= 0:
            raise SweepRefused(f"The budget is already spent: the episodes in {where} cost ${spent_before:,.4f}, and "
                               f"the budget (--budget, budget_usd) is a total of ${total:,.2f} for the file, this run "
                               f"included; give a larger one to run the {len(todo):,} episode(s) left.")
        est = sweep_estimate(todo, model=source.model, max_cost_per_episode=max_cost_per_episode, max_tokens=max_tokens,
                             batch=batch, counter=counter)  # batch: the Message Batches price
        print(est.describe())
        if est.high_usd > max_cost_usd:
            raise SweepRefused(f"This live sweep's high estimate, ${est.high_usd:,.2f}, is above max_cost_usd "
                               f"(${max_cost_usd:,.2f}); lower trials or tickets, or raise max_cost_usd, to run it.")
        if confirm is not None and not confirm(est):
            raise SweepRefused("The live sweep was not confirmed; nothing ran and nothing was spent.")
        guard.per_episode_guess = est.low_usd / len(todo)
        return guard, est

    def admit(self) -> bool:
        """May another episode start? No once stopped, or once the spend (counting those in flight) reaches the budget."""
        if self.stopped is None and self.budget_usd is not None and self.source.costs_money:
            per = self.spent_usd / self.done if self.done else self.per_episode_guess
            if self.spent_usd + self.in_flight * per >= self.budget_usd:
                self._stop("budget", "")
                self._budget_message()
        if self.stopped is None:
            self.in_flight += 1
        return self.stopped is None

    def finish(self, record: Record) -> None:
        """Count a finished episode's spend, and stop at a rejected key or at a run of API failures."""
        self.in_flight, self.done = max(0, self.in_flight - 1), self.done + 1
        if self.source.costs_money:
            self.spent_usd += float(record.get("cost_usd") or 0.0) - self.credit.get(str(record.get("key")), 0.0)
        if self.stopped == "budget":  # the episodes in flight when it stopped admitting still count
            self._budget_message()
        if record.get("stop_reason") != API_FAILURE:
            self.in_a_row = 0
            self._watch_runaway(record)
            return
        self.in_a_row += 1
        reason = str(record.get("api_failure") or "other")
        if reason in FATAL:
            self._stop(cast(StopCause, reason), f"stopped at once: {record.get('api_error') or reason}. Nothing is "
                       "counted against the model; fix it, then run the same command again to resume.")
        elif self.in_a_row >= FAILURES_IN_A_ROW:
            self._stop("api_failures", f"stopped after {self.in_a_row} episodes in a row failed at the API (last: "
                                       f"{record.get('api_error') or reason}). They are not counted against the "
                                       "model; run the same command again later to retry them.")

    def _watch_runaway(self, record: Record) -> None:
        """Stop a live sweep whose first RUNAWAY_EPISODES episodes each ran to max_tokens with nothing done."""
        if self.source.kind != "live" or self.runaway < 0:
            return
        if record.get("stop_reason") != "truncated" or record.get("tool_calls") or record.get("steps", 0) == 0:
            self.runaway = -1  # an episode that got somewhere: the model can finish a turn
            return
        self.runaway += 1
        if self.runaway >= RUNAWAY_EPISODES:
            self._stop("runaway", (
                f"stopped: the first {self.runaway} episodes each ran to max_tokens without calling a tool or "
                f"answering, so {self.source.model} cannot finish a turn here (a base model, or a chat template "
                "with no end-of-turn for it). Use a chat model, start the server with a template that fits it "
                "(llama-server --chat-template-file), or give it more room with --max-tokens; those episodes are "
                f"in {self.where}, so give the next try another --out."))

    def _budget_message(self) -> None:
        """Why the budget stopped the sweep, with what was spent, kept up to date until the last episode ends."""
        run = f"${self.spent_usd:,.4f} spent by this run on {self.done} episode(s)"
        if self.total_usd is not None and self.budget_usd is not None and \
                self.budget_usd >= self.total_usd - self.before_usd:
            self.message = (f"budget reached: {run}; the episodes in {self.where} have cost "
                            f"${self.before_usd + self.spent_usd:,.4f} of the ${self.total_usd:,.2f} budget, a total "
                            "for the file; run again with a larger --budget (budget_usd in Python) to resume.")
        else:
            self.message = (f"max_cost_usd reached: {run}, of the ${self.budget_usd or 0:,.2f} one run may spend; "
                            "run again (with a larger max_cost_usd, or budget_usd) to resume.")

    def _stop(self, cause: StopCause, message: str) -> None:
        if self.stopped is None:
            self.stopped, self.message = cause, message

    def postfix(self) -> str:
        """For the progress bar: spend so far, against the budget if there is one."""
        if not self.source.costs_money:
            return f"$0 ({'local' if self.source.local else self.source.kind})"
        if self.total_usd is not None and self.before_usd:
            return f"spent ${self.spent_usd:,.2f}, ${self.before_usd + self.spent_usd:,.2f} of ${self.total_usd:,.2f} in all"
        return f"spent ${self.spent_usd:,.2f}" + (f" of ${self.budget_usd:,.2f}" if self.budget_usd else "")

    def spend_line(self, records: Iterable[Record]) -> str:
        """The summary's cost line: the total for a live sweep, $0 with the reason for the others."""
        if self.source.kind == "simulated":
            return ("Cost: $0 (simulated: the offline stand-in calls no API; cost_usd prices its tokens at a live "
                    "model's rate, for comparison only).")
        if self.source.local and self.source.kind == "live":
            return (f"Cost: $0 (a local model on {self.source.server}; its token counts are the server's own and "
                    "are never priced).")
        if self.source.kind == "replayed":
            return (f"Cost: $0 (replayed from a cassette, no API calls; cost_usd is what the recorded "
                    f"{self.source.model} calls cost on {self.source.date}).")
        total = sum(float(r.get("cost_usd") or 0.0) for r in records)
        return (f"Cost: ${self.spent_usd:,.4f} spent by this run on {self.done} live episode(s); "
                f"${total:,.4f} for every episode in the results.")
