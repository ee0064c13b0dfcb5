"""Charts of experiment records: recovery by style and by code, failure modes, context, the loop breaker.

Each function takes records (see results.py), draws on `ax` (a new figure when None) and returns
the Axes; none calls plt.show(). Every title names where the data came from, says "mixed"
when sources are mixed, and says when the stand-in's assumed rates set the result (issue 50).
`save_charts` writes them all as PNG. Chapters 07 and 11.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..dispatch.styles import STYLES
from ..stats import Rate
from ..experiments.captions import simulated_note
from ..experiments.metrics import api_failures, failure_modes as _failure_modes, groups, per_ticket, recovery, usable
from ..experiments.results import source_label
from ..types.records import Record

_ORDER = tuple(STYLES)  # the registry's order: the contract last
_COLOURS = {"raw": "#b2182b", "generic": "#ef8a62", "plain": "#67a9cf", "contract": "#2166ac"}
_MORE = ("#4d9221", "#762a83", "#8c510a", "#01665e", "#c51b7d")


def _axes(ax: Axes | None, size: tuple[float, float] = (6.4, 4.0)) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt  # only when we make the figure: save_charts never touches pyplot

    return plt.subplots(figsize=size)[1]


def _title(ax: Axes, title: str, records: Sequence[Record], *, split: str = "") -> None:
    """Title, then the data's source, then any condition the chart pools over without saying so."""
    names = {"faults": "faults", "break_loops": "loop breaker", "profile": "profile", "model": "model"}
    pooled = [f"{names[f]} {'/'.join(sorted(_show(v) for v in values))}"
              for f in names if f != split and len(values := {r.get(f) for r in records}) > 1]
    tail = f"; pooled over {', '.join(pooled)}" if pooled else ""
    failed = api_failures(records)  # no model answered these: said apart, never drawn as model failures
    if failed:
        tail += (f"\nleft out: {sum(failed.values())} episode(s) failed at the API ("
                 + ", ".join(f"{reason} {n}" for reason, n in failed.items()) + ")")
    if note := simulated_note(records):  # the stand-in's rules and rates decide who recovers: say so on the chart
        tail += f"\n{note}"
    ax.set_title(f"{title}\nData: {source_label(records)}{tail}", fontsize=10)


def _show(value: object) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def _styles(records: Sequence[Record]) -> list[str]:
    present = {r["style"] for r in records}
    return [s for s in _ORDER if s in present] + sorted(present - set(_ORDER))


def _colour(style: str, i: int) -> str:
    return _COLOURS.get(style, _MORE[i % len(_MORE)])


def _bars(ax: Axes, x: list[float], rates: list[Rate], width: float, colour: str, label: str) -> None:
    """Bars at the observed rates, with Wilson 95% intervals as error bars and n under each bar's top."""
    heights = [r.rate if r.n else 0.0 for r in rates]
    low = [h - r.interval[0] if r.n else 0.0 for h, r in zip(heights, rates)]
    high = [r.interval[1] - h if r.n else 0.0 for h, r in zip(heights, rates)]
    ax.bar(x, heights, width, color=colour, label=label, yerr=[low, high], capsize=3, ecolor="#333333")
    for xi, h, r in zip(x, heights, rates):
        ax.annotate(f"{r.successes}/{r.n}" if r.n else "no data", (xi, h), xytext=(0, 2), textcoords="offset points",
                    ha="center", va="bottom", fontsize=7)


def _legend_outside(ax: Axes, *, title: str) -> None:
    """The legend to the right of the plot, where it cannot cover a bar, an interval or a count."""
    ax.legend(title=title, fontsize=8, title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)


def _empty(ax: Axes, what: str) -> Axes:
    ax.text(0.5, 0.5, f"No {what} in these records.", ha="center", va="center", transform=ax.transAxes)
    return ax


def recovery_by_style(records: Sequence[Record], *, ax: Axes | None = None) -> Axes:
    """Recovery, P(correct | a tool error reached the model), per error style, with Wilson 95% intervals."""
    ax = _axes(ax)
    _title(ax, "Recovery after a tool error, by error style", records)
    styles = _styles(usable(records))
    if not styles:
        return _empty(ax, "episodes")
    by = groups(records, "style")
    for i, s in enumerate(styles):
        _bars(ax, [i], [recovery(by[s])], 0.6, _colour(s, i), s)
    ax.set_xticks(range(len(styles)), styles)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("recovery rate (95% Wilson interval)")
    return ax


def recovery_by_code(records: Sequence[Record], *, ax: Axes | None = None) -> Axes:
    """Recovery per error code the episode hit, one bar per style; an episode counts under each code it hit."""
    ax = _axes(ax, (8.0, 4.2))
    _title(ax, "Recovery by error code and style", records)
    codes = sorted({c for r in usable(records) for c in r["error_codes"]})
    if not codes:
        return _empty(ax, "tool errors")
    styles = _styles(usable(records))
    width = 0.8 / len(styles)
    by_style = groups(records, "style")
    for i, s in enumerate(styles):
        by_code = groups(by_style[s], "error_codes")
        rates = [recovery(by_code.get(c, [])) for c in codes]
        _bars(ax, [k + (i - (len(styles) - 1) / 2) * width for k in range(len(codes))], rates, width, _colour(s, i), s)
    ax.set_xticks(range(len(codes)), codes, rotation=15)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("recovery rate (95% Wilson interval)")
    _legend_outside(ax, title="style")
    return ax


