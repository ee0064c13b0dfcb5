"""Checks for the exercises of chapters 00-03: run a ticket, rewrite a raw error, pick a branch, build an error.

Where an answer is an error or a `next`, the check also runs the ticket offline with that error in
place of Atlas's own (the tool's first call fails with it) and grades the outcome, as the chapters do.
"""
from __future__ import annotations

import copy
import re
from functools import lru_cache
from typing import Any

from . import BLANK, exercise
from ..agent import Run, run_agent
from ..atlas import TOOL_NAMES, atlas_session, grade
from ..errors import Branch, ErrorCode, Next, ToolError, ToolFailure, tool_error
from ..experiments import run_experiment
from ..metrics import groups, recovery
from ..models import SIMULATED
from ..offline import OFFLINE_MODEL, offline_client
from ..reading import read_error
from ..results import HARNESS_ERROR

# --- helpers ---------------------------------------------------------------------------------


def _offline_run(ticket: str, *, tool: str | None = None, failure: ToolFailure | None = None, seed: int = 0) -> Run:
    """Run `ticket` with the stand-in; with `failure`, the first call to `tool` fails with it instead."""
    session = atlas_session(ticket, seed=seed)
    if tool is not None and failure is not None:
        real, calls = session.dispatcher.tools[tool], [0]

        def handler(args: dict[str, Any], ctx: Any) -> Any:
            calls[0] += 1
            if calls[0] == 1:
                raise failure
            return real.handler(args, ctx)

        wrapped = copy.copy(real)
        wrapped.handler = handler
        session.dispatcher.tools[tool] = wrapped
    return run_agent(offline_client(seed=seed), session, model=OFFLINE_MODEL, source=SIMULATED)


def _as_failure(error: ToolError) -> ToolFailure:
    return ToolFailure(error.code, error.message, next=error.next, detail=error.detail)


def _move(run: Run) -> str:
    """What the model did right after the first tool error, in a few words."""
    for i, msg in enumerate(run.messages[:-1]):
        content = msg["content"]
        if isinstance(content, list) and any(b.get("is_error") for b in content):
            after = run.messages[i + 1]["content"]
            calls = [b["name"] for b in after if b["type"] == "tool_use"]
            return f"called {', '.join(calls)}" if calls else "answered the customer"
    return "never saw the error"


def _outcome(run: Run) -> str:
    """The end of a run for a message: what the model did, how it stopped, and why the grader said no."""
    move = _move(run)
    if move == "answered the customer":
        move += f" ({_clip(run.final_text)!r})"
    reasons = [r for r in grade(run).reasons if "Lookup(" not in r]  # a Lookup's repr says nothing to a learner
    why = f": {_clip(reasons[0])}" if reasons else ""
    return f"After your error the stand-in {move}, and {run.ticket.id} ended {run.stop_reason} but not correct{why}"


