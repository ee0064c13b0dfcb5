"""Watching a live call that is slow to answer: every few seconds of silence, a note that it is still waiting.

A hung API would otherwise show nothing until the attempt times out. Only notes are made here: the retry
middleware (api_retry.py) opens a `Watch` around each attempt and says where the notes go (stderr, or a sweep's
progress bar); no wait is changed. Chapter 09.
"""
from __future__ import annotations

import asyncio
import math
import threading
import time
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Waiting:
    """An attempt still unanswered after `seconds` (`answered`: it has now been answered, after that long)."""

    seconds: float
    attempt: int
    timeout: float
    answered: bool = False

    def line(self) -> str:
        s = f"{self.seconds:.1f}" if self.seconds < 10 else f"{self.seconds:.0f}"
        if self.answered:
            return f"API answered after {s} s."
        return (f"API call still waiting after {s} s (attempt {self.attempt}); an attempt that hears nothing for "
                f"{self.timeout:.0f} s fails as a timeout (APIRetry.timeout).")


class Watch:
    """While one attempt is in flight, tell `listener` every `note_after` seconds that it is still waiting.

    A sync attempt is watched by the one watchdog thread, an async one by its event loop; either way the watch
    ends with the attempt, so it never lengthens a wait. Nothing is watched when the timeout comes first.
    """

    def __init__(self, note_after: float, timeout: float, attempt: int, listener: Callable[[Waiting], None]) -> None:
        self.every, self.timeout, self.attempt, self.listener = note_after, timeout, attempt, listener
        self.started, self.told, self.done = time.monotonic(), 0, False
        self.on = note_after < timeout
        self._lock = threading.Lock()
        self._handle: asyncio.TimerHandle | None = None

    def tell(self) -> None:
        with self._lock:  # never "still waiting" once the attempt has ended
            if self.done:
                return
            self.told += 1
        self.listener(Waiting(time.monotonic() - self.started, self.attempt, self.timeout))

    def __enter__(self) -> Watch:
        if self.on:
            _WATCHDOG.add(self)
        return self

    async def __aenter__(self) -> Watch:
        if self.on:
            self._handle = asyncio.get_running_loop().call_later(self.every, self._tick)
        return self

    def _tick(self) -> None:
        self.tell()
        self._handle = asyncio.get_running_loop().call_later(self.every, self._tick)

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.done = True
        if self.on:
            _WATCHDOG.remove(self)
        if self._handle is not None:
            self._handle.cancel()
        if self.told and exc[0] is None:  # after "still waiting", say that it ended
            self.listener(Waiting(time.monotonic() - self.started, self.attempt, self.timeout, answered=True))

    async def __aexit__(self, *exc: object) -> None:
        self.__exit__(*exc)


class _Watchdog:
    """One daemon thread for every sync attempt being watched, asleep until the next note is due (a thread per
    call would cost a sync call a tenth of a millisecond)."""

    def __init__(self) -> None:
        self._due: dict[Watch, float] = {}
        self._wakes = math.inf  # when the thread wakes next
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, watch: Watch) -> None:
        at = watch.started + watch.every
        with self._cond:
            self._due[watch] = at
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True, name="atlas-api-watchdog")
                self._thread.start()
            elif at < self._wakes:
                self._cond.notify()

    def remove(self, watch: Watch) -> None:
        with self._cond:
            self._due.pop(watch, None)

    def _run(self) -> None:
        while True:
            with self._cond:
                now = time.monotonic()
                ready = [w for w, at in self._due.items() if at <= now]
                for w in ready:
                    self._due[w] = now + w.every
                if not ready:
                    self._wakes = min(self._due.values(), default=math.inf)
                    self._cond.wait(None if math.isinf(self._wakes) else self._wakes - now)
                    self._wakes = math.inf
                    continue
            for w in ready:  # outside the lock: a listener prints a note or draws a progress bar
                w.tell()


_WATCHDOG = _Watchdog()
