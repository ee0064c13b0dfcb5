"""The grader's records: what one exercise is (from the solutions), one submission, and its grade.

Plain dataclasses passed from collect → execute → report; statuses and outcomes are Literals.
The teachers' section of README.md describes the report built from them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

# Most severe first: a row's status is the first of these that applies to it.
Status = Literal["unreadable", "unknown_chapter", "wrong_chapter", "grader_error", "tampered", "killed",
                 "interrupted", "errors", "ok"]
STATUS_ORDER: tuple[Status, ...] = ("unreadable", "unknown_chapter", "wrong_chapter", "grader_error", "tampered",
                                    "killed", "interrupted", "errors", "ok")
# right/wrong/blank come from the check; not_graded means the check never saw an answer.
Outcome = Literal["right", "wrong", "blank", "not_graded"]
Isolation = Literal["sandbox", "network namespace", "environment only"]


@dataclass(frozen=True)
class ExerciseSpec:
    """One exercise as the solution notebook checks it: `check(key, expression)`."""

    key: str
    title: str
    expression: str | None  # None when the solution has no check call for a registered key


@dataclass(frozen=True)
class ChapterPlan:
    chapter: str  # "02"
    stem: str  # "02_four_branches"
    exercises: tuple[ExerciseSpec, ...]


@dataclass
class Submission:
    """One learner's notebook as read from disk; `problem` says why it cannot be run."""

    path: Path
    file: str  # shown in the report: the path relative to the submissions' common folder
    learner: str
    chapter: str | None
    cells: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (code, tags) of each code cell
    status: Status | None = None  # set when the notebook is not run at all
    notes: list[str] = field(default_factory=list)
    claims: tuple[str, ...] = ()  # exercises shown with a ✓ in the saved output of a cell that does not check them


@dataclass(frozen=True)
class ExerciseResult:
    outcome: Outcome
    message: str

    @property
    def points(self) -> int:
        return 1 if self.outcome == "right" else 0


@dataclass
class Grade:
    """One row of grades.csv: a learner's notebook, its status, and each exercise's result."""

    learner: str
    file: str
    chapter: str | None
    status: Status
    results: dict[str, ExerciseResult]
    notes: list[str]
    out_of: int
    seconds: float = 0.0

    @property
    def total(self) -> int:
        return sum(r.points for r in self.results.values())


@dataclass
class Gradebook:
    """Everything the report shows: the chapters graded, each row, and how the run was confined."""

    plans: dict[str, ChapterPlan]
    grades: list[Grade]
    isolation: Isolation
    timeout: float
    cell_timeout: float
    seconds: float

    def exercises(self) -> list[ExerciseSpec]:
        return [spec for chapter in sorted(self.plans) for spec in self.plans[chapter].exercises]