def _clip(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _error_shape(answer: Any) -> str | None:
    if not isinstance(answer, ToolError):
        return (f"The answer is a {type(answer).__name__}; build it with tool_error(tool_use_id, code, message, "
                "next=...) from atlas_kit.errors, which returns a ToolError.")
    return None


# --- 00 · Start here -------------------------------------------------------------------------

_REPORT_KEYS = ("stop_reason", "correct", "failed_tool", "error_code", "balance")


@lru_cache(maxsize=1)
def _t05_truth() -> dict[str, Any]:
    run = _offline_run("T05")
    err = run.tool_errors[0]
    figure = re.search(r"\$[\d,]+\.\d\d", run.final_text)
    return {"stop_reason": run.stop_reason, "correct": grade(run).correct, "failed_tool": err["tool"],
            "error_code": err["code"], "balance": figure.group(0) if figure else ""}


_REPORT_WHERE = {
    "stop_reason": "print(run) shows it on the line that starts with 'stop:'; it is also run.stop_reason",
    "correct": "grade(run).correct says it (True or False, not a string)",
    "failed_tool": "the line marked !! follows the tool call that failed; run.tool_errors[0]['tool'] names it",
    "error_code": "it is the 'error' field of the body marked !!, or run.tool_errors[0]['code']",
    "balance": "copy the dollar figure the final answer states for ACC-4471, written as it is (with $ and cents)",
}


@exercise("00.1", "Run a ticket and read its Run", right="Right: that is T05's run, read from its transcript, trace and grade.",
          hints=("Run it as section 4 does: run_agent(choice.client, atlas_session('T05', seed=0), model=choice.model, "
                 "source=choice.source), then print(run).",
                 "run.stop_reason, grade(run).correct and run.tool_errors[0] hold three of the five values; the "
                 "balance is in run.final_text."))
def _grade_00_1(answer: Any) -> str | None:
    if not isinstance(answer, dict):
        return f"The answer is a {type(answer).__name__}; make it a dict with the keys {', '.join(_REPORT_KEYS)}."
    missing = [k for k in _REPORT_KEYS if k not in answer]
    if missing:
        return f"The report lacks {', '.join(missing)}; it needs all of: {', '.join(_REPORT_KEYS)}."
    truth = _t05_truth()
    for key in _REPORT_KEYS:
        given, want = answer[key], truth[key]
        same = given is want if isinstance(want, bool) else isinstance(given, str) and given.strip() == want
        if not same:
            return f"{key} is not {given!r} in T05's offline run (seed 0): {_REPORT_WHERE[key]}."
    return None


_MODES = ("offline", "live", "replay")
# What choose_model returns in each situation (tests/test_checks_00_03.py re-derives it from choose_model).
SCENARIOS_00_2 = {
    "a": ('choose_model()', "no key, no $ATLAS_MODEL"),
    "b": ('choose_model("claude-sonnet-5-5")', "no key"),
    "c": ('choose_model()', "ANTHROPIC_API_KEY set"),
    "d": ('choose_model("atlas-offline-1")', "ANTHROPIC_API_KEY set"),
    "e": ('choose_model(cassette="t01.json")', "ANTHROPIC_API_KEY set"),
    "f": ('choose_model()', "no key, $ATLAS_MODEL=claude-sonnet-5-5"),
}
_MODE_00_2 = {"a": "offline", "b": "offline", "c": "live", "d": "offline", "e": "replay", "f": "offline"}
_RULE_00_2 = {
    "a": "with no model, no $ATLAS_MODEL and no key, which rule of section 2 is left?",
    "b": "naming a live model does not make it answer; what does a live call need that this situation lacks?",
    "c": "no model is named, but the key is set; what does rule 4 choose then?",
    "d": "the name given is the stand-in's own; does a key change which model that name means?",
    "e": "look at which argument choose_model checks first, before any model name or key.",
    "f": "$ATLAS_MODEL names the model, but a live call still needs something; is it there?",
}


@exercise("00.2", "Predict which model answers", right="Right: a cassette first, then a named model, and a live one only with a key.",
          hints=("Section 2 lists four rules in order; the first that applies decides.",
                 "Asking for a live model without a key never crashes and never calls the network: what answers instead?"))
def _grade_00_2(answer: Any) -> str | None:
    if not isinstance(answer, dict):
        return f"The answer is a {type(answer).__name__}; make it a dict from each scenario letter to 'offline', 'live' or 'replay'."
    missing = [k for k in SCENARIOS_00_2 if k not in answer]
    if missing:
        return f"Scenarios {', '.join(missing)} have no answer; give one mode for each of {', '.join(SCENARIOS_00_2)}."
    for key, want in _MODE_00_2.items():
        given = answer[key]
        if not isinstance(given, str) or given.strip().lower() not in _MODES:
            return f"Scenario {key}: {given!r} is not a mode; use one of {', '.join(map(repr, _MODES))}."
        if given.strip().lower() != want:
            return f"Scenario {key} ({SCENARIOS_00_2[key][0]}, {SCENARIOS_00_2[key][1]}) is not {given.strip()!r}: {_RULE_00_2[key]}"
    return None


# --- 01 · An error is a prompt ---------------------------------------------------------------

_DRIVER_WORDS = ("psycopg", "querycanceled", "statement timeout", "canceling statement", "errors.")


@exercise("01.1", "Rewrite a raw error as a contract error",
          right="Right: a code the model can act on, the argument to change, and no driver internals; the stand-in answered T19 with it.",
          hints=("The query was valid; it was only too broad. Which code's retryable is True?",
                 "query_warehouse takes an optional region (north, south, east or west); name it in next=retry_changed(...) "
                 "and in the message, and keep the driver's words out."))
def _grade_01_1(answer: Any) -> str | None:
    if (shape := _error_shape(answer)) is not None:
        return shape
    if answer.code is not ErrorCode.INVALID_ARGUMENT:
        return (f"{answer.code.value} tells the model that calling query_warehouse again cannot succeed, yet the same "
                "query works once it asks for less: use the code whose retryable is True.")
    if answer.next is None:
        return "The error has no next, so the model must guess what to change; add next=retry_changed(argument, say)."
    schema = atlas_session("T19").dispatcher.tools["query_warehouse"].input_schema["properties"]
    if answer.next.argument is None:
        return "next names no argument; retry_changed must say which argument to change (next=retry_changed(argument, say))."
    if answer.next.argument not in schema:
        return (f"next names the argument {answer.next.argument!r}, which query_warehouse does not take; "
                f"its arguments are {', '.join(schema)}.")
    low = answer.message.lower()
    leaked = [w for w in _DRIVER_WORDS if w in low]
    if leaked:
        return f"The message still carries the driver's words ({leaked[0]!r}); say the constraint and the fix in plain terms, and put internals in detail=."
    if answer.next.argument not in answer.message:
        return (f"next names {answer.next.argument}, but the message does not: name that argument in the message, "
                "and what to set it to, so a model that reads only the text knows the fix too.")
    if len(answer.message) < 40:
        return f"The message has {len(answer.message)} characters; say what limit was hit and what to change, in a sentence or two."
    run = _offline_run("T19", tool="query_warehouse", failure=_as_failure(answer))
    if not grade(run).correct:
        return _outcome(run) + "; name the argument whose values split the query into parts that fit."
    return None


def _sweep_records() -> list[dict[str, Any]]:
    records = _sweep_01_2()
    # Two records a careless count gets wrong: a harness failure, and a correct episode with no error.
    harness = dict(records[0], key="check|harness", stop_reason=HARNESS_ERROR, correct=False, hit_error=True)
    clean = dict(records[0], key="check|clean", style="raw", hit_error=False, correct=True, error_codes=[], branches=[])
    return [*records, harness, clean]


@lru_cache(maxsize=1)
def _sweep_01_2() -> tuple[dict[str, Any], ...]:
    return tuple(run_experiment(name="check_01_2", styles=("raw", "generic", "contract"), faults=(True,),
                                tickets=("T04", "T05", "T07", "T09", "T19", "T22", "T23", "T03"), trials=2,
                                model="offline", progress=False))


@exercise("01.2", "Count recovery by hand",
          right="Right: recovered and hit counts per style, exactly as metrics.recovery counts them.",
          hints=("Recovery's denominator is the episodes where a tool error reached the model (hit_error), not every episode.",
                 "Leave out records whose stop_reason is 'harness_error': the harness failed, not the model."))
def _grade_01_2(answer: Any) -> str | None:
    if not callable(answer):
        return f"The answer is a {type(answer).__name__}; pass the function itself, recovery_counts, not its result."
    records = _sweep_records()
    got = answer([dict(r) for r in records])
    if got is None:  # the exercise's empty body: not answered yet
        return BLANK
    if not isinstance(got, dict):
        return f"recovery_counts returned a {type(got).__name__}; return a dict from style to (recovered, hit)."
    for style, rs in groups(records, "style").items():
        want = recovery(rs)
        pair = got.get(style)
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in pair)):
            return f"For style {style!r} recovery_counts gave {pair!r}; give a pair of whole numbers (recovered, hit)."
        recovered, hit = pair
        if hit != want.n:
            with_harness = sum(bool(r["hit_error"]) for r in rs)
            if hit == with_harness:
                return (f"For style {style!r} you counted {hit} episodes that hit an error; leave out records whose "
                        f"stop_reason is {HARNESS_ERROR!r} (the harness failed, not the model).")
            return (f"For style {style!r} you counted {hit} episodes, but only those where a tool error reached the "
                    "model (hit_error) count toward recovery.")
        if recovered != want.successes:
            return (f"For style {style!r} you counted {recovered} recovered episodes; recovered means correct among the "
                    "episodes you counted as hit, so count only those.")
    return None


