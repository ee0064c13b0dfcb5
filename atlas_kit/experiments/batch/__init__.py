"""Sweeps through the Message Batches API: every unfinished episode's next request in one batch per round.

The round loop (sweep), the journal that lets a killed sweep resume (journal), custom ids, polling and the
batch client (parts), and the in-process Batches API the tests and the stand-in use (transport). Chapter 11.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import exports

if TYPE_CHECKING:
    from .parts import BatchReport as BatchReport
    from .sweep import sweep_batch as sweep_batch

__getattr__, __dir__, __all__ = exports(__name__, __file__)
