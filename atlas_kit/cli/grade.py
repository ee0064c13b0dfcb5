"""`atlas-kit grade`: grade learners' exercise notebooks offline and confined, and print the summary.

The work lives in grading/, which runs each notebook through the course's own checks (chapters 00 to 16).
"""
from __future__ import annotations

import argparse
import sys

from .args import Commands, _chapter, _existing, _folder, _one_line, _positive, _seconds
from .paths import output_argument

__all__ = ["add_grade_parser", "grade_command"]


def grade_command(args: argparse.Namespace) -> int:
    """Exit 0 when the notebooks were graded (a failing notebook is a row, not an exit code); 2 on bad input."""
    from ..course.grading import grade_class, summarize

    try:
        book = grade_class(args.submissions, out=args.out, chapter=args.chapter, solutions=args.solutions,
                           timeout=args.timeout, cell_timeout=args.cell_timeout, jobs=args.jobs,
                           require_sandbox=args.require_sandbox)
    except (FileNotFoundError, ValueError) as err:
        print(f"atlas-kit grade: error: {_one_line(err)}", file=sys.stderr)
        return 2

    def shown(text: str) -> str:  # names and notes are learner-written
        return "".join(c if c.isprintable() else "?" for c in text)

    print(f"Graded {len(book.grades)} notebooks (chapter {', '.join(book.plans) or 'none'}) in {book.seconds:.0f} s "
          f"with the offline stand-in only (simulated); confinement: {book.isolation}.")
    if book.isolation != "sandbox":
        print("  Not enforced without bubblewrap (apt install bubblewrap): the notebooks could read and write your "
              "files and leave a process running; report.html says what was.")
    for s in summarize(book):
        wrong = s.rows - s.passed - s.blank - s.not_graded
        unseen = f", {s.not_graded} not graded (below)" if s.not_graded else ""
        print(f"  {s.key} {s.title}: {s.passed} of {s.rows} passed, {wrong} wrong, {s.blank} not answered{unseen}")
    for g in book.grades:
        if g.status != "ok":
            print(f"  {shown(g.learner)}: {g.status}{' - ' + shown(g.notes[-1]) if g.notes else ''}")
    print(f"Wrote {args.out / 'grades.csv'} and {args.out / 'report.html'}.")
    return 0


def add_grade_parser(sub: Commands) -> None:
    """Add `atlas-kit grade` to the subcommands."""
    grade = sub.add_parser(
        "grade", help="grade learners' exercise notebooks: run each offline and confined, write grades.csv and "
                      "report.html",
        description="Run each submitted exercise notebook in a kernel of its own (no API key, no network, the offline "
                    "stand-in only, a time limit), check every exercise with the course's own checks, and write "
                    "OUT/grades.csv (a row per notebook) and OUT/report.html (by exercise, then by learner).",
        epilog="example: atlas-kit grade submissions/ --chapter 02 --out grades/")
    grade.add_argument("submissions", nargs="+", type=_existing, metavar="SUBMISSION",
                       help="an exercise notebook, or a folder searched for them")
    output_argument(grade, "--out", kind="folder", default="grades", metavar="DIR",
                    help="folder for grades.csv and report.html (default: grades)")
    grade.add_argument("--chapter", type=_chapter, default=None, metavar="NN",
                       help="the chapter the class was set; a notebook of another chapter gets a row saying so "
                            "(default: each notebook's own chapter, from its metadata or file name)")
    grade.add_argument("--timeout", type=_seconds, default=300.0, metavar="S",
                       help="seconds for a whole notebook, its cells and checks together; then its kernel is "
                            "killed (default: 300)")
    grade.add_argument("--cell-timeout", type=_seconds, default=60.0, metavar="S",
                       help="seconds for one cell or one check; then it is interrupted (default: 60)")
    grade.add_argument("--jobs", type=_positive, default=None, metavar="N",
                       help="notebooks graded at once, each in its own kernel (default: the number of CPU cores)")
    grade.add_argument("--solutions", type=_folder, default=None, metavar="DIR",
                       help="the course's solutions/ folder, where each exercise's answer expression is read "
                            "(default: solutions/ of this checkout)")
    grade.add_argument("--require-sandbox", action="store_true",
                       help="refuse to grade unless each kernel can run in a bubblewrap sandbox (Linux, "
                            "`apt install bubblewrap`); without it the weaker confinement is used and reported")
    grade.set_defaults(func=grade_command)
