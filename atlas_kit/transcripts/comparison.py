"""Several models, or several trials, read at once, as table rows: each model's recovery beside its success without
errors, recovery paired by task across models, what each model did next after its errors (and after each common
error text), and pass^k over a task's trials. Rows only: report.py prints them in the dashboard, a chapter shows them with face/tables.Table; the figures
are rates.py's and analysis.py's. Observational like every transcript figure. Chapters 01, 11 and "Errors in the
wild".
"""
from __future__ import annotations

import math
from typing import Sequence

from ..types import TableRows
from .analysis import ErrorEvent, ModelActions, NextAction, next_action_counts
from .groups import ErrorGroup
from .labels import model_name, p_text, percent
from .rates import ModelRecovery, PairedRecovery, PassK

__all__ = ["SHORT_ACTIONS", "group_action_rows", "model_action_rows", "model_rows", "paired_rows", "pass_k_rows"]

SHORT_ACTIONS: dict[NextAction, str] = {"identical_retry": "identical retry", "changed_arguments": "changed arguments",
                                        "other_tool": "another tool", "reply": "replied", "end": "ended"}
"""Next actions as column heads (report.ACTION_LABELS says each in full)."""


def model_rows(rows: Sequence[ModelRecovery], *, caption: str) -> TableRows:
    """Per model: episodes, tool errors, episodes an error reached, recovery and success without errors (Wilson 95%
    intervals), and the difference with Fisher's exact test. Models as the data names them (labels.model_name)."""
    def difference(r: ModelRecovery) -> str:
        d = r.recovery.difference
        return "n/a" if math.isnan(d) else f"{d * 100:+.0f} points, {p_text(r.recovery.p_value)}"
    return TableRows(["model", "episodes", "tool errors", "episodes with an error", "recovery: correct | an error",
                      "success without errors", "difference"],
                     [[model_name(r.model), r.recovery.episodes, r.errors, r.recovery.hit, str(r.recovery.with_error),
                       str(r.recovery.without_error), difference(r)] for r in rows], caption)


def paired_rows(rows: Sequence[PairedRecovery], *, caption: str) -> TableRows:
    """Per model, on the tasks where it met an error: its recovery, the other models' success on the same tasks,
    and theirs where no error reached them (rates.PairedRecovery)."""
    return TableRows(["model", "tasks it met an error on", "it, after its errors", "other models, same tasks",
                      "other models, same tasks, no error"],
                     [[model_name(r.model), r.tasks, str(r.recovery), str(r.others), str(r.others_clean)]
                      for r in rows], caption)


def model_action_rows(rows: Sequence[ModelActions], *, caption: str) -> TableRows:
    """Per model: its tool errors and how many of them each next action followed, with its share of them."""
    actions = [c.action for c in rows[0].counts] if rows else list(SHORT_ACTIONS)
    return TableRows(["model", "errors", *(SHORT_ACTIONS[a] for a in actions)],
                     [[model_name(r.model), r.errors,
                       *(f"{r.count(a).count} ({percent(r.count(a).share)})" for a in actions)] for r in rows],
                     caption)


def pass_k_rows(rows: Sequence[PassK], *, caption: str) -> TableRows:
    """pass^k for each k: the chance that k trials of a task all succeed, averaged over the tasks with k trials."""
    return TableRows(["k", "pass^k", "tasks with k trials or more"],
                     [[r.k, "n/a" if math.isnan(r.value) else f"{r.value:.3f}", r.tasks] for r in rows], caption)


def group_action_rows(groups: Sequence[ErrorGroup], events: Sequence[ErrorEvent], *, caption: str,
                      top: int = 6) -> TableRows:
    """The `top` error groups, each as one real text the model read (groups.ErrorGroup.example, redacted), how
    many errors and models it reached, and how many of its errors each next action followed."""
    rows: list[list[object]] = []
    for g in groups[:top]:
        mine = [e for e in events if e.masked == g.masked]
        counts = next_action_counts(mine)
        rows.append([g.example, g.errors, len({e.model for e in mine}), *(c.count for c in counts)])
    actions = [c.action for c in next_action_counts([])]
    return TableRows(["an error text as a model read it", "errors", "models", *(SHORT_ACTIONS[a] for a in actions)],
                     rows, caption)