def failure_modes(records: Sequence[Record], *, ax: Axes | None = None) -> Axes:
    """The grader's failure labels per style, stacked: the share of episodes carrying each label."""
    ax = _axes(ax)
    _title(ax, "Failure modes by error style", records)
    styles = _styles(usable(records))
    by = groups(records, "style")
    modes = {s: _failure_modes(by[s]) for s in styles}
    every = dict.fromkeys(label for s in styles for label in modes[s])  # the grader's order, then any others
    labels = [label for label in every if any(modes[s].get(label, Rate(0, 1)).successes for s in styles)]
    if not labels:
        return _empty(ax, "failure labels")
    bottom = [0.0] * len(styles)
    for j, label in enumerate(labels):
        heights = [modes[s].get(label, Rate(0, 1)).rate for s in styles]
        ax.bar(range(len(styles)), heights, 0.6, bottom=bottom, label=label, color=f"C{j}")
        bottom = [b + h for b, h in zip(bottom, heights)]
    ax.set_xticks(range(len(styles)), styles)
    ax.set_ylabel("labels per episode (an episode may carry several)")
    _legend_outside(ax, title="label")
    return ax


def context_tokens(records: Sequence[Record], *, ax: Axes | None = None,
                   styles: Sequence[str] = ("raw", "contract")) -> Axes:
    """Context tokens (input tokens summed over the episode's requests) per ticket, mean per episode, by style."""
    ax = _axes(ax, (10.0, 4.0))
    _title(ax, f"Context tokens per ticket: {' vs '.join(styles)}", records)
    chosen = [s for s in styles if any(r["style"] == s for r in usable(records))]
    if not chosen:
        return _empty(ax, f"episodes in styles {', '.join(styles)}")
    by = groups(records, "style")
    uses = {s: per_ticket(by[s]) for s in chosen}
    tickets = sorted({t for u in uses.values() for t in u})
    width = 0.8 / len(chosen)
    for i, s in enumerate(chosen):
        x = [k + (i - (len(chosen) - 1) / 2) * width for k in range(len(tickets))]
        ax.bar(x, [uses[s][t].input_tokens if t in uses[s] else 0 for t in tickets], width, label=s,
               color=_colour(s, i))
    ax.set_xticks(range(len(tickets)), tickets, rotation=90, fontsize=7)
    ax.set_ylabel("input tokens per episode (mean)")
    _legend_outside(ax, title="style")
    return ax


def loop_breaker(records: Sequence[Record], *, ax: Axes | None = None) -> Axes:
    """Tool calls (left axis) and context tokens (right axis) per episode, with and without the loop breaker."""
    ax = _axes(ax)
    _title(ax, "The loop breaker's effect (mean per episode)", records, split="break_loops")
    arms = groups(usable(records), "break_loops")
    if not arms:
        return _empty(ax, "episodes")
    if len(arms) == 1:  # a note in the title, where it cannot sit on a bar or under the legend
        ax.set_title(f"{ax.get_title()}\nOnly runs with the loop breaker {'on' if True in arms else 'off'}: "
                     "nothing to compare.", fontsize=10)
    right = ax.twinx()
    width = 0.8 / len(arms)
    for i, (on, rs) in enumerate(sorted(arms.items(), key=lambda kv: not kv[0])):
        offset = (i - (len(arms) - 1) / 2) * width
        colour = "#2166ac" if on else "#b2182b"
        name = f"loop breaker {'on' if on else 'off'} (n={len(rs)})"
        ax.bar([offset], [sum(r["tool_calls"] for r in rs) / len(rs)], width, color=colour, label=name)
        right.bar([1 + offset], [sum(r["input_tokens"] for r in rs) / len(rs)], width, color=colour, hatch="//")
    ax.set_xticks([0, 1], ["tool calls (left axis)", "context tokens (right axis)"])
    ax.set_ylabel("tool calls per episode")
    right.set_ylabel("input tokens per episode")
    # Below the tick labels: the right-hand axis leaves no room beside the plot, and inside it would cover bars.
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
    return ax


CHARTS: dict[str, Callable[..., Axes]] = {
    "recovery_by_style": recovery_by_style,
    "recovery_by_code": recovery_by_code,
    "failure_modes": failure_modes,
    "context_tokens": context_tokens,
    "loop_breaker": loop_breaker,
}


def save_charts(records: Sequence[Record], out_dir: str | os.PathLike[str], *,
                prefix: str = "") -> list[Path]:
    """Draw every chart in CHARTS and write each as `<out_dir>/<prefix><name>.png`; returns the paths."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, draw in CHARTS.items():
        fig = Figure(figsize=(10.0, 4.2) if name == "context_tokens" else (7.0, 4.4))
        draw(records, ax=fig.add_subplot())
        fig.tight_layout()
        path = folder / f"{prefix}{name}.png"
        # No Software or date entries, so the same records always give the same bytes; a tight box keeps
        # a legend placed beside or below the plot inside the image.
        fig.savefig(path, dpi=100, metadata={"Software": None}, bbox_inches="tight")
        paths.append(path)
    return paths
