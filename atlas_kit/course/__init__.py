"""The course's machinery: setting up a chapter and running the course (runner), the exercise checks (checks/),
grading a class (grading/) and the build-it-yourself harness of chapter 13 (byo/).

Chapters call `setup()` first; `atlas-kit course` and `atlas-kit grade` drive the rest.
"""
from __future__ import annotations

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .runner import (PapermillEngine, chapters, closing_line, course_jobs, execute_offline, kernel_config,
        lab_command, listed, run_course, setup)

_WHERE = {
    "PapermillEngine": "runner",
    "chapters": "runner",
    "closing_line": "runner",
    "course_jobs": "runner",
    "execute_offline": "runner",
    "kernel_config": "runner",
    "lab_command": "runner",
    "listed": "runner",
    "run_course": "runner",
    "setup": "runner",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "PapermillEngine", "chapters", "closing_line", "course_jobs", "execute_offline", "kernel_config", "lab_command",
    "listed", "run_course", "setup",
]
