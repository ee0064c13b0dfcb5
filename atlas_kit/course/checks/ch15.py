"""Checks for chapter 15's exercises: one dispatch as an MCP CallToolResult (15.1), and the `tools/call`
handler of the learner's own MCP server, driven through the SDK's in-memory client (15.2).
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
from typing import TYPE_CHECKING, Callable, Coroutine, Iterable, Mapping, TypeVar, Union

from ...atlas import atlas_session
from ...dispatch.dispatcher import DispatchResult
from ...types import JSONObject
from ...contract.errors import ErrorCode
from ._registry import Finding, exercise
from ._text import contradicts

if TYPE_CHECKING:
    import mcp_types as types
    from mcp import MCPError
    from mcp.server import ServerRequestContext

_T = TypeVar("_T")
CallTool = Callable[[str, Union[JSONObject, None]], object]
"""The learner's call_tool(name, arguments): a CallToolResult as a dict."""

_REFUND = ("T04", "issue_refund", {"invoice_id": "INV-20411", "amount_cents": 65000, "reason": "Course cancelled."})
_LOOKUP = ("T01", "get_account", {"account_id": "ACC-4471"})


def _dispatch(case: tuple[str, str, JSONObject], style: str) -> DispatchResult:
    ticket, tool, args = case
    session = atlas_session(ticket, style=style)
    return session.dispatcher.dispatch([{"type": "tool_use", "id": "toolu_check", "name": tool, "input": dict(args)}])


def _text(result: Mapping[str, object]) -> str | None:
    """The text of a CallToolResult's one content block; None unless it has exactly one, a text block."""
    content = result.get("content")
    if not isinstance(content, Iterable):
        return None
    try:
        [block] = content
    except ValueError:
        return None
    text = block.get("text") if isinstance(block, Mapping) and block.get("type") == "text" else None
    return text if isinstance(text, str) else None


@exercise("15.1", "One dispatch as an MCP tool result",
          right="A contract failure carries its whole body in the text and the same body in structuredContent, "
                "a raw or generic failure keeps its text and claims no structure, and a success is not an error.",
          hints=("Start from out.results[0]: its 'content' is the text the model reads, and 'is_error' says whether it failed.",
                 "Only a contract failure has a body to structure: json.loads the text, or use out.failures[0].error.body().",
                 "The shape is {'content': [{'type': 'text', 'text': ...}], 'isError': ..., 'structuredContent': ...}."))
def _mcp_result(fn: object) -> str | None:
    """Structure: text, isError and structuredContent for four dispatches, equal to the dispatcher's. No free text is read."""
    if not callable(fn):
        return "Pass your function mcp_result itself: it takes (out, style) and returns a dict."
    for case, style, what in ((_REFUND, "contract", "the contract's refund failure"), (_REFUND, "raw", "the raw refund failure"),
                              (_REFUND, "generic", "the generic refund failure"), (_LOOKUP, "contract", "a successful lookup")):
        out = _dispatch(case, style)
        result = fn(out, style)
        if not isinstance(result, dict):
            return f"For {what} your function returned a {type(result).__name__}; return the CallToolResult as a dict."
        block, failed = out.results[0], bool(out.failures)
        text = _text(result)
        if text is None:
            return (f"For {what} the result needs 'content': a list of one text block, "
                    "{'type': 'text', 'text': ...}: clients pass that text to the model.")
        if bool(result.get("isError")) != failed:
            return (f"For {what} isError is {result.get('isError')!r}; set it to true exactly when the call failed "
                    "(out.failures is not empty), so the client knows.")
        if text != block["content"]:
            return (f"For {what} the text differs from what the dispatcher wrote; put the block's whole content in the "
                    "text, since Claude Code passes only the text of an error to the model.")
        structured = result.get("structuredContent")
        if failed and style == "contract" and structured != out.failures[0].error.body():
            return ("For the contract's failure, structuredContent must be the same body as the text "
                    "(out.failures[0].error.body()), for clients that read structure.")
        if "structuredContent" in result and (not failed or style != "contract"):
            if style != "contract":
                return (f"For {what} you added structuredContent, but a {style} error has no contract body: "
                        "structure it only for style 'contract'.")
            if structured != json.loads(text):
                return "For a success, leave structuredContent out (or make it exactly the JSON of the text)."
    return None


def _run(coroutine: Coroutine[object, object, _T]) -> _T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:  # inside Jupyter's running loop
        return pool.submit(asyncio.run, coroutine).result()


