"""`atlas-kit course`: run every chapter offline into a folder and say where the results are.

The work lives in course.py (chapter 00 starts the course this command runs).
"""
from __future__ import annotations

import argparse
import sys

__all__ = ["course_command"]


def course_command(args: argparse.Namespace) -> int:
    """Exit 0 when every chapter ran; 2 when the chapters folder is missing."""
    from ..course import closing_line, run_course

    try:
        timings = run_course(args.out, folder=args.chapters)
    except FileNotFoundError as err:
        print(f"atlas-kit course: error: {err}", file=sys.stderr)
        return 2
    total = sum(seconds for _, seconds in timings)
    print(f"{len(timings)} chapters ran offline (no API key, simulated results) in {total:.0f} s.")
    print(closing_line(args.out, folder=args.chapters))
    return 0
