"""The course's own plumbing: the setup line every chapter prints, and running all chapters offline.

Chapters call `setup()` in their first code cell; `atlas-kit course` calls `run_course()`.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from .models import ModelChoice, choose_model

__all__ = ["chapters", "execute_offline", "run_course", "setup"]

ROOT = Path(__file__).resolve().parent.parent


def setup(*, model: str | None = None, seed: int = 0, **sizes: Any) -> ModelChoice:
    """Choose the model for a chapter and say, in the output, which one runs and with what parameters."""
    choice = choose_model(model, seed=seed)
    print(choice.describe())
    print("Parameters: " + ", ".join(f"{k}={v!r}" for k, v in {"seed": seed, **sizes}.items()))
    return choice


def chapters(folder: Path | None = None) -> list[Path]:
    """The chapter notebooks, in reading order."""
    return sorted((folder or ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))


def execute_offline(path: Path, *, timeout: int = 300) -> tuple[Any, float]:
    """Run one notebook top to bottom from its own folder with no API key; (notebook, seconds)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    key = os.environ.pop("ANTHROPIC_API_KEY", None)  # an offline run: the kernel must not see a key
    try:
        start = time.perf_counter()
        NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
        return nb, time.perf_counter() - start
    finally:
        if key is not None:
            os.environ["ANTHROPIC_API_KEY"] = key


def run_course(out: Path, *, folder: Path | None = None, timeout: int = 300) -> list[tuple[str, float]]:
    """Execute every chapter offline into `out` (the stored notebooks are left untouched)."""
    import nbformat

    found = chapters(folder)
    if not found:
        raise FileNotFoundError(f"No chapter notebooks found in {folder or ROOT / 'chapters'}; run from a checkout of the repo.")
    out.mkdir(parents=True, exist_ok=True)
    timings = []
    for path in found:
        nb, seconds = execute_offline(path, timeout=timeout)
        nbformat.write(nb, out / path.name)
        timings.append((path.name, seconds))
        print(f"ran {path.name} in {seconds:.1f} s")
    return timings
