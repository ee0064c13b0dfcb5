"""The offline stand-in's planner: what it reads in a ticket's words, and what it does with an error's words.

Rules, not a model: each test pins one rule planner.py documents, with inputs it has not been shaped around.
"""
from __future__ import annotations

import pytest

from atlas_kit.contract.arguments import check_arguments
from atlas_kit.atlas import ALL_TICKETS, atlas_session
from atlas_kit.models.standin.planner import Goal, answer, fix_call, plan, switch_call

TOOLS = {d["name"]: d for d in atlas_session("T01").tools()}


def _calls(text: str) -> list[tuple[str, dict]]:
    return [(c["name"], c["input"]) for g in plan(text, TOOLS) for c in g.calls]


@pytest.mark.parametrize("tid", sorted(ALL_TICKETS))
def test_every_call_it_plans_for_a_ticket_passes_that_tools_schema(tid):
    # The stand-in reads only the customer's words; whatever it plans must be a call the tool accepts.
    for name, args in _calls(ALL_TICKETS[tid].message):
        assert check_arguments(TOOLS[name]["input_schema"], args) is None, (tid, name, args)


def test_a_refund_takes_the_invoice_and_the_amount_the_customer_wrote_in_cents():
    [goal] = plan("Please refund invoice INV-31234 ($1,204.50). The course was cancelled.", TOOLS)
    assert (goal.kind, goal.subject) == ("refund", "INV-31234")
    assert goal.calls == [{"name": "issue_refund", "input": {"invoice_id": "INV-31234", "amount_cents": 120450,
                                                             "reason": "The course was cancelled."}}]


def test_a_refund_with_no_amount_invents_none_and_asks_for_it():
    [goal] = plan("Can you refund INV-40001 for us?", TOOLS)
    assert goal.calls == [] and "amount" in goal.failure
    assert "how much" in answer([goal])


@pytest.mark.parametrize("text, call", [
    ("Please cancel ORD-55512.", {"order_id": "ORD-55512", "action": "cancel"}),
    ("Change the quantity on ORD-55512 to 14 please.", {"order_id": "ORD-55512", "action": "change_quantity",
                                                        "quantity": 14}),
    ("Please change the address on order ORD-55512 to 4 Mill Lane, York.",
     {"order_id": "ORD-55512", "action": "change_address", "address": "4 Mill Lane, York"}),
    ("Where is ORD-55512?", {"order_id": "ORD-55512"}),
])
def test_an_order_request_becomes_the_matching_call(text, call):
    [(name, args)] = _calls(text)
    assert args == call and name == ("get_order" if "action" not in call else "update_order")


@pytest.mark.parametrize("text, window, region", [
    ("How many SKU-7777 did we ship between 2024-02-01 and 2024-02-29 in the north?",
     ("2024-02-01", "2024-02-29"), "north"),
    ("How many SKU-7777 are in stock right now?", ("2024-12-31", "2024-12-31"), None),
    ("How did SKU-7777 sell this year?", ("2024-01-01", "2024-12-31"), None),
])
def test_a_stock_question_picks_its_dates_and_region(text, window, region):
    [(name, args)] = _calls(text)
    assert name == "query_warehouse" and (args["date_from"], args["date_to"]) == window
    assert args.get("region") == region


@pytest.mark.parametrize("text, status", [
    ("Which invoices are overdue on ACC-1234?", "overdue"),
    ("Which invoices have we paid on ACC-1234?", "paid"),
    ("What do we still owe on ACC-1234? Any unpaid invoices?", "unpaid"),
    ("You say we owe $310.50 on ACC-1234; which unpaid invoices make that up?", "all"),
])
def test_an_invoice_question_picks_the_status_it_asks_about(text, status):
    assert _calls(text) == [("list_invoices", {"account_id": "ACC-1234", "status": status})]


def test_words_it_does_not_recognise_make_no_plan_and_a_plain_answer():
    assert plan("What is the weather like in Leeds?", TOOLS) == []
    assert answer([]) == "I could not work out what to do for this request."


