"""Issue 30: answers are judged in a kernel the notebook never ran in, so tampering changes no grade.

One class, graded once: two chapter 02 notebooks, blank and solved, that patch the checks in their own kernel in
five ways at once (a built-in, a functools.partial, a mock, importlib, sys.meta_path); chapter 09 notebooks whose
function answer tampers while it is checked (a check's helper, a built-in, the verdict file, the checks'
registry), chapter 09 because its notebook needs no SDK, so its kernels start in a fraction of the time; answers that cannot be taken out as data; a ✓ saved in the output of a cell that checks nothing. Every
row must say what a fresh, honest check says, or `tampered`.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from atlas_kit.course.grading.records import Grade
from atlas_kit.course.grading import grade_class
from grading_class import chapter_files

PATCHES = {  # chapter 02, in the learner's own kernel: each would make a check say right if it ran there
    "builtin": "import atlas_kit.contract.errors as e\ne._check_branch = print",
    "partial": ("import functools\nimport atlas_kit.course.checks as c\nfrom atlas_kit.course.checks._registry import Feedback\n"
                "c.check = functools.partial(Feedback, ok=True, message='Right.')"),
    "mock": ("from unittest import mock\nfrom atlas_kit.course.checks._registry import Feedback\n"
             "mock.patch('atlas_kit.course.checks.check', return_value=Feedback('02.1', True, 'Right.')).start()\n"
             "mock.patch('atlas_kit.course.checks._registry.is_blank', return_value=False).start()"),
    "importlib": ("import importlib, types\nfrom atlas_kit.course.checks._registry import Feedback\n"
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

# Chapter 09: apply_credit's answer does something while the grader's check calls it.
_WRAP = "_solved = apply_credit\n\ndef apply_credit(ledger, args, ctx):\n{}\n    return _solved(ledger, args, ctx)"
CALL_TIME = {  # "helper" is one the next check (09.2's) calls: left in place, it would change what that check sees
    "helper": "    import atlas_kit.course.checks.ch09 as c\n    c._probe = lambda *args, **kwargs: (True, [], 0)",
    "builtin": "    import builtins\n    builtins.callable = lambda value: True",
    "registry": ("    import dataclasses\n    from atlas_kit.course.checks import EXERCISES\n"
                 "    EXERCISES['09.2'] = dataclasses.replace(EXERCISES['09.2'], grade=lambda answer: None)"),
    "verdict": "    open('verdict-0.json', 'w').write('{\"kind\": \"checked\", \"ok\": true, \"message\": \"Right.\"}')",
}
UNTAKEABLE = {  # chapter 02's answers, as values the grader cannot take out of the notebook
    "own_class": "class Mine:\n    pass\n\nt09_next = Mine()",
    "str_subclass": "class Yes(str):\n    def __eq__(self, other):\n        return True\n\nbranches = {'a': Yes('x')}",
}


def _notebook(folder: Path, name: str, chapter: str, *, solved: bool, cell: str | list[str], prints: str = "") -> None:
    solution, blank = chapter_files(chapter)
    nb = nbformat.read(solution if solved else blank, as_version=4)
    outputs = [nbformat.v4.new_output("stream", name="stdout", text=prints)] if prints else []
    nb.cells += [nbformat.v4.new_code_cell(code, outputs=outputs) for code in ([cell] if isinstance(cell, str) else cell)]
    nbformat.write(nb, folder / f"{name}_{solution.name}")


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, Grade]:
    folder = tmp_path_factory.mktemp("tamper")
    (folder / "in").mkdir()
    # Every patch at once (in this order each still applies), blank and solved; each notebook costs two kernels.
    patches = [PATCHES[name] for name in ("builtin", "partial", "mock", "importlib", "meta_path")]
    claim = "✓ Exercise 02.1: Structure: right."
    _notebook(folder / "in", "blank-patched", "02", solved=False, cell=[*patches, "import os\nos.mkfifo('blocked.log')"])
    _notebook(folder / "in", "solved-patched", "02", solved=True, cell=[*patches, "print('done')"], prints=claim)
    for name, body in CALL_TIME.items():
        _notebook(folder / "in", f"calls-{name}", "09", solved=True, cell=_WRAP.format(body))
    reach = "    import socket\n    try:\n        socket.create_connection(('example.com', 80), timeout=2)\n" \
            "    except OSError:\n        pass"
    _notebook(folder / "in", "calls-network", "09", solved=True, cell=_WRAP.format(reach))
    _notebook(folder / "in", "untakeable", "02", solved=True, cell=list(UNTAKEABLE.values()))
    _notebook(folder / "in", "claims-blank", "02", solved=False, cell="print('done')", prints=claim)
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


def test_patches_in_the_learner_s_kernel_leave_blank_answers_blank_and_right_ones_right(rows):
    assert _outcomes(rows["blank-patched"]) == ("ok", "blank", "blank"), rows["blank-patched"]  # and a FIFO log
    row = rows["solved-patched"]
    assert _outcomes(row) == ("ok", "right", "right"), row
    noted = next(note for note in row.notes if "changed no grade" in note)
    assert "importlib.import_module" in noted and "sys.meta_path[0]" in noted, noted


@pytest.mark.parametrize("name", sorted(CALL_TIME))
def test_a_function_answer_that_tampers_while_it_is_checked_is_tampered_and_stops_the_grading(rows, name):
    row = rows[f"calls-{name}"]
    assert _outcomes(row) == ("tampered", "not_graded", "not_graded"), row
    assert any("while its answers were checked it changed" in note for note in row.notes), row.notes


def test_answers_the_grader_cannot_take_out_are_not_graded_and_say_why(rows):
    row = rows["untakeable"]  # an instance of the notebook's own class, and a str subclass whose == always holds
    assert _outcomes(row) == ("ok", "not_graded", "not_graded"), row
    assert "Yes" in row.results["02.1"].message and "Mine" in row.results["02.2"].message, row.results


def test_a_tick_saved_by_a_cell_that_checks_nothing_is_tampered_unless_the_answer_is_right(rows):
    assert _outcomes(rows["claims-blank"]) == ("tampered", "blank", "blank")
    assert any("saved output shows ✓ for 02.1 in a cell that does not check it" in note
               for note in rows["claims-blank"].notes)
    assert _outcomes(rows["solved-patched"])[0] == "ok"  # the same ✓ beside right answers


def test_only_a_notebook_with_a_folder_of_its_own_gets_a_copy_of_its_files_and_never_a_link(rows):
    zed = rows["zed"]
    assert _outcomes(zed) == ("ok", "right", "right"), zed
    assert any("blocked.log" in note and "left out" in note for note in zed.notes), zed.notes
    assert not any("tried to reach" in note for note in zed.notes), zed.notes
    assert _outcomes(rows["flat-reader"]) == ("errors", "right", "right")


def test_a_function_answer_s_connection_in_the_checking_kernel_is_blocked_and_noted(rows):
    row = rows["calls-network"]  # and the wrapper itself, tampering with nothing, is right
    assert _outcomes(row) == ("ok", "right", "right"), row
    assert any("example.com:80" in note and "blocked" in note for note in row.notes), row.notes
