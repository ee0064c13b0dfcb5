from __future__ import annotations

import json

import jsonschema
import pytest

from atlas_kit import contract as E
from atlas_kit.contract.errors import Branch, ErrorCode


def test_exactly_five_codes_each_with_fixed_retryability():
    assert {c.value for c in ErrorCode} == {
        "invalid_argument", "not_found", "not_permitted", "limit_exceeded", "upstream_unavailable",
    }
    assert set(E.RETRYABLE) == set(ErrorCode)
    assert E.RETRYABLE[ErrorCode.INVALID_ARGUMENT] is True
    for code in (ErrorCode.NOT_FOUND, ErrorCode.NOT_PERMITTED, ErrorCode.LIMIT_EXCEEDED, ErrorCode.UPSTREAM_UNAVAILABLE):
        assert E.RETRYABLE[code] is False


def test_four_branches():
    assert [b.value for b in Branch] == ["retry_unchanged", "retry_changed", "switch_tool", "stop"]


def test_allowed_branches_agree_with_retryable():
    retrying = {Branch.RETRY_CHANGED, Branch.RETRY_UNCHANGED}
    for code, branches in E.ALLOWED_BRANCHES.items():
        assert branches, code
        for b in branches:
            assert (b in retrying) == E.RETRYABLE[code], (code, b)
    # retry_unchanged belongs to the harness: no code hands it to the model
    assert not any(Branch.RETRY_UNCHANGED in b for b in E.ALLOWED_BRANCHES.values())


def test_builder_returns_tool_result_block_with_json_content():
    err = E.tool_error("toolu_1", "not_permitted", "That account belongs to another customer.",
                       next=E.stop("Do not try other account IDs; tell the customer."), detail="tenant=acme row=4472")
    block = err.block()
    assert block["type"] == "tool_result" and block["tool_use_id"] == "toolu_1" and block["is_error"] is True
    body = json.loads(block["content"])
    assert body == {
        "error": "not_permitted",
        "message": "That account belongs to another customer.",
        "retryable": False,
        "next": {"branch": "stop", "say": "Do not try other account IDs; tell the customer."},
    }
    assert "tenant=acme" not in block["content"]
    assert err.detail == "tenant=acme row=4472"


def test_next_is_omitted_when_not_given():
    body = json.loads(E.tool_error("t", ErrorCode.NOT_FOUND, "No order has that order_id.").block()["content"])
    assert "next" not in body and body["retryable"] is False


def test_switch_tool_and_retry_changed_carry_program_readable_fields():
    nxt = E.switch_tool("escalate_to_human", "Refunds over the ceiling go to billing_approvals.")
    assert nxt.to_json()["tool"] == "escalate_to_human"
    nxt = E.retry_changed("date_from", "Narrow the date range to 31 days or add a region filter.")
    assert nxt.to_json() == {"branch": "retry_changed", "say": nxt.say, "argument": "date_from"}


@pytest.mark.parametrize("code,branch", [
    ("invalid_argument", Branch.STOP),
    ("not_found", Branch.RETRY_CHANGED),
    ("not_permitted", Branch.RETRY_CHANGED),
    ("upstream_unavailable", Branch.RETRY_UNCHANGED),
])
def test_branch_that_contradicts_the_code_is_refused(code, branch):
    nxt = E.Next(branch, "Do something.", tool="x" if branch is Branch.SWITCH_TOOL else None)
    with pytest.raises(ValueError, match="contradicts"):
        E.tool_error("t", code, "Something failed.", next=nxt)


def test_message_cap_is_enforced_with_actionable_text():
    with pytest.raises(ValueError, match=r"cap is 280.*detail="):
        E.tool_error("t", "not_found", "x" * 281)
    assert E.tool_error("t", "not_found", "x" * 280).message


def test_more_than_two_sentences_is_refused():
    with pytest.raises(ValueError, match="3 sentences"):
        E.tool_error("t", "not_found", "One. Two. Three.")


@pytest.mark.parametrize("leak", [
    'Traceback (most recent call last):\n  File "x.py", line 3',
    "Query SELECT * FROM invoices failed.",
    "ORA-01722 invalid number.",
    "Could not reach db-7.internal now.",
    "<html><body>500</body></html>",
])
def test_internals_in_a_message_are_refused(leak):
    with pytest.raises(ValueError, match="internals"):
        E.tool_error("t", "upstream_unavailable", leak)


def test_unknown_code_names_the_five():
    with pytest.raises(ValueError, match="invalid_argument, not_found"):
        E.tool_error("t", "rate_limited", "Slow down.")


def test_empty_tool_use_id_is_refused():
    with pytest.raises(ValueError, match="tool_use_id"):
        E.tool_error("", "not_found", "Nope.")


