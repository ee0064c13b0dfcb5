"""Checks for chapter 03's exercises: build the error for a refund outside the window (03.1), graded
by running T18 offline with it, and adopt the article's rate-limit error (03.2).
"""
from __future__ import annotations

import re
from typing import Any

from ..atlas import TOOL_NAMES, grade
from ..errors import Branch, ErrorCode
from ..reading import read_error
from . import exercise
from ._shared import _as_failure, _error_shape, _offline_run, _outcome


_CODE_03_1 = {
    "not_permitted": "not_permitted is for what this customer may never do; the refund window is a policy limit on the request",
    "invalid_argument": "no argument change makes a payment from March refundable, so the model must not retry",
    "not_found": "the invoice exists; it is only too old to refund",
    "upstream_unavailable": "nothing is down; the refund was refused by a rule",
}


_WHY_03_1 = re.compile(r"refund window|180[- ]days?", re.IGNORECASE)


@exercise("03.1", "Build the error for a refund outside the window",
          right="Right: a policy code, a message that tells the model why and what to say, internals in detail, and T18 ends correct.",
          hints=("A refund window is a policy ceiling, like the $500.00 refund limit; look up its code and the branches it allows.",
                 "The customer must hear why (the 180-day refund window); the paid-on date and the rule's name are for detail=."))
def _grade_03_1(answer: Any) -> str | None:
    if (shape := _error_shape(answer)) is not None:
        return shape
    if answer.code is not ErrorCode.LIMIT_EXCEEDED:
        return f"Code {answer.code.value} does not fit: {_CODE_03_1[answer.code.value]}. Pick the code for a policy ceiling."
    if answer.next is None:
        return "The error has no next; name the branch (with the words for the customer in say) so the model need not guess."
    if not answer.detail:
        return "detail is empty; put the internal facts (the paid-on date, the rule REFUND_WINDOW_DAYS=180) there, for the trace."
    if "REFUND_WINDOW" in answer.message or "paid_at" in answer.message:
        return "The message names internals (a constant or a field name); say the rule in the customer's terms and keep names for detail=."
    if not _WHY_03_1.search(answer.message):
        return ("The message does not say why the refund was refused; name the rule in the customer's terms (how long "
                "after payment a refund is possible), so the model can pass it on.")
    run = _offline_run("T18", tool="issue_refund", failure=_as_failure(answer))
    if not grade(run).correct:
        return _outcome(run) + ("; an escalation is a real change this customer did not need."
                                if answer.next.branch is Branch.SWITCH_TOOL else ".")
    if not _WHY_03_1.search(run.final_text):
        return (f"The customer read: {run.final_text!r}, without the reason; the stand-in passes on only the "
                "message's first sentence, so say why there.")
    return None


ARTICLE_03_2 = {"code": "rate_limited", "message": "Rate limited, retry after 4000 ms.", "retryable": True,
                "suggested_fix": "Wait 4 seconds, then call again."}
_RETRY_WORDS = re.compile(r"\bretry|\btry again\b|\bcall again\b|\bwait\b|\d+\s*ms\b", re.IGNORECASE)


@exercise("03.2", "Adopt the article's rate-limit error",
          right="Right: converted to upstream_unavailable with stop, and the words now say stop too.",
          hints=("from_article fixes the fields but keeps the message; rebuild the error with tool_error, keeping code and next.",
                 "Read your message as read_error(message) does, as plain text: it should select stop (a 'do not' or "
                 "'tell the customer' cue), and say nothing about waiting or retrying."))
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
    if _RETRY_WORDS.search(answer.message) or _RETRY_WORDS.search(answer.next.say):
        found = (_RETRY_WORDS.search(answer.message) or _RETRY_WORDS.search(answer.next.say)).group(0)
        return f"The text still asks for a wait or a retry ({found!r}), which contradicts stop; say what to do instead."
    reading = read_error(answer.message, tools=TOOL_NAMES)
    if reading.branch != "stop":
        return (f"Read as plain text, the message selects {reading.branch or 'no branch'}; a model that skims past "
                "next should still see it must stop and tell the customer.")
    return None
