"""`atlas-kit course`: run every chapter offline into a folder and say where the results are.

The work lives in course.py (chapter 00 starts the course this command runs).
"""
from __future__ import annotations

import argparse
import sys
import time

__all__ = ["course_command"]


def course_command(args: argparse.Namespace) -> int:
    """Exit 0 when every chapter ran; 2 when the chapters folder is missing."""
    from ..course.runner import closing_line, course_jobs, run_course

    jobs = args.jobs or course_jobs()
    start = time.perf_counter()
    try:
        timings = run_course(args.out, folder=args.chapters, jobs=jobs)
    except FileNotFoundError as err:
        print(f"atlas-kit course: error: {err}", file=sys.stderr)
        return 2
    side = f", {jobs} at a time" if jobs > 1 and len(timings) > 1 else ""
    counted = f"{len(timings)} chapter{'s' if len(timings) != 1 else ''} ran"
    print(f"{counted} offline (no API key, simulated results) in {time.perf_counter() - start:.0f} s{side}.")
    print(closing_line(args.out, folder=args.chapters))
    return 0
