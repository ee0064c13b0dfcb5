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


# --- the claim reader (issue 51): what the words instruct and assert, not which words they use -----------------

from atlas_kit.course.checks._claims import read  # noqa: E402
from atlas_kit.course.checks._text import contradicts, contradicts_itself  # noqa: E402


def acts(text, **options):
    return [(r.act, r.customer) for r in read(text, **options)]


@pytest.mark.parametrize("text, act", [
    ("It is pointless to try again.", "no_retry"), ("Call the tool one more time.", "retry"),
    ("Retrying will not help.", "no_retry"), ("There is no point in retrying.", "no_retry"),
    ("Pick one of them instead of retrying.", "no_retry"), ("Give it another go.", "retry"),
    ("Calling it again now would fail the same way.", "no_retry"), ("Resend the request shortly.", "retry"),
    ("It would time out again.", "no_retry"), ("Have another go with the next number.", "retry"),
])
def test_a_retry_and_its_refusal_are_told_apart_by_what_they_say(text, act):
    assert [a for a, _ in acts(text)] == [act], read(text)


def test_the_customer_scope_runs_past_and_but_not_past_then():
    assert sorted(acts("Tell the customer to try again later.")) == [("retry", True), ("tell", False)]
    assert ("retry", True) in acts("Ask them to check the number and send it again.")
    assert ("retry", False) in acts("Tell the customer, then call issue_refund one more time.")
    assert all(theirs for act, theirs in acts("Please try again in an hour.", audience="customer") if act == "retry")


def test_what_a_retry_changes_is_read_from_its_clause_and_its_sentence():
    same, = read("Run the same query again.")
    changed, = read("Change it and call the tool again.")
    named, = read("Call query_warehouse again.", changes=("query_warehouse",))
    plain, = read("Call it again.")
    futile, = read("It would fail the same way.")
    assert same.same and changed.changed and named.changed and not (plain.same or plain.changed)
    assert futile.act == "no_retry" and futile.same


def test_a_silence_is_whole_only_when_it_keeps_the_failure_back():
    whole = ["Do not tell the customer.", "Keep this from the customer.", "Say nothing to the customer.",
             "Do not mention this to the customer.", "Don't tell the customer anything."]
    part = ["Do not tell the customer whose account it is.", "Say nothing to the customer about the id.",
            "Do not mention the account id to the customer."]
    for text in whole:
        assert [(r.act, r.whole) for r in read(text)] == [("silence", True)], text
    for text in part:
        assert [(r.act, r.whole) for r in read(text)] == [("silence", False)], text
    assert read("Don't tell the customer yet.")[0].later


def test_a_dated_fact_is_no_claim_of_success_and_a_passive_claim_needs_no_subject():
    assert claims_success("The payment was processed in March, so it is outside the window.") is None
    assert claims_success("The invoice was paid on 2024-03-15.") is None
    assert claims_success("Your report has been generated.") == "has been generated"
    assert claims_success("Access was granted this once.") == "Access was granted"
    assert claims_success("Your refund has been processed and will arrive in 5 to 10 days.")


@pytest.mark.parametrize("texts, code, nxt, said", [
    (("Call the tool one more time.",), ErrorCode.UPSTREAM_UNAVAILABLE, stop("Tell the customer."),
     "invites another attempt ('Call the tool one more time'), but next is stop"),
    (("Too many rows. Run the same query again.",), ErrorCode.INVALID_ARGUMENT, retry_changed("region", "Add region."),
     "asks for the same call again"),
    (("Calling it again can never work.",), ErrorCode.INVALID_ARGUMENT, retry_changed("region", "Add region."),
     "says calling again is pointless"),
    (("No such invoice.", "Keep quiet about it and retry the refund."), ErrorCode.NOT_FOUND,
     switch_tool("list_invoices", "x"), "invites the failed call again with nothing changed ('retry')"),
    (("The flight is full. Do not tell the customer.", "Tell the customer the flight is full."),
     ErrorCode.LIMIT_EXCEEDED, stop("x"), "keeps the failure from the customer ('Do not tell the customer'"),
    (("The flight is full, so a refund was issued.",), ErrorCode.LIMIT_EXCEEDED, stop("x"), "says 'refund was issued'"),
    (("Outside the window. Do not tell the customer anything.", "Tell the customer the window has passed."),
     ErrorCode.LIMIT_EXCEEDED, stop("x"), "keeps the failure from the customer"),
])
def test_a_contradiction_is_said_with_the_words_it_rests_on(texts, code, nxt, said):
    found = contradicts(texts, code=code, nxt=nxt)
    assert found is not None and said in found, found


@pytest.mark.parametrize("texts, code, nxt", [
    (("The service is busy and did not answer. It is pointless to try again.",), ErrorCode.UPSTREAM_UNAVAILABLE,
     stop("Tell the customer to write again later.")),
    (("Do not run the same query unchanged; narrow date_to and call again.",), ErrorCode.INVALID_ARGUMENT,
     retry_changed("date_to", "Shorten the range.")),
    (("No such invoice; list the invoices, then call issue_refund again on the right one.",), ErrorCode.NOT_FOUND,
     switch_tool("list_invoices", "x")),
    (("Too broad. Split it by region; you need not tell the customer anything yet.",), ErrorCode.INVALID_ARGUMENT,
     retry_changed("region", "One call per region.")),
    (("That account is not this customer's. Do not tell the customer whose it is.",), ErrorCode.NOT_PERMITTED,
     stop("Tell the customer you cannot open it.")),
])
def test_words_that_agree_with_their_structure_contradict_nothing(texts, code, nxt):
    assert contradicts(texts, code=code, nxt=nxt) is None


def test_words_for_no_failure_are_judged_against_themselves_only():
    assert "choose one" in contradicts_itself(("Do not call again; call again to get the rest.",))
    assert "choose one" in contradicts_itself(("There is no point trying again, so please try again in an hour.",),
                                              audience="customer")
    assert contradicts_itself(("Trying again now won't help; please try again tomorrow.",), audience="customer") is None
    assert contradicts_itself(("Call again; if it is still short, tell the customer.",)) is None


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=300))
def test_the_reader_never_raises_and_quotes_only_words_of_the_text(text):
    for reading in (*read(text), *read(text, audience="customer")):
        assert reading.words and reading.words.lower() in text.lower()
