"""Chapters 08 on under papermill with other parameters, on a local model (tests/notebook_runs.py says how)."""
from __future__ import annotations

import pytest
from notebook_runs import CHAPTERS, ollama, run_with_other_parameters  # noqa: F401 (ollama: a fixture)

LATER = [p for p in CHAPTERS if p.name[:2] >= "08"]


@pytest.mark.parametrize("path", LATER, ids=[p.stem for p in LATER])
def test_chapter_runs_with_other_parameters(path, tmp_path, monkeypatch, kernel_name, ollama):  # noqa: F811
    run_with_other_parameters(path, tmp_path, monkeypatch, kernel_name, ollama)
