from __future__ import annotations

import json
import re

import pytest
from pydantic import TypeAdapter
from anthropic.types import ToolParam

from atlas_kit.atlas import TOOL_NAMES, World, atlas_session
from atlas_kit.atlas.tools import build_tools
from atlas_kit.dispatch.styles import GENERIC_PREFIX
from atlas_kit.contract.errors import MAX_MESSAGE_CHARS


def body(result: dict) -> dict:
    return json.loads(result["content"])


# --- the surface ---------------------------------------------------------------------


def test_seven_tools_each_a_valid_anthropic_tool_param():
    defs = atlas_session("T01").tools()
    assert [d["name"] for d in defs] == list(TOOL_NAMES) and len(defs) == 7
    adapter = TypeAdapter(ToolParam)
    for d in defs:
        adapter.validate_python(d)
        assert set(d) == {"name", "description", "input_schema"}
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", d["name"])
        assert d["input_schema"]["additionalProperties"] is False
        assert len(d["description"]) > 80, d["name"]


def test_id_arguments_have_patterns_examples_and_unambiguous_names():
    for d in atlas_session("T01").tools():
        props = d["input_schema"]["properties"]
        assert not {"user", "id", "customer", "amount"} & set(props)
        for name, prop in props.items():
            if name.endswith("_id") or name == "sku":
                assert prop["pattern"] and re.fullmatch(prop["pattern"], prop["examples"][0]), name
            if "enum" not in prop and name not in ("reason", "address"):
                assert prop.get("examples"), f"{d['name']}.{name} needs an example"


def test_unknown_customer_is_refused_with_the_parameter_named():
    with pytest.raises(ValueError, match="tenant 'wayne'.*acme"):
        build_tools(World(0), tenant="wayne")
    with pytest.raises(ValueError, match="tenant"):
        atlas_session("T01", customer="wayne")


# --- success paths -------------------------------------------------------------------


def test_get_account_success(caller):
    result, failure = caller("T01")("get_account", account_id="ACC-4471")
    assert failure is None and "is_error" not in result
    b = body(result)
    assert b["balance_due"] == "$400.49" and b["unpaid_invoices"] == 2
    assert {"order_id": "ORD-77121", "status": "shipped"} in b["orders"]


def test_list_invoices_success_formats_and_pages(caller):
    c = caller("T01")
    b = body(c("list_invoices", account_id="ACC-4471", status="unpaid")[0])
    assert [i["invoice_id"] for i in b["invoices"]] == ["INV-20412", "INV-20413"]
    assert b["total_amount"] == "$400.49" and set(b["invoices"][0]) == {"invoice_id", "status", "amount"}
    detailed = body(c("list_invoices", account_id="ACC-4471", response_format="detailed")[0])
    assert detailed["count"] == 4 and {"paid_on", "payment_id", "refunded", "due"} <= set(detailed["invoices"][0])
    page2 = body(c("list_invoices", account_id="ACC-4471", page=2, page_size=3)[0])
    assert page2["pages"] == 2 and len(page2["invoices"]) == 1


def test_get_order_success(caller):
    b = body(caller("T06")("get_order", order_id="ORD-77120")[0])
    assert b["status"] == "open" and b["quantity"] == 10 and b["total"] == "$3,290.00"


def test_update_order_success_paths_change_state_once(caller):
    c = caller("T06")
    w = c.session.world
    assert body(c("update_order", order_id="ORD-77120", action="change_quantity", quantity=12)[0])["quantity"] == 12
    assert body(c("update_order", order_id="ORD-77120", action="change_address", address="1 New Road, York")[0])["ship_to"] == "1 New Road, York"
    assert body(c("update_order", order_id="ORD-77120", action="cancel")[0])["status"] == "cancelled"
    assert [sorted(k for k in ch if k != "key") for ch in w.order_changes] == [
        ["order_id", "quantity"], ["order_id", "ship_to"], ["order_id", "status"]]
    assert w.order("ORD-77120").status == "cancelled"


def test_issue_refund_success_is_recorded_and_shows_in_detailed_invoices(caller):
    c = caller("T03")
    b = body(c("issue_refund", invoice_id="INV-20410", amount_cents=5000, reason="partial refund")[0])
    assert b["amount"] == "$50.00" and b["status"] == "issued"
    listed = body(c("list_invoices", account_id="ACC-4471", status="paid", response_format="detailed")[0])
    assert {i["invoice_id"]: i["refunded"] for i in listed["invoices"]}["INV-20410"] == "$50.00"
    assert c.session.world.refunded_cents("INV-20410") == 5000


