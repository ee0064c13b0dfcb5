"""Charts of several models read at once from transcripts: each model's recovery beside its success without errors,
with Wilson 95% intervals, and what each model did next after its errors, as shares. The figures are
transcripts/rates.py's and analysis.py's; every title names the data and says it is observational. Chapters 01
and 11.
"""
from __future__ import annotations

from typing import Sequence

from matplotlib.axes import Axes

from .charts import _axes, _empty, _legend_outside
from .transcript_charts import _title
from ..experiments.metrics import Rate
from ..transcripts.analysis import NEXT_ACTIONS, ModelActions
from ..transcripts.comparison import SHORT_ACTIONS
from ..transcripts.labels import model_name
from ..transcripts.rates import ModelRecovery

__all__ = ["model_actions_chart", "model_recovery_chart"]

_ACTION_COLOURS = {"identical_retry": "#b2182b", "changed_arguments": "#2166ac", "other_tool": "#67a9cf",
                   "reply": "#f4a582", "end": "#bababa"}


def _point(ax: Axes, y: float, rate: Rate, colour: str, label: str | None) -> None:
    if not rate.n:
        return
    low, high = rate.interval
    ax.errorbar([rate.rate], [y], xerr=[[rate.rate - low], [high - rate.rate]], fmt="o", color=colour, capsize=2,
                markersize=4, label=label)


def model_recovery_chart(rows: Sequence[ModelRecovery], *, source: str, ax: Axes | None = None) -> Axes:
    """One line per model: recovery (correct among its episodes an error reached) and success without errors, each
    with its Wilson 95% interval; the count of episodes with an error beside the model's name."""
    ax = _axes(ax, (7.5, 0.32 * len(rows) + 1.6))
    _title(ax, "Correct after a tool error (recovery) and without one, per model, Wilson 95% intervals", source)
    if not rows:
        return _empty(ax, "models")
    for y, r in enumerate(rows):
        _point(ax, y - 0.15, r.recovery.with_error, "#b2182b", "an error reached the model" if y == 0 else None)
        _point(ax, y + 0.15, r.recovery.without_error, "#2166ac", "no error" if y == 0 else None)
    ax.set_yticks(range(len(rows)), [f"{model_name(r.model)} (n = {r.recovery.with_error.n})" for r in rows],
                  fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("correct (recovery: n = episodes an error reached)")
    _legend_outside(ax, title="episodes")
    return ax


def model_actions_chart(rows: Sequence[ModelActions], *, source: str, ax: Axes | None = None) -> Axes:
    """One stacked bar per model: the shares of its tool errors that each next action followed, its count of errors
    beside its name."""
    ax = _axes(ax, (7.5, 0.32 * len(rows) + 1.6))
    total = sum(r.errors for r in rows)
    _title(ax, f"What each model did next after its {total} tool errors (shares of its own errors)", source)
    if not rows:
        return _empty(ax, "tool errors")
    left = [0.0] * len(rows)
    for action in NEXT_ACTIONS:
        shares = [r.count(action).share if r.errors else 0.0 for r in rows]
        ax.barh(range(len(rows)), shares, left=left, color=_ACTION_COLOURS[action], label=SHORT_ACTIONS[action])
        left = [a + b for a, b in zip(left, shares)]
    ax.set_yticks(range(len(rows)), [f"{model_name(r.model)} ({r.errors})" for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the model's tool errors")
    _legend_outside(ax, title="next action")
    return ax
