"""Checks for chapter 03's exercises: build the error for a refund outside the window (03.1), and adopt
the article's rate-limit error (03.2), both graded on their fields and on what their words may not say.
"""
from __future__ import annotations

import re

from ...atlas.tools import TOOL_NAMES
from ...contract.errors import Branch, ErrorCode, ToolError
from ._registry import Compare, Finding, exercise
from ._shared import _not_a_tool_error, atlas_names
from ._text import judge_failure


_CODE_03_1 = {
    "not_permitted": "not_permitted is for what this customer may never do; the refund window is a policy limit on the request",
    "invalid_argument": "no argument change makes a payment from March refundable, so the model must not retry",
    "not_found": "the invoice exists; it is only too old to refund",
    "upstream_unavailable": "nothing is down; the refund was refused by a rule",
}


_INTERNAL_03_1 = re.compile(r"\bREFUND_WINDOW\w*|\bpaid_at\b")  # the rule's constant and the field, even in plain case


@exercise("03.1", "Build the error for a refund outside the window",
          right="A policy code with stop, the internals in detail, and words that neither leak them nor contradict the "
                "stop.",
          hints=("A refund window is a policy ceiling, like the $500.00 refund limit; look up its code and the branches it allows.",
                 "The customer must hear why (the 180-day refund window), in your own words; the paid-on date and the "
                 "rule's name are for detail=.",
                 "Read your message and say as the model will: do they invite another attempt, or claim the refund was done?"),
          judges=("structure", "forbidden", "contradiction"),
          compare=Compare("whether your words give the customer the reason",
                          "Invoice INV-20433 was paid more than 180 days ago, so it is outside the refund window. "
                          "Tell the customer it cannot be refunded.",
                          ("Does the message or say name the rule in the customer's terms (how long after payment a "
                           "refund is possible)?",
                           "Could the model pass it on as it is, with no constant, field name or date format to translate?")))
def _grade_03_1(answer: object) -> str | Finding | None:
    """Structure: the code, stop, a detail. Forbidden: internals (the constant, the field). Contradiction: a retry
    invited, a success claimed, another tool named. Not judged: whether the words give the reason."""
    if not isinstance(answer, ToolError):
        return _not_a_tool_error(answer)
    if answer.code is not ErrorCode.LIMIT_EXCEEDED:
        return f"Code {answer.code.value} does not fit: {_CODE_03_1[answer.code.value]}. Pick the code for a policy ceiling."
    if answer.next is None:
        return "The error has no next; name the branch (with the words for the customer in say) so the model need not guess."
    if answer.next.branch is Branch.SWITCH_TOOL:
        return (f"next switches to {answer.next.tool}, but no person or tool can refund outside the window, and an "
                "escalation is a real change this customer did not need: select stop.")
    if not answer.detail:
        return "detail is empty; put the internal facts (the paid-on date, the rule REFUND_WINDOW_DAYS=180) there, for the trace."
    for text in (answer.message, answer.next.say):
        if (found := _INTERNAL_03_1.search(text)) is not None:
            return Finding("forbidden", f"the words name {found.group(0)!r}, an internal name; say the rule in the "
                                        "customer's terms and keep names for detail=.")
    return judge_failure((answer.message, answer.next.say), code=answer.code, next=answer.next, tools=TOOL_NAMES,
                         failed="issue_refund", names=atlas_names())


ARTICLE_03_2 = {"code": "rate_limited", "message": "Rate limited, retry after 4000 ms.", "retryable": True,
                "suggested_fix": "Wait 4 seconds, then call again."}


@exercise("03.2", "Adopt the article's rate-limit error",
          right="Converted to upstream_unavailable with stop, and the words no longer ask for a wait or a retry, claim "
                "success, or send the model to another tool.",
          hints=("from_article fixes the fields but keeps the message; rebuild the error with tool_error, keeping code and next.",
                 "Read your message as a model that skims past next would: does it ask for a wait or a retry? A "
                 "\"do not retry\" is fine, and so is asking the customer to try later.",
                 "Then say what to do instead (stop, and what to tell the customer), in any words."),
          compare=Compare("whether the message, read alone, says what to do instead",
                          "The service is busy and did not take the request. Do not call it again; tell the customer to "
                          "write again later.",
                          ("Read alone, does the message give an action (stop, tell the customer), not only a diagnosis?",
                           "Would a model that never reads next still stop, without waiting or calling again?")),
          judges=("structure", "forbidden", "contradiction"))
def _grade_03_2(answer: object) -> str | Finding | None:
    """Structure: the converted code and stop, a new message. Forbidden: internals, blame. Contradiction: a wait or
    retry invited, a success claimed, another tool named. Not judged: whether the words alone say what to do."""
    if not isinstance(answer, ToolError):
        return _not_a_tool_error(answer)
    if answer.code is not ErrorCode.UPSTREAM_UNAVAILABLE:
        return (f"Code {answer.code.value} is not what from_article gives a rate limit that reached the model; the "
                "harness's retries are spent, so keep the converted code.")
    if answer.next is None or answer.next.branch is not Branch.STOP:
        return "Keep next on stop, as from_article set it: the model must not become a second retry loop."
    if answer.message == ARTICLE_03_2["message"]:
        return "The message is still the article's, which tells the model to retry; rewrite it."
    return judge_failure((answer.message, answer.next.say), code=answer.code, next=answer.next, tools=TOOL_NAMES,
                         failed="list_invoices", names=atlas_names())
