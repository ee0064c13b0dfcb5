"""Issue 30: files that are not notebooks get their own words and are counted apart; the report stays small when
a learner's text is huge. None of these runs a kernel."""
from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

from atlas_kit.course.grading import grade_class
from atlas_kit.course.grading.classroom import TEXT_LIMIT, _scrub
from atlas_kit.course.grading.records import ExerciseResult, Grade

ROOT = Path(__file__).resolve().parent.parent


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("02_four_branches.ipynb", "{}")
    return buffer.getvalue()


FILES = {
    "ann_02_four_branches.ipynb": (b"", "the file is empty"),
    "bob_02_four_branches.ipynb": (b"  \n", "the file holds only blank space"),
    "cat_02_four_branches.ipynb": (_zip(), "the file is a zip archive; unzip it and hand in the .ipynb inside"),
    "dan_02_four_branches.ipynb": (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}).encode(),
                                   "the notebook has no cells: nothing to grade"),
    "eve_02_four_branches.ipynb": (json.dumps({"nbformat": 5, "metadata": {}, "cells": [{}]}).encode(),
                                   "it says it is nbformat 5; this grader reads nbformat 4 (and 3)"),
}


def test_each_kind_of_file_that_is_not_a_notebook_gets_its_own_words_and_counts_in_no_total(tmp_path):
    for name, (content, _) in FILES.items():
        (tmp_path / name).write_bytes(content)
    book = grade_class([tmp_path], out=tmp_path / "out", chapter="02", solutions=ROOT / "solutions")
    said = {g.file: g.notes for g in book.grades}
    for name, (_, words) in FILES.items():
        assert said[name] == [f"not a notebook: {words}"], said[name]
    assert {g.status for g in book.grades} == {"unreadable"}
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "5 files, graded in" in html and "(5 not a notebook, counted in no exercise's total)" in html
    assert "<td>0 of 0</td>" in html and "of 5</td>" not in html  # no exercise's total counts them
    rows = list(csv.DictReader((tmp_path / "out" / "grades.csv").open(encoding="utf-8")))
    assert len(rows) == 5 and {r["status"] for r in rows} == {"unreadable"}


def test_a_huge_answer_echoed_in_feedback_leaves_every_text_of_the_row_bounded():
    huge = "ACC-" + "9" * 3_000_000
    grade = Grade("x" * 10_000, "y" * 10_000 + ".ipynb", "02", "errors",
                  {"02.1": ExerciseResult("wrong", f"You returned {huge!r}; expected an account id.")},
                  [f"code cell 2 raised (first: ValueError: {huge})"], 1, 0.1)
    scrubbed = _scrub(grade, ())
    texts = [scrubbed.learner, scrubbed.file, *scrubbed.notes, scrubbed.results["02.1"].message]
    assert max(map(len, texts)) <= TEXT_LIMIT and all(t.endswith("…") for t in texts)


def test_the_sandbox_hides_the_teacher_s_places_but_never_the_system_or_python_itself(tmp_path, monkeypatch):
    import sys

    from atlas_kit.course.grading.sandbox import Sandbox

    monkeypatch.chdir(tmp_path)
    hidden = Sandbox.hiding(tmp_path / "missing", ROOT).hidden
    assert tmp_path.resolve() in hidden and ROOT.resolve() in hidden and Path("/tmp").resolve() in hidden
    assert Path.home().resolve() in hidden
    for place in ("/usr", Path(sys.executable).parent):  # a grader started here must not hide its own interpreter
        monkeypatch.chdir(place)
        hidden = Sandbox.hiding().hidden
        assert Path(place).resolve() not in hidden and not any(Path("/usr").is_relative_to(h) for h in hidden)
    prefix = Sandbox.hiding(ROOT).prefix(tmp_path)
    bound = {prefix[i + 1] for i, arg in enumerate(prefix) if arg == "--ro-bind"}
    assert str(Path(sys.prefix).resolve()) in bound or not any(Path(sys.prefix).resolve().is_relative_to(h)
                                                                for h in Sandbox.hiding(ROOT).hidden)
    assert prefix[-4:] == (str(tmp_path.resolve()), "--unsetenv", "JPY_PARENT_PID", "--")
