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
from .agent import Bounds, Run, Task, arun_agent, run_agent
from .models import DEFAULT_MODEL, ModelChoice, choose_model
from .offline import OFFLINE_MODEL, Profile, offline_client
from .replay import Cassette, recording_client, replay_client
from .experiments import run_experiment
from .results import read_records
from .tables import Table
from .trace import Trace, redact
from .vocab import from_article, to_article, to_mcp

__all__ = [
    "Bounds",
    "Branch",
    "CONTRACT_VERSION",
    "CallContext",
    "Cassette",
    "DEFAULT_MODEL",
    "DispatchResult",
    "Dispatcher",
    "ErrorCode",
    "Failure",
    "LoopBreak",
    "ModelChoice",
    "Next",
    "OFFLINE_MODEL",
    "Profile",
    "RetryPolicy",
    "Run",
    "Safe",
    "Table",
    "Task",
    "Tool",
    "ToolError",
    "ToolFailure",
    "Trace",
    "Transient",
    "arun_agent",
    "choose_model",
    "empty_result",
    "error_schema",
    "from_article",
    "offline_client",
    "read_records",
    "recording_client",
    "redact",
    "replay_client",
    "retry_changed",
    "retry_unchanged",
    "run_agent",
    "run_experiment",
    "safe",
    "say",
    "stop",
    "switch_tool",
    "to_article",
    "to_mcp",
    "tool_error",
]
