from __future__ import annotations

import nbformat
import pytest

from atlas_kit.course import runner as course


def test_setup_prints_the_model_and_the_parameters(capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    choice = course.setup(model=None, seed=3, trials=2)
    out = capsys.readouterr().out
    assert choice.mode == "offline" and "simulated" in out and "Parameters: seed=3, trials=2" in out


STAMP = "import os, time\nstart = time.time()\ntime.sleep(2)\nprint(start, time.time(), 'ANTHROPIC_API_KEY' in os.environ)"


def test_run_course_executes_each_chapter_into_out_side_by_side_in_reading_order(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "not-a-real-key")
    src = tmp_path / "chapters"
    src.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(STAMP)])
    for name in ("01_second.ipynb", "00_first.ipynb", "notes.ipynb"):  # notes: not a chapter, no NN_ prefix
        nbformat.write(nb, src / name)
    timings = course.run_course(tmp_path / "out", folder=src, jobs=2)
    assert [name for name, _ in timings] == ["00_first.ipynb", "01_second.ipynb"]
    assert capsys.readouterr().out.splitlines()[0].startswith("ran 00_first.ipynb in ")
    spans = []
    for name, _ in timings:
        start, end, key_seen = nbformat.read(tmp_path / "out" / name, as_version=4).cells[0].outputs[0]["text"].split()
        assert key_seen == "False", "an offline run's kernel must not see the key"
        spans.append((float(start), float(end)))
    (a_start, a_end), (b_start, b_end) = spans
    assert a_start < b_end and b_start < a_end, "the two chapters' kernels should have run at the same time"
    assert not (tmp_path / "out" / "notes.ipynb").exists() and not (src / "00_first.ipynb").read_text().count("False")
    assert course.os.environ["ANTHROPIC_API_KEY"] == "not-a-real-key"  # back after the run


def test_no_chapters_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(FileNotFoundError, match="No chapter notebooks"):
        course.run_course(tmp_path / "out", folder=tmp_path)
    assert course.chapters(tmp_path) == []
