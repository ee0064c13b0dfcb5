"""A small table that renders as HTML in Jupyter and as aligned text elsewhere.

The chapters show before-and-after comparisons and sweep summaries with it; no
pandas needed. Its text form is what nbval compares, so figures in it are checked.
"""
from __future__ import annotations

from html import escape
from typing import Any, Sequence

__all__ = ["Table"]


class Table:
    """Rows of cells under named columns, with an optional caption (say, where the data came from)."""

    def __init__(self, rows: Sequence[Sequence[Any]], columns: Sequence[str], *, caption: str = "") -> None:
        self.columns = [str(c) for c in columns]
        self.rows = [[_cell(v) for v in row] for row in rows]
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"Table row {i} has {len(row)} cells for {len(self.columns)} columns; make them match.")
        self.caption = caption

    def __repr__(self) -> str:
        widths = [max([len(c)] + [len(r[i]) for r in self.rows]) for i, c in enumerate(self.columns)]
        line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
        out = [line(self.columns), line(["-" * w for w in widths])] + [line(r) for r in self.rows]
        return "\n".join(([self.caption] if self.caption else []) + out)

    def _repr_html_(self) -> str:
        head = "".join(f"<th style='text-align:left'>{escape(c)}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td style='text-align:left'>{escape(v)}</td>" for v in r) + "</tr>" for r in self.rows)
        caption = f"<caption style='caption-side:bottom;text-align:left'>{escape(self.caption)}</caption>" if self.caption else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)
