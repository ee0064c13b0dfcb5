"""Sweeps: every condition × ticket × trial, run, graded, and appended to a results file as it finishes.

Offline runs go one after another through the sync stand-in (fast, seeded per trial); live, local and replayed
runs go through the async client, `concurrency` at a time (a live sweep runs one episode alone until one gets
through the API, so a rejected key costs one request), under a guard (guard.py) that estimates, budgets and
stops on API failures. A local server is checked before any episode (its preflight), runs one call at a time
unless told otherwise, and gets a time estimate instead of a price. A sweep resumes where a killed one stopped,
never runs a finished episode twice, and reruns the ones that ended at the API; an interrupted live one keeps its
paid replies, so its resume never pays for a call twice (running.py, pending.py). Chapter 11.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from tqdm.auto import tqdm
from typing_extensions import Never, Unpack

from ..agent import Bounds
from ..models.api_retry import announce_waits
from ..models.choose import ModelChoice, choose_model
from ..models.pricing import Estimate
from ..models.resume import KeptCall
from ..models.cassette import Cassette
from ..models.standin.model import OFFLINE_MODEL
from ..types.records import Record, Source
from .episodes import Episode, plan, profile_named
from .guard import Guard, StopCause, SweepInterrupted, SweepStopped
from .guard import max_cost_usd as limit_in_force
from .guard import spent_in
from .pace import Pace
from .pending import keeper_for, read_pending, settle
from .recording import Tape, start_tape, write_cassette
from ..types.results import API_FAILURE, read_records
from .results import ResultsWriter, check_resumable, check_source
from .running import Stop, arun_episodes, interrupts, run_offline, run_sync
from .sdk_logs import sdk_logs_redacted
from .spec import SweepOptions, SweepSpec
from ..types.exceptions import AtlasKitValueError

if TYPE_CHECKING:
    from .batch.parts import BatchReport

LOCAL_CONCURRENCY = 1  # a laptop runs one model call at a time; more only queue at the server
LIVE_CONCURRENCY = 16
# A local model's replies: at most 1,024 tokens, and 2,048 for the one retry of a reply cut off mid-call (Bounds'
# defaults are 1,024 and 4,096). On a CPU every token is paid in time (llama.cpp wrote about 57 a second with a 270M
# model on two cores), and a reply of a tool call or an answer to a ticket is a few hundred tokens at most.
LOCAL_BOUNDS = Bounds(max_tokens=1024, retry_max_tokens=2048)


@dataclass
class Sweep:
    """What a sweep did: its records (old and new, in plan order), how many ran now, its spend, and any early stop."""

    records: list[Record]
    planned: int
    ran: int
    guard: Guard
    estimate: Estimate | None = None
    stopped: StopCause | None = None
    message: str = ""
    batch: BatchReport | None = None  # what the batch path did, for via="batch"
    notes: tuple[str, ...] = ()  # what the preflight or the run found worth a line (a local window, a slow pace)


def run_experiment(spec: SweepSpec | None = None, /, **options: Unpack[SweepOptions]) -> list[Record]:
    """Run a sweep (a SweepSpec, or its options as keywords) and return its records, old and new.

    A live sweep prints its estimate first and is refused when the high figure is above `max_cost_usd`; a
    rejected key or a run of API failures raises SweepStopped, a reached budget warns; every finished episode
    is in `out` either way. See SweepSpec for every option.
    """
    result = sweep(spec if spec is not None else SweepSpec(**options))
    if result.guard.source.costs_money and result.ran:
        print(result.guard.spend_line(result.records))
    if result.stopped == "budget":
        warnings.warn(result.message, stacklevel=2)
    elif result.stopped is not None:
        raise SweepStopped(result.message, cause=result.stopped)
    return result.records


def sweep(spec: SweepSpec | None = None, /, **options: Unpack[SweepOptions]) -> Sweep:
    """Run a sweep (a SweepSpec, or its options as keywords) and report on it; `run_experiment` is this, returning
    the records."""
    spec = spec if spec is not None else SweepSpec(**options)
    choice = _choose(spec)
    source = choice.source
    _refuse(spec, choice)
    if spec.bounds is None and source.local and source.kind == "live":
        spec = dataclasses.replace(spec, bounds=LOCAL_BOUNDS)
    episodes = plan(styles=spec.styles, faults=spec.faults, break_loops=spec.break_loops, profiles=spec.profiles,
                    tickets=spec.ticket_ids, trials=spec.trials, model=choice.model, first_seed=spec.first_seed)
    old = {r["key"]: r for r in read_records(spec.out)} if spec.out is not None else {}
    if spec.out is not None:
        check_source(old.values(), source, spec.out)
        check_resumable(old.values(), spec.out)
    todo = [e for e in episodes if e.key not in old or old[e.key].get("stop_reason") == API_FAILURE]
    tape = start_tape(choice.recording, record=spec.record, out=spec.out, todo=[e.key for e in todo],
                      done=[e.key for e in episodes if e.key in old])  # before anything is paid for
    if spec.record is not None and choice.note:
        warnings.warn(choice.note, stacklevel=3)
    if choice.mode == "replay" and todo and spec.cassette is not None:
        Cassette.load(spec.cassette).require([e.key for e in todo], path=spec.cassette)
    notes = _preflight(choice, todo)
    held = read_pending(spec.out) if choice.mode == "live" else {}  # before anything is paid for: a bad file stops it
    guard, est = _guard(spec, choice, todo)
    sink = _Sink(spec, episodes, todo, guard, tape, local=source.local and source.kind == "live")
    stop = _stop(spec, choice, todo, held, guard, sink)
    batch: BatchReport | None = None
    interrupted = False
    try:
        with sdk_logs_redacted():  # DEBUG logging prints no key or password a request carried (sdk_logs.py)
            batch = _run(spec, choice, episodes, todo, guard, sink.keep, sink.bar, stop)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        done, kept, unsaved, more = _close(spec, source, episodes, old, held, sink, stop, tape)
    if interrupted or stop.cause is not None:
        raise SweepInterrupted(done, len(todo) - done, kept=kept) from None
    if unsaved is not None:
        raise unsaved
    return _outcome(episodes, old, sink.new, guard, est, batch, notes + more + choice.provider.run_notes())


def _stop(spec: SweepSpec, choice: ModelChoice, todo: list[Episode], held: dict[str, list[KeptCall]], guard: Guard,
          sink: _Sink) -> Stop:
    """How this sweep stops on an interrupt; a live one's calls are kept by a CallKeeper, which also answers a
    resumed episode's kept replies (already in the guard's spent_before, so credited when the episode ends)."""
    if choice.mode != "live" or spec.via == "batch":
        return Stop(say=lambda line: sink.bar.write(line, file=sys.stderr))
    keeper = keeper_for(choice.model, choice.source, [e.key for e in todo], held)
    guard.credit = keeper.replayed_usd
    return Stop(keeper, say=lambda line: sink.bar.write(line, file=sys.stderr))


def _close(spec: SweepSpec, source: Source, episodes: list[Episode], old: dict[str, Record],
           held: dict[str, list[KeptCall]], sink: _Sink, stop: Stop,
           tape: Tape | None) -> tuple[int, str, ValueError | None, tuple[str, ...]]:
    """After the run, finished or not: how many records it kept, what an interrupt kept of the rest, the cassette's
    error to raise (if its save failed) and its note."""
    done = sink.on_disk()  # before the lines of what an interrupt cut off, which are no episode's record
    sink.close()
    kept = "" if stop.keeper is None else settle(
        spec.out, spec.name, stop.keeper, cause=stop.cause, started=stop.started, cut=stop.cut,
        plan={e.key: e for e in episodes}, done={k for k, r in old.items() if r.get("stop_reason") != API_FAILURE},
        new=set(sink.new), held=held, source=source)
    if tape is None or spec.record is None:
        return done, kept, None, ()
    # Whatever finished is replayable, even after an interrupt.
    note, unsaved = _save(tape, [e.key for e in episodes if e.key in old or e.key in sink.new], spec.record,
                          ran=set(sink.new))
    return done, kept, unsaved, (note,) if note else ()


def _guard(spec: SweepSpec, choice: ModelChoice, todo: list[Episode]) -> tuple[Guard, Estimate | None]:
    """The sweep's guard and its estimate (a live sweep's is printed, and may be refused, here), its first request
    counted by the provider when it can."""
    bounds, source = spec.bounds or Bounds(), choice.source
    limit = spec.max_cost_usd if spec.max_cost_usd is not None else limit_in_force()
    counter = choice.provider.token_counter(choice.model) if source.costs_money and todo else None
    return Guard.before(source, todo, counter=counter, max_cost_usd=limit, budget_usd=spec.budget_usd, confirm=spec.confirm,
                        max_cost_per_episode=bounds.max_cost_usd, max_tokens=bounds.retry_max_tokens,
                        batch=spec.via == "batch", spent_before=spent_in(spec.out) if source.costs_money else 0.0,
                        where=os.fspath(spec.out) if spec.out is not None else "the results")


class _Sink:
    """Where a sweep's records go as they finish: the tape, the results file, `new`, the progress bar, the pace."""

    def __init__(self, spec: SweepSpec, episodes: list[Episode], todo: list[Episode], guard: Guard, tape: Tape | None,
                 *, local: bool) -> None:
        self.guard, self.tape = guard, tape
        self.new: dict[str, Record] = {}
        self.writer = ResultsWriter(spec.out) if spec.out is not None and todo else None
        self.lines_before = self.writer.path.read_bytes().count(b"\n") if self.writer is not None else 0
        self.bar: tqdm[Never] = tqdm(total=len(episodes), initial=len(episodes) - len(todo), desc=spec.name,
                                     unit="episode", disable=not spec.progress or not todo)
        self.pace = Pace(len(todo), say=(self.bar.write if spec.progress else print)) if local else None

    def keep(self, record: Record) -> None:
        if self.tape is not None:  # its calls reach the disk before its record does: a record is never without them
            self.tape.keep(record["key"])
        if self.writer is not None:
            self.writer.append(record)
        self.new[record["key"]] = record
        self.bar.update(1)
        self.bar.set_postfix_str(self.guard.postfix(), refresh=False)
        if self.pace is not None:
            self.pace.tick()

    def on_disk(self) -> int:
        """How many records this run kept; counted on disk, as the interrupt may have landed between a write and `new`."""
        done = len(self.new)
        if self.writer is not None:
            self.writer.close()
            done = self.writer.path.read_bytes().count(b"\n") - self.lines_before
        return done

    def close(self) -> None:
        self.bar.close()
        if self.writer is not None:
            self.writer.close()


