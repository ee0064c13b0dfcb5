"""What an answer states about Atlas's records, and to whom (issue 51): an invoice's status, a refund's amount, the
queue of a hand-off, a tell that is a change not made, and names written for the model. Each rule refuses what the
World contradicts and lets the same words pass where they are true."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.atlas import World, atlas_session, grade, play
from atlas_kit.atlas.audience import internal_name
from atlas_kit.atlas.claims import false_claims
from atlas_kit.atlas.outcome import Call, NotMade, mentions
from atlas_kit.atlas.statements import false_statements

WORLD = World(0)


@pytest.mark.parametrize("text", [
    "INV-20412 and INV-20413 are both unpaid.", "INV-20413 ($89.99) is overdue.", "INV-20412 still needs to be paid.",
    "INV-20460 was paid on 9 December.", "The $199.00 was INV-20460, which has been paid.",
    "INV-20412 is not overdue yet.", "INV-20460 is no longer outstanding.", "INV-20412 is the only unpaid invoice on ACC-4475.",
    "ACC-4471 owes $400.49 over INV-20412 and INV-20413.", "INV-20417 is unpaid.",  # an id no record holds: not judged
])
def test_a_true_or_unjudged_statement_about_an_invoice_passes(text):
    assert false_statements(text, WORLD) == []


@pytest.mark.parametrize("text, fragment", [
    ("INV-20412 is the only unpaid invoice on ACC-4471.", "INV-20413 is unpaid too"),
    ("INV-20413 has been paid.", "INV-20413 is paid"),
    ("INV-20412 was paid last month.", "it is unpaid"),
    ("Your balance is $0.00, though INV-20460 is still unpaid.", "INV-20460 is unpaid"),
    ("INV-20412 is overdue, so please settle it first.", "INV-20412 is overdue"),
    ("ACC-5120 paid INV-20431, though INV-20433 is still outstanding.", "INV-20433 is unpaid"),
])
def test_a_false_statement_about_an_invoice_is_refused_with_the_clause(text, fragment):
    found = false_statements(text, WORLD)
    assert found and fragment in found[0], found


def _after(ticket, turns):
    session = atlas_session(ticket)
    for turn in turns:
        session.dispatcher.dispatch([{"type": "tool_use", "id": f"toolu_{i}_{c.tool}", "name": c.tool,
                                      "input": dict(c.input)} for i, c in enumerate(turn)])
    return session.world


def test_a_refund_said_to_be_of_another_amount_and_a_hand_off_to_another_queue_are_false():
    refunded = _after("T22", [[Call("issue_refund", {"invoice_id": "INV-20421", "amount_cents": 7500,
                                                     "reason": "Asked by the customer."})]])
    assert false_claims("I've refunded the $85.00 you asked for.", refunded, orders=False)
    assert false_claims("I've refunded $75.00 of the $85.00 you asked for.", refunded, orders=False) == []
    escalated = _after("T04", [[Call("escalate_to_human", {"account_id": "ACC-4471", "queue": "billing_refunds",
                                                           "reason": "Above the ceiling."})]])
    assert "went to billing refunds" in false_claims("I've passed it to our returns team (ESC-0001).", escalated,
                                                     orders=False)[0]
    for right in ("I've passed it to our billing team (ESC-0001).", "Our billing refunds team has it now (ESC-0001).",
                  "I've passed it to our team (ESC-0001)."):
        assert false_claims(right, escalated, orders=False) == [], right


def test_a_person_promised_when_no_hand_off_was_made_is_false():
    assert false_claims("A person on our billing team will take it from here.", WORLD, orders=False)
    assert false_claims("A colleague will take a look if you'd like.", WORLD, orders=False) == []  # an offer


def test_a_tell_that_is_a_change_not_made_needs_a_claim_not_a_failure_word():
    hand_off = NotMade("escalation")
    for told in ("I couldn't pass it to a person either.", "When I tried to pass it on, the system did not answer.",
                 "I could not confirm whether it reached a person."):
        assert mentions(told, hand_off, WORLD), told
    for untold in ("I couldn't issue the refund myself; a person will need to approve it.",
                   "Our escalation system is down right now."):
        assert not mentions(untold, hand_off, WORLD), untold


def test_t14s_answer_must_say_the_hand_off_failed_and_to_write_again():
    s = atlas_session("T14")
    turns = [(Call("issue_refund", {"invoice_id": "INV-20470", "amount_cents": 240000, "reason": "Bought by mistake."}),),
             (Call("escalate_to_human", {"account_id": "ACC-8815", "queue": "billing_refunds", "reason": "Refund."}),)]
    vague = grade(play(s, turns, "I couldn't issue the $2,400.00 refund on INV-20470 myself; a person will need to "
                                 "approve it."))
    assert not vague.correct and "omitted_tell" in vague.labels
    told = grade(play(atlas_session("T14"), turns,
                      "Refunds above $500.00 need a person's approval, so I couldn't refund INV-20470, and our "
                      "escalation system isn't responding, so I couldn't pass it on either. Please write again later."))
    assert told.correct, told.reasons


@pytest.mark.parametrize("text, name", [
    ("The query_warehouse service is not responding.", "query_warehouse"), ("No account matches account_id.", "account_id"),
    ("It failed with upstream_unavailable.", "upstream_unavailable"), ("Outside REFUND_WINDOW_DAYS.", "REFUND_WINDOW_DAYS"),
    ("A TimeoutError stopped it.", "TimeoutError"),
])
def test_a_name_written_for_the_model_is_found(text, name):
    assert internal_name(text) == name


@pytest.mark.parametrize("text", [
    "I couldn't find ACC-6601; please check the number.", "Write to billing@atlas.example or see atlas.example/help_desk.",
    "The region and quantity you gave are fine.", "Our billing refunds team has it (ESC-0001).",
])
def test_plain_words_ids_and_addresses_are_not_internal_names(text):
    assert internal_name(text) is None


def test_a_name_the_customer_wrote_is_theirs_to_read_back():
    assert internal_name("Your ref_code_7 is noted.", customer="Our ref_code_7 is the one.") is None
    assert internal_name("Your ref_code_7 is noted.") == "ref_code_7"


def test_an_internal_name_makes_a_right_run_wrong_with_its_reason():
    s = atlas_session("T23")
    turns = [(Call("get_account", {"account_id": "ACC-6601"}),)]
    plain = grade(play(s, turns, "I couldn't find an account ACC-6601. Could you check the number and send it again?"))
    named = grade(play(atlas_session("T23"), turns, "I couldn't find ACC-6601: no account matches account_id. Could "
                                                    "you check the number?"))
    assert plain.correct and not named.correct and named.labels == ("internal_names",)
    assert "'account_id'" in named.reasons[0]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(alphabet=st.sampled_from(list("INV-2041 3paidunpaid_ overdue.,;ACCsonly")), max_size=200))
def test_the_rules_never_raise(text):
    assert isinstance(false_statements(text, WORLD), list)
    assert internal_name(text) is None or "_" in internal_name(text) or "Error" in str(internal_name(text))
