"""A small table that renders as HTML in Jupyter and as aligned text elsewhere, and the course's tables.

The chapters show before-and-after comparisons and sweep summaries with it; no pandas needed.
Its text form is what nbval compares, so figures in it are checked. A cell is never cut inside a
word or a number: long text is shortened at a space (`clip`), and floats keep every digit.
metrics.py, stats.py and implicit.py compute the rows; `recovery_table`, `paired_table` and `cell_table` show them.
"""
from __future__ import annotations

import math
import re
from html import escape
from typing import Iterable, Mapping, Sequence

from ..experiments.implicit import cell_rows
from ..experiments.metrics import recovery_rows
from ..experiments.stats import paired_rows
from ..types.records import Record, TableRows
from ..types.exceptions import AtlasKitValueError

ELLIPSIS = " …"


class Table:
    """Rows of cells under named columns, with an optional caption (say, where the data came from).

    clip: shorten cells longer than this many characters at a word boundary (an int for every
    column, or {column: width}); None keeps every cell whole. The HTML form shows the same cells.
    """

    def __init__(self, rows: Sequence[Sequence[object]], columns: Sequence[str], *, caption: str = "",
                 clip: int | Mapping[str, int] | None = None) -> None:
        self.columns = [str(c) for c in columns]
        widths = _widths(clip, self.columns)
        self.rows = [[_cell(v, w) for v, w in zip(row, widths)] + [_cell(v, None) for v in row[len(widths):]]
                     for row in rows]
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise AtlasKitValueError(f"Table row {i} has {len(row)} cells for {len(self.columns)} columns; make them match.")
        self.caption = caption

    def __repr__(self) -> str:
        lines = [[c.splitlines() or [""] for c in row] for row in self.rows]
        widths = [max([len(c)] + [len(part) for r in lines for part in r[i]]) for i, c in enumerate(self.columns)]
        def line(cells: Sequence[str]) -> str:
            return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

        out = [line(self.columns), line(["-" * w for w in widths])]
        for row in lines:  # a cell with line breaks continues on the next lines, in its own column
            out += [line([c[k] if k < len(c) else "" for c in row]) for k in range(max(len(c) for c in row))]
        return "\n".join(([self.caption] if self.caption else []) + out)

    def _repr_html_(self) -> str:
        head = "".join(f"<th style='text-align:left'>{_html(c)}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td style='text-align:left'>{_html(v)}</td>" for v in r) + "</tr>"
                       for r in self.rows)
        caption = f"<caption style='caption-side:bottom;text-align:left'>{_html(self.caption)}</caption>" if self.caption else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    @classmethod
    def of(cls, rows: TableRows) -> Table:
        """The table of rows a metric computed (types.TableRows: columns, rows, caption)."""
        return cls(rows.rows, rows.columns, caption=rows.caption)


def shorten(text: str, width: int) -> str:
    """`text` in at most about `width` characters, cut only at a space and marked with " …".

    Whitespace runs collapse to one space. A first word longer than `width` is kept whole: a word
    or a number is never cut.
    """
    flat = " ".join(str(text).split())
    if len(flat) <= width:
        return flat
    room = max(width - len(ELLIPSIS), 1)
    cut = flat.rfind(" ", 0, room + 1)
    if cut <= 0:
        cut = flat.find(" ")
        if cut < 0:
            return flat
    return flat[:cut].rstrip(" ,;:") + ELLIPSIS


def _widths(clip: int | Mapping[str, int] | None, columns: list[str]) -> list[int | None]:
    if clip is None:
        return [None] * len(columns)
    if isinstance(clip, int) and not isinstance(clip, bool):
        return [clip] * len(columns)
    if isinstance(clip, Mapping):
        unknown = sorted(set(clip) - set(columns))
        if unknown:
            raise AtlasKitValueError(f"clip names {', '.join(unknown)}, which is not a column; use one of: {', '.join(columns)}.")
        return [clip.get(c) for c in columns]
    raise AtlasKitValueError(f"clip should be a width in characters or {{column: width}}; got {clip!r}.")


def recovery_table(records: Sequence[Record], *, by: Sequence[str] = ("style",)) -> Table:
    """Recovery and success per group, each with its Wilson 95% interval, captioned with the data's source
    (metrics.recovery_rows computes it)."""
    return Table.of(recovery_rows(records, by=by))


def paired_table(records: Sequence[Record], *, by: str = "style", against: object = None) -> Table:
    """Every two-arm comparison's paired table: each arm against one (the contract by default), McNemar's exact p
    and Newcombe's interval on the difference over episodes paired by ticket, trial and seed (stats.paired_rows)."""
    return Table.of(paired_rows(records, by=by, against=against))


def cell_table(records: Iterable[Record], *, by: str = "style") -> Table:
    """Recovery and silently wrong answers per cell of the 2x2 and arm, with Wilson 95% intervals, captioned
    (implicit.cell_rows computes it)."""
    return Table.of(cell_rows(list(records), by=by))


def _cell(value: object, width: int | None) -> str:
    text = _number(value) if isinstance(value, float) else str(value)
    return shorten(text, width) if width is not None and len(text) > width else text


def _number(value: float) -> str:
    """Every digit Python needs to give the float back (its shortest repr), with thousands separators."""
    if not math.isfinite(value):
        return str(value)
    text = f"{value:,}"
    return text[:-2] if text.endswith(".0") else text


def keep_dollars(html: str) -> str:
    """HTML whose every $ (outside tags) sits in its own <span>. JupyterLab typesets HTML outputs and widgets
    with MathJax, which reads two $ within one run of text as math; any tag but <br> ends a run."""
    return re.sub(r"\$(?![^<>]*>)", "<span>$</span>", html)


def _html(text: str) -> str:
    """Escaped, with line breaks kept, and no $ that MathJax could pair."""
    return keep_dollars("<br>".join(escape(part) for part in text.splitlines()) if "\n" in text else escape(text))