def _outcome(episodes: list[Episode], old: dict[str, Record], new: dict[str, Record], guard: Guard,
             est: Estimate | None, batch: BatchReport | None, notes: tuple[str, ...]) -> Sweep:
    """The sweep's records in plan order, old and new, and how it ended."""
    merged = {**old, **new}
    records = [merged[e.key] for e in episodes if e.key in merged]
    failed = sum(r.get("stop_reason") == API_FAILURE for r in records)
    result = Sweep(records, len(episodes), len(new), guard, est, guard.stopped, guard.message, batch, notes)
    if result.stopped is None and new and failed * 2 > len(records):
        result.stopped, result.message = "api_failures", (
            f"{failed} of {len(records)} episodes failed at the API; they are not counted against the model, "
            "and running the same command again retries them.")
    return result


def _save(tape: Tape, keys: list[str], path: str | os.PathLike[str], *,
          ran: set[str]) -> tuple[str, ValueError | None]:
    """Write the cassette; its note, or the error to raise once the sweep has closed everything (never during an
    interrupt: the calls are on the tape, and a rerun with a good path writes them)."""
    try:
        return write_cassette(tape, keys, path, ran=ran), None
    except ValueError as err:
        return "", err


def _refuse(spec: SweepSpec, choice: ModelChoice) -> None:
    """Refuse options this model cannot take, before anything runs."""
    source = choice.source
    local = source.local and source.kind == "live"
    if spec.record is not None and choice.mode != "live":
        raise AtlasKitValueError(f"record= needs a live model (Claude with ANTHROPIC_API_KEY, or a local one); this sweep "
                         f"would run {source.label}.")
    if choice.mode != "offline" and any(p is not None for p in spec.profiles):
        raise AtlasKitValueError(f"profiles apply only to the offline stand-in, not to {choice.model} ({choice.mode}); "
                         "pass profiles=(None,).")
    if local and spec.via == "batch":
        raise AtlasKitValueError("via='batch' is the Message Batches API, Anthropic's; a local model runs one call at a "
                         "time: drop --via batch.")
    if local and spec.budget_usd is not None:
        raise AtlasKitValueError("a local model costs nothing, so a budget does not apply: drop --budget (budget_usd).")


