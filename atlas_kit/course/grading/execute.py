"""Grade one submission: run the learner's cells in a confined kernel, take the answers out, check them elsewhere.

The answers leave the learner's kernel as data (take.py) and are checked in a fresh confined kernel that never ran
the notebook (judge.py), so nothing the notebook patched in its own kernel can change a grade.

The learner's own check and hint cells are skipped (the grader checks every answer itself), and a
`model = "atlas-offline-1"` line follows any `parameters` cell, so the stand-in answers whatever it says.
"""
from __future__ import annotations

import ast
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic

from ...models.standin.model import OFFLINE_MODEL
from . import probe
from .take import take_answer
from ..checks._registry import BLANK
from .payloads import (blank, clip as _clip, not_taken, payload_list, read_bounded, read_payload, runs_code, untaken,
                       verdict)
from .kernel import CellOutcome, Confinement, Kernel, KernelStartError
from .records import ChapterPlan, ExerciseResult, ExerciseSpec, Grade, Status, Submission


@dataclass
class _Found:
    """What running one submission has found so far."""

    results: dict[str, ExerciseResult] = field(default_factory=dict)
    stopped: str = ""  # why the checks could not run
    errors: list[tuple[int, CellOutcome]] = field(default_factory=list)
    interrupted: list[int] = field(default_factory=list)
    slow: list[str] = field(default_factory=list)  # exercises whose check was interrupted
    replaced: set[str] = field(default_factory=set)  # atlas_kit names the notebook replaced in its own kernel
    tampered: list[str] = field(default_factory=list)  # what an answer changed in the checking kernel
    blocked: list[str] = field(default_factory=list)  # host:port the checking kernel was refused


async def grade_submission(sub: Submission, plan: ChapterPlan, *, confined: Confinement, folder: Path,
                           timeout: float, cell_timeout: float) -> Grade:
    """Run `sub` against `plan`: its cells and the taking of its answers in one kernel, their checks in a fresh one.

    Every failure becomes a status and a note, never an exception."""
    start = monotonic()
    notes = list(sub.notes)
    cells = _runnable(sub.cells)
    log = folder / "blocked.log"
    found = _Found()
    clock = _Clock(timeout)
    try:
        async with Kernel(folder, confined) as kernel:
            await _guard(kernel, log, cell_timeout)
            clock.start()  # the notebook's time starts now: a slow kernel start is the machine's, not the learner's
            await _run_cells(kernel, cells, found, clock=clock, cell_timeout=cell_timeout)
            taken = await _take_answers(kernel, plan, sub, found, folder=folder, clock=clock, cell_timeout=cell_timeout)
        clock.stop()
        if taken:
            checking = folder.with_name(folder.name + "-check")  # made only now: the learner's kernel never saw it
            checking.mkdir()
            try:
                await _judge_answers(taken, found, confined=confined, folder=checking, clock=clock,
                                     cell_timeout=cell_timeout)
            finally:
                found.blocked += (read_bounded(checking / "blocked.log", 2 ** 20) or "").split()
                shutil.rmtree(checking, ignore_errors=True)
    except KernelStartError as err:
        notes.append(f"{err}; this is a problem with the grading machine, not the notebook: grade it again")
        results = {s.key: ExerciseResult("not_graded", "Not graded: the kernel did not start.") for s in plan.exercises}
        return _grade(sub, plan, "grader_error", results, notes, start)
    notes += _run_notes(found, log, len({number for number, _ in cells}), cell_timeout)
    results = {spec.key: found.results[spec.key] for spec in plan.exercises}
    claimed = [k for k in sub.claims if k in results and results[k].outcome != "right"]
    if claimed:  # a ✓ no check printed (outputs edited, or a print), for an answer that is not right
        notes.append(f"a saved output shows ✓ for {', '.join(claimed)} in a cell that does not check it, and the "
                     "grader's check did not find it right: read the notebook")
    status: Status = ("tampered" if found.tampered or claimed else "killed" if found.stopped else "interrupted"
                      if found.interrupted or found.slow else "errors" if found.errors else "ok")
    return _grade(sub, plan, status, results, notes, start)


class _Clock:
    """The notebook's time: it runs while the learner's code can, not while a kernel starts."""

    def __init__(self, limit: float) -> None:
        self.limit, self.used = limit, 0.0
        self.since: float | None = None

    def start(self) -> None:
        self.since = monotonic()

    def stop(self) -> None:
        if self.since is not None:
            self.used, self.since = self.used + monotonic() - self.since, None

    def left(self) -> float:
        return self.limit - self.used - (monotonic() - self.since if self.since is not None else 0.0)


async def _guard(kernel: Kernel, log: Path, cell_timeout: float) -> None:
    guard = await kernel.run(probe.cell(probe.guard_network, str(log)), limit=cell_timeout)
    if guard.kind != "ok":
        raise KernelStartError(f"the network guard did not install ({guard.ename}: {guard.evalue})")


async def _run_cells(kernel: Kernel, cells: list[tuple[int, str]], found: _Found, *, clock: _Clock,
                     cell_timeout: float) -> None:
    """Run the learner's cells in order; a cell that ignores its interrupt, or outlasts the budget, ends the run."""
    for number, code in cells:
        left = clock.left()
        outcome = await kernel.run(code, limit=min(cell_timeout, left))
        if outcome.kind == "error":
            found.errors.append((number, outcome))
        elif outcome.kind == "interrupted" and left > cell_timeout:
            found.interrupted.append(number)
        elif outcome.kind != "ok":
            found.stopped = _stopped(outcome, number, _first_line(code), clock.limit, cell_timeout,
                                     budget=left <= cell_timeout)
            await kernel.kill()
            break


