"""Grade a class: `grade_class` decides what each notebook is, runs it (execute.py) and writes the report.

Apart from the package's `__init__`, so that the checking kernel, which imports only judge.py, never loads the
kernel manager, nbformat or the SDK (about 1.5 s a kernel).
"""
from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from time import monotonic
from typing import Coroutine, Iterable

from ...contract.redaction import redact, redact_known
from .companions import copy_companions
from .collect import chapter_plan, find_notebooks, read_submissions, registry, solution_notebooks, static_notes
from .execute import grade_submission, skipped
from .kernel import Confinement, confinement
from .records import ChapterPlan, ExerciseResult, Grade, Gradebook, Submission
from .report import write_csv, write_html
from .sandbox import bwrap_works
from ...types.exceptions import AtlasKitValueError

SOLUTIONS = Path(__file__).resolve().parents[3] / "solutions"
TEXT_LIMIT = 600  # characters of any note or feedback in the report: a 3 MB echoed answer stays a line


def grade_class(submissions: Iterable[Path], *, out: Path, chapter: str | None = None, solutions: Path | None = None,
                timeout: float = 300.0, cell_timeout: float = 60.0, jobs: int | None = None,
                namespace: bool = True, sandbox: bool = True, require_sandbox: bool = False) -> Gradebook:
    """Grade every notebook in `submissions` (files or folders); write OUT/grades.csv and OUT/report.html.

    `chapter` ("02") is the chapter the class was set: a notebook of another chapter gets a row saying so.
    Without it each notebook is graded against its own chapter. Raises ValueError or FileNotFoundError with
    one actionable line when the arguments cannot work; a bad notebook never raises, it gets a row.
    `sandbox`: run each kernel in bubblewrap where it works (kernel.py says what else confines it);
    `require_sandbox`: refuse, before running anything, where it does not.
    """
    start = monotonic()
    submissions = list(submissions)
    if require_sandbox and not (sandbox and bwrap_works()):
        raise AtlasKitValueError("No sandbox: bubblewrap is not installed or cannot make namespaces here (Debian: "
                                 "apt install bubblewrap); nothing was graded. Drop --require-sandbox to grade with "
                                 "the weaker confinement the report describes.")
    solutions = solutions or SOLUTIONS
    known = solution_notebooks(solutions)
    if not known:
        raise FileNotFoundError(f"No solution notebooks in {solutions}; pass --solutions DIR (the course's solutions/).")
    if chapter is not None and chapter not in known:
        raise AtlasKitValueError(f"There is no chapter {chapter!r}; the chapters with exercises are {', '.join(known)}.")
    files = find_notebooks(submissions)
    if not files:
        raise FileNotFoundError("No .ipynb files found in the paths given; pass notebooks or folders that hold them.")
    stems = {nn: path.stem for nn, path in known.items()}
    subs = read_submissions(files, stems)
    seen = {s.chapter for s in subs if s.chapter is not None and s.status is None}
    expected = chapter or (next(iter(seen)) if len(seen) == 1 else None)
    titles = registry()
    needed = {expected} if chapter else seen | ({expected} if expected else set())
    plans = {nn: chapter_plan(nn, known[nn], titles) for nn in sorted(n for n in needed if n)}
    for sub in subs:
        _decide(sub, expected, chapter is not None, plans)
    hide = tuple(p.resolve() if p.is_dir() else p.resolve().parent for p in submissions) + (out.resolve(),)
    with confinement(namespace=namespace, sandbox=sandbox, hide=hide) as confined:
        grades = _run(_grade_all(subs, plans, expected, confined, timeout=timeout, cell_timeout=cell_timeout,
                                 jobs=jobs or os.cpu_count() or 1))
        secrets, isolation = confined.secrets, confined.isolation
    grades = sorted((_scrub(g, secrets) for g in grades), key=lambda g: (g.learner.lower(), g.file))
    book = Gradebook(plans, grades, isolation, timeout, cell_timeout, monotonic() - start)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(book, out / "grades.csv")
    write_html(book, out / "report.html")
    return book


def _decide(sub: Submission, expected: str | None, strict: bool, plans: dict[str, ChapterPlan]) -> None:
    """Set a submission's status before running: wrong or unknown chapter; note how its chapter was decided."""
    if sub.status is not None:
        return
    if sub.chapter is None and expected is not None:
        sub.chapter = expected
        how = "given by --chapter" if strict else "the chapter of the rest of the class"
        sub.notes.append(f"graded as chapter {expected} ({how}); the notebook does not say which chapter it is")
    elif sub.chapter is None:
        sub.status = "unknown_chapter"
        sub.notes.append("its chapter is unknown: name the file after its chapter (e.g. 02_four_branches.ipynb) or "
                         "pass --chapter NN")
    elif strict and sub.chapter != expected:
        sub.status = "wrong_chapter"
        sub.notes.append(f"this is chapter {sub.chapter}'s notebook, not chapter {expected}'s; nothing was graded")
    if sub.status is None and sub.chapter is not None:
        sub.notes = static_notes(sub.cells, [s.key for s in plans[sub.chapter].exercises]) + sub.notes


async def _grade_all(subs: list[Submission], plans: dict[str, ChapterPlan], expected: str | None,
                     confined: Confinement, *, timeout: float, cell_timeout: float, jobs: int) -> list[Grade]:
    gate = asyncio.Semaphore(max(1, jobs))
    empty = ChapterPlan("", "", ())
    with tempfile.TemporaryDirectory(prefix="atlas-grade-") as tmp:

        async def one(i: int, sub: Submission) -> Grade:
            if sub.status is not None:  # not run: its row scores 0 on the chapter the class was set
                return skipped(plans.get(expected or "", empty), sub, sub.status)
            plan = plans[sub.chapter or ""]
            async with gate:
                folder = Path(tmp) / f"n{i}"
                folder.mkdir()
                sub.notes += copy_companions(sub.path, folder)
                try:
                    return await grade_submission(sub, plan, confined=confined, folder=folder, timeout=timeout,
                                                  cell_timeout=cell_timeout)
                except Exception as err:  # the grader's own failure: this row says so, the others go on
                    sub.notes.append(f"the grader failed on this notebook ({type(err).__name__}: {err}); grade it again")
                    return skipped(plan, sub, "grader_error")
                finally:
                    shutil.rmtree(folder, ignore_errors=True)

        return list(await asyncio.gather(*(one(i, s) for i, s in enumerate(subs))))


def _run(coro: Coroutine[object, object, list[Grade]]) -> list[Grade]:
    """asyncio.run, also from inside Jupyter (whose own loop is running) by way of a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _scrub(grade: Grade, secrets: tuple[str, ...]) -> Grade:
    """No key reaches the report, even one a notebook read from a file and put in an answer the check echoes."""
    def clean(text: str, limit: int = TEXT_LIMIT) -> str:  # pieces too: a note shortened mid-secret keeps one's start
        text = " ".join(redact(redact_known(text, secrets)).split())
        return text if len(text) <= limit else text[: limit - 1] + "…"  # cut after redacting: no cut secret survives

    return replace(grade, learner=clean(grade.learner, 120), file=clean(grade.file, 200),
                   notes=[clean(n) for n in grade.notes],
                   results={k: ExerciseResult(r.outcome, clean(r.message)) for k, r in grade.results.items()})
