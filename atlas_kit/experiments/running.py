"""Running a sweep's episodes: one at a time with a sync client, or many at once with an async one.

Each episode is run, graded and turned into its record here; a failure inside the harness becomes the record
of an episode that could not finish, so a sweep always goes on. What to run and what to do with the records
is sweep.py's. `run_sync` runs a coroutine from sync code, Jupyter included. Chapter 11.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from typing import Callable, Coroutine, Iterable, Sequence, TypeVar

from ..agent import Bounds, arun_agent, run_agent
from ..models.cassette import EPISODE_HEADER
from ..models.standin.model import Profile, offline_client
from ..types import AsyncMessagesClient, MessagesClient, Record, Source
from .episodes import Episode, episode_record, episode_session, harness_failure, profile_named, whole_number
from .guard import Guard
from .results import API_FAILURE

__all__ = ["arun_episodes", "run_episode", "run_offline", "run_sync"]

T = TypeVar("T")


def run_episode(client: MessagesClient, episode: Episode, *, source: Source, bounds: Bounds | None = None,
                experiment: str = "") -> Record:
    """Run and grade one episode with a sync client; a failure inside the harness becomes its record."""
    try:
        run = run_agent(client, episode_session(episode), model=episode.condition.model, bounds=bounds, source=source)
        return episode_record(episode, run, experiment=experiment)
    except Exception as exc:  # the loop never raises; this guards the session, the grader and ourselves
        return harness_failure(episode, exc, source=source, experiment=experiment)


async def _arun_episode(client: AsyncMessagesClient, episode: Episode, *, source: Source, bounds: Bounds | None,
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


async def arun_episodes(client: AsyncMessagesClient, episodes: Iterable[Episode], *, source: Source,
                        bounds: Bounds | None = None, concurrency: int = 16, experiment: str = "",
                        on_record: Callable[[Record], None] | None = None, guard: Guard | None = None,
                        tag: bool = False, probe: bool = False) -> list[Record]:
    """Run episodes through one async client, at most `concurrency` at a time; records in finishing order.

    `on_record` is called with each record as soon as it exists (the sweep appends it to the file there).
    `guard` may refuse to start further episodes (a budget, a rejected key); `tag` sends each episode's key.
    `probe` (a live sweep): run one episode at a time until one gets through the API, then fan out, so a
    rejected key or an outage is met by one request, not by `concurrency` of them.
    """
    gate = asyncio.Semaphore(whole_number(concurrency, "concurrency"))
    done: list[Record] = []

    async def one(episode: Episode) -> Record | None:
        async with gate:
            if guard is not None and not guard.admit():
                return None
            record = await _arun_episode(client, episode, source=source, bounds=bounds, experiment=experiment, tag=tag)
        if guard is not None:
            guard.finish(record)
        done.append(record)
        if on_record is not None:
            on_record(record)
        return record

    left = iter(episodes)
    if probe:
        for episode in left:
            first = await one(episode)
            if first is None or first.get("stop_reason") != API_FAILURE:  # through, or the guard stopped the sweep
                break
    await asyncio.gather(*(one(e) for e in left))
    return done


def run_offline(todo: Sequence[Episode], profiles: Sequence[Profile | str | None], source: Source,
                bounds: Bounds | None, name: str, guard: Guard, keep: Callable[[Record], None]) -> None:
    """Run the stand-in's episodes one after another, each with its own seed and profile."""
    by_name = {p.name: p for p in map(profile_named, profiles)}
    clients: dict[tuple[str | None, int], MessagesClient] = {}
    for e in todo:
        # The stand-in's choices depend only on (seed, ticket, turn): one client per (profile, seed) is enough.
        cache = (e.condition.profile, e.seed)
        if cache not in clients:
            clients[cache] = offline_client(seed=e.seed, profile=by_name[str(e.condition.profile)])
        guard.admit()
        record = run_episode(clients[cache], e, source=source, bounds=bounds, experiment=name)
        guard.finish(record)
        keep(record)


def run_sync(make: Callable[[], Coroutine[object, object, T]]) -> T:
    """Run a coroutine to the end from sync code, also inside Jupyter, whose event loop is already running.

    In Jupyter it runs on a worker thread; an interrupt cancels it there, so no episode goes on in the background.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    box: dict[str, object] = {}

    async def main() -> T:
        box["loop"], box["task"] = asyncio.get_running_loop(), asyncio.current_task()
        return await make()

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(asyncio.run, main())
        try:
            return future.result()
        except KeyboardInterrupt:
            loop, task = box.get("loop"), box.get("task")
            if isinstance(loop, asyncio.AbstractEventLoop) and isinstance(task, asyncio.Task):
                loop.call_soon_threadsafe(task.cancel)
            with contextlib.suppress(BaseException):
                future.result()
            raise