def test_query_warehouse_success_reports_cost(caller):
    b = body(caller("T20")("query_warehouse", sku="SKU-1107", date_from="2024-03-01", date_to="2024-03-31")[0])
    assert b["cost_estimate"] == {"rows_scanned": 31 * 4 * 30, "row_limit": 10_000}
    assert b["units_shipped"] == sum(r["units_shipped"] for r in b["by_region"]) and b["region"] == "all"


def test_escalate_to_human_success(caller):
    c = caller("T26")
    b = body(c("escalate_to_human", account_id="ACC-7702", queue="general", reason="Contract renewal call please")[0])
    assert b["escalation_id"] == "ESC-0001" and b["queue"] == "general"
    assert c.session.world.escalations[0]["account_id"] == "ACC-7702"


# --- empty is not not_found ------------------------------------------------------------


def test_empty_result_is_a_success_with_a_note_and_not_found_is_an_error(caller):
    c = caller("T02")
    empty, failure = c("list_invoices", account_id="ACC-4475", status="unpaid")
    assert failure is None and "is_error" not in empty
    b = body(empty)
    assert b["count"] == 0 and b["invoices"] == [] and b["note"] == "Account ACC-4475 has no unpaid invoices."
    missing, failure = c("list_invoices", account_id="ACC-4479", status="unpaid")
    assert missing["is_error"] is True and failure.error.code.value == "not_found"


# --- every error path, in all three styles ------------------------------------------

