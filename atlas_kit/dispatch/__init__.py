"""The dispatcher: one `tool_result` per `tool_use` id, harness retries, the loop breaker, the styles, the trace.

A tool and its handler (tool), transient failures and the harness's retries (transient), the (tool, arguments,
error) breaker (breaker), how a failure is worded for the model (styles), the trace (trace), and the dispatcher
that runs them all and never raises (dispatcher). Chapters 06, 07 and 09.
"""
from __future__ import annotations

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .dispatcher import DispatchResult, Dispatcher, Dispatches, ToolDispatcher, argument_error, crash_error
    from .tool import CallContext, Handler, Tool
    from .transient import RetryPolicy, Transient
    from .breaker import LoopBreak, LoopBreaker, args_key, canonical_args
    from .styles import (Failure, PLAIN_BY_CODE, Style, contract_style, plain_argument, plain_crash, plain_style,
        plain_unanswered)
    from .trace import Trace

_WHERE = {
    "CallContext": "tool",
    "DispatchResult": "dispatcher",
    "Dispatcher": "dispatcher",
    "Dispatches": "dispatcher",
    "Failure": "styles",
    "Handler": "tool",
    "LoopBreak": "breaker",
    "LoopBreaker": "breaker",
    "PLAIN_BY_CODE": "styles",
    "RetryPolicy": "transient",
    "Style": "styles",
    "Tool": "tool",
    "ToolDispatcher": "dispatcher",
    "Trace": "trace",
    "Transient": "transient",
    "args_key": "breaker",
    "argument_error": "dispatcher",
    "canonical_args": "breaker",
    "contract_style": "styles",
    "crash_error": "dispatcher",
    "plain_argument": "styles",
    "plain_crash": "styles",
    "plain_style": "styles",
    "plain_unanswered": "styles",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "CallContext", "DispatchResult", "Dispatcher", "Dispatches", "Failure", "Handler", "LoopBreak", "LoopBreaker",
    "PLAIN_BY_CODE", "RetryPolicy", "Style", "Tool", "ToolDispatcher", "Trace", "Transient", "args_key",
    "argument_error", "canonical_args", "contract_style", "crash_error", "plain_argument", "plain_crash",
    "plain_style", "plain_unanswered",
]
