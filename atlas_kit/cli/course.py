"""`atlas-kit course`: run every chapter offline into a folder and say where the results are.

The work lives in course.py (chapter 00 starts the course this command runs).
"""
from __future__ import annotations

import argparse
import sys
import time

from .args import Commands, _folder, _one_line, _positive
from .paths import output_argument


def course_command(args: argparse.Namespace) -> int:
    """Exit 0 when every chapter ran; 2 when the chapters folder is missing."""
    from ..course.runner import closing_line, course_jobs, run_course

    jobs = args.jobs or course_jobs()
    start = time.perf_counter()
    try:
        timings = run_course(args.out, folder=args.chapters, jobs=jobs)
    except FileNotFoundError as err:
        print(f"atlas-kit course: error: {_one_line(err)}", file=sys.stderr)
        return 2
    side = f", {jobs} at a time" if jobs > 1 and len(timings) > 1 else ""
    counted = f"{len(timings)} chapter{'s' if len(timings) != 1 else ''} ran"
    kinds = "no API key: the stand-in's runs are simulated, the published transcripts real"
    print(f"{counted} offline ({kinds}) in {time.perf_counter() - start:.0f} s{side}.")
    print(closing_line(args.out, folder=args.chapters))
    return 0


def add_course_parser(sub: Commands) -> None:
    """Add `atlas-kit course` to the subcommands."""
    course = sub.add_parser("course", help="run the course offline (no API key needed)")
    output_argument(course, "--out", kind="folder", default="results/course", metavar="DIR",
                    help="where executed notebooks go (default: results/course)")
    course.add_argument("--chapters", type=_folder, default=None, metavar="DIR",
                        help="the folder of chapter notebooks (default: chapters/ of this checkout)")
    course.add_argument("--jobs", type=_positive, default=None, metavar="N",
                        help="chapters run at once, each in its own kernel (default: one per core, at most 4)")
    course.set_defaults(func=course_command)