BAD = "ACC-4471'; DROP TABLE accounts;--"
ERRORS = [
    # (ticket to run as, tool, input, code, branch, word the contract message must contain)
    ("T01", "get_account", {"account_id": "4471"}, "invalid_argument", "retry_changed", "account_id"),
    ("T01", "get_account", {"account_id": BAD}, "invalid_argument", "retry_changed", "account_id"),
    ("T01", "get_account", {"account_id": 4471}, "invalid_argument", "retry_changed", "account_id"),
    ("T01", "get_account", {}, "invalid_argument", "retry_changed", "account_id"),
    ("T01", "get_account", {"account_id": "ACC-4471", "user": "bob"}, "invalid_argument", "retry_changed", "account_id"),
    ("T23", "get_account", {"account_id": "ACC-6601"}, "not_found", "stop", "account_id"),
    ("T05", "get_account", {"account_id": "ACC-4472"}, "not_permitted", "stop", "account_id"),
    ("T01", "list_invoices", {"account_id": "ACC-4471", "page": 0}, "invalid_argument", "retry_changed", "page"),
    ("T01", "list_invoices", {"account_id": "ACC-4471", "page": 9}, "invalid_argument", "retry_changed", "page"),
    ("T01", "list_invoices", {"account_id": "ACC-4471", "page": "2"}, "invalid_argument", "retry_changed", "page"),
    ("T01", "list_invoices", {"account_id": "ACC-4471", "page_size": 500}, "invalid_argument", "retry_changed", "page_size"),
    ("T01", "list_invoices", {"account_id": "ACC-4471", "status": "open"}, "invalid_argument", "retry_changed", "status"),
    ("T01", "list_invoices", {"account_id": "ACC-4472"}, "not_permitted", "stop", "account_id"),
    ("T06", "get_order", {"order_id": "ORD-1"}, "invalid_argument", "retry_changed", "order_id"),
    ("T06", "get_order", {"order_id": "ORD-77999"}, "not_found", "stop", "order_id"),
    ("T06", "get_order", {"order_id": "ORD-77130"}, "not_permitted", "stop", "order_id"),
    ("T07", "update_order", {"order_id": "ORD-77121", "action": "cancel"}, "not_permitted", "switch_tool", "escalate_to_human"),
    ("T08", "update_order", {"order_id": "ORD-77122", "action": "cancel"}, "not_found", "stop", "deleted"),
    ("T06", "update_order", {"order_id": "ORD-77120", "action": "delete"}, "invalid_argument", "retry_changed", "action"),
    ("T06", "update_order", {"order_id": "ORD-77120", "action": "change_quantity"}, "invalid_argument", "retry_changed", "quantity"),
    ("T06", "update_order", {"order_id": "ORD-77120", "action": "cancel", "quantity": 3}, "invalid_argument", "retry_changed", "quantity"),
    ("T06", "update_order", {"order_id": "ORD-77120", "action": "change_quantity", "quantity": 0}, "invalid_argument", "retry_changed", "quantity"),
    ("T06", "update_order", {"order_id": "ORD-77120", "action": "change_address", "address": "x"}, "invalid_argument", "retry_changed", "address"),
    ("T06", "update_order", {"order_id": "ORD-77120", "action": "cancel", "address": "1 New Road"}, "invalid_argument", "retry_changed", "address"),
    ("T16", "update_order", {"order_id": "ORD-77170", "action": "change_quantity", "quantity": 80}, "limit_exceeded", "stop", "capped"),
    ("T04", "issue_refund", {"invoice_id": "INV-20411", "amount_cents": 65000, "reason": "cancelled"}, "limit_exceeded", "switch_tool", "escalate_to_human"),
    ("T03", "issue_refund", {"invoice_id": "INV-20410", "amount_cents": 13000, "reason": "cancelled"}, "invalid_argument", "retry_changed", "amount_cents"),
    ("T03", "issue_refund", {"invoice_id": "INV-20410", "amount_cents": 0, "reason": "cancelled"}, "invalid_argument", "retry_changed", "amount_cents"),
    ("T03", "issue_refund", {"invoice_id": "INV-20410", "amount_cents": "120.00", "reason": "cancelled"}, "invalid_argument", "retry_changed", "amount_cents"),
    ("T03", "issue_refund", {"invoice_id": "INV-20410", "amount_cents": 100}, "invalid_argument", "retry_changed", "reason"),
    ("T01", "issue_refund", {"invoice_id": "INV-20412", "amount_cents": 100, "reason": "dispute"}, "invalid_argument", "retry_changed", "invoice_id"),
    ("T18", "issue_refund", {"invoice_id": "INV-20433", "amount_cents": 24000, "reason": "unused"}, "limit_exceeded", "stop", "refund window"),
    ("T09", "issue_refund", {"invoice_id": "INV-20417", "amount_cents": 8900, "reason": "duplicate"}, "not_found", "switch_tool", "list_invoices"),
    ("T03", "issue_refund", {"invoice_id": "INV-20440", "amount_cents": 8900, "reason": "duplicate"}, "not_permitted", "stop", "invoice_id"),
    ("T19", "query_warehouse", {"sku": "SKU-2041", "date_from": "2024-01-01", "date_to": "2024-06-30"}, "invalid_argument", "retry_changed", "region"),
    ("T19", "query_warehouse", {"sku": "SKU-2041", "date_from": "2024-01-01", "date_to": "2024-12-31", "region": "west"}, "invalid_argument", "retry_changed", "date_from"),
    ("T20", "query_warehouse", {"sku": "SKU-1107", "date_from": "2024-02-30", "date_to": "2024-03-31"}, "invalid_argument", "retry_changed", "date_from"),
    ("T20", "query_warehouse", {"sku": "SKU-1107", "date_from": "2023-12-31", "date_to": "2024-01-31"}, "invalid_argument", "retry_changed", "date_from"),
    ("T20", "query_warehouse", {"sku": "SKU-1107", "date_from": "2024-12-01", "date_to": "2025-01-05"}, "invalid_argument", "retry_changed", "date_to"),
    ("T20", "query_warehouse", {"sku": "SKU-1107", "date_from": "2024-03-31", "date_to": "2024-03-01"}, "invalid_argument", "retry_changed", "date_from"),
    ("T20", "query_warehouse", {"sku": "SKU-1107", "date_from": "March 1", "date_to": "2024-03-31"}, "invalid_argument", "retry_changed", "date_from"),
    ("T20", "query_warehouse", {"sku": "SKU-1107", "date_from": "2024-03-01", "date_to": "2024-03-31", "region": "central"}, "invalid_argument", "retry_changed", "region"),
    ("T20", "query_warehouse", {"sku": "SKU-0000", "date_from": "2024-03-01", "date_to": "2024-03-31"}, "not_found", "stop", "sku"),
    ("T26", "escalate_to_human", {"account_id": "ACC-7702", "queue": "sales", "reason": "Contract renewal please"}, "invalid_argument", "retry_changed", "queue"),
    ("T26", "escalate_to_human", {"account_id": "ACC-7702", "queue": "general", "reason": "help"}, "invalid_argument", "retry_changed", "reason"),
    ("T05", "escalate_to_human", {"account_id": "ACC-4472", "queue": "general", "reason": "Check the partner account"}, "not_permitted", "stop", "account_id"),
]
_INTERNALS = ("Traceback", "ORA-", "psycopg", "sqlalchemy", "<html", "KeyError", "REFUND_CEILING", "globex", "HTTP 4")


