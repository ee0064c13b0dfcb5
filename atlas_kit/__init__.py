"""atlas_kit: a failed tool call's error message is the next prompt the model reads.

The package the chapters drive: the error contract, the dispatcher, the Atlas mock company, the models and the
agent loop, the experiments that measure recovery, real transcripts, and the bridges to MCP, inspect_ai and the
SDK's tool runner. Each layer is a folder (atlas_kit/_layers.py lists them, lowest first).
"""
from __future__ import annotations

import typing as _typing

from . import _moved
from ._lazy import lazy_exports as _lazy_exports

# How a Run prints belongs to the display layer, which registers itself on import (types.RENDERERS).
from .face import display as _display  # noqa: F401

_moved.install()  # `import atlas_kit.errors` and the other pre-folder module paths still work, with a warning

# Names are imported on first use (PEP 562), so `atlas-kit --help` and a kernel that needs only
# part of the package never pay for the rest; the type checker sees the real imports below.
if _typing.TYPE_CHECKING:
    from .agent import Bounds, Run, Task, arun_agent, run_agent
    from .bridges.tool_runner import Conversation, contract_async_tool, contract_tool
    from .contract.errors import (Branch, CONTRACT_VERSION, ErrorCode, Next, ToolError, ToolFailure, empty_result,
        error_schema, retry_changed, retry_unchanged, stop, switch_tool, tool_error)
    from .contract.redaction import redact
    from .contract.values import Safe, safe, say
    from .contract.vocab import from_article, to_article, to_mcp
    from .dispatch.breaker import LoopBreak
    from .dispatch.dispatcher import DispatchResult, Dispatcher
    from .dispatch.styles import Failure
    from .dispatch.tool import CallContext, Tool
    from .dispatch.trace import Trace
    from .dispatch.transient import RetryPolicy, Transient
    from .types.results import read_records
    from .experiments.sweep import run_experiment
    from .face.tables import Table
    from .models.choose import DEFAULT_MODEL, ModelChoice, choose_model
    from .models.replay import Cassette, recording_client
    from .models.providers.replay import replay_client
    from .models.standin.model import OFFLINE_MODEL, STANDIN_SOURCE, Profile, offline_client
    from .types.exceptions import AtlasKitError, AtlasKitKeyError, AtlasKitTypeError, AtlasKitValueError

_WHERE = {
    "AtlasKitError": "types.exceptions",
    "AtlasKitKeyError": "types.exceptions",
    "AtlasKitTypeError": "types.exceptions",
    "AtlasKitValueError": "types.exceptions",
    "Bounds": "agent",
    "Branch": "contract.errors",
    "CONTRACT_VERSION": "contract.errors",
    "CallContext": "dispatch.tool",
    "Cassette": "models.replay",
    "Conversation": "bridges.tool_runner",
    "DEFAULT_MODEL": "models.choose",
    "DispatchResult": "dispatch.dispatcher",
    "Dispatcher": "dispatch.dispatcher",
    "ErrorCode": "contract.errors",
    "Failure": "dispatch.styles",
    "LoopBreak": "dispatch.breaker",
    "ModelChoice": "models.choose",
    "Next": "contract.errors",
    "OFFLINE_MODEL": "models.standin.model",
    "Profile": "models.standin.model",
    "RetryPolicy": "dispatch.transient",
    "Run": "agent",
    "STANDIN_SOURCE": "models.standin.model",
    "Safe": "contract.values",
    "Table": "face.tables",
    "Task": "agent",
    "Tool": "dispatch.tool",
    "ToolError": "contract.errors",
    "ToolFailure": "contract.errors",
    "Trace": "dispatch.trace",
    "Transient": "dispatch.transient",
    "arun_agent": "agent",
    "choose_model": "models.choose",
    "contract_async_tool": "bridges.tool_runner",
    "contract_tool": "bridges.tool_runner",
    "empty_result": "contract.errors",
    "error_schema": "contract.errors",
    "from_article": "contract.vocab",
    "offline_client": "models.standin.model",
    "read_records": "experiments.results",
    "recording_client": "models.replay",
    "redact": "contract.redaction",
    "replay_client": "models.providers.replay",
    "retry_changed": "contract.errors",
    "retry_unchanged": "contract.errors",
    "run_agent": "agent",
    "run_experiment": "experiments.sweep",
    "safe": "contract.values",
    "say": "contract.values",
    "stop": "contract.errors",
    "switch_tool": "contract.errors",
    "to_article": "contract.vocab",
    "to_mcp": "contract.vocab",
    "tool_error": "contract.errors",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "AtlasKitError", "AtlasKitKeyError", "AtlasKitTypeError", "AtlasKitValueError", "Bounds", "Branch",
    "CONTRACT_VERSION", "CallContext", "Cassette", "Conversation", "DEFAULT_MODEL", "DispatchResult", "Dispatcher",
    "ErrorCode", "Failure", "LoopBreak", "ModelChoice", "Next", "OFFLINE_MODEL", "Profile", "RetryPolicy", "Run",
    "STANDIN_SOURCE", "Safe", "Table", "Task", "Tool", "ToolError", "ToolFailure", "Trace", "Transient", "arun_agent",
    "choose_model", "contract_async_tool", "contract_tool", "empty_result", "error_schema", "from_article",
    "offline_client", "read_records", "recording_client", "redact", "replay_client", "retry_changed", "retry_unchanged",
    "run_agent", "run_experiment", "safe", "say", "stop", "switch_tool", "to_article", "to_mcp", "tool_error",
]
