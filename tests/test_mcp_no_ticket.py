"""Atlas over MCP with no ticket open: a call whose arguments break the tool's schema is answered in the server's
style (raw, generic or contract), as it is with a ticket open; only a well-formed call gets "no ticket is open".
Before this, every call with no ticket got the contract's words in every style (issue 29)."""
from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest


@pytest.fixture(scope="module", autouse=True)
def mcp_names() -> None:
    global Client, AtlasMCP
    pytest.importorskip("mcp")
    from mcp import Client

    from atlas_kit.bridges.mcp.server import AtlasMCP


def call(style: str, tool: str, args: dict[str, Any]) -> tuple[str, bool]:
    async def go() -> tuple[str, bool]:
        async with Client(AtlasMCP(style=style).server, mode="legacy") as client:
            result = await client.call_tool(tool, args)
            return result.content[0].text, result.is_error
    return asyncio.run(go())


@pytest.mark.parametrize("tool,args", [("get_account", {"account_id": "4471"}), ("finish", {}),
                                       ("list_invoices", {"account_id": "ACC-4471", "status": "lost"})])
def test_a_bad_argument_is_answered_in_each_styles_own_words(tool, args):
    raw, raw_flag = call("raw", tool, args)
    generic, _ = call("generic", tool, args)
    contract, _ = call("contract", tool, args)
    assert raw_flag is True and raw.startswith("jsonschema.exceptions.ValidationError")
    assert generic.startswith("An error occurred, please try again.")
    body = json.loads(contract)
    assert body["error"] == "invalid_argument" and "No Atlas ticket" not in body["message"]


@pytest.mark.parametrize("style", ["raw", "generic", "contract"])
def test_a_well_formed_call_still_says_no_ticket_is_open(style):
    text, flag = call(style, "get_account", {"account_id": "ACC-4471"})
    assert flag is True and json.loads(text)["error"] == "not_permitted" and "T01 to T27" in text
