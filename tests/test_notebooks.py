"""Chapters 00 to 07 under papermill with other parameters, on a local model (tests/notebook_runs.py says how)."""
from __future__ import annotations

import pytest
from notebook_runs import CHAPTERS, ollama, run_with_other_parameters  # noqa: F401 (ollama: a fixture)

FIRST = [p for p in CHAPTERS if p.name[:2] < "08"]


def test_there_are_chapters():
    assert CHAPTERS and FIRST, "chapters/ holds no notebooks"


@pytest.mark.parametrize("path", FIRST, ids=[p.stem for p in FIRST])
def test_chapter_runs_with_other_parameters(path, tmp_path, monkeypatch, kernel_name, ollama):  # noqa: F811
    run_with_other_parameters(path, tmp_path, monkeypatch, kernel_name, ollama)
