"""Checks for the exercises: a learner calls `check("03.1", answer)` in the cell after an answer.

A check never raises, and says what it judged: structure ("Structure: ..."), a contradiction between the words and
the structure ("Contradiction: ..."), forbidden words ("Forbidden: ..."); what it cannot decide it does not judge,
and shows the reference answer and a rubric once the rest is right ("Not judged: ..."). A failed check says what to
change in one or two sentences; hints come with `hint("03.1")`. An answer still `...` is "not answered yet".
"""
from __future__ import annotations

from dataclasses import replace

from ._registry import BLANK, EXERCISES, PLACEHOLDER, Compare, Exercise, Feedback, Finding, exercise, is_blank

__all__ = ["BLANK", "EXERCISES", "PLACEHOLDER", "Compare", "Exercise", "Feedback", "Finding", "check", "exercise", "hint",
           "is_blank"]


def check(key: str, answer: object) -> Feedback:
    """Check `answer` for exercise `key`; never raises."""
    _load()
    ex = EXERCISES.get(key)
    if ex is None:
        return Feedback(key, False, f"There is no exercise {key!r}; the keys are: {', '.join(sorted(EXERCISES))}.")
    if is_blank(answer):
        return Feedback(key, False, BLANK)
    try:
        problem = ex.grade(answer)
    except Exception as exc:  # the learner's code raised inside the check: say so, don't crash the notebook
        problem = f"your answer raised {type(exc).__name__} when the check used it; run it yourself, fix that, and check again."
    return replace(ex.said(problem), exercise=key)


def hint(key: str, n: int = 1) -> str:
    """The n-th hint for exercise `key` (1 = the gentlest)."""
    _load()
    ex = EXERCISES.get(key)
    if ex is None or not ex.hints:
        return f"No hints for exercise {key!r}."
    n = max(1, min(n, len(ex.hints)))
    more = f" (hint {n} of {len(ex.hints)}; ask for hint({key!r}, {n + 1}) for more)" if n < len(ex.hints) else ""
    return ex.hints[n - 1] + more


def _load() -> None:
    # The chapters' checks register themselves on import; import them lazily so `check` stays cheap.
    from . import ch00, ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09, ch10, ch11, ch12, ch13, ch14, ch15  # noqa: F401
    from . import ch16  # noqa: F401  # Errors in the wild
