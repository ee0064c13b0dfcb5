"""The face: what a person sees: tables, charts, how a run prints, and the error playground widget.

Computing stays in the layers below (metrics return rows); this layer only shows them. `charts` is imported as
a module (`from atlas_kit.face import charts`). Every table and chart says where its data came from.
"""
from __future__ import annotations

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .tables import Table, cell_table, keep_dollars, paired_table, recovery_table, shorten
    from .display import run_html, run_text
    from .playground import NextMove, Playground, compose_error, next_move

_WHERE = {
    "NextMove": "playground",
    "Playground": "playground",
    "Table": "tables",
    "cell_table": "tables",
    "compose_error": "playground",
    "keep_dollars": "tables",
    "next_move": "playground",
    "paired_table": "tables",
    "recovery_table": "tables",
    "run_html": "display",
    "run_text": "display",
    "shorten": "tables",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "NextMove", "Playground", "Table", "cell_table", "compose_error", "keep_dollars", "next_move", "paired_table",
    "recovery_table", "run_html", "run_text", "shorten",
]
