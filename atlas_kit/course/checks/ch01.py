"""Checks for chapter 01's exercises: rewrite a raw error as a contract error (01.1), graded on its structure
(the code, the argument to narrow) and on what its words may not say (internals, an echo, a contradiction), and
count recovery by hand (01.2), compared with metrics.recovery.
"""
from __future__ import annotations

from functools import lru_cache

from ...atlas.tools import TOOL_NAMES
from ...atlas.session import atlas_session
from ...contract.errors import ErrorCode, ToolError
from ...experiments.sweep import run_experiment
from ...experiments.metrics import groups, recovery
from ...types.results import HARNESS_ERROR
from ...types.records import Record
from ._registry import BLANK, Compare, Finding, exercise
from ._shared import _not_a_tool_error, atlas_names
from ._text import judge_failure


_T19_CALL = {"sku": "SKU-2041", "date_from": "2024-01-01", "date_to": "2024-06-30"}  # what the model sent
_DRIVER = "psycopg.errors.QueryCanceled: canceling statement due to statement timeout"
_NARROWS = ("region", "date_from", "date_to")  # the arguments that ask for less, not for something else


@exercise("01.1", "Rewrite a raw error as a contract error",
          right="A retryable code, a next that names an argument that narrows the query, and words that neither leak "
                "the driver's internals nor contradict the retry.",
          hints=("The query was valid; it was only too broad. Which code's retryable is True?",
                 "query_warehouse takes an optional region (north, south, east or west), and the dates date_from and "
                 "date_to: either narrows the query. Name one in next=retry_changed(argument, say).",
                 "Say the constraint and the fix in your own words: what was too much, and what to change. Keep the "
                 "driver's words for detail=."),
          judges=("structure", "forbidden", "contradiction"),
          compare=Compare("whether your message says what was too much and what to narrow",
                          "This query would scan more rows than the warehouse allows; add region (north, south, east or "
                          "west) and call once per region.",
                          ("Does the message say the constraint (more rows than one query may scan)?",
                           "Does it say the fix (narrow the dates, or add a region), so a model that reads only the text can act?")))
def _grade_01_1(answer: object) -> str | Finding | None:
    """Structure: the code, next and its argument (one that narrows). Forbidden: internals, the dates or SKU sent.
    Contradiction: a success claimed, another tool named. Not judged: whether the words give the constraint and fix."""
    if not isinstance(answer, ToolError):
        return _not_a_tool_error(answer)
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
    if answer.next.argument not in _NARROWS:
        return (f"Changing {answer.next.argument} asks a different question instead of a smaller one; name an argument "
                "that narrows the query: region, or the dates (date_from, date_to).")
    return judge_failure((answer.message, answer.next.say), code=answer.code, next=answer.next, tools=TOOL_NAMES,
                         failed="query_warehouse", echo=_T19_CALL.values(), raw=_DRIVER, names=atlas_names())


def _sweep_records() -> list[Record]:
    records = _sweep_01_2()
    # Two records a careless count gets wrong: a harness failure, and a correct episode with no error.
    harness: Record = {**records[0], "key": "check|harness", "stop_reason": HARNESS_ERROR, "correct": False,
                       "hit_error": True}
    clean: Record = {**records[0], "key": "check|clean", "style": "raw", "hit_error": False, "correct": True,
                     "error_codes": [], "branches": []}
    return [*records, harness, clean]


@lru_cache(maxsize=1)
def _sweep_01_2() -> tuple[Record, ...]:
    return tuple(run_experiment(name="check_01_2", styles=("raw", "generic", "contract"), faults=(True,),
                                tickets=("T04", "T05", "T07", "T09", "T19", "T22", "T23", "T03"), trials=2,
                                model="offline", progress=False))


@exercise("01.2", "Count recovery by hand",
          right="Recovered and hit counts per style, exactly as metrics.recovery counts them.",
          hints=("Recovery's denominator is the episodes where a tool error reached the model (hit_error), not every episode.",
                 "Leave out records whose stop_reason is 'harness_error': the harness failed, not the model."))
def _grade_01_2(answer: object) -> str | None:
    """Structure: the counts per style, equal to metrics.recovery on a sweep plus two traps. No free text is read."""
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
