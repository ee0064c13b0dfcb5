"""Sweeps: every condition × ticket × trial, run, graded, and appended to a results file as it finishes.

Offline runs go one after another through the sync stand-in (fast, seeded per trial); live and
replayed runs go through the async client, `concurrency` at a time, under a guard (guard.py) that
estimates, budgets and stops on API failures. A sweep resumes where a killed one stopped, never runs
a finished episode twice, and reruns the ones that ended at the API. Metrics and charts live elsewhere. Chapter 11.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import os
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Coroutine, Iterable, Literal, Sequence

from tqdm.auto import tqdm

from ..agent import Bounds, arun_agent, run_agent
from ..atlas import TICKETS
from .episodes import (Episode, check_options, episode_record, episode_session, harness_failure, named_profiles,
    plan, profile_named, whole_number)
from .guard import Guard, StopCause, SweepInterrupted, SweepStopped
from .guard import max_cost_usd as limit_in_force
from ..models.choose import ModelChoice, choose_model
from ..models.standin.model import OFFLINE_MODEL, Profile, offline_client
from ..models.pricing import Estimate
from ..models.replay import EPISODE_HEADER, Cassette
from .results import API_FAILURE, ResultsWriter, check_source, read_records
from ..models.api_retry import announce_waits
from ..types import DEFAULT_MODEL, SIMULATED, Record, Source

if TYPE_CHECKING:
    from .batch.parts import BatchReport

__all__ = ["Episode", "Sweep", "arun_episodes", "named_profiles", "plan", "profile_named", "run_episode",
           "run_experiment", "sweep"]

OFFLINE_ALIASES = ("offline", OFFLINE_MODEL)


def run_episode(client: Any, episode: Episode, *, source: str | Source, bounds: Bounds | None = None,
                experiment: str = "") -> Record:
    """Run and grade one episode with a sync client; a failure inside the harness becomes its record."""
    try:
        run = run_agent(client, episode_session(episode), model=episode.condition.model, bounds=bounds, source=source)
        return episode_record(episode, run, experiment=experiment)
    except Exception as exc:  # the loop never raises; this guards the session, the grader and ourselves
        return harness_failure(episode, exc, source=source, experiment=experiment)


async def _arun_episode(client: Any, episode: Episode, *, source: str | Source, bounds: Bounds | None,
                        experiment: str, tag: bool) -> Record:
    """run_episode with an async client; `tag` sends the episode's key, so a cassette keeps each call with it."""
    try:
        if tag:
            client = client.with_options(default_headers={EPISODE_HEADER: episode.key})
        run = await arun_agent(client, episode_session(episode), model=episode.condition.model, bounds=bounds,
                               source=source)
        return episode_record(episode, run, experiment=experiment)
    except Exception as exc:
        return harness_failure(episode, exc, source=source, experiment=experiment)


async def arun_episodes(client: Any, episodes: Iterable[Episode], *, source: str | Source, bounds: Bounds | None = None,
                        concurrency: int = 16, experiment: str = "",
                        on_record: Callable[[Record], None] | None = None, guard: Guard | None = None,
                        tag: bool = False) -> list[Record]:
    """Run episodes through one async client, at most `concurrency` at a time; records in finishing order.

    `on_record` is called with each record as soon as it exists (the sweep appends it to the file there).
    `guard` may refuse to start further episodes (a budget, a rejected key); `tag` sends each episode's key.
    """
    gate = asyncio.Semaphore(whole_number(concurrency, "concurrency"))
    done: list[Record] = []

    async def one(episode: Episode) -> None:
        async with gate:
            if guard is not None and not guard.admit():
                return
            record = await _arun_episode(client, episode, source=source, bounds=bounds, experiment=experiment, tag=tag)
        if guard is not None:
            guard.finish(record)
        done.append(record)
        if on_record is not None:
            on_record(record)

    await asyncio.gather(*(one(e) for e in episodes))
    return done


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


def run_experiment(**options: Any) -> list[Record]:
    """Run styles × faults × break_loops × profiles × tickets × trials and return their records, old and new.

    Takes the options of `sweep` (see there). A live sweep prints its estimate first and is refused
    when the high figure is above `max_cost_usd`; a rejected key or a run of API failures raises
    SweepStopped, a reached budget warns; every finished episode is in `out` either way.
    """
    result = sweep(**options)
    if result.guard.source.costs_money and result.ran:
        print(result.guard.spend_line(result.records))
    if result.stopped == "budget":
        warnings.warn(result.message, stacklevel=2)
    elif result.stopped is not None:
        raise SweepStopped(result.message, cause=result.stopped)
    return result.records


