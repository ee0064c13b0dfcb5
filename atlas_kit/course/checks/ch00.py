"""Checks for chapter 00's exercises: read T05's Run (00.1) and predict which model answers (00.2).
00.1's truth is T05's offline run at seed 0; 00.2's is the order of choose_model's rules.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ...atlas.grade import grade
from ._registry import exercise
from ._shared import _offline_run


_REPORT_KEYS = ("stop_reason", "correct", "failed_tool", "error_code", "balance")


@lru_cache(maxsize=1)
def _t05_truth() -> dict[str, str | bool]:
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


@exercise("00.1", "Run a ticket and read its Run", right="That is T05's run, read from its transcript, trace and grade.",
          hints=("Run it as section 4 does: run_agent(choice.client, atlas_session('T05', seed=0), model=choice.model, "
                 "source=choice.source), then print(run).",
                 "run.stop_reason, grade(run).correct and run.tool_errors[0] hold three of the five values; the "
                 "balance is in run.final_text."))
def _grade_00_1(answer: object) -> str | None:
    """Structure: the five values, each equal to T05's offline run at seed 0. No free text is read."""
    if not isinstance(answer, dict):
        return f"The answer is a {type(answer).__name__}; make it a dict with the keys {', '.join(_REPORT_KEYS)}."
    missing = [k for k in _REPORT_KEYS if k not in answer]
    if missing:
        return f"The report lacks {', '.join(missing)}; it needs all of: {', '.join(_REPORT_KEYS)}."
    truth = _t05_truth()
    for key in _REPORT_KEYS:
        given, want = answer[key], truth[key]
        # str's own strip, not the answer's: a str subclass could make its strip() equal to anything
        same = given is want if isinstance(want, bool) else isinstance(given, str) and str.strip(given) == want
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


@exercise("00.2", "Predict which model answers", right="A cassette first, then a named model, and a live one only with a key.",
          hints=("Section 2 lists four rules in order; the first that applies decides.",
                 "Asking for a live model without a key never crashes and never calls the network: what answers instead?"))
def _grade_00_2(answer: object) -> str | None:
    """Structure: one mode per scenario, equal to what choose_model's rules give. No free text is read."""
    if not isinstance(answer, dict):
        return f"The answer is a {type(answer).__name__}; make it a dict from each scenario letter to 'offline', 'live' or 'replay'."
    missing = [k for k in SCENARIOS_00_2 if k not in answer]
    if missing:
        return f"Scenarios {', '.join(missing)} have no answer; give one mode for each of {', '.join(SCENARIOS_00_2)}."
    for key, want in _MODE_00_2.items():
        given = answer[key]
        mode = str.lower(str.strip(given)) if isinstance(given, str) else None  # str's methods, not a subclass's
        if mode not in _MODES:
            return f"Scenario {key}: {given!r} is not a mode; use one of {', '.join(map(repr, _MODES))}."
        if mode != want:
            return f"Scenario {key} ({SCENARIOS_00_2[key][0]}, {SCENARIOS_00_2[key][1]}) is not {mode!r}: {_RULE_00_2[key]}"
    return None