@pytest.mark.parametrize("ticket,tool,args,code,branch,word", ERRORS, ids=[f"{e[1]}-{e[3]}-{i}" for i, e in enumerate(ERRORS)])
def test_error_paths_in_contract_style(caller, ticket, tool, args, code, branch, word):
    c = caller(ticket)
    before = c.session.world.snapshot()
    result, failure = c(tool, **args)
    b = body(result)
    assert result["is_error"] is True and b["error"] == code and b["next"]["branch"] == branch
    assert word in b["message"] or word in json.dumps(b["next"])
    assert len(b["message"]) <= MAX_MESSAGE_CHARS and b["retryable"] is (code == "invalid_argument")
    assert not any(s in result["content"] for s in _INTERNALS)
    assert "DROP TABLE" not in result["content"] and "bob" not in result["content"]
    if code == "not_permitted" and "ACC-4472" in json.dumps(args):
        assert "ACC-4472" not in result["content"] and "do not try other account ids" in b["message"].lower()
    assert c.session.world.snapshot() == before


@pytest.mark.parametrize("ticket,tool,args,code,branch,word", ERRORS[::3], ids=[f"{e[1]}-{e[3]}-{i}" for i, e in enumerate(ERRORS[::3])])
@pytest.mark.parametrize("style", ["raw", "generic"])
def test_error_paths_in_raw_and_generic_styles(caller, style, ticket, tool, args, code, branch, word):
    c = caller(ticket, style=style)
    before = c.session.world.snapshot()
    result, failure = c(tool, **args)
    assert result["is_error"] is True and failure.error.code.value == code
    if style == "raw":
        assert result["content"] == failure.raw
    else:
        assert result["content"].startswith(GENERIC_PREFIX) and failure.raw.strip().splitlines()[-1].strip() in result["content"]
    assert not result["content"].lstrip().startswith("{")  # neither style is the contract's JSON
    assert c.session.world.snapshot() == before


def test_contract_errors_never_crash_on_odd_input(caller):
    c = caller("T03")
    before = c.session.world.snapshot()
    for args in ({"invoice_id": None}, {"invoice_id": ["INV-20410"]}, {"amount_cents": 1e30},
                 {"invoice_id": "INV-20410", "amount_cents": True, "reason": "x" * 600}):
        result, failure = c("issue_refund", **args)
        assert result["is_error"] is True and failure.error.code.value == "invalid_argument"
    result, failure = c("no_such_tool", x=1)
    assert failure.error.code.value == "invalid_argument" and "issue_refund" in body(result)["message"]
    assert c.session.world.snapshot() == before


# --- idempotency ----------------------------------------------------------------------


def test_a_side_effect_retried_by_the_harness_applies_once():
    s = atlas_session("T10")  # issue_refund times out after applying, once
    result = s.dispatcher.dispatch([{"type": "tool_use", "id": "toolu_1", "name": "issue_refund",
                                     "input": {"invoice_id": "INV-20450", "amount_cents": 48000, "reason": "damaged"}}]).results[0]
    assert "is_error" not in result and body(result)["refund_id"] == "RFD-0001"
    assert len(s.world.refunds) == 1 and [e["attempt"] for e in s.trace.of_kind("transient")] == [1]
    assert s.world.clock > 0


def test_the_same_idempotency_key_in_a_resumed_run_applies_once():
    s = atlas_session("T06")
    block = {"type": "tool_use", "id": "toolu_9", "name": "update_order", "input": {"order_id": "ORD-77120", "action": "cancel"}}
    first = s.dispatcher.dispatch([block]).results[0]
    again = s.dispatcher.dispatch([dict(block)]).results[0]  # the same tool_use id: the same key
    assert first["content"] == again["content"] and len(s.world.order_changes) == 1


def test_a_fully_refunded_invoice_is_a_stop_not_a_retry():
    import json as _json

    from atlas_kit.atlas import atlas_session

    s = atlas_session("T03", faults=False)
    use = {"type": "tool_use", "name": "issue_refund",
           "input": {"invoice_id": "INV-20410", "amount_cents": 12000, "reason": "Service cancelled."}}
    assert not s.dispatcher.dispatch([{**use, "id": "a"}]).results[0].get("is_error")
    body = _json.loads(s.dispatcher.dispatch([{**use, "id": "b"}]).results[0]["content"])
    assert body["error"] == "limit_exceeded" and body["next"]["branch"] == "stop"
    assert "refunded in full" in body["message"]