def test_a_goal_whose_tool_is_not_offered_is_dropped():
    only_orders = {"get_order": TOOLS["get_order"]}
    assert plan("Which invoices are overdue on ACC-1234?", only_orders) == []
    assert [g.kind for g in plan("Where is ORD-55512?", only_orders)] == ["order"]


def test_speaking_to_a_person_adds_an_escalation_for_the_account():
    goals = plan("ACC-4471 here. I want to speak to a person about our account, please.", TOOLS)
    assert [c["name"] for g in goals for c in g.calls] == ["escalate_to_human"]
    assert goals[-1].calls[0]["input"]["queue"] == "general"


@pytest.mark.parametrize("error, argument, fixed", [
    ("Argument account_id must look like ACC-4471.", "account_id", {"account_id": "ACC-4471"}),
    ("Argument page_size must be between 1 and 50.", "page_size", {"account_id": "4471", "page_size": 50}),
    ("Argument status must be one of: unpaid, paid.", "status", {"account_id": "4471", "status": "unpaid"}),
])
def test_an_error_that_says_how_to_change_an_argument_is_followed(error, argument, fixed):
    call = {"name": "list_invoices", "input": {"account_id": "4471", "page_size": 500, "status": "weird"}}
    [out] = fix_call(call, argument, error, TOOLS["list_invoices"]["input_schema"])
    assert out["name"] == "list_invoices"
    assert all(out["input"][k] == v for k, v in fixed.items()), out


def test_an_error_that_asks_for_a_region_splits_the_query_into_every_region():
    call = {"name": "query_warehouse", "input": {"sku": "SKU-2041", "date_from": "2024-01-01", "date_to": "2024-12-31"}}
    out = fix_call(call, "region", "Too broad: add region.", TOOLS["query_warehouse"]["input_schema"])
    assert [c["input"]["region"] for c in out] == ["north", "south", "east", "west"]


def test_an_error_that_does_not_say_how_leaves_the_call_alone():
    call = {"name": "get_account", "input": {"account_id": "ACC-4471"}}
    assert fix_call(call, "account_id", "Something went wrong.", TOOLS["get_account"]["input_schema"]) is None


def test_switching_to_escalation_uses_the_queue_the_error_names_and_the_account_it_knows():
    goal = Goal("refund", "INV-20411", [], {"amount": "$650.00", "account": "ACC-4471"})
    call = switch_call("escalate_to_human", goal, "Refunds above $500.00 go to billing_refunds.", "Refund it.", TOOLS)
    assert call is not None and call["input"]["account_id"] == "ACC-4471"
    assert call["input"]["queue"] == "billing_refunds"


def test_switching_to_a_tool_it_has_no_rule_for_gives_no_call():
    goal = Goal("order", "ORD-77120", [])
    assert switch_call("get_account", goal, "use get_account", "Where is ORD-77120?", TOOLS) is None


def test_a_result_marked_incomplete_is_asked_for_once_more_then_reported_not_its_figures():
    goal = Goal("invoices", "ACC-4471", [{"name": "list_invoices", "input": {"account_id": "ACC-4471"}}])
    call = goal.calls[0]
    cut = {"complete": False, "count": 9, "total_amount": "$12.00", "note": "Only 3 of 9 rows came back. Call again."}
    goal.succeed(call, cut)
    assert goal.calls == [call] and not goal.done and not goal.failure  # asked again
    goal.succeed(call, cut)
    assert goal.failure.startswith("the answer I got was marked incomplete") and "$12.00" not in answer([goal])


def test_a_whole_result_finishes_the_goal_and_its_figures_reach_the_answer():
    goal = Goal("account", "ACC-4471", [{"name": "get_account", "input": {"account_id": "ACC-4471"}}])
    goal.succeed(goal.calls[0], {"account_id": "ACC-4471", "name": "Acme Corp", "balance_due": "$310.50",
                                 "unpaid_invoices": 1})
    assert goal.done and goal.calls == []
    assert "$310.50" in answer([goal]) and "Acme Corp" in answer([goal])
