"""Checks for chapter 16's exercises, on real tau-bench errors (gpt-4o, airline): choose the branch each error
called for (16.1), graded on structure against the branch the chapter's rule gives; and rewrite three real errors
in the contract's shape (16.2), graded on structure (code, branch, the argument or tool named), on the rubric's
forbidden rules (an echo of the call's input, internals) and on contradictions (a success the error refused, a retry on
a stop). Neither says what gpt-4o would have done.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache

from ...contract.errors import Branch, ErrorCode, ToolError
from ...contract.rubric import judge
from ...transcripts.analysis import ErrorEvent, error_events
from ...transcripts.readers import read_transcripts
from ...transcripts.shipped import tau_bench_airline
from ._registry import Compare, Finding, exercise
from ._text import contradicts

__all__ = ["CASES_16_1", "CASES_16_2", "CONTEXT_16_1", "real_error"]

CASES_16_1: dict[str, tuple[str, int]] = {  # letter: (episode, which of its errors)
    "a": ("task-20/trial-1", 2), "b": ("task-20/trial-1", 1), "c": ("task-0/trial-1", 1), "d": ("task-32/trial-0", 1)}
CONTEXT_16_1 = {
    "a": "The customer chose their travel certificate to pay the price difference of a flight change.",
    "b": "The customer asked to pay with 'the credit card on file'; the agent had not read their profile.",
    "c": "The customer picked two flights; the agent worked out the payment amounts itself.",
    "d": "The customer confirmed flight HAT139 for two passengers.",
}
_BRANCH_16_1 = {"a": Branch.STOP, "b": Branch.SWITCH_TOOL, "c": Branch.RETRY_CHANGED, "d": Branch.STOP}
_ASK_16_1 = {
    "a": "the policy says a flight change is paid with a gift card or credit card, and which one is the customer's "
         "choice: can any call the agent makes alone settle that?",
    "b": "the payment id was made up; the customer's profile lists the ones they hold: which tool reads it?",
    "c": "the same book_reservation succeeds once the payment amounts add up to the total the error names "
         "(what to tell the customer goes in next's say)",
    "d": "another flight is another trip, and the customer must choose it (the policy asks for their explicit yes "
         "before any booking): can any call the agent makes alone fix this one?",
}
CASES_16_2: dict[str, tuple[ErrorCode, Branch, str]] = {  # episode: (the code, the branch, the tool or argument)
    "task-26/trial-0": (ErrorCode.NOT_FOUND, Branch.SWITCH_TOOL, "get_user_details"),
    "task-15/trial-2": (ErrorCode.LIMIT_EXCEEDED, Branch.STOP, ""),
    "task-9/trial-2": (ErrorCode.INVALID_ARGUMENT, Branch.RETRY_CHANGED, "payment_methods"),
}
_CODES_16_2 = {"task-15/trial-2": {ErrorCode.LIMIT_EXCEEDED, ErrorCode.NOT_FOUND}}  # a full flight: either reads true
_WHY_CODE_16_2 = {
    "task-26/trial-0": "payment_id was well formed but names no payment method the customer holds: that is not_found, "
                       "and the profile (get_user_details) lists the ones they do hold",
    "task-15/trial-2": "the call was well formed and nothing is down or forbidden: the flight is full, a limit "
                       "(limit_exceeded) the agent cannot change alone",
    "task-9/trial-2": "the call can succeed as soon as one argument changes, the payment amounts: which code is the "
                      "retryable one?",
}


def _branch(value: object) -> Branch | None:
    """A branch from Branch.STOP, 'stop', 'Stop' or 'switch tool' (other words for the same branch)."""
    if isinstance(value, Branch):
        return value
    if isinstance(value, str):
        try:
            return Branch(re.sub(r"[\s-]+", "_", value.strip().lower()))
        except ValueError:
            return None
    return None


@exercise("16.1", "Which branch did each real error call for?",
          right="Each real error sorted by the move it called for: the same call changed, another tool first, or "
                "stop and ask the customer; none by repeating the call, which is the harness's branch.",
          hints=("Ask of each: can the same tool succeed with an argument the agent can set itself, must another "
                 "tool run first, or is what would fix it the customer's choice?",
                 "retry_unchanged is the harness's branch: none of these errors clears by calling again as it was."))
def _grade_16_1(answer: object) -> str | None:
    """Structure: one branch per letter, equal to the rule's. No free text is read."""
    if not isinstance(answer, dict):
        return f"The answer is a {type(answer).__name__}; make it a dict from each letter (a to d) to a Branch."
    missing = [k for k in CASES_16_1 if k not in answer]
    if missing:
        return f"Errors {', '.join(missing)} have no branch; give one for each of {', '.join(CASES_16_1)}."
    for key, want in _BRANCH_16_1.items():
        branch = _branch(answer[key])
        if branch is None:
            return f"Error {key}: {answer[key]!r} is not a branch; use Branch.STOP, Branch.SWITCH_TOOL and so on."
        if branch is Branch.RETRY_UNCHANGED:
            return (f"Error {key} is not retry_unchanged: that is the harness's branch, for a failure that clears by "
                    "itself, and calling again as it was fails the same way here.")
        if branch is not want:
            return f"Error {key} is not {branch.value}: {_ASK_16_1[key]}"
    return None


