"""A local sweep's pace: after its first episode, how long the rest will take at that rate, said once in a line.

A laptop runs one model call at a time, so a local sweep can take hours; the progress bar keeps its own estimate
current. Chapters 00 and 11.
"""
from __future__ import annotations

import time
from typing import Callable

__all__ = ["Pace"]


class Pace:
    """A local sweep's time estimate: after the first episode, how long the rest will take at that pace."""

    def __init__(self, todo: int, *, say: Callable[[str], None]) -> None:
        self.todo, self.say, self.started, self.done = todo, say, time.monotonic(), 0

    def tick(self) -> None:
        self.done += 1
        if self.done != 1 or self.todo < 2:
            return
        took = time.monotonic() - self.started
        left = took * (self.todo - 1)
        line = (f"The first episode took {_duration(took)}; at that pace the {self.todo - 1} left take about "
                f"{_duration(left)} (the progress bar keeps the estimate up to date).")
        self.say(line)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
