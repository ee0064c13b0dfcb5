"""Atlas over MCP: the server (server), one graded and logged episode (episode), and the stand-in as an
in-memory MCP host (host). Needs the `mcp` extra. Chapter 15.
"""
from __future__ import annotations

import typing as _typing

from ..._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .server import AtlasMCP, INVALID_PARAMS, SERVER_NAME, client_config, serve_stdio
    from .episode import (ClientInfo, FINISH, McpCall, McpEpisode, McpRecord, NotHandedIn, finish_definition,
        next_record, no_episode, open_episode)
    from .host import Exchange, HOST_NAME, HostedEpisode, asimulate, simulate

_WHERE = {
    "AtlasMCP": "server",
    "ClientInfo": "episode",
    "Exchange": "host",
    "FINISH": "episode",
    "HOST_NAME": "host",
    "HostedEpisode": "host",
    "INVALID_PARAMS": "server",
    "McpCall": "episode",
    "McpEpisode": "episode",
    "McpRecord": "episode",
    "NotHandedIn": "episode",
    "SERVER_NAME": "server",
    "asimulate": "host",
    "client_config": "server",
    "finish_definition": "episode",
    "next_record": "episode",
    "no_episode": "episode",
    "open_episode": "episode",
    "serve_stdio": "server",
    "simulate": "host",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "AtlasMCP", "ClientInfo", "Exchange", "FINISH", "HOST_NAME", "HostedEpisode", "INVALID_PARAMS", "McpCall",
    "McpEpisode", "McpRecord", "NotHandedIn", "SERVER_NAME", "asimulate", "client_config", "finish_definition",
    "next_record", "no_episode", "open_episode", "serve_stdio", "simulate",
]
