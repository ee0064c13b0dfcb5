"""What Atlas's MCP server says when something goes wrong, in each style: a failed call as an `isError` result, and
the message of a protocol error (an unknown tool, arguments that are not an object, a request of the wrong shape).

raw says what the SDK or the validation library would say; generic puts the usual wrapper's apology before that;
plain says what went wrong in one sentence; contract gives the contract's body or an instruction. No episode and no
wire here (episode.py, server.py, stdio.py). Chapter 15.
"""
from __future__ import annotations

from typing import Sequence

from ...contract.vocab import MCPResult, text_to_mcp, to_mcp
from ...dispatch.dispatcher import crash_error
from ...atlas.audience import AUDIENCE
from ...dispatch.styles import GENERIC_PREFIX, Failure, plain_crash, style_named
from ...types.walk import result_text

# The SDK's own words for params that fail their model (its -32602), and JSON-RPC 2.0's for a message that is not a
# request (-32600): what a server built on the SDK answers, so what the raw style says.
BAD_PARAMS = "Invalid request parameters"
BAD_REQUEST = "Invalid Request"
# plain's words for protocol errors: what went wrong, one sentence, repeating nothing it was sent and suggesting
# nothing (not even to send it again), as plain_style words a failed call.
PLAIN_UNKNOWN_TOOL = "This server has no tool by that name."
PLAIN_UNKNOWN_PROMPT = "This server has no prompt by that name."
PLAIN_BAD_REQUEST = "The request is not in a form this server can read."
PLAIN_FAILED = "The server failed on this request."


def in_style(style: str, *, raw: str, contract: str, plain: str) -> str:
    """A protocol error's message: `raw` as it is, after GENERIC_PREFIX for generic, the contract's `contract`, or
    plain's one sentence `plain`, which says what went wrong and nothing to do (no name it was sent, no retry)."""
    if style == "contract":
        return contract
    if style == "plain":
        return plain
    return raw if style == "raw" else f"{GENERIC_PREFIX} {raw}"


def call_result(style: str, failure: Failure) -> MCPResult:
    """A failed call's CallToolResult: the contract body (also as structuredContent), or the style's text alone."""
    if style == "contract":
        return to_mcp(failure.error, structured=True)
    return text_to_mcp(result_text(style_named(style)(failure)["content"]), is_error=True)


def unknown_tool(style: str, name: str, tools: Sequence[str]) -> str:
    """The -32602 message for a tool the server does not have. raw is the spec's example and the SDK's MCPServer's
    words, name and all; the contract lists the tools and never repeats the name it was sent; plain says only that."""
    return in_style(style, raw=f"Unknown tool: {name}",
                    contract=f"No tool has that name on this server; call one of: {', '.join(tools)}.",
                    plain=PLAIN_UNKNOWN_TOOL)


def unknown_prompt(style: str) -> str:
    """The -32602 message for a prompt the server does not have: the ticket ids it has (the same in raw, generic and
    contract, as before plain existed), or plain's bare fact."""
    listed = "No prompt has that name; the prompts are the ticket ids T01 to T27."
    return PLAIN_UNKNOWN_PROMPT if style == "plain" else listed


def crash_result(style: str, tool: str, exc: BaseException, *, side_effect: bool | None,
                 hands_over: bool = False) -> MCPResult:
    """The result for a call the server itself failed on. raw is what the SDK's MCPServer says of a crash (the
    exception's text stays on the server); the contract's is dispatch.crash_error's body, its traceback left out."""
    error = crash_error("mcp", exc, side_effect=side_effect, hands_over=hands_over, audience=AUDIENCE)
    plain = plain_crash(side_effect=side_effect)
    return call_result(style, Failure(tool, error, f"Error executing tool {tool}", plain))
