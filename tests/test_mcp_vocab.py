"""The contract's MCP mapping in vocab: the body in the text always, in structuredContent only when asked."""
from __future__ import annotations

import json

import pytest

import atlas_kit as E
from atlas_kit.contract.vocab import text_to_mcp, to_mcp


def test_structured_result_carries_the_same_body_twice():
    err = E.tool_error("t", "limit_exceeded", "Refunds above $500.00 need approval.",
                       next=E.switch_tool("escalate_to_human", "Escalate it."))
    plain, structured = to_mcp(err), to_mcp(err, structured=True)
    assert "structuredContent" not in plain and plain["isError"] is True
    assert structured["structuredContent"] == json.loads(structured["content"][0]["text"]) == err.body()
    assert structured["content"] == plain["content"]


def test_text_results_hold_the_text_as_it_is():
    assert text_to_mcp("ValueError: boom", is_error=True) == {
        "content": [{"type": "text", "text": "ValueError: boom"}], "isError": True}
    assert text_to_mcp('{"count": 0}', is_error=False)["isError"] is False
    with pytest.raises(TypeError, match="Serialise it first"):
        text_to_mcp({"count": 0}, is_error=False)  # type: ignore[arg-type]
