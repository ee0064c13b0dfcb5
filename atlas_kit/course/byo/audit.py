"""Running the properties: every case for each property, and the smallest input that breaks one.

`audit` gives one Verdict per property; `first_violation` stops at the first that fails, which is
what exercise 13.1's check reports. Deterministic: fixed cases, no randomness, well under a second.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Literal

from ...types.sets import JSONObject
from .probe import CASES, DispatchFunction, Outcome, Turns, run
from .properties import JUDGES, PROPERTIES, UNJUDGED


@dataclass(frozen=True)
class Verdict:
    prop: str
    status: Literal["pass", "fail", "unjudged"]
    case: str = ""
    turns: Turns = ()
    problem: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "pass"

    def feedback(self) -> str:
        if self.status == "pass":
            return f"“{self.prop}” holds on every case."
        if self.status == "unjudged":
            return f"“{self.prop}” could not be judged: your dispatch raised, or returned the wrong shape, first."
        return f"“{self.prop}” fails on {render(self.turns)}: {self.problem}"


def render(turns: Turns) -> str:
    """An input as a learner reads it: each message's blocks, tool calls as name(arguments) [id]."""
    def block(b: JSONObject) -> str:
        if b.get("type") != "tool_use":
            return f"a {b.get('type')} block"
        return f"{b['name']}({json.dumps(b['input'])}) [{b['id']}]"
    messages = ["[" + ", ".join(map(block, blocks)) + "]" if blocks else "[] (no blocks)" for blocks in turns]
    return messages[0] if len(messages) == 1 else "; then ".join(f"message {i + 1} {m}" for i, m in enumerate(messages))


def _shrink(fn: DispatchFunction, judge: Callable[[Outcome], str | None], turns: Turns) -> tuple[Turns, str]:
    """Drop messages, then blocks, while the property still fails: the smallest input that breaks it."""
    problem = judge(run(fn, turns))
    shrinking = True
    while shrinking:
        shrinking = False
        smaller = [turns[:i] + turns[i + 1:] for i in range(len(turns)) if len(turns) > 1]
        smaller += [turns[:i] + (turns[i][:j] + turns[i][j + 1:],) + turns[i + 1:]
                    for i in range(len(turns)) for j in range(len(turns[i]))]
        for candidate in smaller:
            found = judge(run(fn, candidate))
            if found not in (None, UNJUDGED):
                turns, problem, shrinking = candidate, found, True
                break
    return turns, str(problem)


def audit(fn: DispatchFunction, *, first: bool = False) -> list[Verdict]:
    """One Verdict per property, in PROPERTIES order, each failure with its smallest failing input.

    first: stop at the first property that fails (what a check reports).
    """
    outcomes: dict[str, Outcome] = {}
    verdicts = []
    for prop, letter in PROPERTIES.items():
        judge, unjudged, verdict = JUDGES[prop], False, None
        for case in (c for c in CASES if letter in c.props):
            if case.name not in outcomes:
                outcomes[case.name] = run(fn, case.turns)
            problem = judge(outcomes[case.name])
            if problem == UNJUDGED:
                unjudged = True
            elif problem is not None:
                turns, problem = _shrink(fn, judge, case.turns)
                verdict = Verdict(prop, "fail", case.name, turns, problem)
                break
        verdicts.append(verdict or Verdict(prop, "unjudged" if unjudged else "pass"))
        if first and verdicts[-1].status == "fail":
            break
    return verdicts


def first_violation(fn: DispatchFunction) -> Verdict | None:
    """The first property (in PROPERTIES order) that fails; else the first that could not be judged; else None."""
    verdicts = audit(fn, first=True)
    return next((v for v in verdicts if v.status == "fail"), None) or next((v for v in verdicts if not v.ok), None)
