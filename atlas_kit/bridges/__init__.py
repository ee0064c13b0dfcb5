"""Bridges: where atlas_kit meets other people's tools: the SDK's tool runner (tool_runner), MCP (mcp/), and
inspect_ai (inspect/), one folder per optional extra. The core never imports them.
"""
from __future__ import annotations

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .tool_runner import (BREAKER_MESSAGE, ContractAsyncFunctionTool, ContractFunctionTool, Conversation,
        DEFAULT_NEXT, contract_async_tool, contract_tool)

_WHERE = {
    "BREAKER_MESSAGE": "tool_runner",
    "ContractAsyncFunctionTool": "tool_runner",
    "ContractFunctionTool": "tool_runner",
    "Conversation": "tool_runner",
    "DEFAULT_NEXT": "tool_runner",
    "contract_async_tool": "tool_runner",
    "contract_tool": "tool_runner",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "BREAKER_MESSAGE", "ContractAsyncFunctionTool", "ContractFunctionTool", "Conversation", "DEFAULT_NEXT",
    "contract_async_tool", "contract_tool",
]
