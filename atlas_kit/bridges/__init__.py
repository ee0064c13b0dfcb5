"""Bridges: where atlas_kit meets other people's tools: the SDK's tool runner (tool_runner), MCP (mcp/), and
inspect_ai (inspect/), one folder per optional extra. The core never imports them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
    from .tool_runner import (Conversation as Conversation, contract_async_tool as contract_async_tool,
        contract_tool as contract_tool)

__getattr__, __dir__, __all__ = exports(__name__, __file__)
