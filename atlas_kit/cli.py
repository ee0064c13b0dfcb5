"""The `atlas-kit` command: run the course offline, and (later) experiments.

Argument parsing only; the work lives in the modules it calls.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["main"]


def _course(args: argparse.Namespace) -> int:
    from . import errors as E

    # Until the chapters land, the course is the contract itself: one failure, written for the model.
    err = E.tool_error("toolu_demo", "not_permitted", "That account belongs to another customer.",
                       next=E.stop("Do not try other account IDs; tell the customer you cannot access it."))
    print("An error written as an instruction (offline, no API key needed):")
    print(err.block()["content"])
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="atlas-kit", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    course = sub.add_parser("course", help="run the course offline (no API key needed)")
    course.add_argument("--out", type=Path, default=Path("results/course"), help="where executed notebooks go")
    course.set_defaults(func=_course)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
