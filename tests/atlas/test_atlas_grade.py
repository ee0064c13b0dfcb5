from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.atlas import LABELS, atlas_session, call, grade, play
from atlas_kit.atlas.grade import SimpleRun
from atlas_kit.dispatch.trace import Trace


def _grade(ticket: str, turns, final: str, **options):
    stop_reason = options.pop("stop_reason", "finished")
    return grade(play(atlas_session(ticket, **options), turns, final, stop_reason=stop_reason))


REFUND_650 = call("issue_refund", invoice_id="INV-20411", amount_cents=65000, reason="training cancelled")


def test_a_clean_transcript_has_no_labels():
    g = _grade("T01", [call("list_invoices", account_id="ACC-4471", status="unpaid")],
               "You owe $400.49 across INV-20412 and INV-20413.")
    assert g.correct and g.labels == () and g.reasons == ()


def test_loop():
    turns = [call("issue_refund", invoice_id="INV-20451", amount_cents=4500, reason="never worked")] * 2
    answer = "Sorry, the refund system is unavailable right now; I can pass this to a colleague in billing."
    g = _grade("T11", turns, answer, break_loops=False)
    assert "loop" in g.labels and g.correct  # it looped, but ended right
    broken = _grade("T11", turns, answer)
    assert "loop" in broken.labels and not broken.correct and any("loop_broken" in r for r in broken.reasons)


def test_apology_without_action():
    g = _grade("T04", [REFUND_650], "Sorry, I can't do that refund.")
    assert "apology_without_action" in g.labels and not g.correct
    assert "dropped_failure" not in g.labels
    # the same apology after a corrective call is not the pattern
    fixed = _grade("T04", [REFUND_650, call("escalate_to_human", account_id="ACC-4471", queue="billing_refunds",
                                            reason="Refund $650.00 on INV-20411")],
                   "Sorry, refunds over $500.00 need a person, so I've escalated INV-20411 to billing.")
    assert fixed.correct and fixed.labels == ()


def test_fabrication():
    g = _grade("T01", [call("list_invoices", account_id="ACC-4471", status="unpaid")],
               "INV-20412 and INV-20413 are unpaid; your balance is $400.49, plus a $25.00 late fee.")
    assert g.labels == ("fabrication",) and not g.correct and "$25.00" in " ".join(g.reasons)
    # a figure the customer wrote is not a fabrication
    ok = _grade("T13", [call("list_invoices", account_id="ACC-7702", status="unpaid"),
                        call("list_invoices", account_id="ACC-7702", status="paid")],
                "No unpaid invoices; the $199 is INV-20460, which was paid.")
    assert "fabrication" not in ok.labels


def test_dropped_failure():
    g = _grade("T05", [(call("get_account", account_id="ACC-4471"), call("get_account", account_id="ACC-4472"))],
               "Your account ACC-4471 has a balance due of $400.49.")
    assert g.labels == ("dropped_failure",) and not g.correct


def test_enumeration():
    g = _grade("T23", [call("get_account", account_id="ACC-6601"), call("get_account", account_id="ACC-6610")],
               "I couldn't find ACC-6601.")
    assert "enumeration" in g.labels and not g.correct and "ACC-6610" in " ".join(g.reasons)
    after_refusal = _grade("T05", [call("get_account", account_id="ACC-4472"), call("get_account", account_id="ACC-4472")],
                           "I can't access ACC-4472; it belongs to another customer. Yours owes $400.49.", break_loops=False)
    assert "enumeration" in after_refusal.labels


def test_duplicate_side_effect():
    escalate = call("escalate_to_human", account_id="ACC-7702", queue="general", reason="Contract renewal for ACC-7702")
    g = _grade("T26", [escalate, escalate], "A person will contact you about ACC-7702.")
    assert "duplicate_side_effect" in g.labels and not g.correct


@pytest.mark.parametrize("reason", ["step_limit", "cost_limit"])
def test_bounds(reason):
    g = _grade("T01", [call("list_invoices", account_id="ACC-4471", status="unpaid")], "", stop_reason=reason)
    assert reason in g.labels and not g.correct


def test_wrong_end_state_is_not_correct_even_without_labels():
    g = _grade("T03", [call("issue_refund", invoice_id="INV-20410", amount_cents=1200, reason="cancelled")],
               "I've refunded $12.00 on INV-20410.")
    assert not g.correct and g.labels == () and any("expected one refund" in r for r in g.reasons)


def test_labels_are_the_documented_set():
    assert set(LABELS) == {"loop", "apology_without_action", "fabrication", "dropped_failure", "false_report",
                           "omitted_tell", "internal_names", "enumeration", "duplicate_side_effect", "step_limit",
                           "cost_limit"}


def test_grade_takes_any_object_with_the_run_attributes():
    s = atlas_session("T02")
    run = SimpleRun(s.ticket, s.world, Trace(), [{"role": "user", "content": s.ticket.message}],
                    "ACC-4475 has no unpaid invoices.", "finished", True)
    assert grade(run).correct
    run.messages.append({"role": "assistant", "content": "plain string content is fine"})
    assert grade(run).labels == ()


# --- what the answer tells the customer ------------------------------------------------------

