"""What an audit talks to: a target lists its tools and answers one call at a time, as a typed `Reply`.

The seam between the audit and what it audits; one implementation per file (mcp_target.py for MCP servers,
python_target.py for Python tools). No case generation and no judging here. Chapter 10.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from ...types import JSONObject
from ...types.exceptions import AtlasKitError

__all__ = ["ConnectFailure", "ReplyKind", "Reply", "Target", "ToolInfo"]

ReplyKind = Literal["result", "protocol_error", "timeout", "closed", "invalid"]
"""result: a tool result (isError or not); protocol_error: a JSON-RPC error instead of a result; timeout: no answer
in time; closed: the server went away; invalid: an answer that is not a valid result."""


@dataclass(frozen=True)
class ToolInfo:
    """One tool as its server lists it. `read_only` and `destructive` are the server's own hints (None: unsaid);
    `task_only`: the server says the tool must be called as a task (execution.taskSupport "required")."""

    name: str
    description: str
    input_schema: JSONObject
    read_only: bool | None = None
    destructive: bool | None = None
    task_only: bool = False

    @property
    def may_change_state(self) -> bool:
        """True unless the server says the tool is read-only (MCP's readOnlyHint defaults to false)."""
        return self.read_only is not True


@dataclass(frozen=True)
class Reply:
    """What one call got back: its kind, the text the model would read, and the isError flag.

    code: the JSON-RPC error code of a protocol error. seconds: how long the answer took.
    """

    kind: ReplyKind
    text: str
    is_error: bool | None
    seconds: float
    code: int | None = None


class ConnectFailure(AtlasKitError):
    """The target could not be reached or listed: one line saying what happened and what to do."""


class Target(Protocol):
    """A tool surface under audit: entered once, listed once, then called case by case."""

    label: str  # how the report names it: the command, the URL or module:attr
    connect_timeout: float  # seconds for entering it (starting a server and its handshake)
    notes: list[str]  # what listing could not do (a repeating cursor, a list cut short), for the report
    network: str  # whether the target could reach the network during the calls, and how that was decided

    async def __aenter__(self) -> Target: ...

    async def __aexit__(self, *exc: object) -> None: ...

    async def list_tools(self) -> list[ToolInfo]: ...

    async def call(self, tool: str, arguments: JSONObject, *, timeout: float) -> Reply: ...
