"""The server's last word on every request (an SDK ServerMiddleware): arguments that are not an object answered in
the style, and a failure of the server's own never sent as its exception text.

Left alone, the SDK answers a handler's exception with JSON-RPC code 0 and `str(exc)` (a file path, an errno), and
arguments that are not an object with its bare -32602. Here a failed tools/call becomes the style's `isError` result
(wording.crash_result), any other request JSON-RPC -32603 with a neutral message (plain's has no retry hint), and
the traceback goes to the server's log (stderr), redacted and bounded (a megabyte argument in it is cut). Chapter 15.
"""
from __future__ import annotations

import logging
import traceback
from typing import Mapping, Protocol, Sequence

from mcp import MCPError
from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, CallToolResult
from pydantic import ValidationError

from ...contract.redaction import redact
from ...dispatch.tool import Tool
from .episode import McpEpisode
from ...dispatch.styles import plain_argument
from .wording import BAD_PARAMS, PLAIN_FAILED, crash_result, in_style

__all__ = ["INTERNAL_MESSAGE", "LOG_CHARS", "Guard", "Guarded", "RequestContext"]

INTERNAL_MESSAGE = "Internal error: the server failed on this request. Its log says why; the request can be sent again."
_log = logging.getLogger("atlas_kit.bridges.mcp")
LOG_CHARS = 8_000  # what stderr keeps of one failure's traceback: a model may send a megabyte, and it may be in it
_MARGIN = 200

RequestContext = ServerRequestContext[dict[str, object]]
"""What the SDK hands each handler and middleware of server.AtlasMCP: its lifespan state is the SDK's default, an
empty dict nothing here reads."""


class Guarded(Protocol):
    """What the guard reads of the server it wraps (server.AtlasMCP is one)."""

    style: str
    episode: McpEpisode | None

    @property
    def tool_names(self) -> Sequence[str]: ...

    def answer_call(self, ctx: RequestContext, name: str, arguments: object) -> CallToolResult: ...


class Guard:
    """Wraps every request `server` answers; install it on the SDK Server's `middleware` list."""

    def __init__(self, server: Guarded) -> None:
        self.server = server

    async def __call__(self, ctx: RequestContext, call_next: CallNext) -> HandlerResult:
        try:
            try:
                return await call_next(ctx)
            except ValidationError:
                loose = _loose_arguments(ctx)
                if loose is None:
                    raise  # another shape problem: the SDK's -32602 is the plain answer in every style
                return self._not_an_object(ctx, *loose)
        except (MCPError, ValidationError):
            raise  # a protocol error the server meant, in its own words, or the SDK's for a bad shape
        except Exception as exc:  # noqa: BLE001 - the boundary: nothing of it may reach the client
            _log.error("%s failed inside the server; the client got a neutral error.\n%s", ctx.method,
                       _bounded("".join(traceback.format_exception(type(exc), exc, exc.__traceback__))))
            if ctx.method == "tools/call":
                name = ctx.params.get("name") if isinstance(ctx.params, Mapping) else None
                tool = name if isinstance(name, str) and name in self.server.tool_names else "tool"
                found = self._tool(tool)
                return dict(crash_result(self.server.style, tool, exc, side_effect=found.side_effect if found else None,
                                         hands_over=found.hands_over if found else False))
            raise MCPError(INTERNAL_ERROR, PLAIN_FAILED if self.server.style == "plain" else INTERNAL_MESSAGE) from None

    def _not_an_object(self, ctx: RequestContext, name: str, arguments: object) -> HandlerResult:
        """Raw and generic answer as the SDK would (its -32602, with the generic apology), plain with its sentence for
        arguments in the wrong form; the contract answers as for any other bad argument: the call goes to the
        episode, whose Dispatcher says what to send instead."""
        if self.server.style != "contract":
            raise MCPError(INVALID_PARAMS, in_style(self.server.style, raw=BAD_PARAMS, contract=BAD_PARAMS,
                                                    plain=plain_argument(None, given=True)), data="")
        return self.server.answer_call(ctx, name, arguments)

    def _tool(self, name: str) -> Tool | None:
        episode = self.server.episode
        return episode.session.dispatcher.tools.get(name) if episode is not None else None


def _bounded(text: str) -> str:
    """A traceback for the log: redacted, and at most LOG_CHARS characters, its start and its end (where the
    exception is), with the cut said; each part redacted a little past the cut, so a secret it crosses stays hidden."""
    if len(text) <= LOG_CHARS:
        return redact(text).rstrip()
    half = LOG_CHARS // 2
    head, tail = redact(text[:half + _MARGIN])[:half], redact(text[-half - _MARGIN:])[-half:]
    return f"{head} … [cut: {len(text):,} characters in all] … {tail}".rstrip()


def _loose_arguments(ctx: RequestContext) -> tuple[str, object] | None:
    """A tools/call whose name is a string and whose arguments are present but not an object: (name, arguments)."""
    params = ctx.params
    if ctx.method != "tools/call" or not isinstance(params, Mapping):
        return None
    name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(name, str) or arguments is None or isinstance(arguments, Mapping):
        return None
    return name, arguments
