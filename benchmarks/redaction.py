"""Time the redaction every written text goes through, on long texts: an echoed argument is one long word.

For each length, a single word and a line of words, it prints the time of `hide_login` (scheme://user:password@),
`redact` (key-shaped strings) and `redact_known` (the environment's secret values). Each should grow linearly with
the length; hide_login used to grow quadratically on a long word (16,000 letters took 1.4 s). Usage:
python benchmarks/redaction.py [--lengths 16000,1000000]
"""
from __future__ import annotations

import argparse
import time
from typing import Callable

from atlas_kit.contract.redaction import hide_login, redact, redact_known


def _seconds(fn: Callable[[str], object], text: str) -> float:
    start = time.perf_counter()
    fn(text)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="16000,1000000", help="text lengths in characters, comma-separated")
    lengths = [int(n) for n in parser.parse_args().lengths.split(",")]
    known = ("hunter2-but-longer", "s3cret-value-42")
    steps: dict[str, Callable[[str], object]] = {"hide_login": hide_login, "redact": redact,
                                                 "redact_known": lambda text: redact_known(text, known)}
    for n in lengths:
        texts = {"one word": "x" * n, "words": ("account ACC-4471 and more words " * (n // 32 + 1))[:n]}
        for label, text in texts.items():
            figures = ", ".join(f"{name} {_seconds(fn, text) * 1000:.1f} ms" for name, fn in steps.items())
            print(f"{n:>9,} characters, {label}: {figures}")


if __name__ == "__main__":
    main()
