"""The face: what a person sees: tables, charts, how a run prints, and the error playground widget.

Computing stays in the layers below (metrics return rows); this layer only shows them. `charts` is imported as
a module (`from atlas_kit.face import charts`). Every table and chart says where its data came from.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
    from .playground import Playground as Playground, next_move as next_move
    from .tables import Table as Table, paired_table as paired_table, shorten as shorten

__getattr__, __dir__, __all__ = exports(__name__, __file__)
