"""Execute notebooks in place, offline, and store them clean: the outputs CI compares against.

Usage: python scripts/run_notebooks.py chapters/03_anatomy_of_a_tool_error.ipynb [more.ipynb ...]
       python scripts/run_notebooks.py --check chapters/*.ipynb   (fail if any stored notebook is not clean)

Runs each notebook top to bottom with no API key (so the offline stand-in answers), from
the notebook's own folder, then normalises what Jupyter adds that varies between runs and
stores the metadata JupyterLab compares on opening (kernelspec, the kernel's language_info).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import nbformat

from atlas_kit.course.runner import execute_offline

MACHINE_PATH = re.compile(r"(/root/|/home/[a-z]|/tmp/[A-Za-z0-9]|/work/|site-packages)")
KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def language_info() -> dict:
    """The language_info ipykernel reports (all seven fields). JupyterLab writes the kernel's copy into a
    notebook it opens, so a stored notebook that holds less is marked unsaved the moment its kernel starts."""
    from ipykernel.ipkernel import IPythonKernel

    return json.loads(json.dumps(IPythonKernel.language_info))


def _joined_streams(outputs: list[nbformat.NotebookNode]) -> list[nbformat.NotebookNode]:
    """Consecutive writes to one stream as one output: where the kernel cut a print is timing, not content."""
    joined: list[nbformat.NotebookNode] = []
    for out in outputs:
        last = joined[-1] if joined else None
        if (out.get("output_type") == "stream" and last is not None and last.get("output_type") == "stream"
                and last.get("name") == out.get("name")):
            last["text"] = "".join(last["text"]) + "".join(out["text"])
        else:
            joined.append(out)
    return joined


def clean(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop run-to-run noise (execution timestamps, papermill's timings, widget state) and store the
    metadata JupyterLab would otherwise rewrite on opening: the kernelspec and the full language_info."""
    info = nb.metadata.get("language_info", {})
    nb.metadata = {"kernelspec": KERNEL, "language_info": info if set(language_info()) <= set(info) else language_info()}
    nb.nbformat, nb.nbformat_minor = 4, max(nb.get("nbformat_minor", 0), 5)
    count = 0
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("papermill", None)
        if cell.cell_type != "code":
            continue
        count += 1
        cell.execution_count = count if cell.outputs or cell.source.strip() else None
        cell.outputs = _joined_streams(cell.outputs)
        for out in cell.outputs:
            if "execution_count" in out:
                out["execution_count"] = count
            out.get("metadata", {}).pop("papermill", None)
            # No widget state is stored (it would be random ids), so a widget reference could only say
            # "model not found"; the output's own text/html or text/plain view is what a reader sees.
            out.get("data", {}).pop(WIDGET_VIEW, None)
    return nb


def problems(path: Path, nb: nbformat.NotebookNode) -> list[str]:
    found = []
    if not set(language_info()) <= set(nb.metadata.get("language_info", {})) or nb.nbformat_minor < 5:
        found.append(f"{path}: metadata lacks the kernel's language_info (JupyterLab would mark it unsaved)")
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
