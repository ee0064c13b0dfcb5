"""The checks of exercises 15.1-15.2: each solution passes, and each plausible wrong answer fails with words
that say what to change. WRONG lists the (exercise, wrong answer, expected fragment) triples."""
from __future__ import annotations

import itertools
import json

import pytest

from atlas_kit.course.checks import check
from atlas_kit.dispatch.dispatcher import Dispatcher
from atlas_kit.dispatch.tool import Tool
from atlas_kit.contract.errors import ToolFailure, stop


@pytest.fixture(scope="module", autouse=True)
def mcp_names() -> None:
    """Import the MCP SDK (MCPError, and atlas_kit.bridges.mcp.server on it) when a test here first runs, not at collection:
    every xdist worker collects this file. Without the mcp extra each test here is skipped."""
    global MCPError, INVALID_PARAMS
    pytest.importorskip("mcp")
    from mcp import MCPError

    from atlas_kit.bridges.mcp.server import INVALID_PARAMS


# --- the solutions, as the solution notebook writes them ----------------------------------------


def mcp_result(out, style):
    block = out.results[0]
    result = {"content": [{"type": "text", "text": block["content"]}], "isError": bool(out.failures)}
    if out.failures and style == "contract":
        result["structuredContent"] = out.failures[0].error.body()
    return result


STOCK = {"SKU-2041": 140, "SKU-1107": 0}


def stock_level(args, ctx):
    if args["sku"] not in STOCK:
        raise ToolFailure("not_found", "No product matches sku. Ask the customer to check the SKU; do not guess others.",
                          next=stop("Tell the customer that SKU is not in the catalogue."))
    return {"sku": args["sku"], "on_hand": STOCK[args["sku"]]}


SCHEMA = {"type": "object", "required": ["sku"], "additionalProperties": False,
          "properties": {"sku": {"type": "string", "pattern": "^SKU-[0-9]{4}$", "examples": ["SKU-2041"]}}}
shop = Dispatcher([Tool("stock_level", "Units on hand for one SKU, from today's warehouse records.", SCHEMA, stock_level)])
ids = itertools.count(1)


def call_tool(name, arguments):
    if name not in shop.tools:
        raise MCPError(INVALID_PARAMS, f"No tool has that name; call one of: {', '.join(sorted(shop.tools))}.")
    block = {"type": "tool_use", "id": f"call_{next(ids)}", "name": name, "input": arguments or {}}
    return mcp_result(shop.dispatch([block]), "contract")


# --- plausible wrong answers ----------------------------------------------------------------------

def no_structure(out, style):
    result = mcp_result(out, style)
    result.pop("structuredContent", None)
    return result


def structure_everywhere(out, style):
    result = mcp_result(out, style)
    if out.failures:
        result["structuredContent"] = out.failures[0].error.body()
    return result


def message_only(out, style):
    result = mcp_result(out, style)
    if out.failures and style == "contract":
        result["content"][0]["text"] = out.failures[0].error.message
    return result


def always_error(out, style):
    return {**mcp_result(out, style), "isError": True}


def body_as_text_field(out, style):
    return {"text": out.results[0]["content"], "isError": bool(out.failures)}


def unknown_as_result(name, arguments):
    if name not in shop.tools:
        return {"content": [{"type": "text", "text": "No such tool."}], "isError": True}
    return call_tool(name, arguments)


def unknown_echoed(name, arguments):
    if name not in shop.tools:
        raise MCPError(INVALID_PARAMS, f"Unknown tool {name}; call one of: stock_level.")
    return call_tool(name, arguments)


def unknown_unnamed(name, arguments):
    if name not in shop.tools:
        raise MCPError(INVALID_PARAMS, "No tool has that name; see the server's list.")
    return call_tool(name, arguments)


def unknown_wrong_code(name, arguments):
    if name not in shop.tools:
        raise MCPError(-32601, "No tool has that name; call one of: stock_level.")
    return call_tool(name, arguments)


def bypasses_dispatcher(name, arguments):
    if name not in shop.tools:
        raise MCPError(INVALID_PARAMS, "No tool has that name; call one of: stock_level.")
    try:
        value = stock_level(arguments, None)
    except ToolFailure as failure:
        return {"content": [{"type": "text", "text": failure.message}], "isError": True}
    return {"content": [{"type": "text", "text": json.dumps(value)}], "isError": False}


def raw_words(name, arguments):
    if name not in shop.tools:
        raise MCPError(INVALID_PARAMS, "No tool has that name; call one of: stock_level.")
    block = {"type": "tool_use", "id": f"call_{next(ids)}", "name": name, "input": arguments or {}}
    out = shop.dispatch([block])
    return no_structure(out, "contract")


WRONG = [
    ("15.1", no_structure, "structuredContent must be the same body"),
    ("15.1", structure_everywhere, "a raw error has no contract body"),
    ("15.1", message_only, "the text differs from what the dispatcher wrote"),
    ("15.1", always_error, "isError is True"),
    ("15.1", body_as_text_field, "a list of one text block"),
    ("15.1", "not a function", "Pass your function mcp_result"),
    ("15.2", unknown_as_result, "the spec makes it a protocol error"),
    ("15.2", unknown_echoed, "Forbidden: the unknown tool's message repeats the name the caller sent"),
    ("15.2", unknown_unnamed, "Structure: The unknown tool's message should name the tools this server has"),
    ("15.2", unknown_wrong_code, "use INVALID_PARAMS (-32602)"),
    ("15.2", bypasses_dispatcher, "the text should be the contract body with error 'invalid_argument'"),
    ("15.2", raw_words, "structuredContent should hold the same body"),
]


@pytest.mark.parametrize("key,answer", [("15.1", mcp_result), ("15.2", call_tool)])
def test_solutions_pass(key, answer):
    feedback = check(key, answer)
    assert feedback.ok, feedback.message


@pytest.mark.parametrize("key,answer,fragment", WRONG, ids=[f"{k}-{getattr(a, '__name__', 'value')}" for k, a, _ in WRONG])
def test_wrong_answers_fail_and_say_what_to_change(key, answer, fragment):
    feedback = check(key, answer)
    assert not feedback.ok
    assert fragment in feedback.message, feedback.message
