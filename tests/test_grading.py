from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
import re
import socket
from html import escape
from pathlib import Path

import nbformat
import pytest

from atlas_kit.course.checks._registry import BLANK
from atlas_kit.course.checks import EXERCISES
from atlas_kit.cli import main
from atlas_kit.course.grading import Gradebook, grade_class, summarize
from atlas_kit.course.grading.collect import chapter_of, chapter_plan, read_submissions, registry, solution_notebooks
from atlas_kit.course.grading.execute import grade_submission
from atlas_kit.course.grading.kernel import confinement
from atlas_kit.course.grading.records import ChapterPlan, ExerciseResult, ExerciseSpec, Grade, Submission
from atlas_kit.course.grading.report import render_html

from grading_class import FORMULA_NAME, ROOT, XSS_NAME, Expected, chapter_files, make_class

SECRET = "sk-" + "ant-grader-test-0123456789abcdef"  # built here, so no key-shaped string is tracked
OTHER_SECRET = "hunter2-but-longer-0123"
CHAPTER = "02"


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[list[Expected], Path, str]:
    """Generate the class once and grade it through the command line, with keys in the grader's environment."""
    folder = tmp_path_factory.mktemp("class")
    expected = make_class(folder / "submissions", chapter=CHAPTER)
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as env, contextlib.redirect_stdout(printed):
        env.setenv("ANTHROPIC_API_KEY", SECRET)
        env.setenv("SOME_SERVICE_TOKEN", OTHER_SECRET)
        # 10 s per cell: room for the imports on a busy machine (chapter 02's need no SDK; one notebook's setup call
        # loads it). The two loops sleep through it, so 4 at once.
        rc = main(["grade", str(folder / "submissions"), "--chapter", CHAPTER, "--cell-timeout", "10",
                   "--timeout", "120", "--jobs", "4", "--out", str(folder / "grades")])
    assert rc == 0
    return expected, folder / "grades", printed.getvalue()


def _rows(out: Path) -> dict[str, dict[str, str]]:
    with (out / "grades.csv").open(encoding="utf-8", newline="") as f:
        return {row["learner"]: row for row in csv.DictReader(f)}


def _keys() -> list[str]:
    return [spec.key for spec in _plan().exercises]


def _plan() -> ChapterPlan:
    return chapter_plan(CHAPTER, solution_notebooks(ROOT / "solutions")[CHAPTER], registry())


def test_every_generated_submission_gets_the_row_its_case_calls_for(graded):
    expected, out, _ = graded
    rows, keys = _rows(out), _keys()
    shown = {e.learner: ("'" + e.learner if e.learner.startswith("=") else e.learner) for e in expected}
    assert sorted(rows) == sorted(shown.values())  # one row per notebook, none lost
    for case in expected:
        row = rows[shown[case.learner]]
        assert row["status"] == case.status, (case.learner, row)
        marks = [int(row[k]) for k in keys]
        assert marks == [1 if o == "right" else 0 for o in case.outcomes], (case.learner, row)
        assert int(row["total"]) == sum(marks) and int(row["out_of"]) == len(keys)
        for note in case.notes:
            assert note in row["notes"], (case.learner, note, row["notes"])


def test_the_solutions_get_full_marks_and_the_blank_exercises_zero(graded):
    _, out, _ = graded
    rows, n = _rows(out), len(_keys())
    assert rows[XSS_NAME]["status"] == "ok" and rows[XSS_NAME]["total"] == str(n)
    assert rows["bea"]["status"] == "ok" and rows["bea"]["total"] == "0"
    assert rows["bea"]["notes"] == ""  # an untouched exercise notebook raises nothing and is flagged for nothing


