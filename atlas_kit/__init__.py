"""atlas_kit: a failed tool call's error message is the next prompt the model reads.

The package the chapters drive: the error contract, the dispatcher, the Atlas mock company, the models and the
agent loop, the experiments that measure recovery, real transcripts, and the bridges to MCP, inspect_ai and the
SDK's tool runner. Each layer is a folder (atlas_kit/_layers.py lists them, lowest first).
"""
from __future__ import annotations

from .agent import Bounds, Run, Task, arun_agent, run_agent
from .contract.errors import (Branch, CONTRACT_VERSION, ErrorCode, Next, ToolError, ToolFailure, empty_result,
    error_schema, retry_changed, retry_unchanged, stop, switch_tool, tool_error)
from .contract.redaction import redact
from .contract.values import Safe, safe, say
from .contract.vocab import to_mcp
from .dispatch.breaker import LoopBreak
from .dispatch.dispatcher import DispatchResult, Dispatcher
from .dispatch.tool import CallContext, Tool
from .dispatch.trace import Trace
from .dispatch.transient import RetryPolicy, Transient
from .types.exceptions import AtlasKitError

__all__ = ["AtlasKitError", "Bounds", "Branch", "CONTRACT_VERSION", "CallContext", "DispatchResult", "Dispatcher",
    "ErrorCode", "LoopBreak", "Next", "RetryPolicy", "Run", "Safe", "Task", "Tool", "ToolError", "ToolFailure",
    "Trace", "Transient", "arun_agent", "empty_result", "error_schema", "redact", "retry_changed", "retry_unchanged",
    "run_agent", "safe", "say", "stop", "switch_tool", "to_mcp", "tool_error"]
