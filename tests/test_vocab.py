from __future__ import annotations

import json

import pytest

import atlas_kit as E
from atlas_kit.contract.vocab import from_article, to_article, to_mcp


def test_to_article_renames_permission_and_next():
    err = E.tool_error("t", "not_permitted", "That account belongs to another customer.",
                       next=E.stop("Do not try other account IDs."))
    assert to_article(err) == {
        "code": "permission_denied",
        "message": "That account belongs to another customer.",
        "retryable": False,
        "suggested_fix": "Do not try other account IDs.",
    }


def test_from_article_maps_rate_limited_to_upstream_and_recomputes_retryable():
    err = from_article("t", {"code": "rate_limited", "message": "Rate limited, retry after 4000 ms.",
                             "retryable": True, "suggested_fix": "Wait and retry."})
    assert err.code is E.ErrorCode.UPSTREAM_UNAVAILABLE
    assert err.retryable is False  # the harness should have retried; the model stops
    assert err.next.branch is E.Branch.STOP
    assert "retry" not in err.next.say.lower() and "Wait" not in err.next.say  # words agree with the branch


def test_from_article_invalid_argument_becomes_retry_changed():
    err = from_article("t", {"code": "invalid_argument", "message": "customer_id must be a UUID.",
                             "suggested_fix": "Pass the account's UUID."})
    assert err.retryable is True and err.next.branch is E.Branch.RETRY_CHANGED


def test_round_trip_keeps_code_and_message():
    for code in E.ErrorCode:
        err = E.tool_error("t", code, "It failed.")
        back = from_article("t", to_article(err))
        assert (back.code, back.message, back.retryable) == (err.code, err.message, err.retryable)


def test_unknown_article_code_is_refused():
    with pytest.raises(ValueError, match="not a code this contract maps"):
        from_article("t", {"code": "teapot", "message": "x"})
    with pytest.raises(ValueError, match="at least 'code' and 'message'"):
        from_article("t", {"message": "x"})


def test_to_mcp_flags_is_error_and_carries_the_body():
    err = E.tool_error("t", "not_found", "No order has that order_id.")
    mcp = to_mcp(err)
    assert mcp["isError"] is True
    assert json.loads(mcp["content"][0]["text"]) == err.body()