def test_the_report_shows_each_exercise_and_each_learners_feedback(graded):
    expected, out, _ = graded
    html = (out / "report.html").read_text(encoding="utf-8")
    for i, key in enumerate(_keys()):
        passed = sum(e.outcomes[i] == "right" for e in expected)
        blank = sum(e.outcomes[i] == "blank" for e in expected)
        cells = re.search(rf"<tr><td><b>{re.escape(key)}</b>.*?</td><td>(\d+) of (\d+)</td><td>(\d+)</td><td>(\d+)</td>"
                          r"<td>(.*?)</td></tr>", html)
        assert cells, key
        notebooks = sum(e.status != "unreadable" for e in expected)  # a file that is not a notebook counts apart
        assert notebooks < len(expected)  # the class has one, so this checks that it is left out
        assert (int(cells[1]), int(cells[2]), int(cells[3])) == (passed, notebooks, blank)
        # kit is the only wrong answer, so the most common feedback is what kit was told
        kit = re.search(rf"<h3 id='learner-\d+'>kit .*?<td>✗ {re.escape(key)}</td><td>(.*?)</td>", html, re.S)
        assert kit and cells[5] == f"{kit[1]} <i>(1 learner got feedback of this form)</i>"
        assert not kit[1].startswith("Not graded") and kit[1] != escape(BLANK)  # the check's own words
    assert html.count(f"<td>… {_keys()[0]}</td><td>{escape(BLANK)}</td>") == 1  # bea's blank, in bea's section


def test_learner_text_is_escaped_and_no_key_reaches_the_files(graded):
    _, out, printed = graded
    html = (out / "report.html").read_text(encoding="utf-8")
    text = (out / "grades.csv").read_text(encoding="utf-8")
    assert "<script>" not in html and escape(XSS_NAME) in html
    assert f"'{FORMULA_NAME}" in {row["learner"] for row in csv.DictReader(io.StringIO(text))}
    for secret in (SECRET, OTHER_SECRET):
        assert secret not in html and secret not in text and secret not in printed


def test_the_command_prints_a_summary_and_names_each_bad_row(graded):
    expected, out, printed = graded
    assert f"Graded {len(expected)} notebooks (chapter {CHAPTER})" in printed and "simulated" in printed
    for case in expected:
        if case.status != "ok":
            assert f"  {case.learner}: {case.status}" in printed
    assert str(out / "grades.csv") in printed
    attempts = [e for e in expected if e.status != "unreadable"]
    for i, key in enumerate(_keys()):  # every attempt is counted once: passed, wrong, not answered or not graded
        kinds = [e.outcomes[i] for e in attempts]
        line = next(line for line in printed.splitlines() if line.startswith(f"  {key} "))
        assert (f": {kinds.count('right')} of {len(attempts)} passed, {kinds.count('wrong')} wrong, "
                f"{kinds.count('blank')} not answered") in line, line
        assert (f"{kinds.count('not_graded')} not graded" in line) is ("not_graded" in kinds), line


def test_every_registered_exercise_is_planned_from_its_solution():
    titles = registry()
    for chapter, solution in solution_notebooks(ROOT / "solutions").items():
        plan = chapter_plan(chapter, solution, titles)
        registered = sorted(k for k in EXERCISES if k.split(".")[0] == chapter)
        assert sorted(s.key for s in plan.exercises) == registered, chapter
        assert all(s.expression for s in plan.exercises), f"{solution.name} lacks a check call"


def test_chapter_comes_from_metadata_then_title_then_file_name():
    stems = {"00": "00_start_here", "02": "02_four_branches"}
    assert chapter_of("2", "00_start_here", "00", stems) == ("02", "metadata")
    assert chapter_of(None, "alice-02_four_branches", "00", stems) == ("00", "title")  # what it says of itself
    assert chapter_of(None, "alice-02_four_branches", None, stems) == ("02", "file name")
    assert chapter_of(None, "alice_02", None, stems) == ("02", "file name")
    assert chapter_of("99", "alice_2024", "00", stems) == ("00", "title")  # 99 is no chapter; 2024 is no token
    assert chapter_of(None, "homework", None, stems) == (None, "")


