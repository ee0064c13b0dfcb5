from __future__ import annotations

import json

import pytest

from atlas_kit.atlas import World, atlas_session
from atlas_kit.atlas.tools import build_tools
from atlas_kit.atlas.faults import KINDS, Fault, FaultSchedule, always, sometimes


def body(result: dict) -> dict:
    return json.loads(result["content"])


REFUND = {"invoice_id": "INV-20451", "amount_cents": 4500, "reason": "add-on never worked"}


def test_fault_fires_on_the_scheduled_invocation_only():
    sched = FaultSchedule([Fault("get_account", "not_found", calls=(2,))])
    assert [sched.due("get_account") is not None for _ in range(4)] == [False, True, False, False]
    assert sched.calls["get_account"] == 4 and sched.fired == [{"tool": "get_account", "call": 2, "kind": "not_found"}]


def test_persistent_transient_outlasts_the_harness_and_reaches_the_model_as_stop(caller):
    c = caller("T11")  # always("issue_refund", "outage")
    result, failure = c("issue_refund", **REFUND)
    b = body(result)
    assert b["error"] == "upstream_unavailable" and b["next"]["branch"] == "stop" and b["retryable"] is False
    assert "do not repeat it" in b["message"]
    assert [e["attempt"] for e in c.session.trace.of_kind("transient")] == [1, 2, 3]
    assert c.session.schedule.calls["issue_refund"] == 3 and c.session.world.refunds == []
    assert c.session.world.clock == pytest.approx(0.25 + 0.5)


def test_rate_limit_waits_retry_after_on_the_virtual_clock_then_succeeds(caller):
    c = caller("T12")  # rate limited once, Retry-After 2
    result, failure = c("list_invoices", account_id="ACC-6610", status="overdue")
    assert failure is None and body(result)["count"] == 1
    assert c.session.world.clock == 2.0


def test_rate_limit_longer_than_the_harness_will_wait_fails_at_once():
    s = atlas_session("T14")
    out = s.dispatcher.dispatch([{"type": "tool_use", "id": "t1", "name": "escalate_to_human",
                                  "input": {"account_id": "ACC-8815", "queue": "general", "reason": "ten letters or more"}}])
    assert out.failures[0].error.code.value == "upstream_unavailable"
    assert s.schedule.calls["escalate_to_human"] == 1 and s.world.clock == 0.0 and s.world.escalations == []
    assert "Retry-After: 30" in out.failures[0].raw


@pytest.mark.parametrize("kind,code,branch", [
    ("not_permitted", "not_permitted", "stop"), ("not_found", "not_found", "stop"),
    ("invalid_argument", "invalid_argument", "retry_changed"), ("limit_exceeded", "limit_exceeded", "switch_tool")])
def test_each_refusal_kind_becomes_its_contract_code_and_changes_nothing(kind, code, branch):
    s = atlas_session("T11", faults=[Fault("issue_refund", kind)])
    out = s.dispatcher.dispatch([{"type": "tool_use", "id": "t1", "name": "issue_refund", "input": dict(REFUND)}])
    err = out.failures[0].error
    assert err.code.value == code and err.next.branch.value == branch and s.world.snapshot()["refunds"] == []
    again = s.dispatcher.dispatch([{"type": "tool_use", "id": "t2", "name": "issue_refund", "input": dict(REFUND)}])
    assert again.failures == [] and len(s.world.refunds) == 1  # the fault was for call 1 only


def test_empty_is_a_success_with_zero_items_not_an_error():
    s = atlas_session("T01", faults=[Fault("list_invoices", "empty"), Fault("query_warehouse", "empty")])
    out = s.dispatcher.dispatch([
        {"type": "tool_use", "id": "a", "name": "list_invoices", "input": {"account_id": "ACC-4471"}},
        {"type": "tool_use", "id": "b", "name": "query_warehouse",
         "input": {"sku": "SKU-2041", "date_from": "2024-03-01", "date_to": "2024-03-02"}}])
    assert out.failures == [] and all("is_error" not in r for r in out.results)
    assert body(out.results[0])["count"] == 0 and body(out.results[1])["units_shipped"] == 0


def test_after_effect_timeout_on_every_attempt_applies_once_and_says_do_not_repeat():
    s = atlas_session("T06", faults=[always("update_order", "timeout", after_effect=True)])
    out = s.dispatcher.dispatch([{"type": "tool_use", "id": "t1", "name": "update_order",
                                  "input": {"order_id": "ORD-77120", "action": "cancel"}}])
    assert out.failures[0].error.code.value == "upstream_unavailable"
    assert len(s.world.order_changes) == 1 and s.world.order("ORD-77120").status == "cancelled"


def test_probabilistic_faults_are_deterministic_per_seed():
    def pattern(seed: int) -> list[bool]:
        sched = FaultSchedule([sometimes("get_order", "timeout", 0.5)], seed=seed)
        return [sched.due("get_order") is not None for _ in range(40)]
    assert pattern(1) == pattern(1)
    assert pattern(1) != pattern(2)
    assert 5 < sum(pattern(1)) < 35


def test_same_seed_same_fault_schedule_through_a_session():
    def fired(seed: int) -> list[dict]:
        s = atlas_session("T01", seed=seed, faults=[sometimes("get_account", "rate_limit", 0.5, retry_after=0.5)])
        for i in range(10):
            s.dispatcher.dispatch([{"type": "tool_use", "id": f"t{i}", "name": "get_account", "input": {"account_id": "ACC-4471"}}])
        return s.schedule.fired
    assert fired(3) == fired(3) and fired(3) != fired(4)


@pytest.mark.parametrize("bad,match", [
    (dict(tool="get_account", kind="explode"), "not a fault kind"),
    (dict(tool="get_account", kind="not_found", after_effect=True), "after_effect"),
    (dict(tool="get_account", kind="timeout", retry_after=3.0), "retry_after"),
    (dict(tool="get_account", kind="empty"), "empty"),
    (dict(tool="get_account", kind="timeout", calls=(0,)), "calls"),
    (dict(tool="get_account", kind="timeout", probability=1.5), "probability"),
    (dict(tool="", kind="timeout"), "tool"),
])
def test_a_malformed_fault_is_refused_with_the_field_named(bad, match):
    with pytest.raises(ValueError, match=match):
        Fault(**bad)


def test_a_fault_for_a_tool_that_does_not_exist_is_refused():
    with pytest.raises(ValueError, match="get_invoice"):
        FaultSchedule([Fault("get_invoice", "timeout")]).wrap(build_tools(World(0), tenant="acme"))
    with pytest.raises(TypeError, match="Fault"):
        FaultSchedule(["timeout"])  # type: ignore[list-item]


def test_every_kind_is_expressible():
    for kind in KINDS:
        tool = "list_invoices"
        assert Fault(tool, kind).kind == kind
    assert always("get_order", "outage").persistent and not Fault("get_order", "outage").persistent
