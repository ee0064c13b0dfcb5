"""Time what reads long texts, on the shapes that used to cost quadratic time: an echoed argument is one long word.

For each length and shape (one word, a line of words, a run of spaces, a dotted run like "a.a.a."), it prints the
time of `hide_login` (scheme://user:password@), `redact` (key-shaped strings), `redact_known` (the environment's
secret values), `find_internals` (the builder's and the audit's guard; it reads the first 20,000 characters) and the
claim reader's clause split. Each should grow linearly with the length. Before: 16,000 letters took hide_login 1.2 s,
20,000 spaces the clause split 22 s, 20,000 characters of "a.a.a." find_internals 12 s. Usage:
python benchmarks/long_text.py [--lengths 20000,1000000]
"""
from __future__ import annotations

import argparse
import time
from typing import Callable

from atlas_kit.atlas.claims import _CLAUSES
from atlas_kit.contract.internals import find_internals
from atlas_kit.contract.redaction import hide_login, redact, redact_known


def _seconds(fn: Callable[[str], object], text: str) -> float:
    start = time.perf_counter()
    fn(text)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="20000,1000000", help="text lengths in characters, comma-separated")
    lengths = [int(n) for n in parser.parse_args().lengths.split(",")]
    known = ("hunter2-but-longer", "s3cret-value-42")
    steps: dict[str, Callable[[str], object]] = {"hide_login": hide_login, "redact": redact,
                                                 "redact_known": lambda text: redact_known(text, known),
                                                 "find_internals": find_internals, "clauses": _CLAUSES.split}
    for n in lengths:
        texts = {"one word": "x" * n, "words": ("account ACC-4471 and more words " * (n // 32 + 1))[:n],
                 "spaces": " " * n, "dotted": "a." * (n // 2)}
        for label, text in texts.items():
            figures = ", ".join(f"{name} {_seconds(fn, text) * 1000:.1f} ms" for name, fn in steps.items())
            print(f"{n:>9,} characters, {label}: {figures}")


if __name__ == "__main__":
    main()