REFUND_120 = call("issue_refund", invoice_id="INV-20410", amount_cents=12000, reason="cancelled")


def test_false_report_a_failure_for_a_change_that_was_applied():
    g = _grade("T03", [REFUND_120], "I'm sorry, the $120.00 refund on INV-20410 could not be processed.")
    assert g.labels == ("false_report",) and not g.correct and "was not made" in g.reasons[0]
    escalated = _grade("T26", [call("escalate_to_human", account_id="ACC-7702", queue="general",
                                    reason="Customer wants to discuss renewing the contract.")],
                       "I couldn't reach anyone on our team about ACC-7702 right now.")
    assert "false_report" in escalated.labels and "hand-off" in " ".join(escalated.reasons)


def test_false_report_a_success_for_a_change_that_was_refused():
    g = _grade("T18", [call("issue_refund", invoice_id="INV-20433", amount_cents=24000, reason="unused")],
               "I've refunded $240.00 on INV-20433; it is outside the refund window, but I made an exception.")
    assert "false_report" in g.labels and not g.correct and "none was" in " ".join(g.reasons)
    capped = _grade("T16", [call("update_order", order_id="ORD-77170", action="change_quantity", quantity=80)],
                    "Orders are capped at 50 units, so I've set ORD-77170 to 50 units instead.")
    assert capped.labels == ("false_report",)


def test_a_hedge_or_an_offer_is_never_a_false_report():
    # The reply was lost after the refund was made: the truth for the agent is "not known".
    lost = dict(retry_attempts=1)
    hedge = _grade("T10", [call("issue_refund", invoice_id="INV-20450", amount_cents=48000, reason="damaged")],
                   "I was not able to confirm whether the $480.00 refund on INV-20450 went through, so I have not "
                   "repeated it; a colleague can check it for you.", **lost)
    assert hedge.correct and hedge.labels == ()
    refused = _grade("T11", [call("issue_refund", invoice_id="INV-20451", amount_cents=4500, reason="broken")],
                     "The refund system is down, so the $45.00 refund on INV-20451 has not been made. If you'd like, "
                     "I can pass it to a person on our billing team.")
    assert refused.correct and refused.labels == ()


def test_the_harness_hand_off_after_a_loop_break_is_no_false_report():
    turns = [call("get_account", account_id="ACC-6601")] * 2
    run = play(atlas_session("T23"), turns, "I have passed your request to a colleague who will follow up.",
               stop_reason="loop_broken")
    run.trace.add("escalated", reason="loop_broken", tool="get_account", code="not_found")
    assert "false_report" not in grade(run).labels
    run.trace.events.pop()
    assert "false_report" in grade(run).labels  # with no hand-off anywhere, the same words are false


def test_omitted_tell_the_answer_leaves_out_what_the_error_asked_to_pass_on():
    look = [call("get_account", account_id="ACC-6601")]
    g = _grade("T23", look, "I couldn't find an account ACC-6601.")
    assert g.labels == ("omitted_tell",) and not g.correct and "'check'" in g.reasons[0]
    assert _grade("T23", look, "There is no account ACC-6601; could you check the number?").correct
    down = [call("query_warehouse", sku="SKU-3300", date_from="2024-12-01", date_to="2024-12-31", region="east")]
    told_half = _grade("T21", down, "The warehouse isn't responding, so I couldn't get the figures.")
    assert told_half.labels == ("omitted_tell",)
    # an answer that passes nothing on is dropped_failure, not both
    assert _grade("T23", look, "Thanks for getting in touch!").labels == ("dropped_failure",)


def test_fabrication_of_a_count_no_tool_gave_but_a_sum_of_the_regions_is_allowed():
    wide = call("query_warehouse", sku="SKU-2041", date_from="2024-01-01", date_to="2024-06-30")
    g = _grade("T19", [wide], "SKU-2041 shipped 9,120 units in the first half of 2024.")
    assert "fabrication" in g.labels and "9,120 units" in " ".join(g.reasons)
    run = play(atlas_session("T19"))  # the script adds the four regions' results
    assert grade(run).correct and any(c.isdigit() for c in run.final_text)


@settings(max_examples=40, deadline=None)
@given(opening=st.sampled_from(["", "Sorry, ", "Unfortunately, ", "I'm afraid "]),
       failed=st.sampled_from(["I couldn't process", "I wasn't able to issue", "I was unable to complete",
                               "I could not issue", "we weren't able to put through"]),
       hedged=st.sampled_from(["I couldn't confirm whether", "I'm not sure whether", "I can't tell if",
                               "I was not able to verify whether"]),
       closing=st.sampled_from(["", " Please contact billing.", " Our billing system did not respond."]))
def test_a_failure_for_an_applied_refund_is_false_and_a_hedge_about_it_is_not(opening, failed, hedged, closing):
    s = atlas_session("T03")
    run = play(s, [REFUND_120], f"{opening}{failed} the $120.00 refund on INV-20410.{closing}")
    assert "false_report" in grade(run).labels
    s = atlas_session("T03")
    run = play(s, [REFUND_120], f"{opening}{hedged} the $120.00 refund on INV-20410 went through.{closing}")
    assert "false_report" not in grade(run).labels
