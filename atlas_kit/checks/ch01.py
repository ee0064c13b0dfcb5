"""Checks for chapter 01's exercises: rewrite a raw error as a contract error (01.1), graded by running
T19 offline with it, and count recovery by hand (01.2), compared with metrics.recovery.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..atlas import atlas_session, grade
from ..errors import ErrorCode
from ..experiments import run_experiment
from ..metrics import groups, recovery
from ..results import HARNESS_ERROR
from . import BLANK, exercise
from ._shared import _as_failure, _error_shape, _offline_run, _outcome


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
