"""What one notebook kernel costs the test suite: a cold start against a fork of the warm parent.

Runs the same notebook N times under papermill with the plain `python3` kernelspec and N times with the
suite's `atlas-test` kernelspec (conftest.py, tests/kernel_zygote.py), and prints the CPU seconds of the
kernels per run (user + system, read from the finished children), the warm parent's one-off imports apart.
Usage: python benchmarks/kernels.py [--runs 5] [NOTEBOOK ...]   (default: exercises/00_start_here.ipynb and an
empty notebook)
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs in a child, so that only its own children's CPU is counted: the kernels, the launchers, the warm parent.
CHILD = """
import json, os, resource, sys, time
sys.path.insert(0, {root!r})
import conftest
import papermill

kernel, runs, notebook, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
conftest.pytest_configure(None)
if kernel == conftest.KERNEL:
    conftest._warm()
for _ in range(runs):
    papermill.execute_notebook(notebook, out, cwd=os.path.dirname(notebook), kernel_name=kernel,
                               progress_bar=False, engine_name="atlas")
conftest.pytest_unconfigure(None)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps(usage.ru_utime + usage.ru_stime))
"""


def _children_cpu(kernel: str, runs: int, notebook: Path, out: Path) -> float:
    code = CHILD.format(root=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code, kernel, str(runs), str(notebook), str(out)],
                          check=True, capture_output=True, text=True, cwd=ROOT)
    return float(json.loads(done.stdout.strip().splitlines()[-1]))


def _empty(folder: Path) -> Path:
    path = folder / "empty.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "id": "a", "metadata": {},
                                           "outputs": [], "source": "1"}],
                                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                            "language": "python"}},
                                "nbformat": 4, "nbformat_minor": 5}))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each notebook with each kernelspec")
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks to run (default: exercises/00 and an empty one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        notebooks = [p.resolve() for p in args.notebooks] or [ROOT / "exercises" / "00_start_here.ipynb", _empty(folder)]
        out = folder / "out.ipynb"
        parent = _children_cpu("atlas-test", 0, notebooks[0], out)  # the warm parent's imports, paid once per worker
        print(f"warm parent, once per pytest process: {parent:.2f} s CPU")
        print(f"{'notebook':<32}{'cold s/run':>12}{'warm s/run':>12}{'ratio':>8}")
        for notebook in notebooks:
            cold = _children_cpu("python3", args.runs, notebook, out) / args.runs
            warm = (_children_cpu("atlas-test", args.runs, notebook, out) - parent) / args.runs
            print(f"{notebook.stem[:31]:<32}{cold:>12.2f}{warm:>12.2f}{cold / warm:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
