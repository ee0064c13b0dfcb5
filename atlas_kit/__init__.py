"""atlas_kit: a failed tool call's error message is the next prompt the model reads.

The core, imported here: the error contract (five codes, four branches, one builder), the dispatcher (one
tool_result per id, harness retries, the loop breaker) and the agent loop. Beside it, each imported by its own path:
Atlas and the stand-in (the course's world), models, experiments, transcripts, the bridges (MCP, inspect_ai, the
SDK's tool runner), the face and the course. ARCHITECTURE.md is the map; import-linter holds its layers.
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
