"""The checks of exercises 16.1 and 16.2 (real tau-bench errors): right answers in other words pass, and each
plausible wrong answer fails with words that say what to change. The cases are the shipped file's own errors."""
from __future__ import annotations

import pytest

from atlas_kit.contract.errors import Branch, ErrorCode, ToolError, retry_changed, stop, switch_tool, tool_error
from atlas_kit.course.checks import BLANK, check
from atlas_kit.course.checks.ch16 import CASES_16_1, CASES_16_2, CONTEXT_16_1, real_error

# --- 16.1: the branch each real error called for -----------------------------------------------------------------

RIGHT = {"a": Branch.STOP, "b": Branch.SWITCH_TOOL, "c": Branch.RETRY_CHANGED, "d": Branch.STOP}


def test_the_cases_are_real_errors_of_the_shipped_file_with_their_context():
    texts = {k: real_error(*case).text for k, case in CASES_16_1.items()}
    assert texts == {"a": "Error: certificate cannot be used to update reservation",
                     "b": "Error: payment method not found",
                     "c": "Error: payment amount does not add up, total price is 305, but paid 255",
                     "d": "Error: not enough seats on flight HAT139"}
    assert set(CONTEXT_16_1) == set(CASES_16_1) and "HAT139" in CONTEXT_16_1["d"]


@pytest.mark.parametrize("answer", [
    RIGHT,
    {k: b.value for k, b in RIGHT.items()},  # the branches' own names
    {"a": "Stop", "b": "switch tool", "c": "retry-changed", "d": " STOP "},  # the same branches in other words
    {**RIGHT, "e": "stop"},  # an extra letter is not judged
])
def test_the_right_branches_pass_however_written(answer):
    feedback = check("16.1", answer)
    assert feedback.ok, feedback.message


@pytest.mark.parametrize("answer, fragment", [
    ({**RIGHT, "b": Branch.STOP}, "Error b is not stop: the payment id was made up"),
    ({**RIGHT, "b": Branch.RETRY_CHANGED}, "which tool reads it?"),
    ({**RIGHT, "c": Branch.STOP}, "Error c is not stop: the same book_reservation succeeds once the payment amounts"),
    ({**RIGHT, "a": Branch.RETRY_CHANGED}, "which one is the customer's choice"),
    ({**RIGHT, "d": Branch.SWITCH_TOOL}, "another flight is another trip, and the customer must choose it"),
    ({**RIGHT, "c": Branch.RETRY_UNCHANGED}, "Error c is not retry_unchanged: that is the harness's branch"),
    ({**RIGHT, "a": "give up"}, "Error a: 'give up' is not a branch"),
    ({"a": Branch.STOP, "b": Branch.SWITCH_TOOL}, "Errors c, d have no branch"),
    ([Branch.STOP] * 4, "make it a dict from each letter"),
])
def test_a_wrong_branch_fails_with_what_to_reconsider(answer, fragment):
    feedback = check("16.1", answer)
    assert not feedback.ok and fragment in feedback.message, feedback.message


def test_a_blank_answer_is_not_answered_yet():
    assert check("16.1", ...).message == BLANK and check("16.2", ...).message == BLANK


# --- 16.2: three real errors in the contract's shape -----------------------------------------------------------

def rewrites() -> dict[str, ToolError]:
    """The solution notebook's three rewrites, in its words."""
    return {
        "task-26/trial-0": tool_error("toolu_1", "not_found", "No payment method on the customer's profile has that "
                                      "payment_id.", next=switch_tool("get_user_details", "Read the customer's "
                                      "profile, then use one of the payment methods it lists.")),
        "task-15/trial-2": tool_error("toolu_2", "limit_exceeded", "Flight HAT290 has no economy seat left on that "
                                      "date.", next=stop("Tell the customer the flight is full and ask whether to "
                                      "keep the reservation or choose another flight.")),
        "task-9/trial-2": tool_error("toolu_3", "invalid_argument", "The payment amounts add up to less than the total "
                                     "price of 1203.", next=retry_changed("payment_methods", "Make the amounts add "
                                     "up to the total, and tell the customer the new total before booking.")),
    }


def key(name: str) -> str:
    """'t26' -> 'task-26/trial-0'."""
    return {"t26": "task-26/trial-0", "t15": "task-15/trial-2", "t9": "task-9/trial-2"}[name]


def test_the_three_cases_are_the_chapters_errors():
    assert [real_error(k).text for k in CASES_16_2] == ["Error: payment method not found",
                                                        "Error: not enough seats on flight HAT290",
                                                        "Error: payment amount does not add up, total price is 1203, "
                                                        "but paid 833"]