def sweep(
    *,
    name: str,
    styles: Sequence[str] = ("raw", "generic", "contract"),
    faults: Sequence[bool] = (True, False),
    break_loops: Sequence[bool] = (True,),
    profiles: Sequence[Profile | str | None] = (None,),
    tickets: Sequence[str] | None = None,
    trials: int = 5,
    first_seed: int = 0,
    model: str = "offline",
    cassette: str | os.PathLike[str] | None = None,
    record: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    concurrency: int = 16,
    progress: bool = True,
    bounds: Bounds | None = None,
    max_cost_usd: float | None = None,
    budget_usd: float | None = None,
    confirm: Callable[[Estimate], bool] | None = None,
    via: Literal["messages", "batch"] = "messages",
) -> Sweep:
    """Run a sweep and report on it; `run_experiment` is this, returning the records.

    model: "offline" (the stand-in), or a live model name; with no API key a live name falls back to the
    stand-in, with a warning, and the records say simulated. cassette: replay a sweep recorded with record=.
    out: the JSONL file; episodes already in it are skipped (those that ended at the API are rerun), each
    new one is appended the moment it ends; it must hold results of the same kind (simulated, live,
    replayed). None keeps results in memory only. profiles apply to the stand-in only. concurrency applies
    to live and replayed runs; offline runs are sequential. first_seed: trial n runs with seed first_seed + n.
    record: with a live model, write every call to this cassette, each tagged with its episode, one episode
    at a time in plan order. max_cost_usd: refuse a live sweep whose high estimate is above it, and stop
    one whose spend reaches it (default: the limit `setup(max_cost_usd=...)` set, else $1). budget_usd:
    stop a live sweep cleanly once it has spent this much. confirm: asked with the estimate before a live
    sweep starts; False refuses it. via: "messages" (a call at a time) or "batch": each turn of every episode
    goes into one Message Batch, at the batch price, resumable from a journal beside `out` (batch.py).
    """
    tickets = list(TICKETS) if tickets is None else list(tickets)
    check_options(styles=styles, faults=faults, break_loops=break_loops, tickets=tickets, trials=trials,
                  first_seed=first_seed)
    whole_number(concurrency, "concurrency")
    if out is not None and os.path.isdir(out):
        raise ValueError(f"out={os.fspath(out)!r} is a folder; pass the results file, such as 'results/sweep.jsonl'.")
    if record is not None and cassette is not None:
        raise ValueError("pass record= (to record a live sweep) or cassette= (to replay one), not both.")
    if via not in ("messages", "batch"):
        raise ValueError(f"via must be 'messages' (one call at a time) or 'batch' (the Message Batches API); got {via!r}.")
    if via == "batch" and (record is not None or cassette is not None):
        raise ValueError("via='batch' runs offline or live; cassettes record and replay via='messages' sweeps only.")
    limit = max_cost_usd if max_cost_usd is not None else limit_in_force()
    choice = _choose(model, cassette, record)
    origin = choice.origin or Source("simulated", OFFLINE_MODEL)
    if record is not None and choice.mode != "live":
        raise ValueError(f"record= needs a live model and ANTHROPIC_API_KEY; this sweep would run {choice.source}.")
    if choice.mode != "offline" and any(p is not None for p in profiles):
        raise ValueError(f"profiles apply only to the offline stand-in, not to {choice.model} ({choice.mode}); "
                         "pass profiles=(None,).")
    episodes = plan(styles=styles, faults=faults, break_loops=break_loops, profiles=profiles, tickets=tickets,
                    trials=trials, model=choice.model, first_seed=first_seed)
    old = {r["key"]: r for r in read_records(out)} if out is not None else {}
    if out is not None:
        check_source(old.values(), origin, out)
    todo = [e for e in episodes if e.key not in old or old[e.key].get("stop_reason") == API_FAILURE]
    if choice.mode == "replay" and todo and cassette is not None:
        Cassette.load(cassette).require([e.key for e in todo], path=cassette)
    b = bounds or Bounds()
    guard, est = Guard.before(origin, todo, max_cost_usd=limit, budget_usd=budget_usd, confirm=confirm,
                              max_cost_per_episode=b.max_cost_usd, max_tokens=b.retry_max_tokens,
                              batch=via == "batch")
    new: dict[str, Record] = {}
    writer = ResultsWriter(out) if out is not None and todo else None
    lines_before = writer.path.read_bytes().count(b"\n") if writer is not None else 0
    bar = tqdm(total=len(episodes), initial=len(episodes) - len(todo), desc=name, unit="episode",
               disable=not progress or not todo)

    def keep(record: Record) -> None:
        if writer is not None:
            writer.append(record)
        new[record["key"]] = record
        bar.update(1)
        bar.set_postfix_str(guard.postfix(), refresh=False)

    batch: BatchReport | None = None
    try:
        if via == "batch" and todo:
            from .batch.sweep import sweep_batch  # imported here: most sweeps never need it

            batch = sweep_batch(choice.mode, choice.model, plan=episodes, todo=todo, source=origin, bounds=bounds,
                                profiles={p.name: p for p in map(profile_named, profiles)}, experiment=name,
                                guard=guard, keep=keep, out=out,
                                status=lambda line: bar.set_postfix_str(f"{guard.postfix()} · {line}"))
        elif choice.mode == "offline":
            _run_offline(todo, profiles, origin, bounds, name, guard, keep)
        elif todo:
            # Recording runs one episode at a time, in plan order, so the cassette's file is the same every time.
            width = 1 if record is not None else concurrency
            tag = record is not None or choice.mode == "replay"

            async def run_all() -> None:  # long waits go on the bar; with no bar, they are printed as notes
                show = announce_waits(lambda wait: bar.set_postfix_str(f"{guard.postfix()} · {wait.line()}"))
                with show if progress else contextlib.nullcontext():
                    await arun_episodes(choice.client, todo, source=origin, bounds=bounds, concurrency=width,
                                        experiment=name, on_record=keep, guard=guard, tag=tag)

            _run_sync(run_all)
    except KeyboardInterrupt:
        done = len(new)
        if writer is not None:  # count the lines on disk: the interrupt may have landed between a write and `new`
            writer.close()
            done = writer.path.read_bytes().count(b"\n") - lines_before
        raise SweepInterrupted(done, len(todo) - done) from None
    finally:
        bar.close()
        if writer is not None:
            writer.close()
        if choice.recording is not None and record is not None:
            choice.recording.save(record)  # whatever finished is replayable, even after an interruption
    merged = {**old, **new}
    records = [merged[e.key] for e in episodes if e.key in merged]
    failed = sum(r.get("stop_reason") == API_FAILURE for r in records)
    result = Sweep(records, len(episodes), len(new), guard, est, guard.stopped, guard.message, batch)
    if result.stopped is None and new and failed * 2 > len(records):
        result.stopped, result.message = "api_failures", (
            f"{failed} of {len(records)} episodes failed at the API; they are not counted against the model, "
            "and running the same command again retries them.")
    return result


