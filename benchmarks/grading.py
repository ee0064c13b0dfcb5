"""Grading time: `grade_class` on a class of N submissions of one chapter, each in its own kernel.

The class is generated from the chapter's own notebooks: a third full solutions, a third blank
exercises, a third wrong answers (each answer replaced by a string). With --bad, the generated bad
cases of tests/grading_class.py (not JSON, another chapter, two infinite loops, raises everywhere,
deleted cells, reads the key and opens the network, redefines check, patches atlas_kit) take the
place of as many honest ones; their loops then cost the cell limit each.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import nbformat

from atlas_kit.course.grading import grade_class, summarize

ROOT = Path(__file__).resolve().parent.parent


def _generator():  # tests/grading_class.py, loaded by path: benchmarks are not a package of the tests
    spec = importlib.util.spec_from_file_location("grading_class", ROOT / "tests" / "grading_class.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["grading_class"] = module
    spec.loader.exec_module(module)
    return module


def make_honest(folder: Path, chapter: str, count: int, start: int = 0) -> None:
    gen = _generator()
    solution_path, exercise_path = gen.chapter_files(chapter)
    solution = nbformat.read(solution_path, as_version=4)
    wrong_answers = "\n".join(f"{name} = {gen.WRONG!r}" for name in gen._answer_names(solution))
    wrong = gen._with(solution, len(solution.cells), wrong_answers)
    kinds = (solution, nbformat.read(exercise_path, as_version=4), wrong)
    for i in range(start, start + count):
        nbformat.write(kinds[i % 3], folder / f"learner{i:02d}_{solution_path.stem}.ipynb")


def _cpu() -> float:
    """Busy CPU seconds of the whole machine (user, nice, system; from /proc/stat), else of this process and its
    finished children. Kernels in the sandbox are not this process's children (bubblewrap's are), so only the
    machine's count sees them; other work on the machine is counted too."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        return sum(int(x) for x in fields[:3]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        mine, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return mine.ru_utime + mine.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", default="00", help="chapter to grade (default 00)")
    parser.add_argument("--count", type=int, default=30, help="submissions in the class (default 30)")
    parser.add_argument("--jobs", type=int, default=None, help="kernels at once (default: the CPU count)")
    parser.add_argument("--cell-timeout", type=float, default=60.0, help="seconds per cell (default 60, as the CLI)")
    parser.add_argument("--bad", action="store_true", help="include the generated bad cases in the class")
    parser.add_argument("--no-sandbox", action="store_true", help="grade without bubblewrap, to compare")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "class"
        folder.mkdir()
        bad = len(_generator().make_class(folder, chapter=args.chapter)) if args.bad else 0
        make_honest(folder, args.chapter, args.count - bad)
        start, cpu0 = time.perf_counter(), _cpu()
        book = grade_class([folder], out=Path(tmp) / "out", chapter=args.chapter, jobs=args.jobs,
                           cell_timeout=args.cell_timeout, sandbox=not args.no_sandbox)
        wall, cpu = time.perf_counter() - start, _cpu() - cpu0
    jobs = args.jobs or os.cpu_count()
    print(f"{len(book.grades)} submissions of chapter {args.chapter} ({bad} of them from tests/grading_class.py) "
          f"graded in {wall:.1f} s with {jobs} kernels at a time on {os.cpu_count()} CPU cores: "
          f"{wall / len(book.grades):.2f} s per submission; confinement: {book.isolation}.")
    print(f"CPU time of the machine while grading: {cpu:.1f} s ({cpu / len(book.grades):.2f} s per submission; "
          f"on an otherwise idle machine about {cpu / (os.cpu_count() or 1):.0f} s of wall time at best)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average at the end: {load:.1f} (other work on the machine slows this figure)")
    per = sorted(g.seconds for g in book.grades if g.status not in ("unreadable", "wrong_chapter"))
    if per:
        print(f"one notebook in its kernel: median {per[len(per) // 2]:.1f} s, slowest {per[-1]:.1f} s")
    print("status: " + ", ".join(f"{s} {n}" for s, n in sorted(Counter(g.status for g in book.grades).items())))
    for s in summarize(book):
        print(f"{s.key}: {s.passed} of {s.rows} passed, {s.blank} not answered, {s.not_graded} not graded")


if __name__ == "__main__":
    main()
