"""Run a notebook's cells as a learner's kernel would, and take an answer out as the grader's cell does.

Shared by tests/test_grading_answers.py and tests/test_judge_solutions.py. take_answer tells the notebook's code
from a library's by where it was compiled: each cell is compiled under a file of its own in `folder` (where inspect
finds its source, as IPython keeps it in linecache), and the grader's call under `folder`/grader.py beside them.
"""
from __future__ import annotations

from pathlib import Path

from atlas_kit.course.grading.take import take_answer


def run_cells(folder: Path, cells: list[str]) -> dict[str, object]:
    """The namespace the cells leave, run in order."""
    namespace: dict[str, object] = {"__name__": "__main__"}
    for i, code in enumerate(cells):
        (folder / f"cell{i}.py").write_text(code, encoding="utf-8")
        exec(compile(code, str(folder / f"cell{i}.py"), "exec"), namespace)  # noqa: S102 - the tests' own cells
    return namespace


def take(folder: Path, cells: list[str], namespace: dict[str, object], expression: str, out: Path) -> None:
    """Write what take_answer makes of `expression` to `out`, called as the grader's cell calls it."""
    exec(compile("take(expression, cells, out, namespace)", str(folder / "grader.py"), "exec"),  # noqa: S102
         {"take": take_answer, "expression": expression, "cells": cells, "out": str(out), "namespace": namespace})
