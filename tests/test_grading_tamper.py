"""Issue 30: answers are judged in a kernel the notebook never ran in, so tampering changes no grade.

One class, graded once: chapter 02 notebooks that patch the checks in their own kernel (by a built-in, a
functools.partial, a mock, importlib, sys.meta_path), blank or solved; chapter 04 notebooks whose function answer
tampers while it is checked (a check's helper, a built-in, the verdict file, the checks' registry); answers that
cannot be taken out as data; a ✓ saved in the output of a cell that checks nothing. Every row must say what a fresh,
honest check says, or `tampered`.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from atlas_kit.course.grading import Grade, grade_class
from grading_class import chapter_files

PATCHES = {  # chapter 02, in the learner's own kernel: each would make a check say right if it ran there
    "builtin": "import atlas_kit.contract.errors as e\ne._check_branch = print",
    "partial": ("import functools\nimport atlas_kit.course.checks as c\nfrom atlas_kit.course.checks import Feedback\n"
                "c.check = functools.partial(Feedback, ok=True, message='Right.')"),
    "mock": ("from unittest import mock\nfrom atlas_kit.course.checks import Feedback\n"
             "mock.patch('atlas_kit.course.checks.check', return_value=Feedback('02.1', True, 'Right.')).start()\n"
             "mock.patch('atlas_kit.course.checks.is_blank', return_value=False).start()"),
    "importlib": ("import importlib, types\nfrom atlas_kit.course.checks import Feedback\n"
                  "fake = types.SimpleNamespace(check=lambda k, a: Feedback(k, True, 'Right.'), BLANK='')\n"
                  "real = importlib.import_module\n"
                  "importlib.import_module = lambda name, package=None: fake if 'checks' in name else real(name)"),
    "meta_path": '''import sys, importlib.abc, importlib.util
class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        return importlib.util.spec_from_loader(name, self) if name.startswith("atlas_kit.course.checks") else None
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        exec("from atlas_kit.course.checks._registry import Feedback\\nBLANK = ''\\n"
             "def check(k, a):\\n    return Feedback(k, True, 'Right.')", module.__dict__)
sys.meta_path.insert(0, Finder())
for name in [n for n in sys.modules if n.startswith("atlas_kit.course.checks")]:
    del sys.modules[name]''',
}

# Chapter 04: get_product's answer does something while the grader's check calls it.
_WRAP = "_solved = get_product\n\ndef get_product(args, ctx):\n{}\n    return _solved(args, ctx)"
CALL_TIME = {
    "helper": "    import atlas_kit.course.checks.ch04 as c\n    c._refuses_unknown = lambda handler: None",
    "builtin": "    import builtins\n    builtins.callable = lambda value: True",
    "registry": ("    import dataclasses\n    from atlas_kit.course.checks import EXERCISES\n"
                 "    EXERCISES['04.2'] = dataclasses.replace(EXERCISES['04.2'], grade=lambda answer: None)"),
    "verdict": "    open('verdict-0.json', 'w').write('{\"kind\": \"checked\", \"ok\": true, \"message\": \"Right.\"}')",
}
UNTAKEABLE = {  # chapter 02's answers, as values the grader cannot take out of the notebook
    "own_class": "class Mine:\n    pass\n\nt09_next = Mine()",
    "str_subclass": "class Yes(str):\n    def __eq__(self, other):\n        return True\n\nbranches = {'a': Yes('x')}",
}


def _notebook(folder: Path, name: str, chapter: str, *, solved: bool, cell: str, prints: str = "") -> None:
    solution, blank = chapter_files(chapter)
    nb = nbformat.read(solution if solved else blank, as_version=4)
    outputs = [nbformat.v4.new_output("stream", name="stdout", text=prints)] if prints else []
    nb.cells.append(nbformat.v4.new_code_cell(cell, outputs=outputs))
    nbformat.write(nb, folder / f"{name}_{solution.name}")


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, Grade]:
    folder = tmp_path_factory.mktemp("tamper")
    (folder / "in").mkdir()
    for name, cell in PATCHES.items():
        _notebook(folder / "in", f"blank-{name}", "02", solved=False, cell=cell)
    _notebook(folder / "in", "solved-meta_path", "02", solved=True, cell=PATCHES["meta_path"])
    for name, body in CALL_TIME.items():
        _notebook(folder / "in", f"calls-{name}", "04", solved=True, cell=_WRAP.format(body))
    _notebook(folder / "in", "calls-nothing", "04", solved=True, cell=_WRAP.format("    pass"))
    for name, cell in UNTAKEABLE.items():
        _notebook(folder / "in", f"untakeable-{name}", "02", solved=True, cell=cell)
    claim = "✓ Exercise 02.1: Structure: right."
    _notebook(folder / "in", "claims-blank", "02", solved=False, cell="print('done')", prints=claim)
    _notebook(folder / "in", "claims-right", "02", solved=True, cell="print('done')", prints=claim)
    (folder / "in" / "zed").mkdir()  # a notebook with a folder of its own gets a copy of the files beside it
    (folder / "in" / "zed" / "data.txt").write_text("hello", encoding="utf-8")
    (folder / "in" / "zed" / "link.txt").symlink_to(folder / "in" / "zed" / "data.txt")
    (folder / "in" / "zed" / "blocked.log").write_text("evil.example:80", encoding="utf-8")
    reads = "import os\nassert open('data.txt').read() == 'hello'\nassert not os.path.exists('link.txt')"
    _notebook(folder / "in" / "zed", "zed", "02", solved=True, cell=reads)
    (folder / "in" / "data.txt").write_text("hello", encoding="utf-8")  # beside every flat notebook: not copied
    _notebook(folder / "in", "flat-reader", "02", solved=True, cell=reads)
    book = grade_class([folder / "in"], out=folder / "out", cell_timeout=30, timeout=120)
    return {grade.learner: grade for grade in book.grades}


def _outcomes(grade: Grade) -> tuple[str, ...]:
    return (grade.status, *(grade.results[k].outcome for k in sorted(grade.results)))


@pytest.mark.parametrize("name", sorted(PATCHES))
def test_a_patch_in_the_learner_s_kernel_leaves_blank_answers_blank(rows, name):
    row = rows[f"blank-{name}"]
    assert _outcomes(row) == ("ok", "blank", "blank"), row


def test_a_patch_in_the_learner_s_kernel_leaves_right_answers_right_and_is_noted(rows):
    row = rows["solved-meta_path"]
    assert _outcomes(row) == ("ok", "right", "right"), row
    assert any("changed no grade" in note for note in row.notes), row.notes


@pytest.mark.parametrize("name", sorted(CALL_TIME))
def test_a_function_answer_that_tampers_while_it_is_checked_is_tampered_and_stops_the_grading(rows, name):
    row = rows[f"calls-{name}"]
    assert _outcomes(row) == ("tampered", "not_graded", "not_graded"), row
    assert any("while its answers were checked it changed" in note for note in row.notes), row.notes


def test_the_same_wrapper_without_tampering_is_right(rows):
    row = rows["calls-nothing"]
    assert _outcomes(row) == ("ok", "right", "right"), row


@pytest.mark.parametrize("name,key", [("own_class", "02.2"), ("str_subclass", "02.1")])
def test_an_answer_the_grader_cannot_take_out_is_not_graded_and_the_other_is(rows, name, key):
    row = rows[f"untakeable-{name}"]
    other = "02.1" if key == "02.2" else "02.2"
    assert (row.status, row.results[key].outcome, row.results[other].outcome) == ("ok", "not_graded", "right"), row
    assert "could not be taken out of the notebook" in row.results[key].message, row.results[key]


def test_a_tick_saved_by_a_cell_that_checks_nothing_is_tampered_unless_the_answer_is_right(rows):
    assert _outcomes(rows["claims-blank"]) == ("tampered", "blank", "blank")
    assert any("saved output shows ✓ for 02.1 in a cell that does not check it" in note
               for note in rows["claims-blank"].notes)
    assert _outcomes(rows["claims-right"]) == ("ok", "right", "right")


def test_only_a_notebook_with_a_folder_of_its_own_gets_a_copy_of_its_files_and_never_a_link(rows):
    zed = rows["zed"]
    assert _outcomes(zed) == ("ok", "right", "right"), zed
    assert any("blocked.log" in note and "left out" in note for note in zed.notes), zed.notes
    assert not any("tried to reach" in note for note in zed.notes), zed.notes
    assert _outcomes(rows["flat-reader"]) == ("errors", "right", "right")
