"""The rules a check may apply to a learner's words (atlas_kit/checks/_text.py): each rejects what it names, lets the
same words pass when they are negated or meant for the customer, and never raises, whatever the text."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.course.checks import Finding
from atlas_kit.course.checks._text import (blames, claims_complete, claims_failure, claims_success, echoes,
    internals, invites_retry, judge_failure, names_other_tool)
from atlas_kit.contract.errors import ErrorCode, retry_changed, stop, switch_tool

INVITATIONS = ["retry", "try again", "call it again", "wait a moment", "repeat the call", "try other account ids",
               "try a nearby SKU", "look up neighbouring ids", "guess another id", "give it a minute",
               "retry in 4 seconds"]
CLAIMS = ["the refund was issued", "the request was processed", "it went through", "we have refunded it",
          "the order has been shipped", "it is done", "the address was updated"]


@pytest.mark.parametrize("words", INVITATIONS)
def test_an_invitation_is_found_and_its_negation_is_not(words):
    assert invites_retry(f"The service is busy; {words}.")
    for negated in (f"Do not {words}.", f"Never {words}.", f"Tell the customer rather than {words}."):
        assert invites_retry(negated) is None, negated


@pytest.mark.parametrize("text", ["Tell the customer to try again later.", "Ask them to retry tomorrow.",
                                  "Retrying will not help.", "There is no point in retrying.",
                                  "Other account ids must not be tried.", "Wait for the customer to reply."])
def test_words_for_the_customer_or_that_refuse_a_retry_invite_nothing(text):
    assert invites_retry(text) is None


def test_a_negation_does_not_reach_past_so_or_but():
    assert invites_retry("The service is not responding so call it again later.") == "call it again"
    assert invites_retry("It did not answer, but try again in a minute.") is not None


@pytest.mark.parametrize("words", CLAIMS)
def test_a_success_claim_is_found(words):
    assert claims_success(f"Tell the customer {words}.")


@pytest.mark.parametrize("text", ["The refund was not issued.", "No refund was issued.", "Nothing was done.",
                                  "Refunds are issued only within 180 days.", "The invoice was paid in March.",
                                  "Order ORD-77120 is open and has not shipped.", "The request was not completed.",
                                  "Order ORD-77121 has already shipped, so it can no longer be changed here.",
                                  "It may not have been applied; do not repeat it."])
def test_facts_and_refusals_are_not_success_claims(text):
    assert claims_success(text) is None


def test_a_dollar_amount_does_not_end_a_sentence():
    assert claims_success("Tell the customer the refund of $650.00 was issued.") == "refund of $650.00 was issued"


def test_failure_words_in_a_success_and_completeness_words_in_a_cut_list():
    assert claims_failure("Error: no orders for this account.") == "Error"
    assert claims_failure("No error: the account has no orders.") is None
    assert claims_complete("This is the complete list.") and claims_complete("Nothing is missing.")
    assert claims_complete("This is not the full list.") is None
    assert claims_complete("Tell the customer the full list could not be retrieved.") is None


def test_internals_echo_blame_and_other_tools():
    assert internals("QueryCanceled: narrow it.") == "QueryCanceled"
    assert internals("Limited by REFUND_WINDOW_DAYS.") == "REFUND_WINDOW_DAYS"
    assert internals("Its paid_at is too old.") == "paid_at" and internals("Its paid_at is old.", names={"paid_at"}) is None
    assert internals("It hit the statement timeout.", raw="QueryCanceled: canceling statement due to statement timeout")
    assert internals("Add region (north, south, east or west) and call once per region.", names={"region"}) is None
    assert echoes("No product matches sku-9999.", ["SKU-9999"]) == "SKU-9999"
    assert blames("The customer typed it wrong.") and blames("That is their mistake.")
    assert blames("The customer may have mistyped it; ask them to check.") is None
    tools = ["list_invoices", "escalate_to_human", "issue_refund"]
    assert names_other_tool("Call escalate_to_human now.", tools, ["list_invoices"]) == "escalate_to_human"
    assert names_other_tool("Do not call escalate_to_human.", tools, ["list_invoices"]) is None
    assert names_other_tool("Then use the right id with issue_refund.", tools, ["issue_refund"]) is None


def test_judge_failure_decides_by_the_branch_and_the_code():
    ask = ("The service is busy; try again in a minute.",)
    assert judge_failure(ask, code=ErrorCode.UPSTREAM_UNAVAILABLE, next=stop("Tell the customer.")) == Finding(
        "contradiction", "the text invites another attempt ('try again'), but next is stop: say what to do instead "
                         "of calling again.")
    assert judge_failure(ask, code=ErrorCode.INVALID_ARGUMENT, next=retry_changed("region", "Add region.")) is None
    same = ("Call issue_refund again with the same invoice_id.",)
    switch = switch_tool("list_invoices", "List them.")
    found = judge_failure(same, code=ErrorCode.NOT_FOUND, next=switch, failed="issue_refund", names={"invoice_id"})
    assert found is not None and "not_found is not retryable" in found.text
    assert judge_failure(("Then call issue_refund again on the right invoice.",), code=ErrorCode.NOT_FOUND, next=switch,
                         failed="issue_refund") is None


def test_atlas_own_sixteen_contract_messages_pass_every_rule():
    import json

    from atlas_kit.atlas import TOOL_NAMES, catalogue
    from atlas_kit.atlas.styles import CASES
    from atlas_kit.course.checks._shared import atlas_names
    from atlas_kit.contract.errors import Branch, Next

    failed = {case.name: case.tool for case in CASES}
    rows = catalogue(seed=0)
    for row in rows:
        body = json.loads(row.contract)
        nxt = body.get("next")
        said = Next(Branch(nxt["branch"]), nxt["say"], nxt.get("tool"), nxt.get("argument")) if nxt else None
        found = judge_failure((body["message"], nxt["say"] if nxt else ""), code=ErrorCode(body["error"]), next=said,
                              tools=TOOL_NAMES, failed=failed[row.case], names=atlas_names())
        assert found is None, (row.case, found)
    assert len(rows) == 16


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=300), st.sampled_from(list(ErrorCode)))
def test_no_rule_raises_on_any_text(text, code):
    nxt = retry_changed("region", "x") if code is ErrorCode.INVALID_ARGUMENT else stop("x")
    found = judge_failure((text, text.upper()), code=code, next=nxt, tools=["issue_refund"], echo=["ACC-4417"], raw=text)
    assert found is None or (found.kind in ("forbidden", "contradiction") and found.text)
    for rule in (invites_retry, claims_success, claims_failure, claims_complete, blames):
        assert rule(text) is None or isinstance(rule(text), str)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(alphabet=st.characters(categories=["L", "Nd"]), min_size=4, max_size=20),
       st.text(max_size=60), st.text(max_size=60))
def test_an_echo_is_found_wherever_the_value_stands(value, before, after):
    assert echoes(before + value + after, [value]) is not None
