"""Time to first cell: what a learner waits for, each figure beside `import anthropic`.

Prints, in one run: `import anthropic`, `import atlas_kit`, `atlas-kit --help` (best of
--repeat fresh interpreters each), one chapter run offline, and `atlas-kit course` (once each).
Usage: python benchmarks/startup.py [--repeat 3] [--chapter 00_start_here] [--no-course]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _seconds(cmd: list[str], *, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="fresh interpreters per import figure; the best is kept")
    parser.add_argument("--chapter", default="00_start_here", help="the chapter run offline once (stem)")
    parser.add_argument("--no-course", action="store_true", help="skip `atlas-kit course` (the slowest figure)")
    args = parser.parse_args(argv)
    python = sys.executable
    rows = [
        ("import anthropic", _seconds([python, "-c", "import anthropic"], repeat=args.repeat)),
        ("import atlas_kit", _seconds([python, "-c", "import atlas_kit"], repeat=args.repeat)),
        ("import atlas_kit + its names", _seconds([python, "-c", "from atlas_kit import *"], repeat=args.repeat)),
        ("atlas-kit --help", _seconds([str(BIN / "atlas-kit"), "--help"], repeat=args.repeat)),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        chapter = ROOT / "chapters" / f"{args.chapter}.ipynb"
        code = ("import sys; from pathlib import Path; from atlas_kit.course.runner import execute_offline; "
                f"execute_offline(Path({str(chapter)!r}))")
        rows.append((f"chapter {args.chapter}, offline", _seconds([python, "-c", code], repeat=1)))
        if not args.no_course:
            rows.append(("atlas-kit course", _seconds([str(BIN / "atlas-kit"), "course", "--out", tmp], repeat=1)))
    base = rows[0][1]
    print(f"{'what':<34}{'seconds':>9}{'× import anthropic':>21}")
    for name, seconds in rows:
        print(f"{name:<34}{seconds:>9.2f}{seconds / base:>21.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
