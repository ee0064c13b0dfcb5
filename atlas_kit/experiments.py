"""Sweeps: every condition × ticket × trial, run, graded, and appended to a results file as it finishes.

Offline runs go one after another through the sync stand-in (fast, seeded per trial); live and
replayed runs go through the async client, `concurrency` at a time. A sweep resumes where a killed
one stopped and never runs an episode twice. Metrics and charts live elsewhere. Chapter 11.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import os
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from tqdm.auto import tqdm

from .agent import Bounds, arun_agent, run_agent
from .atlas import STYLES, TICKETS, atlas_session, grade
from .models import SIMULATED, choose_model
from .offline import DEFAULT_PROFILE, OFFLINE_MODEL, Profile, offline_client
from .results import Condition, ResultsWriter, episode_key, harness_record, read_records, record_from_run

__all__ = ["Episode", "arun_episodes", "named_profiles", "plan", "profile_named", "run_episode", "run_experiment"]

OFFLINE_ALIASES = ("offline", OFFLINE_MODEL)


@dataclass(frozen=True)
class Episode:
    """One run to do: a condition, a ticket and a trial. Trial n runs with seed first_seed + n."""

    condition: Condition
    ticket: str
    trial: int
    first_seed: int = 0

    @property
    def key(self) -> str:
        return episode_key(self.condition, self.ticket, self.trial, seed=self.seed)

    @property
    def seed(self) -> int:
        return self.first_seed + self.trial


def named_profiles() -> dict[str, Profile]:
    """The stand-in's named profiles (offline.PROFILES); a Profile object works too."""
    from .offline import PROFILES

    return {name: PROFILES[name] for name in sorted(PROFILES)}


def profile_named(profile: Profile | str | None) -> Profile:
    """A Profile from a name, a Profile, or None (the default profile)."""
    if profile is None:
        return DEFAULT_PROFILE
    if isinstance(profile, Profile):
        return profile
    known = named_profiles()
    if profile not in known:
        raise ValueError(f"profile {profile!r} is not one of: {', '.join(known)}; or pass an offline.Profile.")
    return known[profile]


def plan(*, styles: Sequence[str], faults: Sequence[bool], break_loops: Sequence[bool],
         profiles: Sequence[Profile | str | None], tickets: Sequence[str], trials: int, model: str,
         first_seed: int = 0) -> list[Episode]:
    """Every episode of a sweep, in a fixed order: conditions, then tickets, then trials."""
    if model != OFFLINE_MODEL:
        names: list[str | None] = [None]
    else:
        resolved = {}
        for p in map(profile_named, profiles):
            if resolved.setdefault(p.name, p) != p:
                raise ValueError(f"two profiles are named {p.name!r}; give each its own name, which goes into "
                                 "every episode's key.")
        names = list(resolved)
    conditions = [Condition(s, bool(f), bool(b), p, model)
                  for s, f, b, p in itertools.product(styles, faults, break_loops, names)]
    episodes = [Episode(c, t, n, first_seed) for c in conditions for t in tickets for n in range(trials)]
    return list({e.key: e for e in episodes}.values())  # a repeated option value must not run twice


def run_episode(client: Any, episode: Episode, *, source: str, bounds: Bounds | None = None,
                experiment: str = "") -> dict[str, Any]:
    """Run and grade one episode with a sync client; a failure inside the harness becomes its record."""
    c = episode.condition
    try:
        session = atlas_session(episode.ticket, style=c.style, faults=c.faults, seed=episode.seed,
                                break_loops=c.break_loops)
        run = run_agent(client, session, model=c.model, bounds=bounds, source=source)
        return record_from_run(run, grade(run), condition=c, ticket=episode.ticket, trial=episode.trial,
                               seed=episode.seed, experiment=experiment)
    except Exception as exc:  # the loop never raises; this guards the session, the grader and ourselves
        return harness_record(exc, condition=c, ticket=episode.ticket, trial=episode.trial, seed=episode.seed,
                              source=source, experiment=experiment)


async def _arun_episode(client: Any, episode: Episode, *, source: str, bounds: Bounds | None,
                        experiment: str) -> dict[str, Any]:
    c = episode.condition
    try:
        session = atlas_session(episode.ticket, style=c.style, faults=c.faults, seed=episode.seed,
                                break_loops=c.break_loops)
        run = await arun_agent(client, session, model=c.model, bounds=bounds, source=source)
        return record_from_run(run, grade(run), condition=c, ticket=episode.ticket, trial=episode.trial,
                               seed=episode.seed, experiment=experiment)
    except Exception as exc:
        return harness_record(exc, condition=c, ticket=episode.ticket, trial=episode.trial, seed=episode.seed,
                              source=source, experiment=experiment)


