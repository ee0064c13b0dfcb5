"""Atlas over MCP: the server (server), its stdio loop (stdio), one graded and logged episode (episode), the log
(log), the words of its errors in each style (wording), its middleware (guard), and the stand-in as an in-memory MCP
host (host). Needs the `mcp` extra. Chapter 15.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import exports

if TYPE_CHECKING:
    from .server import AtlasMCP as AtlasMCP
    from .stdio import serve_stdio as serve_stdio

__getattr__, __dir__, __all__ = exports(__name__, __file__)
