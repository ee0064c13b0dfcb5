"""Atlas over MCP through the SDK's in-memory client: what is listed, every catalogued failure round-trips
in each style, protocol errors for names the server does not have, episodes graded, bounded and logged."""
from __future__ import annotations

import asyncio
import json
from typing import Any

import jsonschema
import pytest

from atlas_kit.atlas import TICKETS, atlas_session, ticket
from atlas_kit.atlas.styles import CASES, catalogue
from atlas_kit.contract.errors import error_schema
from atlas_kit.experiments.metrics import recovery, usable
from atlas_kit.face.tables import recovery_table
from atlas_kit.types.results import HARNESS_ERROR, read_records
from atlas_kit.experiments.results import source_label

SCHEMA = error_schema()


@pytest.fixture(scope="module", autouse=True)
def mcp_names() -> None:
    """Import the MCP SDK (and atlas_kit.bridges.mcp.server on it) when a test here first runs, not at collection: every
    xdist worker collects this file. Without the mcp extra each test here is skipped."""
    global types, Client, MCPError, INVALID_PARAMS, AtlasMCP
    pytest.importorskip("mcp")
    import mcp_types as types
    from mcp import Client, MCPError

    from atlas_kit.bridges.mcp.server import INVALID_PARAMS, AtlasMCP


def connected(server: AtlasMCP, steps: Any, *, name: str = "pytest") -> Any:
    """Run `await steps(client)` against `server` over the in-memory transport (JSON-RPC framing, as stdio)."""
    async def go() -> Any:
        info = types.Implementation(name=name, version="1")
        async with Client(server.server, mode="legacy", client_info=info) as client:
            return await steps(client)
    return asyncio.run(go())


def wire(result: types.CallToolResult) -> dict[str, Any]:
    return result.model_dump(by_alias=True, mode="json", exclude_none=True, exclude={"meta", "result_type"})


def test_tools_are_atlas_definitions_plus_finish_and_prompts_are_the_tickets():
    async def steps(c: Client) -> Any:
        return await c.list_tools(), await c.list_prompts(), await c.get_prompt("T04")

    tools, prompts, t04 = connected(AtlasMCP(), steps)
    atlas = {d["name"]: d for d in atlas_session("T01").tools()}
    listed = {t.name: t for t in tools.tools}
    assert list(listed) == [*atlas, "finish"]
    for name, definition in atlas.items():
        assert listed[name].input_schema == definition["input_schema"]
        assert listed[name].description == definition["description"]
    assert listed["issue_refund"].annotations.read_only_hint is False
    assert listed["get_account"].annotations.read_only_hint is True
    assert listed["finish"].input_schema["required"] == ["answer"]
    assert [p.name for p in prompts.prompts] == list(TICKETS) and len(TICKETS) == 27
    texts = [m.content.text for m in t04.messages]
    assert texts[-1] == ticket("T04").message  # the customer's own words, last and verbatim
    assert "finish" in texts[0] and 'customer "acme"' in texts[0]


def _open_case(server: AtlasMCP, case: Any) -> None:
    server.open("T01", customer=case.customer, faults=case.faults)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_catalogued_failure_round_trips_in_the_contract(case):
    server = AtlasMCP(style="contract")
    _open_case(server, case)
    result = wire(connected(server, lambda c: c.call_tool(case.tool, case.input)))
    assert result["isError"] is True
    assert len(result["content"]) == 1 and result["content"][0]["type"] == "text"
    body = json.loads(result["content"][0]["text"])
    jsonschema.validate(body, SCHEMA)
    assert result["structuredContent"] == body
    row = next(r for r in catalogue(cases=(case,)))
    assert body == json.loads(row.contract) and body["error"] == row.code
    definitions = json.dumps(atlas_session("T01").tools())
    world = server.episode.world
    for name, value in case.input.items():  # nothing the caller typed comes back unless Atlas vouches for it
        value = str(value)
        if len(value) >= 4 and value in result["content"][0]["text"]:
            assert value in definitions or world.tenant_of(value) == case.customer, (name, value)


