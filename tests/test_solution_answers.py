"""Every solution notebook's answers pass today's checks: each notebook's code cells run in this process (offline,
from solutions/), and every `check("NN.k", name)` is evaluated on the answer the cells built.

The stored outputs say what the checks said when the notebook was last run; this says what they say now, without a
kernel, so a changed check cannot leave a reference answer behind.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from atlas_kit.course.checks import EXERCISES, check
from atlas_kit.course.checks.run import _load

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
CALL = re.compile(r"""check\(\s*["'](\d\d\.\d+)["']\s*,\s*(\w+)\s*\)""")

def answers(path: Path) -> dict[str, object]:
    """Run the notebook's code cells in one namespace; the answer each check call names, by exercise key."""
    namespace: dict[str, object] = {"__name__": "__main__"}
    found: dict[str, object] = {}
    cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    with contextlib.redirect_stdout(io.StringIO()):
        for cell in cells:
            source = "".join(cell["source"])
            exec(compile(source, path.name, "exec"), namespace)  # noqa: S102 - the project's own notebook
            for key, name in CALL.findall(source):
                found[key] = namespace[name]
    return found


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ATLAS_MODEL", raising=False)
    monkeypatch.chdir(ROOT / "solutions")


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_every_reference_answer_passes_its_check(path: Path, offline: None) -> None:
    found = answers(path)
    assert found, f"{path.name} has no check(...) call"
    for key, answer in found.items():
        feedback = check(key, answer)
        assert feedback.ok, f"{path.name}: {feedback!r}"
        compare = EXERCISES[key].compare
        assert (compare is None) == (not feedback.rubric), feedback  # a check that leaves an idea shows its rubric


def test_every_registered_exercise_has_a_reference_answer_here() -> None:
    _load()
    keys = {key for p in SOLUTIONS for key, _ in CALL.findall(p.read_text(encoding="utf-8").replace('\\"', '"'))}
    assert keys == set(EXERCISES)