async def arun_episodes(client: Any, episodes: Iterable[Episode], *, source: str, bounds: Bounds | None = None,
                        concurrency: int = 16, experiment: str = "",
                        on_record: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run episodes through one async client, at most `concurrency` at a time; records in finishing order.

    `on_record` is called with each record as soon as it exists (the sweep appends it to the file there).
    """
    gate = asyncio.Semaphore(_positive(concurrency, "concurrency"))
    done: list[dict[str, Any]] = []

    async def one(episode: Episode) -> None:
        async with gate:
            record = await _arun_episode(client, episode, source=source, bounds=bounds, experiment=experiment)
        done.append(record)
        if on_record is not None:
            on_record(record)

    await asyncio.gather(*(one(e) for e in episodes))
    return done


def run_experiment(
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
) -> list[dict[str, Any]]:
    """Run styles × faults × break_loops × profiles × tickets × trials and return their records, old and new.

    model: "offline" (the stand-in), or a live model name; with no API key a live name falls back to the
    stand-in, with a warning, and the records say simulated. cassette: replay a recording instead.
    out: the JSONL file; episodes already in it are skipped, each new one is appended the moment it ends.
    None keeps results in memory only. profiles apply to the stand-in only. concurrency applies to live
    and replayed runs; offline runs are sequential, on one core. first_seed: trial n runs with seed
    first_seed + n (a chapter passes its `seed` parameter here). record: with a live model, write
    every call to this cassette so a class can replay the sweep with no key; recording and replaying
    both run one episode at a time in plan order, so the n-th identical request gets the n-th answer.
    """
    tickets = list(TICKETS) if tickets is None else list(tickets)
    _check(styles, "styles", STYLES)
    _check(tickets, "tickets", TICKETS)
    _check(faults, "faults", (True, False))
    _check(break_loops, "break_loops", (True, False))
    _positive(trials, "trials")
    _positive(concurrency, "concurrency")
    if isinstance(first_seed, bool) or not isinstance(first_seed, int) or first_seed < 0:
        raise ValueError(f"first_seed must be a whole number of 0 or more; got {first_seed!r}.")
    if out is not None and os.path.isdir(out):
        raise ValueError(f"out={os.fspath(out)!r} is a folder; pass the results file, such as 'results/sweep.jsonl'.")
    if record is not None and cassette is not None:
        raise ValueError("pass record= (to record a live sweep) or cassette= (to replay one), not both.")
    choice = _choose(model, cassette, record)
    if record is not None and choice.mode != "live":
        raise ValueError(f"record= needs a live model and ANTHROPIC_API_KEY; this sweep would run {choice.source}.")
    if choice.mode != "offline" and any(p is not None for p in profiles):
        raise ValueError(f"profiles apply only to the offline stand-in, not to {choice.model} ({choice.mode}); "
                         "pass profiles=(None,).")
    episodes = plan(styles=styles, faults=faults, break_loops=break_loops, profiles=profiles, tickets=tickets,
                    trials=trials, model=choice.model, first_seed=first_seed)
    old = {r["key"]: r for r in read_records(out)} if out is not None else {}
    todo = [e for e in episodes if e.key not in old]
    new: dict[str, dict[str, Any]] = {}
    writer = ResultsWriter(out) if out is not None and todo else None
    bar = tqdm(total=len(episodes), initial=len(episodes) - len(todo), desc=name, unit="episode",
               disable=not progress or not todo)

    def keep(record: dict[str, Any]) -> None:
        if writer is not None:
            writer.append(record)
        new[record["key"]] = record
        bar.update(1)

    try:
        if choice.mode == "offline":
            by_name = {p.name: p for p in map(profile_named, profiles)}
            clients: dict[tuple[str | None, int], Any] = {}
            for e in todo:
                # The stand-in's choices depend only on (seed, ticket, turn), so one client per
                # (profile, seed) gives each episode the same answers whatever ran before it.
                cache = (e.condition.profile, e.seed)
                if cache not in clients:
                    clients[cache] = offline_client(seed=e.seed, profile=by_name[str(e.condition.profile)])
                keep(run_episode(clients[cache], e, source=choice.source, bounds=bounds, experiment=name))
        elif todo:
            # A cassette answers the n-th identical request with the n-th recording, so a replay must
            # ask in the recorded order: one at a time, in plan order.
            width = 1 if choice.mode == "replay" or record is not None else concurrency
            _run_sync(arun_episodes(choice.client, todo, source=choice.source, bounds=bounds,
                                    concurrency=width, experiment=name, on_record=keep))
    finally:
        bar.close()
        if writer is not None:
            writer.close()
        if choice.recording is not None:
            choice.recording.save(record)  # whatever finished is replayable, even after an interruption
    merged = {**old, **new}
    return [merged[e.key] for e in episodes if e.key in merged]


@dataclass
class _Choice:
    client: Any
    model: str
    mode: str
    source: str
    recording: Any = None


def _choose(model: str, cassette: str | os.PathLike[str] | None, record: str | os.PathLike[str] | None = None) -> _Choice:
    if not isinstance(model, str) or not model.strip():
        raise ValueError(f"model must be 'offline' or a live model name such as 'claude-sonnet-5-5'; got {model!r}.")
    if cassette is None and model in OFFLINE_ALIASES:
        return _Choice(None, OFFLINE_MODEL, "offline", SIMULATED)
    choice = choose_model(None if cassette is not None else model, cassette=cassette, record=record, async_=True)
    if choice.note:
        warnings.warn(choice.note, stacklevel=3)
    if choice.mode == "offline":  # a live name with no key: the stand-in answers, and the records say so
        return _Choice(None, OFFLINE_MODEL, "offline", choice.source)
    return _Choice(choice.client, choice.model, choice.mode, choice.source, choice.recording)


def _run_sync(coroutine: Any) -> Any:
    """Run a coroutine to the end from sync code, also inside Jupyter, whose event loop is already running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _check(values: Sequence[Any], name: str, accepted: Iterable[Any]) -> None:
    accepted = list(accepted)
    if isinstance(values, (str, bytes)) or not values:
        raise ValueError(f"{name} must be a non-empty list drawn from: {', '.join(map(str, accepted))}; got {values!r}.")
    wrong = [v for v in values if not any(type(v) is type(a) and v == a for a in accepted)]
    if wrong:
        raise ValueError(f"{name}: {', '.join(map(repr, wrong))} not accepted; use values from: "
                         f"{', '.join(map(str, accepted))}.")


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1; got {value!r}.")
    return value
