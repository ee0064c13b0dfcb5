"""Atlas over MCP: the server (server), its stdio loop (stdio), one graded and logged episode (episode), the log
(log), the words of its errors in each style (wording), its middleware (guard), and the stand-in as an in-memory MCP
host (host). Needs the `mcp` extra. Chapter 15.
"""
from __future__ import annotations

import typing as _typing

from ..._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .server import AtlasMCP, INVALID_PARAMS, SERVER_NAME, client_config
    from .stdio import STOP_SIGNALS, malformed_reply, serve_stdio
    from .episode import (CALL_LOG_CHARS, ClientInfo, FINISH, McpCall, McpEpisode, McpRecord, NotHandedIn,
        finish_definition, logged_call, next_record, no_episode, open_episode)
    from .log import LogError, append_record, check_log, logged_keys
    from .guard import Guard, Guarded, INTERNAL_MESSAGE, RequestContext
    from .host import Exchange, HOST_NAME, HostedEpisode, asimulate, simulate

_WHERE = {
    "AtlasMCP": "server",
    "CALL_LOG_CHARS": "episode",
    "ClientInfo": "episode",
    "Exchange": "host",
    "FINISH": "episode",
    "Guard": "guard",
    "Guarded": "guard",
    "HOST_NAME": "host",
    "HostedEpisode": "host",
    "INTERNAL_MESSAGE": "guard",
    "INVALID_PARAMS": "server",
    "LogError": "log",
    "McpCall": "episode",
    "McpEpisode": "episode",
    "McpRecord": "episode",
    "NotHandedIn": "episode",
    "RequestContext": "guard",
    "SERVER_NAME": "server",
    "STOP_SIGNALS": "stdio",
    "append_record": "log",
    "asimulate": "host",
    "check_log": "log",
    "client_config": "server",
    "finish_definition": "episode",
    "logged_call": "episode",
    "logged_keys": "log",
    "malformed_reply": "stdio",
    "next_record": "episode",
    "no_episode": "episode",
    "open_episode": "episode",
    "serve_stdio": "stdio",
    "simulate": "host",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "AtlasMCP", "CALL_LOG_CHARS", "ClientInfo", "Exchange", "FINISH", "Guard", "Guarded", "HOST_NAME",
    "HostedEpisode", "INTERNAL_MESSAGE", "INVALID_PARAMS", "LogError", "McpCall", "McpEpisode", "McpRecord",
    "NotHandedIn", "RequestContext", "SERVER_NAME", "STOP_SIGNALS", "append_record", "asimulate", "check_log",
    "client_config", "finish_definition", "logged_call", "logged_keys", "malformed_reply", "next_record",
    "no_episode", "open_episode", "serve_stdio", "simulate",
]
