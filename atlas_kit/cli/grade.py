"""`atlas-kit grade`: grade learners' exercise notebooks offline and confined, and print the summary.

The work lives in grading/, which runs each notebook through the course's own checks (chapters 00 to 16).
"""
from __future__ import annotations

import argparse
import sys

__all__ = ["grade_command"]


def grade_command(args: argparse.Namespace) -> int:
    """Exit 0 when the notebooks were graded (a failing notebook is a row, not an exit code); 2 on bad input."""
    from ..course.grading import grade_class, summarize

    try:
        book = grade_class(args.submissions, out=args.out, chapter=args.chapter, solutions=args.solutions,
                           timeout=args.timeout, cell_timeout=args.cell_timeout, jobs=args.jobs)
    except (FileNotFoundError, ValueError) as err:
        print(f"atlas-kit grade: error: {err}", file=sys.stderr)
        return 2

    def shown(text: str) -> str:  # names and notes are learner-written
        return "".join(c if c.isprintable() else "?" for c in text)

    print(f"Graded {len(book.grades)} notebooks (chapter {', '.join(book.plans) or 'none'}) in {book.seconds:.0f} s "
          f"with the offline stand-in only (simulated); network: {book.isolation}.")
    for s in summarize(book):
        print(f"  {s.key} {s.title}: {s.passed} of {s.rows} passed, {s.blank} not answered")
    for g in book.grades:
        if g.status != "ok":
            print(f"  {shown(g.learner)}: {g.status}{' - ' + shown(g.notes[-1]) if g.notes else ''}")
    print(f"Wrote {args.out / 'grades.csv'} and {args.out / 'report.html'}.")
    return 0
