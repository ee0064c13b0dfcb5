"""The dashboard metric on transcripts: recovery, P(correct | a tool error reached the model), beside success when
none did, with Wilson 95% intervals and Fisher's exact test of the difference; per model, paired by task across
models, and pass^k over a task's trials. Observational: errors come with harder tasks, so the difference is not the
effect of an error. A task is one source's (a file's or runs folder's) task id: ids of different sources are never
pooled. Chapters 11 and "Errors in the wild".
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..experiments.metrics import Rate
from ..experiments.stats import fisher_exact
from ..types import AtlasKitValueError
from .analysis import hit_error, model_order
from .model import Episode, ToolResult

__all__ = ["ModelRecovery", "PairedRecovery", "PassK", "Recovery", "TaskSplit", "pass_hat_k", "paired_by_task",
           "recovery", "recovery_by_model", "task_split"]


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
    """Success without errors, split by task: on the tasks where another trial of the same task (same source and
    model, or any model's with `across_models`) met an error (`same_tasks`), and on the tasks no trial did
    (`other_tasks`); `with_error` is recovery as in Recovery. When `same_tasks` is low as well, the tasks are hard
    with or without their errors: the errors come with the tasks. Outcomes known only; episodes without a task id
    are left out (`no_task`)."""

    with_error: Rate
    same_tasks: Rate
    other_tasks: Rate
    no_task: int


TaskKey = tuple[str, str | None, str]
"""A task as the data knows it: (source file or folder, model, task id)."""


def _task(e: Episode, *, across_models: bool = False) -> TaskKey | None:
    return None if e.task_id is None else (e.file, None if across_models else e.model, e.task_id)


def _rate(picked: Iterable[Episode]) -> Rate:
    outcomes = [bool(e.outcome.correct) for e in picked]
    return Rate(sum(outcomes), len(outcomes))


def task_split(episodes: Iterable[Episode], *, across_models: bool = False) -> TaskSplit:
    """Recovery beside success without errors on the same tasks and on the others (TaskSplit); needs task ids and
    more than one trial per task to say anything. `across_models`: a task is one source's task id whatever model
    ran it, so one run per model and task (AgentDojo) is enough: the same tasks are those some model met an error
    on."""
    known = [e for e in episodes if e.outcome.known]
    tasked = [e for e in known if e.task_id is not None]
    def task(e: Episode) -> TaskKey | None:
        return _task(e, across_models=across_models)
    hit_tasks = {task(e) for e in tasked if hit_error(e)}
    clean = [e for e in tasked if not hit_error(e)]
    return TaskSplit(_rate(e for e in tasked if hit_error(e)), _rate(e for e in clean if task(e) in hit_tasks),
                     _rate(e for e in clean if task(e) not in hit_tasks), len(known) - len(tasked))


def _by_model(episodes: Iterable[Episode]) -> dict[str | None, list[Episode]]:
    """Episodes grouped by the model their data names, models sorted by name and None (not named) last."""
    groups: dict[str | None, list[Episode]] = {}
    for e in episodes:
        groups.setdefault(e.model, []).append(e)
    return {m: groups[m] for m in sorted(groups, key=model_order)}


@dataclass(frozen=True)
class ModelRecovery:
    """One model's row (`model` None: the data names none): the tool errors that reached it (counted in turns;
    results records keep no count) and its Recovery (recovery and success without errors, with intervals)."""

    model: str | None
    errors: int
    recovery: Recovery


def recovery_by_model(episodes: Iterable[Episode]) -> list[ModelRecovery]:
    """One ModelRecovery per model the episodes name, sorted by name, 'not named' last."""
    return [ModelRecovery(model, sum(isinstance(t, ToolResult) and t.is_error for e in group for t in e.turns),
                          recovery(group)) for model, group in _by_model(episodes).items()]


@dataclass(frozen=True)
class PairedRecovery:
    """One model against the other models on the same tasks (task ids of one source). `tasks`: the tasks where this
    model met a tool error; `recovery`: its episodes there that an error reached, correct; `others`: the other
    models' episodes on the same tasks, correct, and `others_clean`, those of them no error reached. When
    `others_clean` is as low as `recovery`, the tasks are hard whoever runs them; when higher, this model did worse
    after its errors than the others did on the same tasks (observational still: their paths differ). Outcomes known
    only."""

    model: str | None
    tasks: int
    recovery: Rate
    others: Rate
    others_clean: Rate


def paired_by_task(episodes: Iterable[Episode]) -> list[PairedRecovery]:
    """One PairedRecovery per model that met an error on a task with a task id, sorted as recovery_by_model."""
    known = [e for e in episodes if e.outcome.known and e.task_id is not None]
    rows = []
    for model, group in _by_model(known).items():
        hit = [e for e in group if hit_error(e)]
        tasks = {(e.file, e.task_id) for e in hit}
        if not tasks:
            continue
        others = [e for e in known if e.model != model and (e.file, e.task_id) in tasks]
        rows.append(PairedRecovery(model, len(tasks), _rate(hit), _rate(others),
                                   _rate(e for e in others if not hit_error(e))))
    return rows


@dataclass(frozen=True)
class PassK:
    """pass^k, tau-bench's measure of reliability (Yao et al., 2024): for a task with c successes in n trials, the
    chance that k trials drawn from the n all succeed, C(c, k) / C(n, k), averaged over the `tasks` with at least k
    trials with a known outcome (`left_out`: tasks with fewer). A task is one source's task id run by one model; a
    task two of whose episodes share a trial number was run under more than one condition (an Atlas sweep's styles)
    and is no task's trials: it is left out too, and counted in `mixed`."""

    k: int
    value: float
    tasks: int
    left_out: int
    mixed: int = 0


def pass_hat_k(episodes: Iterable[Episode], ks: Sequence[int] | None = None) -> list[PassK]:
    """pass^k for each k in `ks` (default 1 up to the most trials any task has); nan where no task has k trials."""
    trials: dict[TaskKey, list[Episode]] = {}
    for e in episodes:
        key = _task(e)
        if key is not None and e.outcome.known:
            trials.setdefault(key, []).append(e)
    numbered = {key: [e.trial for e in group if e.trial is not None] for key, group in trials.items()}
    counts = [(sum(bool(e.outcome.correct) for e in group), len(group)) for key, group in trials.items()
              if len(set(numbered[key])) == len(numbered[key])]
    mixed = len(trials) - len(counts)
    wanted = list(ks) if ks is not None else list(range(1, max((n for _, n in counts), default=0) + 1))
    if any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in wanted):
        raise AtlasKitValueError(f"ks must be whole numbers of trials, 1 or more; got {wanted!r}.")
    found = []
    for k in wanted:
        chances = [math.comb(c, k) / math.comb(n, k) for c, n in counts if n >= k]
        found.append(PassK(k, sum(chances) / len(chances) if chances else math.nan, len(chances),
                           len(counts) - len(chances) + mixed, mixed))
    return found
