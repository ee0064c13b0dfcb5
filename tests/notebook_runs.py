"""Shared by tests/test_notebooks*.py (two files, so that the suite runs them on two workers): every chapter runs under papermill with parameters other than its stored ones, on a local model.

nbval (`--nbval` over chapters/) checks the stored outputs offline; this checks that the parameters cell really
drives the chapter (another seed, another sweep size) and that every chapter runs end to end with
`model = "ollama:qwen3:4b"`, against a fake of Ollama's Anthropic layer (tests/fakes; the stand-in answers behind
it, reading the text alone, since Ollama drops `is_error`). Its outputs are labelled local, never simulated.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import OllamaFake

papermill = pytest.importorskip("papermill")
LOCAL = "ollama:qwen3:4b"

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
DEFAULT_ALT = {"seed": 7}
# Chapters whose parameters include more than model and seed get a second value for those too: a smaller sweep,
# since every episode here crosses HTTP to the fake (about 36 ms of CPU each, against a few in process).
ALT = {
    "01_an_error_is_a_prompt": {"seed": 7, "trials": 1, "max_tokens": 512},
    "04_atlas_before_and_after": {"seed": 7, "trials": 2},
    "06_terminality_and_loops": {"seed": 7, "max_steps": 4, "trials": 1},
    "07_errors_stay_in_context": {"seed": 7, "trials": 1},
    "11_measuring_recovery": {"seed": 7, "trials": 1, "styles": ["raw", "contract"]},
    "14_implicit_failures": {"seed": 7, "trials": 1, "styles": ["raw", "contract"]},
    "15_a_real_model_through_mcp": {"seed": 7, "ticket": "T07", "tickets": ["T07", "T21"]},
    "16_errors_in_the_wild": {"seed": 7, "tickets": ["T04", "T19"], "top": 3},
}


def _parameters(nb: dict) -> dict:
    for cell in nb["cells"]:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            scope: dict = {}
            exec("".join(cell["source"]), {}, scope)  # noqa: S102 - our own parameters cell
            return scope
    raise AssertionError("no cell tagged 'parameters'")


@pytest.fixture(scope="module")
def ollama():
    """One fake Ollama for the module's chapters, with the window a laptop would be told to set (16,384)."""
    with OllamaFake(models=["qwen3:4b"], num_ctx=16384, parallel=2) as fake:
        yield fake


def run_with_other_parameters(path, tmp_path, monkeypatch, kernel_name, ollama) -> None:
    """Run one chapter with its alternative parameters on the local model, and check what it says it ran."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ATLAS_BASE_URL", ollama.base_url)
    nb = json.loads(path.read_text())
    stored = _parameters(nb)
    assert {"model", "seed"} <= set(stored), f"{path.name}: the parameters cell needs at least model and seed"
    alt = {k: v for k, v in ALT.get(path.stem, DEFAULT_ALT).items() if k in stored}
    assert alt and any(stored[k] != v for k, v in alt.items())
    alt["model"] = LOCAL
    out = tmp_path / path.name
    papermill.execute_notebook(str(path), str(out), parameters=alt, cwd=str(path.parent), kernel_name=kernel_name,
                               progress_bar=False, engine_name="atlas",  # atlas: no plain-TCP kernel warning
                               request_save_on_cell_execute=False)  # written once at the end, not twice a cell
    ran = json.loads(out.read_text())
    text = json.dumps([c.get("outputs", []) for c in ran["cells"]])
    assert f"seed={alt['seed']}" in text, "the setup cell should print the parameters it ran with"
    assert "live (local: qwen3:4b via Ollama" in text, "a local run must say where its results came from"
    # A sweep handed the model's bare name ('qwen3:4b') instead of its spelling reads it as a Claude name and falls
    # back to the stand-in with this note. (Chapter 00 asks for Claude with no key on purpose, to show the note.)
    bare = LOCAL.split(":", 1)[1]
    assert f"the offline stand-in answers instead of {bare}" not in text, "a cell dropped the local model for the stand-in"
