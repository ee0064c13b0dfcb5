"""atlas_kit: a failed tool call's error message is the next prompt the model reads.

The package the chapters drive: the error contract, the dispatcher, the Atlas mock
company, the models and agent loop, and the experiments that measure recovery.
"""
from __future__ import annotations

import importlib as _importlib
import typing as _typing

# How a Run prints belongs to the display layer, which registers itself on import (types.RENDERERS).
from . import display as _display  # noqa: F401

# Names are imported on first use (PEP 562), so `atlas-kit --help` and a kernel that needs only
# part of the package never pay for the rest; the type checker sees the real imports below.
_WHERE = {
    "Bounds": "agent",
    "Branch": "errors",
    "Conversation": "tool_runner",
    "CONTRACT_VERSION": "errors",
    "CallContext": "dispatch",
    "Cassette": "replay",
    "DEFAULT_MODEL": "models",
    "DispatchResult": "dispatch",
    "Dispatcher": "dispatch",
    "ErrorCode": "errors",
    "Failure": "dispatch",
    "LoopBreak": "dispatch",
    "ModelChoice": "models",
    "Next": "errors",
    "OFFLINE_MODEL": "offline",
    "Profile": "offline",
    "RetryPolicy": "dispatch",
    "Run": "agent",
    "Safe": "errors",
    "Table": "tables",
    "Task": "agent",
    "Tool": "dispatch",
    "ToolError": "errors",
    "ToolFailure": "errors",
    "Trace": "trace",
    "Transient": "dispatch",
    "arun_agent": "agent",
    "choose_model": "models",
    "contract_async_tool": "tool_runner",
    "contract_tool": "tool_runner",
    "empty_result": "errors",
    "error_schema": "errors",
    "from_article": "vocab",
    "offline_client": "offline",
    "read_records": "results",
    "recording_client": "replay",
    "redact": "trace",
    "replay_client": "replay",
    "retry_changed": "errors",
    "retry_unchanged": "errors",
    "run_agent": "agent",
    "run_experiment": "experiments",
    "safe": "errors",
    "say": "errors",
    "stop": "errors",
    "switch_tool": "errors",
    "to_article": "vocab",
    "to_mcp": "vocab",
    "tool_error": "errors",
}

if _typing.TYPE_CHECKING:
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
    from .tool_runner import Conversation, contract_async_tool, contract_tool
    from .trace import Trace, redact
    from .vocab import from_article, to_article, to_mcp


def __getattr__(name: str) -> _typing.Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'atlas_kit' has no attribute {name!r}; the public names are in atlas_kit.__all__.")
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Bounds",
    "Branch",
    "CONTRACT_VERSION",
    "CallContext",
    "Cassette",
    "Conversation",
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
    "contract_async_tool",
    "contract_tool",
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
