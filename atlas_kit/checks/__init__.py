"""Checks for the exercises: a learner calls `check("03.1", answer)` in the cell after an answer.

A check never raises. Like a good tool error, a failed check says what is wrong and what to
change in one or two sentences, and never hands over the solution. Hints come on request
with `hint("03.1")`. The exercises themselves live in exercises/ and solutions/.
"""
from __future__ import annotations

import dis
from dataclasses import dataclass
from html import escape
from typing import Any, Callable

__all__ = ["BLANK", "EXERCISES", "Feedback", "check", "exercise", "hint", "is_blank"]

BLANK = "Not answered yet: replace the ... in the cell above with your answer, run it, then run this check."


@dataclass(frozen=True)
class Feedback:
    """The result of a check: whether the answer is right, and one or two sentences saying why."""

    exercise: str
    ok: bool
    message: str

    def __repr__(self) -> str:
        return f"{'✓' if self.ok else '✗'} Exercise {self.exercise}: {self.message}"

    def _repr_html_(self) -> str:
        colour = "#2e7d32" if self.ok else "#c62828"
        return f"<div style='color:{colour}'><b>{'✓' if self.ok else '✗'} Exercise {escape(self.exercise)}</b>: {escape(self.message)}</div>"


@dataclass(frozen=True)
class _Exercise:
    title: str
    grade: Callable[[Any], str | None]  # None when right, else what to change
    right: str
    hints: tuple[str, ...]


EXERCISES: dict[str, _Exercise] = {}


def exercise(key: str, title: str, *, right: str, hints: tuple[str, ...] = ()) -> Callable[[Callable[[Any], str | None]], Callable[[Any], str | None]]:
    """Register a grading function for exercise `key` ("NN.k"): it returns None, or what to change."""
    def register(grade: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
        if key in EXERCISES:
            raise ValueError(f"exercise {key!r} is registered twice; give each exercise its own NN.k key.")
        EXERCISES[key] = _Exercise(title, grade, right, hints)
        return grade
    return register


_IDLE = {"RESUME", "NOP", "LOAD_CONST", "RETURN_CONST", "RETURN_VALUE", "POP_TOP"}


def is_blank(answer: Any) -> bool:
    """True for `...`, None, or a function whose body is still the exercise's gap (it only returns None)."""
    if answer is ... or answer is None:
        return True
    if getattr(answer, "__code__", None) is None:
        return False
    return all(i.opname in _IDLE and (i.opname not in ("LOAD_CONST", "RETURN_CONST") or i.argval in (None, ...))
               for i in dis.get_instructions(answer))


def check(key: str, answer: Any) -> Feedback:
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
        return Feedback(key, False, f"Your answer raised {type(exc).__name__} when the check used it; run it yourself, fix that, and check again.")
    return Feedback(key, problem is None, ex.right if problem is None else problem)


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
