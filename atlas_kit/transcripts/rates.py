"""The dashboard metric on transcripts: recovery, P(correct | a tool error reached the model), beside success when
none did, with Wilson 95% intervals and Fisher's exact test of the difference. Observational: errors come with
harder tasks, so the difference is not the effect of an error. Chapters 11 and "Errors in the wild".
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from ..experiments.metrics import Rate
from ..experiments.stats import fisher_exact
from .analysis import hit_error
from .model import Episode

__all__ = ["Recovery", "TaskSplit", "recovery", "task_split"]


@dataclass(frozen=True)
class Recovery:
    """Episodes split by whether a tool error reached the model, outcomes known only.

    with_error: correct among episodes an error reached (recovery); without_error: correct among the others
    (success without errors); both are metrics.Rate (successes, n; `interval` is Wilson's 95%).
    difference: with_error.rate - without_error.rate, in proportion (-0.21 is 21 points lower); nan if either
    side is empty. p_value: Fisher's exact test, two-sided, of the 2x2 table (error or not x correct or not).
    unknown_with_error / unknown_without_error: episodes left out because their outcome is unknown.
    episodes: every episode read, the left-out ones included."""

    episodes: int
    with_error: Rate
    without_error: Rate
    unknown_with_error: int
    unknown_without_error: int

    @property
    def unknown(self) -> int:
        return self.unknown_with_error + self.unknown_without_error

    @property
    def hit(self) -> int:
        """Episodes an error reached, outcome known or not."""
        return self.with_error.n + self.unknown_with_error

    @property
    def difference(self) -> float:
        if not (self.with_error.n and self.without_error.n):
            return math.nan
        return self.with_error.rate - self.without_error.rate

    @property
    def p_value(self) -> float:
        w, o = self.with_error, self.without_error
        return fisher_exact(w.successes, w.n - w.successes, o.successes, o.n - o.successes)


def recovery(episodes: Iterable[Episode]) -> Recovery:
    """Recovery and success without errors over `episodes` (see Recovery); summary episodes count too."""
    counts = {(hit, known): [0, 0] for hit in (True, False) for known in (True, False)}  # [correct, all]
    total = 0
    for e in episodes:
        total += 1
        cell = counts[(hit_error(e), e.outcome.known)]
        cell[0] += bool(e.outcome.correct)
        cell[1] += 1
    return Recovery(total, Rate(*counts[(True, True)]), Rate(*counts[(False, True)]), counts[(True, False)][1],
                    counts[(False, False)][1])


@dataclass(frozen=True)
class TaskSplit:
    """Success without errors, split by task: on the tasks where another trial of the same task met an error
    (`same_tasks`), and on the tasks no trial did (`other_tasks`); `with_error` is recovery as in Recovery. When
    `same_tasks` is low as well, the tasks are hard with or without their errors: the errors come with the tasks.
    Outcomes known only; episodes without a task id are left out (`no_task`)."""

    with_error: Rate
    same_tasks: Rate
    other_tasks: Rate
    no_task: int


def task_split(episodes: Iterable[Episode]) -> TaskSplit:
    """Recovery beside success without errors on the same tasks and on the others (TaskSplit); needs task ids and
    more than one trial per task to say anything."""
    known = [e for e in episodes if e.outcome.known]
    hit_tasks = {e.task_id for e in known if e.task_id is not None and hit_error(e)}
    def rate(picked: list[Episode]) -> Rate:
        return Rate(sum(bool(e.outcome.correct) for e in picked), len(picked))
    tasked = [e for e in known if e.task_id is not None]
    clean = [e for e in tasked if not hit_error(e)]
    return TaskSplit(rate([e for e in tasked if hit_error(e)]), rate([e for e in clean if e.task_id in hit_tasks]),
                     rate([e for e in clean if e.task_id not in hit_tasks]), len(known) - len(tasked))
