"""Exercises and solutions come from one source, and every check can fail and pass.

Per exercise: its check passes on the stored solution run, fails on the blank exercise with
the intended message, and (tests/test_checks_*.py) fails on plausible wrong answers.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from atlas_kit.course.checks._registry import BLANK
from atlas_kit.course.checks import EXERCISES, check, hint
from atlas_kit.course.checks.run import _load

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import make_exercises  # noqa: E402

SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
CHECK_CALL = re.compile(r"""check\(\s*["'](\d\d\.\d+)["']""")
_load()


def _checks_in(path: Path) -> list[str]:
    nb = json.loads(path.read_text())
    return [k for c in nb["cells"] if c["cell_type"] == "code" for k in CHECK_CALL.findall("".join(c["source"]))]


def _outputs(nb: dict) -> list[str]:
    texts = []
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            texts.append("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", "")))
    return texts


def test_every_chapter_has_a_solutions_notebook_with_enough_exercises():
    chapters = sorted(p.name for p in (ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
    assert [p.name for p in SOLUTIONS] == chapters
    for path in SOLUTIONS:
        keys = _checks_in(path)
        assert len(set(keys)) >= (1 if path.name.startswith("00_") else 2), path.name
        assert all(k.startswith(path.name[:2] + ".") for k in keys), (path.name, keys)


def test_every_registered_exercise_is_used_once():
    used = [k for p in SOLUTIONS for k in set(_checks_in(p))]
    assert sorted(used) == sorted(EXERCISES)


def test_committed_exercises_are_what_the_generator_makes():
    assert make_exercises.main(["--check"]) == 0


def test_cut_replaces_each_block_at_its_indent_and_refuses_an_open_block():
    src = "def f(x):\n    # BEGIN SOLUTION\n    return x + 1\n    # END SOLUTION\n\ny = (\n    # BEGIN SOLUTION\n    2\n    # END SOLUTION\n)\n"
    assert make_exercises.cut(src) == f"def f(x):\n    {make_exercises.GAP}\n\ny = (\n    {make_exercises.GAP}\n)\n"
    with pytest.raises(ValueError, match="no matching"):
        make_exercises.cut("# BEGIN SOLUTION\nx = 1\n")


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_stored_solution_run_passes_every_check(path):
    nb = json.loads(path.read_text())
    verdicts = [t for t in _outputs(nb) if t.startswith(("✓ Exercise", "✗ Exercise"))]
    keys = set(_checks_in(path))
    assert len(verdicts) >= len(keys) and all(v.startswith("✓") for v in verdicts), verdicts


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_blank_exercise_runs_and_every_check_says_not_answered(path, tmp_path, kernel_name):
    papermill = pytest.importorskip("papermill")
    exercise = ROOT / "exercises" / path.name
    out = tmp_path / path.name
    papermill.execute_notebook(str(exercise), str(out), cwd=str(exercise.parent), kernel_name=kernel_name, progress_bar=False,
                               engine_name="atlas",  # atlas: no plain-TCP kernel warning
                               request_save_on_cell_execute=False)  # written once at the end, not twice a cell
    verdicts = [t for t in _outputs(json.loads(out.read_text())) if t.startswith(("✓ Exercise", "✗ Exercise"))]
    assert verdicts and all(v.startswith("✗") and BLANK in v for v in verdicts), verdicts


def test_check_never_raises_and_says_what_to_do():
    assert "There is no exercise" in check("99.9", 1).message
    for key in EXERCISES:
        assert check(key, ...).message == BLANK
        assert not check(key, object()).ok  # a nonsense answer fails with words, not an exception
        assert hint(key)  # every exercise offers at least one hint


def test_check_catches_an_answer_that_raises():
    key = next(iter(EXERCISES))

    def boom(*args, **kwargs):
        raise RuntimeError("learner bug")

    fb = check(key, boom)
    assert not fb.ok