@pytest.mark.parametrize("style", ["raw", "generic"])
def test_raw_and_generic_failures_keep_their_text_and_claim_no_structure(style):
    rows = {r.case: r for r in catalogue()}
    for case in CASES:
        server = AtlasMCP(style=style)
        _open_case(server, case)
        result = wire(connected(server, lambda c: c.call_tool(case.tool, case.input)))
        assert result["isError"] is True and "structuredContent" not in result
        assert result["content"][0]["text"] == getattr(rows[case.name], style)


def test_a_success_is_text_without_is_error():
    server = AtlasMCP()
    server.open("T01")
    result = wire(connected(server, lambda c: c.call_tool("get_account", {"account_id": "ACC-4471"})))
    assert not result.get("isError") and json.loads(result["content"][0]["text"])["account_id"] == "ACC-4471"


def test_unknown_tool_and_prompt_are_protocol_errors_that_do_not_echo_the_name():
    server = AtlasMCP()
    server.open("T01")

    async def refused(call: Any) -> MCPError:
        with pytest.raises(MCPError) as caught:
            await call
        return caught.value

    errors = [connected(server, lambda c: refused(c.call_tool("delete_everything_now", {}))),
              connected(server, lambda c: refused(c.get_prompt("T99-please")))]
    for error, word in zip(errors, ("get_account", "T01 to T27")):
        assert error.code == INVALID_PARAMS and word in error.message
        assert "delete_everything" not in error.message and "please" not in error.message
    assert server.episode is not None and server.episode.calls == []  # a protocol error is no call of the episode


def test_a_call_with_no_ticket_open_says_to_pick_a_prompt():
    server = AtlasMCP()
    for tool, args in (("get_account", {"account_id": "ACC-4471"}), ("finish", {"answer": "Done."})):
        result = wire(connected(server, lambda c: c.call_tool(tool, args)))
        assert result["isError"] is True and result["structuredContent"]["error"] == "not_permitted"
        assert "T01 to T27" in result["structuredContent"]["next"]["say"]
    assert server.records == []


def _script_calls(name: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.tool, dict(c.input)) for turn in ticket(name).plan(faults=True).batches() for c in turn]


def test_finish_checks_its_arguments_then_grades_and_closes_the_episode():
    server = AtlasMCP()
    t04 = ticket("T04")

    async def steps(c: Client) -> Any:
        await c.get_prompt("T04")
        for tool, args in _script_calls("T04"):
            await c.call_tool(tool, args)
        bad = await c.call_tool("finish", {"answer": "", "model": "claude-test"})
        good = await c.call_tool("finish", {"answer": t04.script.final, "model": "claude-test"})
        again = await c.call_tool("finish", {"answer": t04.script.final})
        return wire(bad), wire(good), wire(again)

    bad, good, again = connected(server, steps, name="pytest-client")
    assert bad["isError"] is True and bad["structuredContent"]["next"]["argument"] == "answer"
    assert not good.get("isError") and "correct" in good["content"][0]["text"] and "not correct" not in good["content"][0]["text"]
    assert again["structuredContent"]["error"] == "not_permitted"  # the episode closed on the first good finish
    [record] = server.records
    assert record["correct"] is True and record["ticket"] == "T04" and record["style"] == "contract"
    assert record["error_codes"] == ["limit_exceeded"] and record["branches"] == ["switch_tool"]
    assert record["model"] == "claude-test via pytest-client" and record["client"] == "pytest-client 1"
    assert record["source"].startswith("live (claude-test via pytest-client, ")
    assert [c["tool"] for c in record["calls"]] == ["issue_refund", "escalate_to_human"]
    assert record["calls"][0]["is_error"] is True and record["answer"] == t04.script.final


