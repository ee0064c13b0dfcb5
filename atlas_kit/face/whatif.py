"""The what-if simulator shown: each style's simulated recovery beside the rate that set it, as a table and as a
chart whose title says the result is set by the assumed rates. The rates and the draws are
models/standin/whatif.py's. Chapters 01 and 11.
"""
from __future__ import annotations

from typing import Sequence

from matplotlib.axes import Axes

from .charts import _axes, _bars, _colour, _legend_outside
from ..experiments.metrics import Rate
from ..models.standin.whatif import SET_BY, Followed, WhatIf
from ..types import STYLE_NAMES, StyleName, TableRows

__all__ = ["followed_rates", "what_if_chart", "what_if_rows"]


def followed_rates(episodes: Sequence[Followed]) -> dict[StyleName, Rate]:
    """Per style, in the registry's order: the episodes that followed, out of that style's episodes."""
    return {s: Rate(sum(e.followed for e in episodes if e.style == s), sum(e.style == s for e in episodes))
            for s in STYLE_NAMES if any(e.style == s for e in episodes)}


def what_if_rows(episodes: Sequence[Followed], whatif: WhatIf) -> TableRows:
    """Per style: the rate set, where it comes from, and the simulated recovery with its Wilson 95% interval."""
    return TableRows(["style", "rate set", "where it comes from", "simulated recovery [95% CI]"],
                     [[s, f"{whatif.rate(s).value:.2f}", whatif.rate(s).basis, str(r)]
                      for s, r in followed_rates(episodes).items()],
                     f"What-if ({len(episodes)} episodes), {SET_BY}, not by any model. No finding.")


def what_if_chart(episodes: Sequence[Followed], whatif: WhatIf, *, ax: Axes | None = None) -> Axes:
    """Each style's simulated recovery (bars, Wilson 95% intervals) and the rate that set it (a black tick)."""
    ax = _axes(ax)
    rates = followed_rates(episodes)
    for i, (s, r) in enumerate(rates.items()):
        _bars(ax, [i], [r], 0.6, _colour(s, i), s)
        ax.plot([i - 0.3, i + 0.3], [whatif.rate(s).value] * 2, color="black", linewidth=2,
                label="the rate set" if i == 0 else None)
    ax.set_xticks(range(len(rates)), list(rates))
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("simulated recovery (95% Wilson interval)")
    ax.set_title(f"What-if: recovery if a model followed each wording at the rate set\n{SET_BY}, not by any "
                 f"model ({len(episodes)} simulated episodes)", fontsize=10)
    _legend_outside(ax, title="")
    return ax