@lru_cache(maxsize=1)
def _events() -> dict[tuple[str, int], ErrorEvent]:
    return {(ev.episode, ev.ordinal): ev for ev in error_events(read_transcripts([tau_bench_airline()]).episodes)}


def real_error(episode: str, ordinal: int = 1) -> ErrorEvent:
    """The `ordinal`-th tool error of a shipped tau-bench episode ('task-26/trial-0')."""
    return _events()[(episode, ordinal)]


@exercise("16.2", "Rewrite three real errors in the contract's shape",
          right="Each rewrite carries the code and branch its failure calls for, names the tool or argument to act "
                "on, and, read by the contract's rubric, repeats none of the call's input and carries no internals; "
                "its words claim nothing the error refused and do not contradict its branch.",
          hints=("Build each with tool_error(tool_use_id, code, message, next=...): the 16.1 reasoning gives the "
                 "branch, and the branch narrows the code (ALLOWED_BRANCHES).",
                 "A rewrite may say what the customer must choose, but not the ids or names the call sent: name the "
                 "argument (payment_methods), never its values."),
          judges=("structure", "forbidden", "contradiction"),
          compare=Compare("whether each message says what happened in the customer's terms and what to do",
                          "task-15/trial-2: 'Flight HAT290 has no economy seat left on that date.' with stop('Tell "
                          "the customer the flight is full and ask whether to keep the reservation or pick another "
                          "flight.')",
                          ("Could the model act on the message alone, without guessing what went wrong?",
                           "Does say give the customer a choice the policy allows, rather than an apology?")))
def _grade_16_2(answer: object) -> str | Finding | None:
    """Structure: a ToolError per episode, its code, branch and tool or argument. Forbidden: the rubric's echo and
    internals rules, on the body the model would read. Contradiction: a success the error refused (a refund after a
    full flight), a retry on a stop, the same call again, 'pointless' with a retry, silence with telling. Not judged:
    whether the words fit the customer."""
    if not isinstance(answer, dict):
        return f"The answer is a {type(answer).__name__}; make it a dict from each episode id to a tool_error(...)."
    missing = [k for k in CASES_16_2 if k not in answer]
    if missing:
        return f"No rewrite for {', '.join(missing)}; give one tool_error for each of {', '.join(CASES_16_2)}."
    for episode, (code, branch, target) in CASES_16_2.items():
        found = _one_rewrite(episode, answer[episode], code, branch, target)
        if found is not None:
            return found
    return None


def _one_rewrite(episode: str, error: object, code: ErrorCode, branch: Branch, target: str) -> str | Finding | None:
    if not isinstance(error, ToolError):
        return (f"{episode}: the rewrite is a {type(error).__name__}; build it with tool_error(tool_use_id, code, "
                "message, next=...) from atlas_kit.contract.errors.")
    if error.code not in _CODES_16_2.get(episode, {code}):
        return f"{episode}: not {error.code.value}: {_WHY_CODE_16_2[episode]}."
    if error.next is None or error.next.branch is not branch:
        said = "no next" if error.next is None else f"next selects {error.next.branch.value}"
        return f"{episode}: {said}, but this failure calls for {branch.value} (your reasoning in 16.1 applies here too)."
    event = real_error(episode)
    if branch is Branch.SWITCH_TOOL and error.next.tool != target:
        return f"{episode}: next switches to {error.next.tool}; the tool that lists the customer's payment methods is {target}."
    if branch is Branch.RETRY_CHANGED and error.next.argument != target:
        return (f"{episode}: next changes {error.next.argument!r}; the argument whose amounts must add up to the "
                f"total is {target}.")
    schema: dict[str, object] | None = {"properties": {k: {} for k in event.arguments}} \
        if isinstance(event.arguments, dict) else None
    verdicts = judge(json.dumps(error.body(), ensure_ascii=False), is_error=True, arguments=event.arguments,
                     schema=schema)
    if verdicts.verdict("echo").status == "fail":
        return Finding("forbidden", f"{episode}: read by the contract's rubric, {verdicts.verdict('echo').reason}: "
                                    "name the argument, never its value (chapter 08).")
    if verdicts.verdict("internals").status == "fail":
        return Finding("forbidden", f"{episode}: read by the contract's rubric, the text "
                                    f"{verdicts.verdict('internals').reason}: say it in plain words.")
    for rule in ("structure", "code", "retryable", "next"):
        if verdicts.verdict(rule).status == "fail":
            return f"{episode}: read by the contract's rubric, {verdicts.verdict(rule).reason}."
    if (clash := contradicts((error.message, error.next.say), code=error.code, nxt=error.next)) is not None:
        return Finding("contradiction", f"{episode}: the rewrite {clash}")
    return None
