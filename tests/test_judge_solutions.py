"""Every solution's function answers, taken out as the learner's kernel takes them and judged in a fresh interpreter as
the checking kernel judges them (judge.prepare, then judge per answer), come back right and not tampered.

tests/test_solution_answers.py checks the same answers in this process; this adds the judge's watch. A check that
changes something the judge watches (a module-level name atlas_kit rebinds as it works, say) makes every honest
submission of its chapter `tampered`. The kernels and the sandbox are left out (tests/test_grading*.py run them):
one interpreter judges every chapter, each with a baseline of its own, as a checking kernel does for one notebook;
so state that a first check sets up (a cache filled once) is seen changing only in the first chapter to use it.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from answer_taking import run_cells, take

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
CALL = re.compile(r"""check\(\s*["'](\d\d\.\d+)["']\s*,\s*(\w+)\s*\)""")
# What a kernel has imported before its first cell comes first (jupyter_client brings six, whose import hook is in a
# checking kernel's baseline); then the grader's own cells.
JUDGE = """
import json, sys
import ipykernel.ipkernel
from atlas_kit.course.grading.judge import judge, prepare
for chapter, items in json.load(open(sys.argv[1])):
    baseline = prepare(watch=True, chapters=[chapter])
    for key, payload, result in items:
        judge(key, payload, result, baseline, id(baseline))
"""


def _take_all(path: Path, folder: Path) -> list[tuple[str, str, str]]:
    """Run the notebook's code cells as the learner's kernel would, then take out every answer a check call names.
    Returns (key, payload, result) paths."""
    folder.mkdir()
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    namespace = run_cells(folder, cells)
    calls = dict(CALL.findall("\n".join(cells)))
    jobs = []
    for n, (key, name) in enumerate(sorted(calls.items())):
        payload, result = folder / f"payload-{n}.json", folder / f"verdict-{n}.json"
        take(folder, cells, namespace, name, payload)
        jobs.append((key, str(payload), str(result)))
    return jobs


def _runs_code(payload: Path) -> bool:
    return "$function" in payload.read_text(encoding="utf-8")


def test_every_solution_s_function_answers_are_right_in_a_checking_interpreter_and_change_nothing(tmp_path,
                                                                                                 monkeypatch):
    # Found on 2026-12-04: a token-count cache rebound a module-level name on use, so the grader took every honest
    # submission of chapters 01, 05, 06, 07, 08, 11 and 14 for tampered (types/tokens.py keeps it on one object now).
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ATLAS_MODEL", raising=False)
    monkeypatch.chdir(ROOT / "solutions")
    plan = []
    with contextlib.redirect_stdout(io.StringIO()):
        for path in SOLUTIONS:
            jobs = _take_all(path, tmp_path / path.stem)
            if any(_runs_code(Path(payload)) for _, payload, _ in jobs):  # only these have the judge watching
                plan.append((path.name[:2], jobs))
    assert len(plan) >= 10, [chapter for chapter, _ in plan]  # most chapters answer with a function somewhere
    (tmp_path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ATLAS_MODEL")}
    done = subprocess.run([sys.executable, "-c", JUDGE, str(tmp_path / "plan.json")], cwd=ROOT / "solutions", env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    verdicts = {key: json.loads(Path(result).read_text(encoding="utf-8"))
                for _, jobs in plan for key, _, result in jobs}
    wrong = {key: v for key, v in verdicts.items() if v.get("kind") != "checked" or v.get("ok") is not True}
    assert not wrong, wrong