# --- 02 · Four branches ----------------------------------------------------------------------

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


@exercise("02.1", "Choose the branch", right="Right: each failure sorted by the move it calls for, not by what broke.",
          hints=("Ask of each failure: can the same call succeed unchanged, changed, through another tool, or not at all?",
                 "retry_unchanged is the harness's branch: only a failure that clears by itself, with nothing to change, takes it."))
def _grade_02_1(answer: Any) -> str | None:
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


@exercise("02.2", "Give a failure its branch",
          right="Right: with that next the stand-in found the duplicate charge and refunded it, and T09 ends correct.",
          hints=("The customer's account and the amount are in the ticket; the invoice id is the only thing wrong.",
                 "A not_found may select stop or switch_tool; the switch needs the name of the tool that lists invoices."))
def _grade_02_2(answer: Any) -> str | None:
    if not isinstance(answer, Next):
        return (f"The answer is a {type(answer).__name__}; build a Next with stop(say), switch_tool(tool, say) or "
                "retry_changed(argument, say) from atlas_kit.errors.")
    try:
        tool_error("toolu_check", "not_found", T09_MESSAGE, next=answer)
    except (ValueError, TypeError) as refusal:
        return f"The builder refuses this next for a not_found error: {refusal}"
    if answer.tool is not None and answer.tool not in TOOL_NAMES:
        return f"next names the tool {answer.tool!r}, which Atlas does not have; its tools are {', '.join(TOOL_NAMES)}."
    run = _offline_run("T09", tool="issue_refund", failure=ToolFailure("not_found", T09_MESSAGE, next=answer))
    if not grade(run).correct:
        if answer.branch is Branch.STOP:
            return (f"With stop the stand-in {_move(run)} and gave up, so the duplicate charge was never refunded; "
                    "the account and the amount are known, so the charge can still be found.")
        return (f"After your error the stand-in {_move(run)}, and T09 ended with the duplicate charge not refunded; "
                "name a tool that can find the charge from the account and the amount.")
    return None


# --- 03 · Anatomy of a tool error ------------------------------------------------------------

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
