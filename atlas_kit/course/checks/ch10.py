"""Checks for chapter 10's exercises: an induced-failure test for T17 (10.1), and a contract test for
error blocks (10.2), tried on every good block and on each of BROKEN_10.
"""
from __future__ import annotations

import copy
import json
from typing import Mapping

from ...atlas.faults import Fault
from ...atlas.session import atlas_session, play
from ...atlas.styles import catalogue
from ...contract.errors import tool_error
from ...types.sets import JSONObject
from ...types.events import TraceEvent
from ._registry import BLANK, exercise, is_blank


_SCENARIOS = ("lost_reply", "down", "quota")


def _observe(faults: list[Fault]) -> tuple[tuple[str, str | None] | None, int, list[TraceEvent]]:
    session = atlas_session("T17", faults=faults, seed=0)
    play(session)
    errors = [e for e in session.trace.of_kind("error") if e["tool"] == "update_order"]
    read = (errors[0]["code"], errors[0]["branch"]) if errors else None
    return read, len(session.world.order_changes), session.trace.events


@exercise("10.1", "An induced-failure test for T17",
          right="Each scenario induces the failure it names, and your predictions match what the run shows.",
          hints=("A lost reply is a transient fault that runs the handler first: look at Fault's after_effect.",
                 "A transient fault that fires once is absorbed by the harness; one that fires on every attempt (always) "
                 "outlasts it and reaches the model as upstream_unavailable.",
                 "A refusal (not_permitted, not_found, invalid_argument, limit_exceeded) reaches the model however "
                 "often it fires, and nothing is applied."))
def _check_induced(answer: object) -> str | None:
    """Structure: each scenario's faults, and the predictions against the run. No free text is read."""
    if not isinstance(answer, dict):
        return "Your answer should be the dict scenarios: name -> (faults, what the model reads, changes applied)."
    if all(is_blank(v) for v in answer.values()):
        return BLANK
    missing = [name for name in _SCENARIOS if name not in answer]
    if missing:
        return f"The dict needs the three scenarios {', '.join(_SCENARIOS)}; {', '.join(missing)} is missing."
    for name in _SCENARIOS:
        problem = _scenario(name, answer[name])
        if problem is not None:
            return problem
    return None


def _scenario(name: str, value: object) -> str | None:
    """One scenario: its shape, the faults it induces, and its two predictions against the run."""
    if is_blank(value):
        return f"Scenario {name!r} is not answered yet: replace its ... with (faults, reads, changes)."
    if not isinstance(value, tuple) or len(value) != 3:
        return f"Scenario {name!r} should be a tuple of three: (list of Fault, (code, branch) or None, changes applied)."
    faults, reads, changes = value
    if not isinstance(faults, (list, tuple)) or not faults or not all(isinstance(f, Fault) for f in faults):
        return f"Scenario {name!r}: the first item should be a non-empty list of Fault objects (Fault(...), always(...))."
    if any(f.tool != "update_order" for f in faults):
        return f"Scenario {name!r}: T17's only call is update_order, so fault that tool; a fault on another never fires."
    if reads is not None and (not isinstance(reads, (tuple, list)) or len(reads) != 2):
        return f"Scenario {name!r}: what the model reads is a (code, branch) tuple of strings, or None for no error."
    reads = None if reads is None else tuple(reads)
    observed, applied, events = _observe(list(faults))
    transients = [e for e in events if e["kind"] == "transient"]
    answered = [e for e in events if e["kind"] == "result" and e["tool"] == "update_order"]
    if name == "lost_reply" and not (transients and answered and any(f.after_effect for f in faults)):
        return ("Scenario 'lost_reply' should apply the change, lose the reply, and then let the harness's retry "
                "through: use a transient fault that runs the handler first and fires once.")
    if name == "down" and (not transients or answered or any(f.after_effect for f in faults)):
        return ("Scenario 'down' should fail on every harness attempt, before anything is applied; yours let an "
                "attempt through or applied the change.")
    if name == "quota" and (transients or not any(f.kind == "limit_exceeded" for f in faults)):
        return "Scenario 'quota' is a policy refusal (a daily limit), not a transient: pick the fault kind for a limit."
    if reads != observed:
        said = "no error" if reads is None else "/".join(map(str, reads))
        return (f"Scenario {name!r}: you predicted the model reads {said}, and the run disagrees. Play T17 with your "
                "faults and read the trace's transient and error events.")
    if changes != applied:
        return (f"Scenario {name!r}: you predicted {changes!r} order change(s) applied, and the run disagrees; "
                "count session.world.order_changes after play().")
    return None


