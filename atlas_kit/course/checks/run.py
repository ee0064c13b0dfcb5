"""Checks for the exercises: a learner calls `check("03.1", answer)` in the cell after an answer.

A check never raises, stops the learner's code after CHECK_SECONDS (and says so), and says what it judged:
structure ("Structure: ..."), a contradiction between the words and the structure ("Contradiction: ..."), forbidden
words ("Forbidden: ..."); what it cannot decide it does not judge, and shows the reference answer and a rubric once
the rest is right ("Not judged: ..."). A failed check says what to change in one or two sentences; hints come with
`hint("03.1")`. An answer still `...` is "not answered yet".
"""
from __future__ import annotations

import importlib
import re
import signal
import threading
from contextlib import contextmanager
from dataclasses import replace
from typing import Iterator

from ._registry import BLANK, EXERCISES, PLACEHOLDER, Compare, Exercise, Feedback, Finding, exercise, is_blank


CHECK_SECONDS = 30.0
"""How long a check may run the learner's code: a loop that never ends, a long sleep or an input() is stopped
there (in the kernel's main thread, by an alarm) and said, so the notebook is never left waiting."""


class _OutOfTime(BaseException):
    """Raised into the learner's code when CHECK_SECONDS have passed: a BaseException, so `except Exception` in
    that code does not swallow it."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise _OutOfTime in this thread after `seconds`, and again each second after (code that catches everything
    is stopped at its next try). Only in the main thread of a system with alarms; elsewhere, no limit."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise _OutOfTime()

    before = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before if before is not None else signal.SIG_DFL)


def check(key: str, answer: object) -> Feedback:
    """Check `answer` for exercise `key`; never raises, and returns within about CHECK_SECONDS."""
    ex = _find(key)
    if ex is None:
        return Feedback(str(key), False, f"There is no exercise {key!r}; the keys are: {', '.join(sorted(EXERCISES))} "
                                         "(each a string, such as '03.1').")
    if is_blank(answer):
        return Feedback(key, False, BLANK)
    try:
        with _time_limit(CHECK_SECONDS):
            problem = ex.grade(answer)
    except _OutOfTime:
        problem = (f"your code did not finish within {CHECK_SECONDS:g} s when the check used it (a loop that never "
                   "ends, a long sleep, or input()?); fix that, and check again.")
    except SystemExit:
        problem = ("your code called exit() (SystemExit) when the check used it; return a value, or raise an "
                   "exception, instead.")
    except Exception as exc:  # the learner's code raised inside the check: say so, don't crash the notebook
        problem = f"your answer raised {type(exc).__name__} when the check used it; run it yourself, fix that, and check again."
    return replace(ex.said(problem), exercise=key)


def hint(key: str, n: int = 1) -> str:
    """The n-th hint for exercise `key` (1 = the gentlest)."""
    ex = _find(key)
    if ex is None or not ex.hints:
        return f"No hints for exercise {key!r}."
    n = max(1, min(n, len(ex.hints)))
    more = f" (hint {n} of {len(ex.hints)}; ask for hint({key!r}, {n + 1}) for more)" if n < len(ex.hints) else ""
    return ex.hints[n - 1] + more


def _find(key: object) -> Exercise | None:
    """The exercise `key` names, loading its chapter's checks; all of them when it names none (the message lists
    every key)."""
    if not isinstance(key, str):
        return None
    if key not in EXERCISES:
        load(key.partition(".")[0])
    if key not in EXERCISES:
        load()
    return EXERCISES.get(key)


def load(chapter: str | None = None) -> None:
    """Import the checks of one chapter ("02"), or of every chapter; each registers its exercises on import.

    One chapter's alone keeps a notebook's first check cheap: chapter 02's need no SDK, which takes a kernel
    about 1.4 s to import (chapter 01's sweep needs it)."""
    if chapter is None:
        _load()
        return
    if re.fullmatch(r"[0-9]{2}", chapter):
        try:
            importlib.import_module(f"{__package__}.ch{chapter}")
        except ModuleNotFoundError as err:
            if err.name != f"{__package__}.ch{chapter}":  # a chapter's checks that fail to import: say so
                raise


def _load() -> None:
    # The chapters' checks register themselves on import; import them lazily so `check` stays cheap.
    from . import ch00, ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09, ch10, ch11, ch12, ch13, ch14, ch15  # noqa: F401
    from . import ch16  # noqa: F401  # Errors in the wild