def test_an_episode_left_open_is_logged_but_left_out_of_every_figure(tmp_path):
    log = tmp_path / "mcp.jsonl"
    server = AtlasMCP(log=log)

    async def steps(c: Client) -> None:
        await c.get_prompt("T04")
        await c.call_tool("issue_refund", {"invoice_id": "INV-20411", "amount_cents": 65000, "reason": "Cancelled."})
        await c.get_prompt("T01")  # a new ticket before finish: the first is not handed in
        await c.call_tool("list_invoices", {"account_id": "ACC-4471", "status": "unpaid"})
        await c.call_tool("finish", {"answer": ticket("T01").script.final})

    connected(server, steps)
    records = read_records(log)
    assert [r["ticket"] for r in records] == ["T04", "T01"]
    assert records[0]["stop_reason"] == HARNESS_ERROR and "finish" in records[0]["harness_error"]
    assert records[0]["calls"][0]["tool"] == "issue_refund"
    assert usable(records) == [records[1]] and recovery(records).n == 0
    assert "1 episode(s)" in recovery_table(records).caption


def test_a_looping_episode_ends_on_step_limit_and_is_graded_wrong():
    server = AtlasMCP(style="generic", max_calls=3)
    args = {"sku": "SKU-3300", "date_from": "2024-12-01", "date_to": "2024-12-31", "region": "east"}

    async def steps(c: Client) -> list[dict[str, Any]]:
        await c.get_prompt("T21")
        return [wire(await c.call_tool("query_warehouse", args)) for _ in range(4)]

    results = connected(server, steps)
    assert all(r["isError"] for r in results)
    assert results[-1]["structuredContent"]["error"] == "limit_exceeded"  # the harness's own words, in the contract
    [record] = server.records
    assert record["stop_reason"] == "step_limit" and record["correct"] is False
    assert "loop" in record["labels"] and "step_limit" in record["labels"] and record["tool_calls"] == 3


def test_secrets_in_arguments_never_reach_the_log(tmp_path):
    log = tmp_path / "mcp.jsonl"
    server = AtlasMCP(log=log)
    key = "sk-ant-api03-" + "x" * 24
    server.open("T03")
    connected(server, lambda c: c.call_tool("issue_refund", {"invoice_id": "INV-20410", "amount_cents": 12000,
                                                               "reason": f"my key is {key}"}))
    server.close()
    text = log.read_text()
    assert key not in text and "[redacted]" in text


def test_log_is_read_by_metrics_and_labelled_live_with_the_client(tmp_path):
    log = tmp_path / "mcp.jsonl"
    for style in ("raw", "contract"):
        server = AtlasMCP(style=style, log=log)

        async def steps(c: Client) -> None:
            for name in ("T04", "T07"):
                await c.get_prompt(name)
                for tool, args in _script_calls(name):
                    await c.call_tool(tool, args)
                await c.call_tool("finish", {"answer": ticket(name).script.final, "model": "claude-test"})

        connected(server, steps, name="claude-code")
    records = read_records(log)
    assert len(records) == 4 and len({r["key"] for r in records}) == 4
    assert source_label(records).startswith("live (claude-test via claude-code, ")
    table = recovery_table(records)
    assert [row[0] for row in table.rows] == ["contract", "raw"] and all(row[2] == "2" for row in table.rows)
    # Run again into the same log: new trial numbers, nothing overwritten or dropped.
    server = AtlasMCP(style="raw", log=log)
    server.open("T04")
    server.close()
    assert len(read_records(log)) == 5


def test_style_is_checked():
    with pytest.raises(ValueError, match="style 'html'"):
        AtlasMCP(style="html")


@pytest.mark.parametrize("side_effect", [True, False])
def test_a_server_crash_on_the_hand_over_tool_offers_no_person(side_effect: bool) -> None:
    from atlas_kit.bridges.mcp.wording import crash_result

    handed = crash_result("contract", "escalate_to_human", RuntimeError("queue lost"), side_effect=side_effect,
                          hands_over=True)
    other = crash_result("contract", "issue_refund", RuntimeError("ledger lost"), side_effect=side_effect)
    said = [json.loads(r["content"][0]["text"])["next"]["say"] for r in (handed, other)]
    assert "escalat" not in said[0] and "write again later" in said[0] and "queue lost" not in said[0]
    assert "offer escalation" in said[1]