run_experiment.__signature__ = inspect.signature(sweep).replace(  # type: ignore[attr-defined]
    return_annotation="list[Record]")  # help(run_experiment) shows every option


def _run_offline(todo: list[Episode], profiles: Sequence[Profile | str | None], origin: Source,
                 bounds: Bounds | None, name: str, guard: Guard, keep: Callable[[Record], None]) -> None:
    by_name = {p.name: p for p in map(profile_named, profiles)}
    clients: dict[tuple[str | None, int], Any] = {}
    for e in todo:
        # The stand-in's choices depend only on (seed, ticket, turn): one client per (profile, seed) is enough.
        cache = (e.condition.profile, e.seed)
        if cache not in clients:
            clients[cache] = offline_client(seed=e.seed, profile=by_name[str(e.condition.profile)])
        guard.admit()
        record = run_episode(clients[cache], e, source=origin, bounds=bounds, experiment=name)
        guard.finish(record)
        keep(record)


def _choose(model: str, cassette: str | os.PathLike[str] | None,
            record: str | os.PathLike[str] | None = None) -> ModelChoice:
    if not isinstance(model, str) or not model.strip():
        raise ValueError(f"model must be 'offline' or a live model name such as {DEFAULT_MODEL!r}; got {model!r}.")
    simulated = Source("simulated", OFFLINE_MODEL)
    if cassette is None and model in OFFLINE_ALIASES:
        return ModelChoice(None, OFFLINE_MODEL, "offline", SIMULATED, origin=simulated)
    choice = choose_model(None if cassette is not None else model, cassette=cassette, record=record, async_=True)
    if choice.note:
        warnings.warn(choice.note, stacklevel=4)
    if choice.mode == "offline":  # a live name with no key: the stand-in answers, and the records say so
        return ModelChoice(None, OFFLINE_MODEL, "offline", choice.source, origin=simulated)
    return choice


def _run_sync(make: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """Run a coroutine to the end from sync code, also inside Jupyter, whose event loop is already running.

    In Jupyter it runs on a worker thread; an interrupt cancels it there, so no episode goes on in the background.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    box: dict[str, Any] = {}

    async def main() -> Any:
        box["loop"], box["task"] = asyncio.get_running_loop(), asyncio.current_task()
        return await make()

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(asyncio.run, main())
        try:
            return future.result()
        except KeyboardInterrupt:
            if "task" in box:
                box["loop"].call_soon_threadsafe(box["task"].cancel)
            with contextlib.suppress(BaseException):
                future.result()
            raise