async def _take_answers(kernel: Kernel, plan: ChapterPlan, sub: Submission, found: _Found, *, folder: Path,
                        clock: _Clock, cell_timeout: float) -> list[tuple[ExerciseSpec, dict[str, object]]]:
    """Take each exercise's answer out of the learner's kernel as data; (spec, payload) of those taken that are not
    blank."""
    taken = []
    sources = [code for code, _ in sub.cells]
    for i, spec in enumerate(plan.exercises):
        if found.stopped:
            found.results[spec.key] = ExerciseResult("not_graded", f"Not graded: {found.stopped}.")
            continue
        if spec.expression is None:
            found.results[spec.key] = ExerciseResult("not_graded", "Not graded: the solution notebook has no check "
                                                                   f"call for {spec.key}.")
            continue
        path = folder / f"answer-{i}.json"
        outcome = await kernel.run(probe.cell(take_answer, spec.expression, sources, str(path), answers=True),
                                   limit=min(cell_timeout, clock.left()))
        payload = read_payload(path) if outcome.kind == "ok" else None
        if payload is None:
            found.results[spec.key] = not_taken(outcome, cell_timeout)
            if outcome.kind == "interrupted":
                found.slow.append(spec.key)
            if outcome.kind in ("killed", "died"):
                found.stopped = "the kernel was killed while an earlier answer was being read"
            continue
        found.replaced |= {str(name) for name in payload_list(payload.get("replaced"))}
        if payload.get("kind") != "taken":
            found.results[spec.key] = untaken(spec, payload)
        elif blank(payload):
            found.results[spec.key] = ExerciseResult("blank", BLANK)  # what the check says of `...`, without a kernel
        else:
            taken.append((spec, payload))
    return taken


async def _judge_answers(taken: list[tuple[ExerciseSpec, dict[str, object]]], found: _Found, *, confined: Confinement,
                         folder: Path, clock: _Clock, cell_timeout: float) -> None:
    """Check each taken answer in a fresh kernel; a change to what the checks rely on stops it (tampered).

    Only an answer that runs code there (a function, a statement of the notebook) needs the baseline watched."""
    watch = any(runs_code(payload) for _, payload in taken)
    chapters = sorted({spec.key.split(".")[0] for spec, _ in taken})  # their checks load before any answer's code
    async with Kernel(folder, confined) as kernel:
        await _guard(kernel, folder / "blocked.log", cell_timeout)
        ready = await kernel.run(f"from atlas_kit.course.grading.judge import judge as _atlas_judge, prepare\n"
                                 f"_atlas_baseline = prepare(watch={watch}, chapters={chapters!r})\n"
                                 f"open('baseline', 'w').write(str(id(_atlas_baseline)))", limit=max(cell_timeout, 60))
        if ready.kind != "ok":
            raise KernelStartError(f"the checking kernel did not get ready ({ready.ename}: {_clip(ready.evalue)})")
        baseline = int((folder / "baseline").read_text(encoding="utf-8"))
        clock.start()
        for i, (spec, answer) in enumerate(taken):
            if found.tampered or found.stopped:
                why = found.stopped or "an earlier answer changed what the checks rely on"
                found.results[spec.key] = ExerciseResult("not_graded", f"Not graded: {why}.")
                continue
            payload, result = folder / f"payload-{i}.json", folder / f"verdict-{i}.json"
            payload.write_text(json.dumps(answer), encoding="utf-8")
            outcome = await kernel.run(f"_atlas_judge({spec.key!r}, {str(payload)!r}, {str(result)!r}, "
                                       f"_atlas_baseline, {baseline})", limit=min(cell_timeout, clock.left()))
            found.results[spec.key], changed = verdict(spec, result, outcome, cell_timeout)
            found.tampered += changed
            if outcome.kind == "interrupted":
                found.slow.append(spec.key)
            if outcome.kind in ("killed", "died"):
                found.stopped = "the kernel was killed while an earlier exercise was being checked"
        clock.stop()


def _run_notes(found: _Found, log: Path, ran: int, cell_timeout: float) -> list[str]:
    """What the run's cells, slow checks, stop and blocked connections tell the teacher."""
    notes = _cell_notes(found.errors, found.interrupted, ran, cell_timeout)
    if found.slow:
        notes.append(f"the check of {', '.join(found.slow)} did not finish within the {cell_timeout:g} s cell limit "
                     "and was interrupted")
    if found.stopped:
        notes.append(found.stopped)
    if found.replaced:
        names = ", ".join(sorted(found.replaced)[:4])
        notes.append(f"it replaced {names} in its own kernel; that changed no grade, since its answers were checked "
                     "in a fresh kernel")
    if found.tampered:
        notes.append(f"while its answers were checked it changed {', '.join(found.tampered[:4])}; nothing after "
                     "that was graded: read the notebook")
    blocked = [*(read_bounded(log, 2 ** 20) or "").split(), *found.blocked]  # the learner's kernel's, the checker's
    if blocked:
        hosts = list(dict.fromkeys(blocked))
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
