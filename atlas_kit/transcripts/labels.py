"""How every transcript output names what it shows: a model (the data's own name, or MODEL_UNKNOWN, never a guess
from a file's name), a p-value ('p < 0.001', never 'p = 0.000') and a share. Text only; report.py, comparison.py
and transcript_charts.py use it. Chapter "Errors in the wild".
"""
from __future__ import annotations

import math

MODEL_UNKNOWN = "model unknown"
"""How outputs name the model of episodes whose data names none."""


def model_name(model: str | None) -> str:
    """A model as outputs name it: the data's own name, or MODEL_UNKNOWN."""
    return model or MODEL_UNKNOWN


def p_text(p: float) -> str:
    """'p = 0.025', or 'p < 0.001' below that (never 'p = 0.000'); 'p n/a' when there is no test (nan)."""
    if math.isnan(p):
        return "p n/a"
    return f"p = {p:.3f}" if p >= 0.001 else "p < 0.001"


def percent(x: float) -> str:
    """A share as a whole percentage, or 'n/a' (nan: nothing to divide)."""
    return "n/a" if math.isnan(x) else f"{x:.0%}"
