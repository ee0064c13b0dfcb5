"""Generate exercises/NN_*.ipynb from solutions/NN_*.ipynb: one source, the solutions cut out.

In a solution notebook, code between `# BEGIN SOLUTION` and `# END SOLUTION` becomes a gap
(`...` at the same indent); a code cell tagged `solution` becomes a gap whole; a markdown cell
tagged `solution` becomes "_Your answer here._"; a cell tagged `solutions-only` is dropped.
Exercises are stored without outputs.

Usage: python scripts/make_exercises.py           (write every exercise notebook)
       python scripts/make_exercises.py --check   (exit 1 if a committed exercise differs)
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
GAP = "...  # your answer here"
_BLOCK = re.compile(r"^([ \t]*)# BEGIN SOLUTION[^\n]*\n.*?^[ \t]*# END SOLUTION[^\n]*(\n|$)", re.MULTILINE | re.DOTALL)


def cut(source: str) -> str:
    """The source with every solution block replaced by a gap at the block's indent."""
    if "# BEGIN SOLUTION" in source and not _BLOCK.search(source):
        raise ValueError("a '# BEGIN SOLUTION' has no matching '# END SOLUTION'")
    return _BLOCK.sub(lambda m: f"{m.group(1)}{GAP}{m.group(2)}", source)


def exercise_from(solution: nbformat.NotebookNode) -> nbformat.NotebookNode:
    # The solution's metadata, stored complete by scripts/run_notebooks.py: JupyterLab rewrites kernelspec
    # and language_info on opening, and marks a notebook unsaved when they differ from what it holds.
    nb = nbformat.v4.new_notebook(metadata={k: solution.metadata[k] for k in ("kernelspec", "language_info")
                                            if k in solution.metadata})
    for cell in solution.cells:
        tags = cell.metadata.get("tags", [])
        if "solutions-only" in tags:
            continue
        keep = {"tags": tags} if tags else {}
        if cell.cell_type == "markdown":
            nb.cells.append(nbformat.v4.new_markdown_cell("_Your answer here._" if "solution" in tags else cell.source, metadata=keep))
        else:
            source = GAP if "solution" in tags else cut(cell.source)
            nb.cells.append(nbformat.v4.new_code_cell(source, metadata=keep))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"  # stable ids: the generated file is the same every time
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a committed exercise differs from its solution")
    args = parser.parse_args(argv)
    stale = []
    solutions = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
    for path in solutions:
        target = ROOT / "exercises" / path.name
        text = nbformat.writes(exercise_from(nbformat.read(path, as_version=4))) + "\n"
        if args.check:
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                stale.append(target.relative_to(ROOT))
        else:
            target.parent.mkdir(exist_ok=True)
            target.write_text(text, encoding="utf-8")
    for name in stale:
        print(f"{name} differs from what scripts/make_exercises.py generates; run it and commit the result.", file=sys.stderr)
    if not args.check:
        print(f"wrote {len(solutions)} exercise notebook(s)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
