"""Grade a class: run every learner's exercise notebook offline, confined, and report per exercise and learner.

`atlas-kit grade SUBMISSION... --out DIR` calls `grade_class`. collect reads and identifies the notebooks,
execute runs each in its own kernel (kernel confines it, probe guards it, take takes the answers out) and checks
the answers in a fresh one (judge), report writes the files.
README's "For teachers" section describes the report. Its names load on first use (classroom.py holds
grade_class): the checking kernel imports judge.py alone.
"""
from __future__ import annotations

import typing as _typing

from ..._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .classroom import TEXT_LIMIT, grade_class
    from .records import Grade, Gradebook
    from .report import ExerciseSummary, summarize

_WHERE = {
    "ExerciseSummary": "report",
    "Grade": "records",
    "Gradebook": "records",
    "TEXT_LIMIT": "classroom",
    "grade_class": "classroom",
    "summarize": "report",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = ["ExerciseSummary", "Grade", "Gradebook", "TEXT_LIMIT", "grade_class", "summarize"]