@pytest.mark.parametrize("change", [
    {},
    {"t26": tool_error("x", ErrorCode.NOT_FOUND, "That payment method is not one the customer holds.",
                       next=switch_tool("get_user_details", "List their payment methods and ask which to use."))},
    {"t15": tool_error("x", "not_found", "No seat is free in that cabin on the chosen flight.",
                       next=stop("Say the flight is full; offer to keep the booking as it is or search other flights."))},
    {"t9": tool_error("x", "invalid_argument", "payment_methods must add up to the reservation's total price.",
                      next=retry_changed("payment_methods", "Recompute the amounts so they sum to the total."))},
])
def test_right_rewrites_in_other_words_pass(change):
    answer = {**rewrites(), **{key(k): v for k, v in change.items()}}
    feedback = check("16.2", answer)
    assert feedback.ok, feedback.message
    assert feedback.rubric  # the words are left to the learner, with the reference and two questions


BARE = ToolError  # built directly, the builder's own refusals bypassed: what a hand-rolled error could hold


@pytest.mark.parametrize("name, wrong, fragment", [
    ("t26", tool_error("x", "invalid_argument", "payment_id is not valid.", next=retry_changed("payment_id", "Fix it.")),
     "task-26/trial-0: not invalid_argument: payment_id was well formed but names no payment method"),
    ("t26", tool_error("x", "not_found", "No such payment method.", next=stop("Tell the customer.")),
     "next selects stop, but this failure calls for switch_tool"),
    ("t26", tool_error("x", "not_found", "No such payment method.",
                       next=switch_tool("get_reservation_details", "Look it up.")),
     "next switches to get_reservation_details; the tool that lists the customer's payment methods is get_user_details"),
    ("t26", tool_error("x", "not_found", "No payment method credit_card_7334 on the profile.",
                       next=switch_tool("get_user_details", "Read the profile.")),
     "Forbidden: task-26/trial-0: read by the contract's rubric, 12 or more characters of argument 'payment_id'"),
    ("t15", tool_error("x", "upstream_unavailable", "The booking service is down.", next=stop("Tell the customer.")),
     "task-15/trial-2: not upstream_unavailable: the call was well formed and nothing is down"),
    ("t15", tool_error("x", "limit_exceeded", "The flight is full."),
     "task-15/trial-2: no next, but this failure calls for stop"),
    ("t9", tool_error("x", "invalid_argument", "Amounts are wrong.", next=retry_changed("flights", "Change flights.")),
     "next changes 'flights'; the argument whose amounts must add up to the total is payment_methods"),
    ("t9", tool_error("x", "invalid_argument", "The amounts for mohamed_silva_9265 do not add up.",
                      next=retry_changed("payment_methods", "Fix the amounts.")),
     "12 or more characters of argument 'user_id' came back verbatim"),
    ("t9", BARE("x", ErrorCode.INVALID_ARGUMENT, "Traceback (most recent call last): File \"/srv/app/pay.py\", line 3",
                next=retry_changed("payment_methods", "Fix the amounts.")),
     "Forbidden: task-9/trial-2: read by the contract's rubric, the text holds what belongs in the trace"),
    ("t9", {"error": "invalid_argument"}, "the rewrite is a dict; build it with tool_error"),
    # issue 51: a success the error refused, and words against the branch
    ("t15", tool_error("x", "limit_exceeded", "The flight is full, so the reservation was cancelled and a refund was "
                       "issued.", next=stop("Tell the customer the flight is full.")),
     "Contradiction: task-15/trial-2: the rewrite says 'refund was issued', but the call failed"),
    ("t15", tool_error("x", "limit_exceeded", "The flight is full.", next=stop("Tell the customer, then try booking "
                       "again in a minute.")), "Contradiction: task-15/trial-2: the rewrite invites another attempt"),
    ("t15", tool_error("x", "limit_exceeded", "The flight is full. Do not tell the customer.",
                       next=stop("Tell the customer the flight is full.")), "keeps the failure from the customer"),
    ("t26", tool_error("x", "not_found", "No payment method on the profile has that id.",
                       next=switch_tool("get_user_details", "Say nothing to the customer and retry the same payment.")),
     "invites the failed call again with nothing changed"),
    ("t9", tool_error("x", "invalid_argument", "The booking was completed, but the amounts were short.",
                      next=retry_changed("payment_methods", "Fix the amounts.")), "says 'booking was completed'"),
])
def test_a_wrong_rewrite_fails_with_what_to_change(name, wrong, fragment):
    feedback = check("16.2", {**rewrites(), key(name): wrong})
    assert not feedback.ok and fragment in feedback.message, feedback.message


def test_a_missing_rewrite_or_a_list_is_refused_in_one_sentence():
    answer = rewrites()
    del answer["task-15/trial-2"]
    assert "No rewrite for task-15/trial-2" in check("16.2", answer).message
    assert "make it a dict from each episode id" in check("16.2", list(rewrites().values())).message