async def _drive(call_tool: CallTool, raised: list[tuple[str, str]]) -> list[JSONObject | MCPError]:
    """Four calls through the SDK's in-memory client: each a result (as JSON) or the protocol error it raised;
    `raised` gets (exception, tool) for each call on which the learner's call_tool raised something else."""
    import mcp_types as types
    from mcp import Client, MCPError
    from mcp.server import Server

    async def list_tools(ctx: ServerRequestContext,
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="stock_level", input_schema={"type": "object"})])

    async def on_call(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            return types.CallToolResult.model_validate(call_tool(params.name, params.arguments))
        except MCPError:
            raise  # the protocol error the exercise asks for, for an unknown tool
        except Exception as exc:  # the learner's bug: said by the check, not logged by the SDK with a traceback
            raised.append((type(exc).__name__, params.name))
            raise

    server = Server("exercise", on_list_tools=list_tools, on_call_tool=on_call)
    seen: list[JSONObject | MCPError] = []
    sdk, quiet = logging.getLogger("mcp"), logging.NullHandler()
    was = sdk.propagate
    sdk.propagate = False  # a raising call_tool is the check's to report, in one line, not the SDK's traceback
    sdk.addHandler(quiet)
    try:
        async with Client(server, mode="legacy") as client:
            for name, args in (("stock_level", {"sku": "SKU-2041"}), ("stock_level", {"sku": "2041"}),
                               ("stock_level", {"sku": "SKU-9999"}), ("restock_everything", {"sku": "SKU-2041"})):
                try:
                    result = await client.call_tool(name, args)
                    seen.append(result.model_dump(by_alias=True, mode="json", exclude_none=True))
                except MCPError as err:
                    seen.append(err)
    finally:
        sdk.propagate = was
        sdk.removeHandler(quiet)
    return seen


@exercise("15.2", "Your own MCP server's tools/call, contract-tested",
          right="Through the in-memory client your server answers a good call, words both failures as contract "
                "bodies in the text and in structuredContent, and refuses an unknown tool with a protocol error that "
                "names the tools and not the caller's name.",
          hints=("Check the name first: if it is not in shop.tools, raise MCPError(INVALID_PARAMS, ...) naming the tools.",
                 "Otherwise build one tool_use block, shop.dispatch([block]), and return mcp_result(out, 'contract').",
                 "The message of the MCPError is read by people and clients: list sorted(shop.tools), never the name sent."),
          judges=("structure", "forbidden", "contradiction"))
def _call_tool(fn: object) -> str | Finding | None:
    """Structure: the results and the protocol error through the in-memory client, the tools named by name. Forbidden:
    the unknown name sent, repeated. Contradiction: the unknown tool's message claiming the call was done, inviting the
    same name again, or contradicting itself. The messages are not read for their ideas."""
    if not callable(fn):
        return "Pass your function call_tool itself: it takes (name, arguments) and returns a CallToolResult dict."
    raised: list[tuple[str, str]] = []  # (exception, tool) for each call the learner's call_tool raised on
    try:
        ok, bad, missing, unknown = _run(_drive(fn, raised))
    except ImportError:
        return "The MCP SDK is not installed here; run pip install -e '.[mcp]' and check again."
    if raised:
        kind, tool = raised[0]
        return (f"Your call_tool raised {kind} on a call to {tool!r}: a failure inside the tool goes through the "
                "dispatcher as an isError result; only an unknown tool raises MCPError.")
    if not isinstance(ok, dict) or ok.get("isError") or "SKU-2041" not in (_text(ok) or ""):
        return "A good call (sku SKU-2041) should return the dispatcher's success text, not an error or a protocol error."
    for result, code, what in ((bad, "invalid_argument", "a malformed sku"), (missing, "not_found", "an unknown sku")):
        if not isinstance(result, dict) or not result.get("isError"):
            return (f"For {what} your server gave {'a protocol error' if not isinstance(result, dict) else 'no isError'}; "
                    "a failure inside the tool is an isError result the model reads, so send it through the dispatcher.")
        try:
            body = json.loads(_text(result) or "")
        except ValueError:
            body = None
        if not isinstance(body, dict) or body.get("error") != code:
            return f"For {what} the text should be the contract body with error {code!r}; return mcp_result(out, 'contract')."
        if result.get("structuredContent") != body:
            return f"For {what} structuredContent should hold the same body as the text; build the result with mcp_result."
    return _unknown_tool(unknown)


def _unknown_tool(unknown: JSONObject | MCPError) -> str | Finding | None:
    """The protocol error for a tool the server lacks: its code, the tools named, no echo, no contradiction."""
    if isinstance(unknown, dict):
        return ("An unknown tool came back as a result; the spec makes it a protocol error: raise "
                "MCPError(INVALID_PARAMS, ...) before dispatching.")
    if unknown.code != -32602:
        return f"The unknown tool's error code is {unknown.code}; use INVALID_PARAMS (-32602), as the spec does."
    if "restock_everything" in unknown.message:
        return Finding("forbidden", "the unknown tool's message repeats the name the caller sent; name the tools this "
                                    "server has (stock_level) instead.")
    if "stock_level" not in unknown.message:
        return "The unknown tool's message should name the tools this server has (stock_level), so the caller can pick one."
    # No call to a name the server lacks can succeed: judged as a not_found that names no next step.
    if (said := contradicts((unknown.message,), code=ErrorCode.NOT_FOUND, nxt=None)) is not None:
        return Finding("contradiction", f"the unknown tool's message {said}")
    return None
