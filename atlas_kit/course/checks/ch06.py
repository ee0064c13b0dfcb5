"""Checks for chapter 06's exercises: a loop guard on (tool, arguments, error) (06.1), and bounds that
stop T21's loop on the cost cap yet spare the contract runs that need three calls (06.2).
"""
from __future__ import annotations

import json

from ...agent import Bounds
from ...atlas.session import atlas_session
from ...atlas.grade import grade
from ...types.sets import JSONObject
from ._registry import exercise
from ._shared import _run


_Q = "query_warehouse"
_DEC = {"sku": "SKU-3300", "date_from": "2024-12-01", "date_to": "2024-12-31", "region": "east"}
_LOOP_CASES: tuple[tuple[str, list[tuple[str, JSONObject, str]], int | None, str], ...] = (
    ("no failures", [], None, "An empty history has nothing to repeat; return None."),
    ("the same failure twice", [(_Q, _DEC, "upstream_unavailable")] * 2, 1,
     "The second identical (tool, arguments, code) is where the breaker acts: return its index."),
    ("the same arguments in another key order", [(_Q, _DEC, "upstream_unavailable"),
                                                 (_Q, dict(reversed(list(_DEC.items()))), "upstream_unavailable")], 1,
     "Key order never makes two calls differ; compare arguments as canonical JSON (sorted keys)."),
    ("a repeat with one failure in between", [("get_order", {"order_id": "ORD-77121"}, "not_permitted"),
                                              ("get_account", {"account_id": "ACC-4471"}, "upstream_unavailable"),
                                              ("get_order", {"order_id": "ORD-77121"}, "not_permitted")], 2,
     "A repeat need not be the very next failure: count every earlier triple."),
    ("the same call failing with two different codes", [(_Q, _DEC, "upstream_unavailable"),
                                                        (_Q, _DEC, "invalid_argument")], None,
     "A different error code is a different triple, not a repetition."),
    ("the same arguments to two different tools", [("get_account", {"account_id": "ACC-4471"}, "not_found"),
                                                   ("list_invoices", {"account_id": "ACC-4471"}, "not_found")], None,
     "Two tools are two triples, even with the same arguments."),
    ("enumeration, one new id per call", [("get_account", {"account_id": f"ACC-447{i}"}, "not_found") for i in range(2, 7)],
     None, "Varied arguments never repeat a triple: this is the loop the breaker cannot see, so return None."),
    ("a list argument in another order", [("issue_refund", {"ids": [1, 2]}, "limit_exceeded"),
                                          ("issue_refund", {"ids": [2, 1]}, "limit_exceeded")], None,
     "Only key order is noise; a list in another order is other arguments."),
    ("true where 1 was sent", [("update_order", {"quantity": 1}, "invalid_argument"),
                               ("update_order", {"quantity": True}, "invalid_argument")], None,
     "Python says 1 == True, but the model sent different JSON; compare what was sent, as canonical JSON."),
    ("a repeat late in the run", [("a", {"x": 1}, "not_found"), ("b", {"x": 1}, "not_found"),
                                  ("c", {"x": 1}, "not_found"), ("b", {"x": 1}, "not_found"),
                                  ("a", {"x": 1}, "not_found")], 3,
     "Return the index of the first repeat, the one the breaker acts on."),
)


def _index(value: object) -> bool:
    """An index or None, as a plain int (not a bool, nor an object that says it equals anything)."""
    return value is None or type(value) is int


@exercise("06.1", "A loop guard on (tool, arguments, error)",
          right="Your guard stops where the dispatcher's breaker does, on the second identical triple, and "
                "lets varied arguments, other tools and other codes through.",
          hints=("Walk the failures in order, keeping a set of the triples seen so far.",
                 "Make each triple hashable and order-proof: (tool, json.dumps(args, sort_keys=True), code).",
                 "Return the index i of the first triple already in the set; return None after the loop."))
def _loop_guard(guard: object) -> str | None:
    """Structure: the index the breaker acts at, on ten histories and T21's. No free text is read."""
    if not callable(guard):
        return "Pass your function first_repeat itself: it takes a list of (tool, args, code) and returns an index or None."
    for name, failures, want, advice in _LOOP_CASES:
        try:
            got = guard([(t, json.loads(json.dumps(a)), c) for t, a, c in failures])
        except Exception as exc:
            return (f"For {name} your guard raised {type(exc).__name__}: arguments can hold lists and dicts, so turn "
                    "them into text you can compare and hash, canonical JSON with sorted keys.")
        if not _index(got) or got != want:
            return f"For {name} your guard returned {got!r} where the breaker says {want!r}. {advice}"
    history = _t21_history()
    got = guard(history)
    if not _index(got) or got != 1:
        return f"On the failures of chapter 06's looping T21 run your guard returned {got!r}, where the breaker acted at 1."
    return None


def _t21_history() -> list[tuple[str, object, str]]:
    run = _run(atlas_session("T21", style="generic", seed=0, break_loops=False), bounds=Bounds(max_steps=4))
    calls = {e["tool_use_id"]: e for e in run.trace.of_kind("call")}
    return [(e["tool"], json.loads(calls[e["tool_use_id"]]["args"]), e["code"]) for e in run.tool_errors]


@exercise("06.2", "Bounds that stop a loop and spare a real run",
          right="The loop ends on the cost cap within three calls, and the contract runs that need three "
                "calls still finish correctly.",
          hints=("Read the table above: what each run has spent after each model call. The loop and the contract "
                 "runs part ways at the third call.",
                 "The agent loop checks the cap after each call that used a tool: the cap must be above what the "
                 "contract runs have spent after their second call, and at most what the loop has spent after its third.",
                 "max_steps must leave room for three calls; the default (12) does."))
def _bounds(bounds: object) -> str | None:
    """Structure: the outcomes of T21 (cost_limit within three calls), T04 and T19 under the bounds. No free text is read."""
    if not isinstance(bounds, Bounds):
        return "Your answer should be a Bounds(...) object, for example Bounds(max_cost_usd=...)."
    loop = _run(atlas_session("T21", style="generic", seed=0, break_loops=False), bounds=bounds)
    if loop.stop_reason == "step_limit":
        return (f"The loop ended on step_limit after {loop.steps} calls: the step bound fired before any cost cap. "
                "Set max_cost_usd so that the cost cap is what ends it.")
    if loop.stop_reason != "cost_limit":
        return f"The loop ended with {loop.stop_reason}, not cost_limit; a cost cap should end it."
    if loop.steps > 3:
        return (f"The loop ran {loop.steps} calls (${loop.cost_usd:.4f}) before the cost cap stopped it; lower "
                "max_cost_usd so it ends within three.")
    for name in ("T04", "T19"):
        run = _run(atlas_session(name, style="contract", seed=0), bounds=bounds)
        if run.stop_reason != "finished" or not grade(run).correct:
            return (f"{name} under the contract needs three model calls, and your bounds cut it off ({run.stop_reason} "
                    f"after {run.steps} calls, ${run.cost_usd:.4f}); raise the cap above what its second call costs.")
    return None
