"""Running a sweep's episodes: one at a time with a sync client, or many at once with an async one.

Each episode is run, graded and turned into its record here; a failure inside the harness becomes the record
of an episode that could not finish, so a sweep always goes on. Ctrl-C or SIGTERM stops an async sweep the way
`Stop` says (the calls in flight get DRAIN_SECONDS to come back). What to run and what to do with the records is
sweep.py's. `run_sync` runs a coroutine from sync code, Jupyter included. Chapter 11.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import signal
import threading
from dataclasses import dataclass, field
from types import FrameType
from typing import Callable, Coroutine, Iterable, Iterator, Sequence, TypeVar

from ..agent import Bounds, arun_agent, run_agent
from ..models.cassette import episode_scope
from ..models.resume import CallKeeper, Stopping
from ..models.standin.model import Profile, offline_client
from ..types.clients import AsyncMessagesClient, MessagesClient
from ..types.records import Record, Source
from .episodes import Episode, episode_record, episode_session, harness_failure, profile_named, whole_number
from .guard import Guard
from ..types.results import API_FAILURE

T = TypeVar("T")

DRAIN_SECONDS = 30.0
"""How long a stopped live sweep waits for its calls in flight to come back (they are paid for), before it cancels
them and counts them as cut off."""


@dataclass
class Stop:
    """How an async sweep stops on Ctrl-C or SIGTERM: no episode and no call starts any more, the calls in flight
    get `drain` seconds to come back (the keeper keeps each reply), then whatever still waits is cancelled (the
    keeper counts it as cut off); a second interrupt cancels at once. `cause` is what stopped it, or None."""

    keeper: CallKeeper | None = None
    drain: float = field(default_factory=lambda: DRAIN_SECONDS)  # read when made: a test or a notebook may lower it
    say: Callable[[str], None] = print
    cause: str | None = None
    started: set[str] = field(default_factory=set)  # episodes admitted to run
    finished: set[str] = field(default_factory=set)  # episodes that have a record
    tasks: list[asyncio.Future[object]] = field(default_factory=list)
    _timer: asyncio.TimerHandle | None = None

    def request(self, cause: str) -> None:
        """Begin to stop (called on the sweep's event loop); a second request cancels what is still in flight."""
        if self.cause is not None:
            self.say(f"{cause} again: cancelling the calls still in flight; each is counted as cut off, and a resume "
                     "sends it again.")
            self.cancel()
            return
        self.cause = cause
        if self.keeper is not None:
            self.keeper.stop()
        flying = self.keeper.in_flight if self.keeper is not None else 0
        if flying:
            self.say(f"{cause}: stopping. Waiting up to {self.drain:g} s for the {flying} call(s) in flight to come "
                     "back (they are paid for, and each reply is kept for the resume); press Ctrl-C again to stop "
                     "at once.")
        self._timer = asyncio.get_running_loop().call_later(self.drain, self.cancel)

    def start(self, episode: Coroutine[object, object, object]) -> asyncio.Future[object]:
        """Run one episode as a task this stop can cancel."""
        task: asyncio.Future[object] = asyncio.ensure_future(episode)
        self.tasks.append(task)
        return task

    def ended(self, key: str) -> None:
        """An episode has its record: it is not cut, and its kept replies are dropped (the record carries them)."""
        self.finished.add(key)
        if self.keeper is not None:
            self.keeper.forget(key)

    def cancel(self) -> None:
        for task in self.tasks:
            if not task.done():
                task.cancel()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    @property
    def cut(self) -> list[str]:
        """The episodes that started and have no record: each is resumed by the next run."""
        return sorted(self.started - self.finished)


@contextlib.contextmanager
def interrupts(stop: Stop) -> Iterator[None]:
    """While the block runs on the main thread's event loop, SIGINT (Ctrl-C) and SIGTERM call `stop.request`
    instead of killing the sweep mid-call; the previous handlers come back after. Elsewhere (a worker thread, as
    in Jupyter, or a loop without signal support) it does nothing: run_sync passes the interrupt on instead."""
    installed: list[tuple[signal.Signals, Callable[[int, FrameType | None], object] | int | None]] = []
    if threading.current_thread() is threading.main_thread():
        loop = asyncio.get_running_loop()
        for sig, cause in ((signal.SIGINT, "Ctrl-C"), (signal.SIGTERM, "SIGTERM")):
            previous = signal.getsignal(sig)
            try:
                loop.add_signal_handler(sig, stop.request, cause)
            except (NotImplementedError, RuntimeError, ValueError):  # Windows' loops, or no signals here
                continue
            installed.append((sig, previous))
    try:
        yield
    finally:
        for sig, previous in installed:
            loop.remove_signal_handler(sig)
            if previous is not None:
                signal.signal(sig, previous)


def run_episode(client: MessagesClient, episode: Episode, *, source: Source, bounds: Bounds | None = None,
                experiment: str = "") -> Record:
    """Run and grade one episode with a sync client; a failure inside the harness becomes its record."""
    try:
        run = run_agent(client, episode_session(episode), model=episode.condition.model, bounds=bounds, source=source)
        return episode_record(episode, run, experiment=experiment)
    except Exception as exc:  # the loop never raises; this guards the session, the grader and ourselves
        return harness_failure(episode, exc, source=source, experiment=experiment)


async def _arun_episode(client: AsyncMessagesClient, episode: Episode, *, source: Source, bounds: Bounds | None,
                        experiment: str) -> Record:
    """run_episode with an async client; every call it makes belongs to the episode (cassette.EPISODE), so a
    recording, a replay and an interrupted sweep's kept calls find it."""
    try:
        with episode_scope(episode.key):
            run = await arun_agent(client, episode_session(episode), model=episode.condition.model, bounds=bounds,
                                   source=source)
        return episode_record(episode, run, experiment=experiment)
    except Exception as exc:
        return harness_failure(episode, exc, source=source, experiment=experiment)


async def arun_episodes(client: AsyncMessagesClient, episodes: Iterable[Episode], *, source: Source,
                        bounds: Bounds | None = None, concurrency: int = 16, experiment: str = "",
                        on_record: Callable[[Record], None] | None = None, guard: Guard | None = None,
                        probe: bool = False, stop: Stop | None = None) -> list[Record]:
    """Run episodes through one async client, at most `concurrency` at a time; records in finishing order.

    `on_record` is called with each record as soon as it exists (the sweep appends it to the file there).
    `guard` may refuse to start further episodes (a budget, a rejected key); every call belongs to its episode (cassette.EPISODE).
    `probe` (a live sweep): run one episode at a time until one gets through the API, then fan out, so a
    rejected key or an outage is met by one request, not by `concurrency` of them. `stop`: how an interrupt
    stops them (Stop); an episode it cuts short has no record, and is in `stop.cut`.
    """
    gate = asyncio.Semaphore(whole_number(concurrency, "concurrency"))
    done: list[Record] = []
    stop = stop if stop is not None else Stop()

    async def one(episode: Episode) -> Record | None:
        async with gate:
            if stop.cause is not None or (guard is not None and not guard.admit()):
                return None
            stop.started.add(episode.key)
            try:
                record = await _arun_episode(client, episode, source=source, bounds=bounds, experiment=experiment)
            except Stopping:  # it asked for a call after the sweep began to stop: resumed next run
                return None
        stop.ended(episode.key)
        if guard is not None:
            guard.finish(record)
        done.append(record)
        if on_record is not None:
            on_record(record)
        return record

    try:
        await _probe_then_all(lambda episode: stop.start(one(episode)), iter(episodes), probe=probe, stop=stop)
    finally:
        stop.close()
    return done


async def _probe_then_all(start: Callable[[Episode], asyncio.Future[object]], left: Iterator[Episode], *,
                          probe: bool, stop: Stop) -> None:
    """Start the episodes: with `probe`, one at a time until one gets through the API; then all the rest."""
    if probe:
        for episode in left:
            [first] = await _settled([start(episode)])
            if stop.cause is not None or not isinstance(first, dict) or first.get("stop_reason") != API_FAILURE:
                break  # through, stopped, or the guard stopped the sweep
    await _settled([start(e) for e in left])


async def _settled(tasks: list[asyncio.Future[object]]) -> list[object]:
    """Each task's result, None for one the stop cancelled; any other exception is raised."""
    results = await asyncio.gather(*tasks, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
            raise result
    return [None if isinstance(r, BaseException) else r for r in results]


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


def run_sync(make: Callable[[], Coroutine[object, object, T]], *, interrupt: Callable[[], None] | None = None) -> T:
    """Run a coroutine to the end from sync code, also inside Jupyter, whose event loop is already running.

    In Jupyter it runs on a worker thread. A kernel interrupt then calls `interrupt` on that thread's loop (a
    sweep's Stop.request: it stops cleanly, and the coroutine ends by itself), and a second one, or one with no
    `interrupt`, cancels it there, so no episode goes on in the background.
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
            if interrupt is not None and isinstance(loop, asyncio.AbstractEventLoop):
                loop.call_soon_threadsafe(interrupt)
                try:
                    return future.result()  # it stops by itself, its calls in flight drained
                except KeyboardInterrupt:
                    pass
            if isinstance(loop, asyncio.AbstractEventLoop) and isinstance(task, asyncio.Task):
                loop.call_soon_threadsafe(task.cancel)
            with contextlib.suppress(BaseException):
                future.result()
            raise
