"""What the grader reads back from a kernel: an answer taken out (take.py) or a verdict (judge.py), as results.

A kernel may have put anything at the path it was given, so a file is read only if it is a regular file (never
through a link) of at most PAYLOAD_LIMIT bytes holding a JSON object.
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from .kernel import CellOutcome
from .records import ExerciseResult, ExerciseSpec, Outcome

PAYLOAD_LIMIT = 64 * 2 ** 20  # bytes of one answer taken out of a notebook, or of one verdict


def read_payload(path: Path, limit: int = PAYLOAD_LIMIT) -> dict[str, object] | None:
    """The JSON object a kernel wrote at `path`, or None: a link, a special file, one over `limit` bytes, not JSON."""
    text = read_bounded(path, limit)
    try:
        data = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def read_bounded(path: Path, limit: int) -> str | None:
    """The UTF-8 text of the regular file at `path` if it holds at most `limit` bytes, else None.

    Never through a link (it could point at the teacher's files), never from a FIFO (it would wait forever)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as raw:
        info = os.fstat(raw.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        try:
            return raw.read(limit + 1).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None


def blank(payload: dict[str, object]) -> bool:
    """The answer is the placeholder `...` or None, which every check calls not answered yet."""
    return payload.get("value") is None or payload.get("value") == {"$ellipsis": True}


def runs_code(payload: dict[str, object]) -> bool:
    """Whether rebuilding this answer runs the notebook's code: one of its statements, or a function anywhere."""
    stack: list[object] = [payload.get("value"), payload.get("env")]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "$function" in node:
                return True
            stack += node.values()
        elif isinstance(node, list):
            stack += node
    return bool(payload.get("statements"))


def payload_list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def not_taken(outcome: CellOutcome, cell_timeout: float) -> ExerciseResult:
    """An answer the learner's kernel did not hand over."""
    if outcome.kind in ("interrupted", "killed"):
        return ExerciseResult("not_graded", f"Not graded: reading the answer did not finish within {cell_timeout:g} s.")
    if outcome.kind == "ok":  # it ran, but left no readable answer: too large, or the notebook broke the file
        return ExerciseResult("not_graded", f"Not graded: the answer could not be read (more than "
                                            f"{PAYLOAD_LIMIT // 2 ** 20} MB, or its file was changed).")
    what = f"{outcome.ename}: {outcome.evalue}" if outcome.kind == "error" else f"the kernel {outcome.kind}"
    return ExerciseResult("not_graded", f"Not graded: the grader could not read the answer ({clip(what)}); the "
                                        "notebook may have broken something the grader's reading needs.")


def untaken(spec: ExerciseSpec, payload: dict[str, object]) -> ExerciseResult:
    kind, detail = payload.get("kind"), clip(str(payload.get("detail", "")))
    if kind == "undefined":
        return ExerciseResult("not_graded", f"Not graded: `{spec.expression}` is not defined after the notebook ran "
                                            "(the cell that sets it raised, or was deleted or renamed).")
    if kind == "raised":
        return ExerciseResult("not_graded", f"Not graded: reading `{spec.expression}` raised {detail}.")
    return ExerciseResult("not_graded", f"Not graded: the answer could not be taken out of the notebook: {detail}.")


def verdict(spec: ExerciseSpec, path: Path, outcome: CellOutcome,
            cell_timeout: float) -> tuple[ExerciseResult, list[str]]:
    """What the checking kernel said of one answer (trusted only from a cell that finished), and what the answer
    changed there, if it tampered."""
    said = read_payload(path) if outcome.kind == "ok" else None
    if outcome.kind == "error" and outcome.ename == "FileExistsError":
        return (ExerciseResult("not_graded", "Not graded: the answer wrote the grader's verdict file itself."),
                [f"the verdict file of {spec.key}, written before the check could"])
    if said is None:
        if outcome.kind in ("interrupted", "killed"):
            return ExerciseResult("not_graded", f"Not graded: the check did not finish within {cell_timeout:g} s; "
                                                "the answer may run forever when the check calls it."), []
        what = f"{outcome.ename}: {outcome.evalue}" if outcome.kind == "error" else f"the kernel {outcome.kind}"
        return ExerciseResult("not_graded", f"Not graded: the grader's check could not run ({clip(what)})."), []
    if said.get("kind") == "tampered":
        names = [str(n) for n in payload_list(said.get("replaced"))]
        return ExerciseResult("not_graded", f"Not graded: while it was checked, the answer changed "
                                            f"{clip(', '.join(names[:4]), 300)}."), names or ["what the checks rely on"]
    if said.get("kind") == "unrebuilt":
        return ExerciseResult("not_graded", "Not graded: the answer could not be rebuilt outside the notebook "
                                            f"({clip(str(said.get('detail')))})."), []
    outcome_name: Outcome = "right" if said.get("ok") is True else "blank" if said.get("blank") else "wrong"
    return ExerciseResult(outcome_name, str(said.get("message", ""))), []


def clip(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
