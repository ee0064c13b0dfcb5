"""Execute notebooks in place, offline, and store them clean: the outputs CI compares against.

Usage: python scripts/run_notebooks.py chapters/03_anatomy_of_a_tool_error.ipynb [more.ipynb ...]
       python scripts/run_notebooks.py --check chapters/*.ipynb   (fail if any stored notebook is not clean)

Runs each notebook top to bottom with no API key (so the offline stand-in answers), from
the notebook's own folder, then normalises what Jupyter adds that varies between runs.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import nbformat

from atlas_kit.course import execute_offline

MACHINE_PATH = re.compile(r"(/root/|/home/[a-z]|/tmp/[A-Za-z0-9]|/work/|site-packages)")
KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def clean(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop run-to-run noise: execution timestamps, widget state, kernel versions."""
    nb.metadata = {"kernelspec": KERNEL, "language_info": {"name": "python"}}
    count = 0
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("papermill", None)
        if cell.cell_type != "code":
            continue
        count += 1
        cell.execution_count = count if cell.outputs or cell.source.strip() else None
        for out in cell.outputs:
            if "execution_count" in out:
                out["execution_count"] = count
            out.get("metadata", {}).pop("papermill", None)
    return nb


def problems(path: Path, nb: nbformat.NotebookNode) -> list[str]:
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error" and "raises-exception" not in cell.metadata.get("tags", []):
                found.append(f"{path}: cell {i} stores an error")
            text = json.dumps(out.get("text", "")) + json.dumps(out.get("data", {}).get("text/plain", ""))
            if MACHINE_PATH.search(text):
                found.append(f"{path}: cell {i} output shows a machine path")
            if re.search(r"0x[0-9a-f]{8,}", text):
                found.append(f"{path}: cell {i} output shows a memory address")
    return found


def execute(path: Path, timeout: int) -> float:
    nb, seconds = execute_offline(path, timeout=timeout)  # stored outputs come from the offline run only
    nbformat.write(clean(nb), path)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="only check stored notebooks; execute nothing")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per cell (default 120)")
    args = parser.parse_args(argv)
    bad: list[str] = []
    for path in args.notebooks:
        if not args.check:
            print(f"{path}: {execute(path, args.timeout):.1f} s")
        bad += problems(path, nbformat.read(path, as_version=4))
    for line in bad:
        print(line, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
