"""Checks for chapter 03's exercises: build the error for a refund outside the window (03.1), and adopt
the article's rate-limit error (03.2), both graded on what a careful reader needs from the fields and words.
"""
from __future__ import annotations

import re
from typing import Any

from ...contract.errors import Branch, ErrorCode
from ._registry import exercise
from ._shared import _asks_to_retry, _error_shape, _says_what_to_do


_CODE_03_1 = {
    "not_permitted": "not_permitted is for what this customer may never do; the refund window is a policy limit on the request",
    "invalid_argument": "no argument change makes a payment from March refundable, so the model must not retry",
    "not_found": "the invoice exists; it is only too old to refund",
    "upstream_unavailable": "nothing is down; the refund was refused by a rule",
}


# The rule in the customer's terms: the window, its length, or the deadline it sets.
_WHY_03_1 = re.compile(r"window|\b180\b|six months|half a year|(?:time|day) limit|refund (?:period|deadline)|deadline",
                       re.IGNORECASE)
_INTERNAL_03_1 = re.compile(r"REFUND_WINDOW|paid_at|\b[A-Z]{2,}(?:_[A-Z0-9]+)+\b")


@exercise("03.1", "Build the error for a refund outside the window",
          right="Right: a policy code with stop, the rule said in the customer's terms so the model can pass it on, "
                "and the internals in detail.",
          hints=("A refund window is a policy ceiling, like the $500.00 refund limit; look up its code and the branches it allows.",
                 "The customer must hear why (the 180-day refund window); the paid-on date and the rule's name are for detail=."))
def _grade_03_1(answer: Any) -> str | None:
    if (shape := _error_shape(answer)) is not None:
        return shape
    if answer.code is not ErrorCode.LIMIT_EXCEEDED:
        return f"Code {answer.code.value} does not fit: {_CODE_03_1[answer.code.value]}. Pick the code for a policy ceiling."
    if answer.next is None:
        return "The error has no next; name the branch (with the words for the customer in say) so the model need not guess."
    if answer.next.branch is Branch.SWITCH_TOOL:
        return (f"next switches to {answer.next.tool}, but no person or tool can refund outside the window, and an "
                "escalation is a real change this customer did not need: select stop.")
    if not answer.detail:
        return "detail is empty; put the internal facts (the paid-on date, the rule REFUND_WINDOW_DAYS=180) there, for the trace."
    if _INTERNAL_03_1.search(answer.message) or _INTERNAL_03_1.search(answer.next.say):
        return "The message names internals (a constant or a field name); say the rule in the customer's terms and keep names for detail=."
    if not (_WHY_03_1.search(answer.message) or _WHY_03_1.search(answer.next.say)):
        return ("The message does not say why the refund was refused; name the rule in the customer's terms (how long "
                "after payment a refund is possible), so the model can pass it on.")
    return None


ARTICLE_03_2 = {"code": "rate_limited", "message": "Rate limited, retry after 4000 ms.", "retryable": True,
                "suggested_fix": "Wait 4 seconds, then call again."}


@exercise("03.2", "Adopt the article's rate-limit error",
          right="Right: converted to upstream_unavailable with stop, and the words now say what to do instead of "
                "asking for a wait or a retry.",
          hints=("from_article fixes the fields but keeps the message; rebuild the error with tool_error, keeping code and next.",
                 "Read your message as a model that skims past next would: does it say what to do (stop, tell the "
                 "customer), and nothing about waiting or calling again?"))
def _grade_03_2(answer: Any) -> str | None:
    if (shape := _error_shape(answer)) is not None:
        return shape
    if answer.code is not ErrorCode.UPSTREAM_UNAVAILABLE:
        return (f"Code {answer.code.value} is not what from_article gives a rate limit that reached the model; the "
                "harness's retries are spent, so keep the converted code.")
    if answer.next is None or answer.next.branch is not Branch.STOP:
        return "Keep next on stop, as from_article set it: the model must not become a second retry loop."
    if answer.message == ARTICLE_03_2["message"]:
        return "The message is still the article's, which tells the model to retry; rewrite it."
    found = _asks_to_retry(answer.message) or _asks_to_retry(answer.next.say)
    if found:
        return f"The text still asks for a wait or a retry ({found!r}), which contradicts stop; say what to do instead."
    if not _says_what_to_do(answer.message):
        return ("The message describes the failure but gives no action, so it selects no branch for a reader who "
                "skims past next: say to stop, or what to tell the customer.")
    return None