def _run(spec: SweepSpec, choice: ModelChoice, episodes: list[Episode], todo: list[Episode], guard: Guard,
         keep: Callable[[Record], None], bar: tqdm[Never], stop: Stop) -> BatchReport | None:
    """Run `todo` the way the spec and the provider call for; every record goes to `keep`; an interrupt stops an
    async run the way `stop` says."""
    source = choice.source
    if spec.via == "batch" and todo:
        from .batch.sweep import sweep_batch  # imported here: most sweeps never need it

        return sweep_batch(choice.mode, choice.model, plan=episodes, todo=todo, source=source, bounds=spec.bounds,
                           profiles={p.name: p for p in map(profile_named, spec.profiles)}, experiment=spec.name,
                           guard=guard, keep=keep, out=spec.out,
                           status=lambda line: bar.set_postfix_str(f"{guard.postfix()} · {line}"))
    if choice.mode == "offline":
        run_offline(todo, spec.profiles, source, spec.bounds, spec.name, guard, keep)
        return None
    if not todo:
        return None
    # Recording runs one episode at a time, in plan order, so the cassette's file is the same every time.
    default = LOCAL_CONCURRENCY if source.local else LIVE_CONCURRENCY
    width = 1 if spec.record is not None else (spec.concurrency or default)
    client = choice.async_client(keeper=stop.keeper)  # each episode's key goes with its calls: the keeper's, a tape's

    async def run_all() -> None:  # long waits go on the bar; with no bar, they are printed as notes
        show = announce_waits(lambda wait: bar.set_postfix_str(f"{guard.postfix()} · {wait.line()}"))
        with show if spec.progress else contextlib.nullcontext(), interrupts(stop):
            await arun_episodes(client, todo, source=source, bounds=spec.bounds, concurrency=width,
                                experiment=spec.name, on_record=keep, guard=guard,
                                probe=choice.mode == "live", stop=stop)

    run_sync(run_all, interrupt=lambda: stop.request("Kernel interrupt"))
    return None


def _choose(spec: SweepSpec) -> ModelChoice:
    if spec.cassette is None and spec.model in ("offline", OFFLINE_MODEL):
        return choose_model(OFFLINE_MODEL)
    choice = choose_model(None if spec.cassette is not None else spec.model, cassette=spec.cassette,
                          record=spec.record, base_url=spec.base_url)
    if choice.note and spec.record is None:  # a recording's note waits until its cassette has been checked
        warnings.warn(choice.note, stacklevel=4)
    return choice


def _preflight(choice: ModelChoice, todo: list[Episode]) -> tuple[str, ...]:
    """Check the provider before anything runs (a local server: reachable, model present, tools, window)."""
    if not todo or choice.mode == "offline":
        return ()
    from .guard import first_request_tokens

    found = choice.provider.preflight(choice.model, prompt_tokens=first_request_tokens(todo))
    return found.notes


