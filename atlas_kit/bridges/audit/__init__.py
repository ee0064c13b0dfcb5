"""`atlas-kit audit`: score any tool surface's errors against the contract, from calls its own schemas make fail.

cases (failing calls from each input schema, and your own from --cases), targets (the seam: an MCP server over
stdio or HTTP, or Python tools), run (bounded calls, judged by atlas_kit.contract.rubric), report (scores, the terminal
table, JSON and HTML). Chapter 10 audits a real server beside Atlas.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import exports

if TYPE_CHECKING:
    from .run import run_audit as run_audit

__getattr__, __dir__, __all__ = exports(__name__, __file__)
