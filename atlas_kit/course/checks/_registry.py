"""The exercises' registry, and what "not answered yet" is: the placeholder `...` an exercise's gap leaves.

Each chapter's module registers its checks here with `exercise`; checks/__init__.py imports the chapters,
never the other way round. scripts/make_exercises.py writes every gap as `...`: a value still `...` is
unanswered, and so is a function whose body is still only `...` (read from its source, the same on every
Python version; the bytecode is never read). Chapters 00 to 15 use it through `check` and `hint`.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from html import escape
from typing import Any, Callable

__all__ = ["BLANK", "EXERCISES", "PLACEHOLDER", "Exercise", "Feedback", "exercise", "is_blank"]

BLANK = "Not answered yet: replace the ... in the cell above with your answer, run it, then run this check."
PLACEHOLDER = ...  # what an exercise's gap is: Python's own "to be written"

Grader = Callable[[Any], "str | None"]  # the learner's answer in; None when right, else what to change


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
        return (f"<div style='color:{colour}'><b>{'✓' if self.ok else '✗'} Exercise {escape(self.exercise)}</b>: "
                f"{escape(self.message)}</div>")


@dataclass(frozen=True)
class Exercise:
    """One registered exercise: its title, its grading function, what a right answer earns, and its hints."""

    title: str
    grade: Grader
    right: str
    hints: tuple[str, ...]


EXERCISES: dict[str, Exercise] = {}


def exercise(key: str, title: str, *, right: str, hints: tuple[str, ...] = ()) -> Callable[[Grader], Grader]:
    """Register a grading function for exercise `key` ("NN.k"): it returns None, or what to change."""
    def register(grade: Grader) -> Grader:
        if key in EXERCISES:
            raise ValueError(f"exercise {key!r} is registered twice; give each exercise its own NN.k key.")
        EXERCISES[key] = Exercise(title, grade, right, hints)
        return grade
    return register


def is_blank(answer: object) -> bool:
    """True for the placeholder `...` (or None), or a function whose body is still the placeholder.

    A body is the placeholder when, past its docstring, it holds only `...` (or `pass`, or a bare return):
    it does nothing. A function whose source cannot be read (built by exec, say) is taken as answered.
    """
    if answer is PLACEHOLDER or answer is None:
        return True
    if not (inspect.isfunction(answer) or inspect.ismethod(answer)):
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(answer)))
    except (OSError, TypeError, SyntaxError):
        return False
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False  # a lambda: an expression, never the gap
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    return all(_does_nothing(statement) for statement in body)


def _does_nothing(statement: ast.stmt) -> bool:
    """`...`, `pass`, `return`, `return None` or `return ...`: a statement that leaves the gap as it was."""
    if isinstance(statement, ast.Pass) or isinstance(statement, ast.Return) and statement.value is None:
        return True
    if isinstance(statement, (ast.Expr, ast.Return)) and isinstance(statement.value, ast.Constant):
        return statement.value.value is PLACEHOLDER or statement.value.value is None
    return False