def _block(content: object) -> JSONObject:
    text = content if isinstance(content, str) else json.dumps(content)
    return {"type": "tool_result", "tool_use_id": "toolu_c", "is_error": True, "content": text}


def _good_blocks() -> list[tuple[str, Mapping[str, object]]]:
    good: list[tuple[str, Mapping[str, object]]] = [(f"the catalogue's {row.case!r} error", _block(row.contract))
                                                     for row in catalogue(seed=0)]
    good.append(("an error with no next", tool_error("toolu_c", "not_found", "No order matches order_id.").block()))
    good.append(("a reworded not_permitted", _block({"error": "not_permitted", "retryable": False,
                                                    "message": "This account is not one of yours, so it cannot be shown.",
                                                    "next": {"branch": "stop", "say": "Tell the customer."}})))
    return good


_BASE = {"error": "not_found", "message": "No order matches order_id. Ask the customer to check it.", "retryable": False,
         "next": {"branch": "stop", "say": "Tell the customer the order was not found."}}
BROKEN_10 = (
    ("an error sent without is_error", {"type": "tool_result", "tool_use_id": "toolu_c", "content": json.dumps(_BASE)}),
    ("content that is a raw traceback, not JSON",
     _block('Traceback (most recent call last):\n  File "orders.py", line 88\nKeyError: \'ORD-77122\'')),
    ("not_found marked retryable", _block({**_BASE, "retryable": True})),
    ("a renamed code (permission_denied)", _block({**_BASE, "error": "permission_denied"})),
    ("an extra field (suggested_fix)", _block({**_BASE, "suggested_fix": "Try again."})),
    ("the trace's detail leaked into the body", _block({**_BASE, "detail": "KeyError: 'ORD-77122'"})),
    ("a message over 280 characters", _block({**_BASE, "message": "No order matches order_id. " * 12})),
    ("not_permitted whose next says retry_changed",
     _block({"error": "not_permitted", "message": "That account belongs to another customer.", "retryable": False,
             "next": {"branch": "retry_changed", "say": "Try the next account id.", "argument": "account_id"}})),
    ("upstream_unavailable whose next says retry_unchanged (the harness's branch)",
     _block({"error": "upstream_unavailable", "message": "The refund service is not responding.", "retryable": False,
             "next": {"branch": "retry_unchanged", "say": "Call it again."}})),
    ("switch_tool that names no tool",
     _block({"error": "limit_exceeded", "message": "Refunds above $500.00 need a person's approval.", "retryable": False,
             "next": {"branch": "switch_tool", "say": "Escalate it."}})),
    ("retry_changed that names no argument",
     _block({"error": "invalid_argument", "message": "The date is not valid.", "retryable": True,
             "next": {"branch": "retry_changed", "say": "Fix it and call again."}})),
)


@exercise("10.2", "A contract test for error blocks",
          right="Your test passes every block the builder makes and fails each broken one with an assertion.",
          hints=("Three layers: the block (is_error, JSON content), the schema (error_schema()), and what the schema "
                 "cannot see (errors.ALLOWED_BRANCHES, and the tool or argument next must name).",
                 "Parse the content inside try/except json.JSONDecodeError and turn the failure into an assert, so a "
                 "broken block fails the test instead of crashing it.",
                 "jsonschema.Draft202012Validator(error_schema()).validate(body) raises ValidationError on the shape; "
                 "then assert next['branch'] in {b.value for b in ALLOWED_BRANCHES[ErrorCode(body['error'])]}."))
def _check_contract_test(test: object) -> str | None:
    """Structure: the test passes every good block and fails each of BROKEN_10 by an assertion. No free text is read."""
    if not callable(test):
        return "Pass your test function itself (no parentheses), so the check can call it on each block."
    for what, block in _good_blocks():
        try:
            test(copy.deepcopy(block))
        except Exception as exc:
            return (f"Your test fails a good block ({what}) with {type(exc).__name__}; a contract test must pass every "
                    "body the builder makes. Check which of your rules is stricter than the contract.")
    import jsonschema  # here, not at import: every learner's first check() would pay about a second for it

    caught = (AssertionError, jsonschema.ValidationError)
    missed, crashed = [], []
    for what, block in BROKEN_10:
        try:
            test(copy.deepcopy(block))
            missed.append(what)
        except caught:
            pass
        except Exception as exc:
            crashed.append((what, type(exc).__name__))
    if missed:
        return (f"Your test passes {len(missed)} of {len(BROKEN_10)} broken blocks, for example {missed[0]}. "
                "Add the rule that catches it.")
    if crashed:
        what, name = crashed[0]
        return (f"Your test crashed with {name} on {what}, instead of failing an assertion; check that before you "
                "index or parse, so the report says what broke.")
    return None
