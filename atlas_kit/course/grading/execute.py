"""Grade one submission: run the learner's cells in a confined kernel, then check each exercise there.

The learner's own check and hint cells are skipped (the grader checks every answer itself), and a
`model = "atlas-offline-1"` line follows any `parameters` cell, so the stand-in answers whatever it says.
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic

from ...models.standin.model import OFFLINE_MODEL
from . import probe
from .kernel import CellOutcome, Confinement, Kernel, KernelStartError
from .records import ChapterPlan, ExerciseResult, ExerciseSpec, Grade, Outcome, Status, Submission


@dataclass
class _Found:
    """What running one submission has found so far."""

    results: dict[str, ExerciseResult] = field(default_factory=dict)
    stopped: str = ""  # why the checks could not run
    errors: list[tuple[int, CellOutcome]] = field(default_factory=list)
    interrupted: list[int] = field(default_factory=list)
    slow: list[str] = field(default_factory=list)  # exercises whose check was interrupted
    replaced: set[str] = field(default_factory=set)


async def grade_submission(sub: Submission, plan: ChapterPlan, *, confined: Confinement, folder: Path,
                           timeout: float, cell_timeout: float) -> Grade:
    """Run `sub` against `plan` in its own kernel; every failure becomes a status and a note, never an exception."""
    start = monotonic()
    notes = list(sub.notes)
    cells = _runnable(sub.cells)
    log = folder / "blocked.log"
    found = _Found()
    try:
        async with Kernel(folder, confined) as kernel:
            guard = await kernel.run(probe.cell(probe.guard_network, str(log)), limit=cell_timeout)
            if guard.kind != "ok":
                raise KernelStartError(f"the network guard did not install ({guard.ename}: {guard.evalue})")
            begun = monotonic()  # the notebook's time starts now: a slow kernel start is the machine's, not the learner's
            await _run_cells(kernel, cells, found, begun=begun, timeout=timeout, cell_timeout=cell_timeout)
            await _check_exercises(kernel, plan, found, folder=folder, begun=begun, timeout=timeout,
                                   cell_timeout=cell_timeout)
    except KernelStartError as err:
        notes.append(f"{err}; this is a problem with the grading machine, not the notebook: grade it again")
        results = {s.key: ExerciseResult("not_graded", "Not graded: the kernel did not start.") for s in plan.exercises}
        return _grade(sub, plan, "grader_error", results, notes, start)
    notes += _run_notes(found, log, len({number for number, _ in cells}), cell_timeout)
    results = found.results
    if found.replaced:
        names = ", ".join(sorted(found.replaced)[:4])
        notes.append(f"it replaced {names} from the notebook; nothing was graded, since the checks may rely on it: "
                     "read the notebook")
        results = {k: ExerciseResult("not_graded", f"Not graded: the notebook replaced {names}.") for k in results}
    status: Status = ("tampered" if found.replaced else "killed" if found.stopped else "interrupted"
                      if found.interrupted or found.slow else "errors" if found.errors else "ok")
    return _grade(sub, plan, status, results, notes, start)


async def _run_cells(kernel: Kernel, cells: list[tuple[int, str]], found: _Found, *, begun: float, timeout: float,
                     cell_timeout: float) -> None:
    """Run the learner's cells in order; a cell that ignores its interrupt, or outlasts the budget, ends the run."""
    for number, code in cells:
        left = timeout - (monotonic() - begun)
        outcome = await kernel.run(code, limit=min(cell_timeout, left))
        if outcome.kind == "error":
            found.errors.append((number, outcome))
        elif outcome.kind == "interrupted" and left > cell_timeout:
            found.interrupted.append(number)
        elif outcome.kind != "ok":
            found.stopped = _stopped(outcome, number, _first_line(code), timeout, cell_timeout,
                                     budget=left <= cell_timeout)
            await kernel.kill()
            break


async def _check_exercises(kernel: Kernel, plan: ChapterPlan, found: _Found, *, folder: Path, begun: float,
                           timeout: float, cell_timeout: float) -> None:
    """Check each exercise in the kernel with the grader's own code, unless the run was stopped."""
    for i, spec in enumerate(plan.exercises):
        if found.stopped:
            found.results[spec.key] = ExerciseResult("not_graded", f"Not graded: {found.stopped}.")
            continue
        path = folder / f"result-{i}.json"
        left = timeout - (monotonic() - begun)
        outcome = await kernel.run(probe.cell(probe.grade_exercise, spec.key, spec.expression, str(path), answers=True),
                                   limit=min(cell_timeout, left))
        found.results[spec.key], replaced = _result(spec, path, outcome, cell_timeout)
        found.replaced |= replaced
        if outcome.kind == "interrupted":
            found.slow.append(spec.key)
        if outcome.kind in ("killed", "died"):
            found.stopped = "the kernel was killed while an earlier exercise was being checked"


