from __future__ import annotations

import json

import pytest

import atlas_kit as E
from atlas_kit.models.standin.reading import CUES, read_error

TOOLS = ["issue_refund", "escalate_to_human", "list_invoices"]


def test_contract_next_is_followed_as_written():
    body = E.tool_error("t", "limit_exceeded", "Refunds above $500.00 need approval.",
                        next=E.switch_tool("escalate_to_human", "Escalate to billing_refunds.")).block()["content"]
    r = read_error(body, tools=TOOLS)
    assert (r.branch, r.cue, r.tool) == ("switch_tool", "contract", "escalate_to_human")
    assert "Escalate to billing_refunds." in r.message


def test_contract_without_next_falls_back_on_retryable():
    assert read_error(E.tool_error("t", "not_found", "No such order.").block()["content"]).branch == "stop"
    assert read_error(E.tool_error("t", "invalid_argument", "Bad page.").block()["content"]).branch == "retry_changed"


@pytest.mark.parametrize("text,branch,cue", [
    ("Order 1234 was deleted and cannot be changed; tell the user", "stop", "tell the customer"),
    ("Do not retry this request.", "stop", "do not"),
    ("Refunds this large go through escalate_to_human.", "switch_tool", "named tool"),
    ("customer_id must be a UUID, got cust_882", "retry_changed", "must be"),
    ("HTTP/1.1 429 Too Many Requests\nRetry-After: 4", "retry_unchanged", "retry-after"),
    ("An error occurred, please try again. KeyError: 'customer_id'", "retry_unchanged", "try again"),
    ("ORA-01722: invalid number", None, "none"),
    ("<html><body>500 Internal Server Error</body></html>", None, "none"),
])
def test_plain_text_is_read_only_through_the_listed_cues(text, branch, cue):
    r = read_error(text, tools=TOOLS, arguments=["customer_id"])
    assert (r.branch, r.cue) == (branch, cue)


def test_retry_after_value_and_argument_are_extracted():
    assert read_error("Retry-After: 4").retry_after == 4.0
    assert read_error("amount_cents must be positive", arguments=["amount_cents"]).argument == "amount_cents"


def test_every_cue_has_a_branch_and_a_name():
    assert len({c[0] for c in CUES}) == len(CUES)
    assert {c[2] for c in CUES} == {"stop", "switch_tool", "retry_changed", "retry_unchanged"}


def test_json_that_is_not_a_contract_body_is_read_as_text():
    assert read_error(json.dumps({"detail": "please try again"})).cue == "try again"
