"""Charts of transcripts (atlas_kit.transcripts): success with and without a tool error, the next action after an
error, and the top error groups. Each draws on `ax` (a new figure when None), names its data's source in the
title, says it is observational, and returns the Axes; `save_transcript_charts` writes PNGs. Chapter "Errors in
the wild"; the conventions are charts.py's.
"""
from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .charts import _axes, _bars, _empty, _legend_outside
from ..transcripts.report import ACTION_LABELS, source_line
from ..transcripts.analysis import ErrorEvent, error_events, next_action_counts
from ..transcripts.groups import ErrorGroup, error_groups
from ..transcripts.rates import Recovery, recovery
from ..transcripts.model import Transcripts
from ..transcripts.labels import p_text


def _title(ax: Axes, title: str, source: str) -> None:
    wrapped = "\n".join(textwrap.wrap(f"Data: {source}", 90, break_long_words=False))
    ax.set_title(f"{title}\n{wrapped}", fontsize=9)


def recovery_chart(rec: Recovery, *, source: str, ax: Axes | None = None) -> Axes:
    """Correct among episodes a tool error reached (recovery) and among the others, Wilson 95% intervals, with
    Fisher's two-sided p in the title; episodes with an unknown outcome are left out and counted there."""
    ax = _axes(ax)
    note = f"difference {rec.difference * 100:+.0f} points, Fisher {p_text(rec.p_value)}" if rec.hit and \
        rec.without_error.n else "nothing to compare"
    _title(ax, f"Success with and without a tool error ({note}; {rec.unknown} unknown left out)", source)
    if not rec.episodes:
        return _empty(ax, "episodes")
    _bars(ax, [0], [rec.with_error], 0.6, "#b2182b", "a tool error reached the model")
    _bars(ax, [1], [rec.without_error], 0.6, "#2166ac", "no tool error")
    ax.set_xticks([0, 1], ["error reached the model", "no error"])
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("correct (95% Wilson interval)")
    _legend_outside(ax, title="episodes")
    return ax


def next_action_chart(events: Sequence[ErrorEvent], *, source: str, skip: Sequence[str] = (),
                      ax: Axes | None = None) -> Axes:
    """How many errors each next action followed (analysis.next_action defines them), as horizontal bars; `skip`
    names the tools the events were computed passing over, for the title."""
    ax = _axes(ax, (7.5, 3.6))
    passed = f" (calls to {', '.join(sorted(skip))} passed over)" if skip else ""
    _title(ax, f"What the model did next after each of {len(events)} tool errors{passed}", source)
    if not events:
        return _empty(ax, "tool errors")
    counts = next_action_counts(events)
    ax.barh(range(len(counts)), [c.count for c in counts], color="#4d4d4d")
    for y, c in enumerate(counts):
        ax.annotate(f"{c.count} ({c.share:.0%})", (c.count, y), xytext=(3, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.set_yticks(range(len(counts)), [ACTION_LABELS[c.action] for c in counts], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max(c.count for c in counts) * 1.25 + 1)
    ax.set_xlabel("tool errors")
    return ax


def error_groups_chart(groups: Sequence[ErrorGroup], *, source: str, top: int = 8, ax: Axes | None = None) -> Axes:
    """The `top` error groups (masked text, wrapped between words): errors per group, with the group's recovery
    (correct among the episodes it reached) beside each bar."""
    ax = _axes(ax, (8.0, 4.4))
    shown = list(groups[:top])
    _title(ax, f"Top error groups ({len(shown)} of {len(groups)}; ids and numbers masked)", source)
    if not shown:
        return _empty(ax, "tool errors")
    ax.barh(range(len(shown)), [g.errors for g in shown], color="#8c510a")
    for y, g in enumerate(shown):
        rate = f"{g.recovery.successes}/{g.recovery.n} episodes correct" if g.recovery.n else "outcomes unknown"
        ax.annotate(f"{g.errors} ({rate})", (g.errors, y), xytext=(3, 0), textcoords="offset points", va="center",
                    fontsize=7)
    ax.set_yticks(range(len(shown)), ["\n".join(textwrap.wrap(g.masked, 42, break_long_words=False)) for g in shown],
                  fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, max(g.errors for g in shown) * 1.6 + 1)
    ax.set_xlabel("tool errors")
    return ax


TRANSCRIPT_CHARTS = ("recovery", "next_action", "error_groups")


def save_transcript_charts(transcripts: Transcripts, out_dir: str | os.PathLike[str], *, prefix: str = "transcripts_",
                           skip: Sequence[str] = ()) -> list[Path]:
    """Draw the three charts and write each as `<out_dir>/<prefix><name>.png` (TRANSCRIPT_CHARTS); returns the paths.
    `skip` names tools that are not actions when finding the next one (analysis.next_action)."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    source = source_line(transcripts, names_only=True)
    events = error_events(transcripts.episodes, skip=skip)
    paths = []
    for name in TRANSCRIPT_CHARTS:
        fig = Figure(figsize=(8.0, 4.4))
        ax = fig.add_subplot()
        if name == "recovery":
            recovery_chart(recovery(transcripts.episodes), source=source, ax=ax)
        elif name == "next_action":
            next_action_chart(events, source=source, skip=skip, ax=ax)
        else:
            error_groups_chart(error_groups(events), source=source, ax=ax)
        fig.tight_layout()
        path = folder / f"{prefix}{name}.png"
        fig.savefig(path, dpi=100, metadata={"Software": None}, bbox_inches="tight")  # same input, same bytes
        paths.append(path)
    return paths