def _run_notes(found: _Found, log: Path, ran: int, cell_timeout: float) -> list[str]:
    """What the run's cells, slow checks, stop and blocked connections tell the teacher."""
    notes = _cell_notes(found.errors, found.interrupted, ran, cell_timeout)
    if found.slow:
        notes.append(f"the check of {', '.join(found.slow)} did not finish within the {cell_timeout:g} s cell limit "
                     "and was interrupted")
    if found.stopped:
        notes.append(found.stopped)
    if log.exists():
        hosts = list(dict.fromkeys(log.read_text(encoding="utf-8").split()))
        notes.append(f"it tried to reach {', '.join(hosts[:3])}{' and more' if len(hosts) > 3 else ''}; blocked")
    return notes


def skipped(plan: ChapterPlan, sub: Submission, status: Status) -> Grade:
    """The row of a notebook not run (unreadable, wrong or unknown chapter, grader failure): every exercise scores 0."""
    why = {"unreadable": "the file is not a notebook", "wrong_chapter": f"this is not chapter {plan.chapter}'s notebook",
           "unknown_chapter": "its chapter is unknown", "grader_error": "the grader failed on it"}.get(status, status)
    results = {s.key: ExerciseResult("not_graded", f"Not graded: {why}.") for s in plan.exercises}
    return _grade(sub, plan, status, results, list(sub.notes), monotonic())


def _grade(sub: Submission, plan: ChapterPlan, status: Status, results: dict[str, ExerciseResult], notes: list[str],
           start: float) -> Grade:
    return Grade(sub.learner, sub.file, sub.chapter, status, results, notes, len(plan.exercises), monotonic() - start)


def _runnable(cells: list[tuple[str, tuple[str, ...]]]) -> list[tuple[int, str]]:
    """(code cell number, code) to run: check/hint-only cells left out, the model pinned after `parameters`."""
    out = []
    for number, (code, tags) in enumerate(cells, start=1):
        if code.strip() and not _only_checks(code):
            out.append((number, code))
        if "parameters" in tags:
            out.append((number, f"model = {OFFLINE_MODEL!r}  # injected by the grader: the stand-in only"))
    return out


def _only_checks(code: str) -> bool:
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return False
    return bool(body) and all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                              and isinstance(s.value.func, ast.Name) and s.value.func.id in ("check", "hint")
                              for s in body)


def _result(spec: ExerciseSpec, path: Path, outcome: CellOutcome, cell_timeout: float) -> tuple[ExerciseResult, set[str]]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        if outcome.kind in ("interrupted", "killed"):
            return ExerciseResult("not_graded", f"Not graded: the check did not finish within {cell_timeout:g} s; "
                                                "the answer may run forever when the check calls it."), set()
        what = f"{outcome.ename}: {outcome.evalue}" if outcome.kind == "error" else f"the kernel {outcome.kind}"
        return ExerciseResult("not_graded", f"Not graded: the grader's check could not run ({_clip(what)}); the "
                                            "notebook may have broken something the check needs."), set()
    replaced = {str(name) for name in found.get("replaced", [])}
    kind = found.get("kind")
    if kind == "undefined":
        return ExerciseResult("not_graded", f"Not graded: `{spec.expression}` is not defined after the notebook ran "
                                            "(the cell that sets it raised, or was deleted or renamed)."), replaced
    if kind == "raised":
        return ExerciseResult("not_graded", f"Not graded: reading `{spec.expression}` raised "
                                            f"{_clip(str(found.get('detail')))}."), replaced
    if kind == "unplanned":
        why = f"Not graded: the solution notebook has no check call for {spec.key}."
        return ExerciseResult("not_graded", why), replaced
    outcome_name: Outcome = "right" if found.get("ok") is True else "blank" if found.get("blank") else "wrong"
    return ExerciseResult(outcome_name, str(found.get("message", ""))), replaced


def _stopped(outcome: CellOutcome, number: int, first: str, timeout: float, cell_timeout: float, *, budget: bool) -> str:
    where = f"code cell {number} (`{first}`)"
    if outcome.kind == "died":
        return f"the kernel died in {where} (it may exit the process or use too much memory); no exercise was checked"
    if budget:
        return (f"the notebook used up its {timeout:g} s limit in {where}; the kernel was killed and no exercise "
                "was checked")
    return (f"{where} ignored the interrupt after the {cell_timeout:g} s cell limit; the kernel was killed and no "
            "exercise was checked")


def _cell_notes(errors: list[tuple[int, CellOutcome]], interrupted: list[int], ran: int, cell_timeout: float) -> list[str]:
    notes = []
    if interrupted:
        cells = ", ".join(map(str, interrupted))
        notes.append(f"code cell {cells} ran past the {cell_timeout:g} s cell limit and was interrupted; the rest ran")
    if errors:
        number, first = errors[0]
        share = "every code cell" if len(errors) == ran else f"{len(errors)} of {ran} code cells"
        notes.append(f"{share} raised (first: code cell {number}, {first.ename}: {_clip(first.evalue, 120)})")
    return notes


def _first_line(code: str) -> str:
    return _clip(next((line.strip() for line in code.splitlines() if line.strip()), ""), 60)


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
