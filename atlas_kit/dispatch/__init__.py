"""The dispatcher: one `tool_result` per `tool_use` id, harness retries, the loop breaker, the styles, the trace.

A tool and its handler (tool), transient failures and the harness's retries (transient), the (tool, arguments,
error) breaker (breaker), how a failure is worded for the model (styles), the trace (trace), and the dispatcher
that runs them all and never raises (dispatcher). Chapters 06, 07 and 09.
"""
from __future__ import annotations

__all__: list[str] = []