def test_a_notebook_of_another_chapter_saved_under_this_chapter_s_name_is_the_wrong_chapter(tmp_path):
    chapter05 = json.loads((ROOT / "exercises" / "05_empty_is_not_an_error.ipynb").read_text())
    chapter05["metadata"].pop("atlas_kit", None)  # no metadata to go by: only its title and its (wrong) name
    (tmp_path / "02_four_branches.ipynb").write_text(json.dumps(chapter05))
    book = grade_class([tmp_path], out=tmp_path / "out", chapter="02", solutions=ROOT / "solutions")
    [row] = book.grades
    assert row.status == "wrong_chapter" and row.chapter == "05", row
    assert any("its file name says chapter 02, its title says chapter 05" in n for n in row.notes), row.notes


def test_learners_are_named_by_metadata_file_or_folder_and_kept_apart(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 02 · Four branches: exercises")])
    for name in ("ann/02_four_branches", "bob/02_four_branches", "cat_02_four_branches", "x/dan", "y/dan"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
    subs = read_submissions(sorted(tmp_path.rglob("*.ipynb")), {"02": "02_four_branches"})
    assert sorted(s.learner for s in subs) == ["ann", "bob", "cat", "dan (x/dan.ipynb)", "dan (y/dan.ipynb)"]
    assert {s.chapter for s in subs} == {"02"}  # dan's from the title


def test_the_kernel_environment_has_no_key_and_a_dead_end_for_the_network():
    base = {"ANTHROPIC_API_KEY": SECRET, "OPENAI_API_KEY": "x" * 20, "GH_TOKEN": "y" * 20, "HOME": "/home/t",
            "NO_PROXY": "*", "ATLAS_MODEL": "claude-sonnet-5-5"}
    with confinement(base, namespace=False, sandbox=False) as confined:
        env = confined.env
        assert env["HOME"] == "/home/t" and env["ATLAS_MODEL"] == "atlas-offline-1"
        assert not {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GH_TOKEN", "NO_PROXY"} & set(env)
        assert SECRET in confined.secrets and confined.isolation == "environment only"
        port = int(env["ANTHROPIC_BASE_URL"].rsplit(":", 1)[1])
        assert {env[v] for v in ("HTTP_PROXY", "https_proxy", "ALL_PROXY")} == {env["ANTHROPIC_BASE_URL"]}
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=2)


def test_the_most_common_wrong_message_is_reported_with_its_count():
    spec = ExerciseSpec("02.1", "Choose the branch", "branches")
    rows = [("a", "wrong", "Failure c is not stop."), ("b", "wrong", "Failure a is not 'x'."),
            ("c", "wrong", "Failure a is not 'y'."), ("d", "wrong", "Failure a is not 'y'."), ("e", "right", "Right."),
            ("f", "blank", BLANK)]
    grades = [Grade(n, f"{n}.ipynb", "02", "ok", {"02.1": ExerciseResult(o, m)}, [], 1) for n, o, m in rows]
    book = Gradebook({"02": ChapterPlan("02", "02_four_branches", (spec,))}, grades, "environment only", 300, 60, 1.0)
    (summary,) = summarize(book)
    # the three "Failure a is not '…'" messages are one form; its commonest wording is shown
    assert (summary.rows, summary.passed, summary.blank, summary.common, summary.common_count) == \
        (6, 1, 1, "Failure a is not 'y'.", 3)
    assert "not fully blocked" in render_html(book)


def test_bad_arguments_get_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["grade", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip().endswith("pass notebooks or folders that hold them.")
    assert main(["grade", str(tmp_path / "empty"), "--chapter", "42"]) == 2
    assert "There is no chapter '42'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["grade", str(tmp_path / "nowhere.ipynb")])
    assert exit_.value.code == 2 and "does not exist" in capsys.readouterr().err


def test_a_grader_failure_is_one_row_and_the_run_goes_on(tmp_path, monkeypatch):
    import atlas_kit.course.grading.classroom as grading

    async def broken(sub, plan, **options):
        raise RuntimeError("the kernel's sockets went away")

    monkeypatch.setattr(grading, "grade_submission", broken)
    (tmp_path / "in").mkdir()
    for name in ("amy", "ben"):
        (tmp_path / "in" / f"{name}_{_plan().stem}.ipynb").write_bytes(chapter_files(CHAPTER)[0].read_bytes())
    book = grading.grade_class([tmp_path / "in"], out=tmp_path / "out", namespace=False, sandbox=False)
    rows = [(g.learner, g.status, g.total) for g in book.grades]
    assert rows == [("amy", "grader_error", 0), ("ben", "grader_error", 0)]
    assert "the kernel's sockets went away" in book.grades[0].notes[-1]
    assert (tmp_path / "out" / "grades.csv").read_text().count("grader_error") == 2


def test_a_notebook_out_of_time_is_killed_and_nothing_is_checked(tmp_path):
    sub = Submission(tmp_path / "slow.ipynb", "slow.ipynb", "slow", CHAPTER,
                     [("x = 1", ()), ("import time\ntime.sleep(60)", ()), ("y = 2", ())])
    plan = ChapterPlan(CHAPTER, "00_x", (ExerciseSpec(f"{CHAPTER}.1", "t", "x"),))
    with confinement() as confined:
        grade = asyncio.run(grade_submission(sub, plan, confined=confined, folder=tmp_path, timeout=3, cell_timeout=60))
    assert grade.status == "killed" and grade.seconds < 30
    assert "used up its 3 s limit in code cell 2 (`import time`)" in grade.notes[-1]
    assert grade.results[f"{CHAPTER}.1"].outcome == "not_graded"


def test_a_mixed_class_gets_a_column_per_exercise_and_blanks_where_a_chapter_does_not_apply(tmp_path):
    from atlas_kit.course.grading.report import write_csv

    plans = {"00": ChapterPlan("00", "00_a", (ExerciseSpec("00.1", "a", "x"),)),
             "02": ChapterPlan("02", "02_b", (ExerciseSpec("02.1", "b", "y"), ExerciseSpec("02.2", "c", "z")))}
    grades = [Grade("ann", "ann.ipynb", "00", "ok", {"00.1": ExerciseResult("right", "Right.")}, [], 1),
              Grade("-bo", "bo.ipynb", "02", "errors", {"02.1": ExerciseResult("wrong", "No."),
                                                        "02.2": ExerciseResult("right", "Right.")}, ["@note"], 2)]
    write_csv(Gradebook(plans, grades, "network namespace", 300, 60, 1.0), tmp_path / "g.csv")
    rows = list(csv.reader((tmp_path / "g.csv").open(encoding="utf-8")))
    assert rows[0] == ["learner", "file", "chapter", "status", "00.1", "02.1", "02.2", "total", "out_of", "notes"]
    assert rows[1] == ["ann", "ann.ipynb", "00", "ok", "1", "", "", "1", "1", ""]
    assert rows[2] == ["'-bo", "bo.ipynb", "02", "errors", "", "0", "1", "1", "2", "'@note"]


def test_a_notebook_with_no_chapter_is_graded_as_the_class_chapter_or_flagged():
    from atlas_kit.course.grading.classroom import _decide

    plans = {"00": ChapterPlan("00", "00_a", (ExerciseSpec("00.1", "a", "x"),))}
    lost, other, none = (Submission(Path(f"{n}.ipynb"), f"{n}.ipynb", n, c, [("x = 1", ())])
                         for n, c in (("lost", None), ("other", "02"), ("none", None)))
    _decide(lost, "00", True, plans)
    _decide(other, "00", True, plans)
    _decide(none, None, False, plans)
    assert (lost.status, lost.chapter) == (None, "00") and "given by --chapter" in lost.notes[-1]
    assert other.status == "wrong_chapter" and "chapter 02's notebook" in other.notes[-1]
    assert none.status == "unknown_chapter" and "pass --chapter NN" in none.notes[-1]
