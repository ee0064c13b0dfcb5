"""Checks for chapter 02's exercises: choose the branch for each failure (02.1), and give T09's
not_found a next (02.2), graded on the branch and the tool it names and on what its say may not say.
"""
from __future__ import annotations

from ...atlas.tools import TOOL_NAMES
from ...contract.errors import Branch, ErrorCode, Next, tool_error
from ._registry import Compare, Finding, exercise
from ._shared import atlas_names
from ._text import judge_failure


FAILURES_02_1 = {
    "a": "get_order was called with order_id 'ORD-7712'; order ids have five digits.",
    "b": "list_invoices answered 429 Too Many Requests with Retry-After: 1, once; a second call succeeds.",
    "c": "update_order: the customer wants to change the address on ORD-77122, which was deleted.",
    "d": "issue_refund for $900.00; refunds above $500.00 need a person's approval.",
    "e": "get_account on ACC-4472, which belongs to another customer.",
    "f": "query_warehouse timed out on each of the harness's three attempts.",
    "g": "issue_refund on INV-20417, an invoice id that does not exist; the account and the amount are known.",
}
_BRANCH_02_1 = {"a": Branch.RETRY_CHANGED, "b": Branch.RETRY_UNCHANGED, "c": Branch.STOP, "d": Branch.SWITCH_TOOL,
                "e": Branch.STOP, "f": Branch.STOP, "g": Branch.SWITCH_TOOL}
_ASK_02_1 = {
    "a": "can the same tool succeed, and does anything about the call need to change first?",
    "b": "the failure clears by itself; does anything about the call need to change, and who makes the call?",
    "c": "can any call, to this tool or another, bring a deleted order back?",
    "d": "nothing is wrong with the request, it is just above what this tool may do; who else could do it?",
    "e": "would any argument, or any other tool, make another customer's account allowed?",
    "f": "the harness's retries are spent; should the model become a second retry loop?",
    "g": "the id is wrong, but the account and amount are known; which tool could find the right invoice?",
}


@exercise("02.1", "Choose the branch", right="Each failure sorted by the move it calls for, not by what broke.",
          hints=("Ask of each failure: can the same call succeed unchanged, changed, through another tool, or not at all?",
                 "retry_unchanged is the harness's branch: only a failure that clears by itself, with nothing to change, takes it."))
def _grade_02_1(answer: object) -> str | None:
    """Structure: one Branch per failure, equal to the chapter's. No free text is read."""
    if not isinstance(answer, dict):
        return f"The answer is a {type(answer).__name__}; make it a dict from each failure's letter to a Branch."
    missing = [k for k in FAILURES_02_1 if k not in answer]
    if missing:
        return f"Failures {', '.join(missing)} have no branch; give one for each of {', '.join(FAILURES_02_1)}."
    for key, want in _BRANCH_02_1.items():
        given = answer[key]
        try:
            branch = Branch(given)
        except (ValueError, TypeError):
            return f"Failure {key}: {given!r} is not a branch; use Branch.STOP, Branch.SWITCH_TOOL and so on."
        if branch is not want:
            return f"Failure {key} is not {branch.value}: {_ASK_02_1[key]}"
    return None


T09_MESSAGE = "No invoice matches invoice_id; do not guess ids."  # Atlas's own says which tool; this one does not
_FINDS_INVOICES = "list_invoices"  # the one tool that finds a charge from the account and the amount
_WHY_NOT_02_2 = {
    "escalate_to_human": "a person is not needed: the account and the amount are known, so a tool can find the charge",
    "issue_refund": "calling issue_refund again with the same unknown id fails the same way; first find the right invoice",
    "get_account": "get_account gives the balance and the orders, not the invoices; name the tool that lists invoices",
}


@exercise("02.2", "Give a failure its branch",
          right="switch_tool to list_invoices: the account and the amount are known, so listing the invoices finds the "
                "charge to refund, where stopping would leave the duplicate charge in place; and say neither repeats "
                "the id that matched nothing nor contradicts the switch.",
          hints=("The customer's account and the amount are in the ticket; the invoice id is the only thing wrong.",
                 "A not_found may select stop or switch_tool; the switch needs the name of the tool that lists invoices."),
          judges=("structure", "forbidden", "contradiction"),
          compare=Compare("whether say tells the model how to find the charge",
                          "Call list_invoices with the customer's account_id and refund the paid invoice of that amount.",
                          ("Does say send the model to the invoices with what the ticket gives (the account, the amount)?",
                           "Does it say what to do with what it finds (refund the matching charge)?")))
def _grade_02_2(answer: object) -> str | Finding | None:
    """Structure: a Next the builder takes for not_found, the branch and the tool. Forbidden: say repeating the id.
    Contradiction: a success claimed, the same call invited again, another tool named. Not judged: say's plan."""
    if not isinstance(answer, Next):
        return (f"The answer is a {type(answer).__name__}; build a Next with stop(say), switch_tool(tool, say) or "
                "retry_changed(argument, say) from atlas_kit.")
    try:
        tool_error("toolu_check", "not_found", T09_MESSAGE, next=answer)
    except (ValueError, TypeError) as refusal:
        return f"The builder refuses this next for a not_found error: {refusal}"
    if answer.tool is not None and answer.tool not in TOOL_NAMES:
        return f"next names the tool {answer.tool!r}, which Atlas does not have; its tools are {', '.join(TOOL_NAMES)}."
    if answer.branch is Branch.STOP:
        return ("With stop the agent gives up, so the duplicate charge is never refunded; the account and the amount "
                "are known, so the charge can still be found: which branch goes and finds it?")
    if answer.tool != _FINDS_INVOICES:
        why = _WHY_NOT_02_2.get(str(answer.tool), f"{answer.tool} cannot find an invoice from the account and the amount")
        return f"next switches to {answer.tool}, but {why}."
    return judge_failure((answer.say,), code=ErrorCode.NOT_FOUND, next=answer, tools=TOOL_NAMES, failed="issue_refund",
                         echo=("INV-20417",), names=atlas_names(), where="say")
