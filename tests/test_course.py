from __future__ import annotations

import nbformat
import pytest

from atlas_kit import course


def test_setup_prints_the_model_and_the_parameters(capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    choice = course.setup(model=None, seed=3, trials=2)
    out = capsys.readouterr().out
    assert choice.mode == "offline" and "simulated" in out and "Parameters: seed=3, trials=2" in out


def test_run_course_executes_each_chapter_into_out(tmp_path):
    src = tmp_path / "chapters"
    src.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    nbformat.write(nb, src / "00_tiny.ipynb")
    nbformat.write(nb, src / "notes.ipynb")  # not a chapter: no NN_ prefix
    timings = course.run_course(tmp_path / "out", folder=src)
    assert [name for name, _ in timings] == ["00_tiny.ipynb"]
    ran = nbformat.read(tmp_path / "out" / "00_tiny.ipynb", as_version=4)
    assert ran.cells[0].outputs[0]["text"] == "42\n"
    assert not (src / "00_tiny.ipynb").read_text().count('"42')  # the stored notebook is untouched


def test_no_chapters_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(FileNotFoundError, match="No chapter notebooks"):
        course.run_course(tmp_path / "out", folder=tmp_path)
    assert course.chapters(tmp_path) == []
