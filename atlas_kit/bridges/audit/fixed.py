"""A fixed reply: the same text back for failures of different arguments (of one tool or of several). It was not
written from the failure, so it cannot name the step each one needs, and it does not pass the rubric's `next` rule.

Arguments are told apart by name: "Argument account_id is required" from three tools that each lack account_id is
one failure, rightly answered alike. One exception: a reply that names an argument whose value was the same in every
one of those calls (a server that reports the first bad argument, when the audit's sample for it is bad) is right
each time. Chapter 10.
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Mapping, Sequence

from ...contract.naming import mentions_argument
from ...contract.rubric import Verdict
from .outcomes import Outcome

__all__ = ["mark_fixed"]


def _named(text: str, props: Sequence[str]) -> list[str]:
    """The tool's arguments a reply names: a contract body's next.argument, else each one its words mention."""
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    nxt = body.get("next") if isinstance(body, dict) else None
    if isinstance(nxt, dict) and isinstance(nxt.get("argument"), str):
        return [nxt["argument"]]
    return [p for p in props if mentions_argument(text, p)]


def _same_everywhere(name: str, calls: Sequence[Mapping[str, object]]) -> bool:
    first = calls[0].get(name, ...)
    return first is not ... and all(c.get(name, ...) == first for c in calls)


def mark_fixed(outcomes: Sequence[Outcome], props: Mapping[str, Sequence[str]]) -> list[Outcome]:
    """`outcomes` with `next` failed on every judged reply whose text also answered a failure of another argument or
    another tool. `props` gives each tool's argument names."""
    groups: dict[str, list[int]] = {}
    for i, o in enumerate(outcomes):
        if o.judgement is not None and o.reply is not None and o.reply.text.strip():
            groups.setdefault(o.reply.text, []).append(i)
    out = list(outcomes)
    for text, members in groups.items():
        cases = [outcomes[i].case for i in members]
        targets = {c.argument if c.argument is not None else f"your case {i + 1}" for i, c in zip(members, cases)}
        if len(targets) < 2:
            continue
        names = sorted({p for c in cases for p in props.get(c.tool, ())})
        if any(_same_everywhere(name, [c.arguments for c in cases]) for name in _named(text, names)):
            continue
        shown = ", ".join(sorted(targets)[:4])
        why = (f"the same reply came back for {len(members)} failures of {len(targets)} different arguments "
               f"({shown}{', ...' if len(targets) > 4 else ''}): written without reading the failure, it cannot name "
               "the step each one needs")
        for i in members:
            j = outcomes[i].judgement
            if j is not None and j.verdict("next").status == "pass":
                verdicts = tuple(Verdict("next", "fail", why) if v.rule == "next" else v for v in j.verdicts)
                out[i] = replace(outcomes[i], judgement=replace(j, verdicts=verdicts))
    return out
