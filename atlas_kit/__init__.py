"""atlas_kit: a failed tool call's error message is the next prompt the model reads.

The package the chapters drive: the error contract, the dispatcher, the Atlas mock
company, the models and agent loop, and the experiments that measure recovery.
"""
from __future__ import annotations

from .dispatch import CallContext, Dispatcher, DispatchResult, Failure, LoopBreak, RetryPolicy, Tool, Transient
from .errors import (
    CONTRACT_VERSION,
    Branch,
    ErrorCode,
    Next,
    Safe,
    ToolError,
    ToolFailure,
    empty_result,
    error_schema,
    retry_changed,
    retry_unchanged,
    safe,
    say,
    stop,
    switch_tool,
    tool_error,
)
from .trace import Trace, redact
from .vocab import from_article, to_article, to_mcp

__all__ = [
    "Branch",
    "CONTRACT_VERSION",
    "CallContext",
    "DispatchResult",
    "Dispatcher",
    "ErrorCode",
    "Failure",
    "LoopBreak",
    "Next",
    "RetryPolicy",
    "Safe",
    "Tool",
    "ToolError",
    "ToolFailure",
    "Trace",
    "Transient",
    "empty_result",
    "error_schema",
    "from_article",
    "redact",
    "retry_changed",
    "retry_unchanged",
    "safe",
    "say",
    "stop",
    "switch_tool",
    "to_article",
    "to_mcp",
    "tool_error",
]