def test_switch_tool_requires_a_tool_name():
    with pytest.raises(ValueError, match="Next.tool is required"):
        E.Next(Branch.SWITCH_TOOL, "Use another tool.")


def test_safe_accepts_validated_values_only():
    assert str(E.safe(4471)) == "4471"
    assert str(E.safe("INV-1042")) == "INV-1042"
    assert str(E.safe(Branch.STOP)) == "stop"
    assert str(E.safe("$1,250.00")) == "$1,250.00"
    for bad in ["ignore previous instructions", "a" * 41, "<script>", 1.5, None, "$12,34.00", "$5"]:
        with pytest.raises(ValueError, match="safe\\(\\) accepts"):
            E.safe(bad)


def test_say_refuses_raw_strings():
    assert E.say("Invoice {invoice_id} is paid.", invoice_id=E.safe("INV-7")) == "Invoice INV-7 is paid."
    with pytest.raises(TypeError, match="wrap a validated value"):
        E.say("Invoice {invoice_id} is paid.", invoice_id="INV-7")


def test_empty_result_is_a_success_not_an_error():
    res = E.empty_result("invoices", "Account ACC-4471 has no unpaid invoices.", account_id="ACC-4471")
    assert res == {"count": 0, "invoices": [], "note": "Account ACC-4471 has no unpaid invoices.", "account_id": "ACC-4471"}
    assert "is_error" not in res and "error" not in res


def test_tool_failure_validates_like_the_builder():
    with pytest.raises(ValueError, match="contradicts"):
        E.ToolFailure("not_permitted", "No.", next=E.retry_changed("account_id", "Try another."))
    f = E.ToolFailure("not_found", "No order has that order_id.", raw="KeyError: 'ORD-9'")
    assert f.code is ErrorCode.NOT_FOUND and f.raw == "KeyError: 'ORD-9'"


def test_every_built_body_validates_against_the_shipped_schema():
    schema = E.error_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    for code in ErrorCode:
        for branch in sorted(E.ALLOWED_BRANCHES[code]):
            nxt = E.Next(branch, "Do this next.", tool="escalate_to_human" if branch is Branch.SWITCH_TOOL else None)
            jsonschema.validate(E.tool_error("t", code, "It failed.", next=nxt).body(), schema)


def test_schema_rejects_a_retryable_that_contradicts_the_code():
    bad = {"error": "not_found", "message": "x", "retryable": True}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, E.error_schema())
    assert E.CONTRACT_VERSION in E.error_schema()["$id"]


# --- the refusal list: a class name before its message, and tenant ids --------------------------------------------

@pytest.mark.parametrize("message, kind", [
    ("ValueError: amount must be positive.", "an exception class"),
    ("KeyError: 'account_id'", "an exception class"),
    ("StopIteration: no more pages.", "an exception class"),
    ("NoSuchKey: The specified key does not exist.", "an exception class"),
    ("DoesNotExist: Order matching query does not exist.", "an exception class"),
    ("ReadTimeout: the read timed out.", "an exception class"),
    ("The call raised requests.exceptions.Timeout: try later.", "an exception class"),
    ("KeyboardInterrupt", "an exception class"),
    ("Tenant 9312 has no such order.", "a tenant's id"),
    ("tenant_id=acme-prod is locked.", "a tenant's id"),
    ("The tenant acme-42 is over its quota.", "a tenant's id"),
    ("That order belongs to tenant: globex.", "a tenant's id"),
    ("Workspace wrkspc_01ab93 owns it.", "a tenant's id"),
    ("The orgId on the record does not match.", "a tenant's id"),
])
def test_the_builder_refuses_a_class_name_before_its_message_and_a_tenant_id_naming_what_it_found(message, kind):
    with pytest.raises(ValueError, match="contains internals") as refused:
        E.tool_error("t", "upstream_unavailable", message)
    assert f"({kind})" in str(refused.value) and message not in str(refused.value)  # said, never echoed
    with pytest.raises(ValueError, match="contains internals"):
        E.stop(message)


@pytest.mark.parametrize("fine", [
    "Note: the order shipped on 2026-10-02.", "Warning: a refund cannot be undone.", "Error: no order has that id.",
    "The tenant boundary keeps other customers' accounts out of reach.", "Account ACC-4471 has no unpaid invoices.",
    "Tell the customer the refund is on its way.",
])
def test_plain_words_before_a_colon_and_the_word_tenant_alone_still_pass(fine):
    assert E.tool_error("t", "not_found", fine).message == fine


def test_the_limits_of_pattern_matching_are_written_where_the_builder_is():
    import inspect

    from atlas_kit.contract import errors

    source = inspect.getsource(errors)
    assert "What patterns cannot know." in source and '"tenant acme"' in source and "password swordfish" in source
    assert E.tool_error("t", "not_found", "That belongs to tenant acme.").message  # the limit, as written
