"""An audit's results for people and machines: rule counts per tool, the worst answer per rule, the JSON document
(`--json`) and the terminal table. HTML is html.py's.

Every text a server sent and every argument is redacted (trace.redact) before it is shown or written. Chapter 10.
"""
from __future__ import annotations

import os
import re
import textwrap
from typing import TypedDict

from ...contract.rubric import MAX_TOKENS, RULES, Rule, Status
from ...contract.redaction import hide_login, redact, redact_known, secret_values
from .run import Audit, Outcome, ToolAudit

__all__ = ["AUTHOR", "FORMULA", "AuditJSON", "Counts", "ToolJSON", "Worst", "clip", "counts", "render_text", "to_json", "worst"]

FORMULA = ("an answer scores the rules it passes over the rules judged (n/a left out), and a call that got no usable "
           "answer (timed out, crashed the server, an invalid reply) scores 0; a tool scores 100 x the mean of its "
           "answers; the server scores the mean of its tools, each counting once")
AUTHOR = ("the same formula over the replies the server's own code wrote (its words, or a validation library's it "
          "passed on) and the calls it left unanswered; the MCP SDK's answers, made before the tool's code ran, are "
          "left out")
TOKENS = "estimated at about 4 characters a token (atlas_kit.types.tokens.estimate_tokens), not a tokenizer's count"
_SHORT = {"is_error": "isError", "structure": "struct", "code": "code", "retryable": "retry", "next": "next",
          "echo": "echo", "internals": "intern", "length": "length"}

Counts = dict[Status, int]


class Worst(TypedDict):
    """The lowest-scoring answer that failed one rule: where it came from, what it said, and why it failed."""

    tool: str
    case: str
    text: str
    reason: str


class ToolJSON(TypedDict):
    """One tool in the `--json` document: its score, its hints, the rule counts and every case."""

    name: str
    score: float | None
    author_score: float | None
    read_only: bool | None
    destructive: bool | None
    rules: dict[Rule, Counts]
    mean_tokens: float | None
    cases: list[dict[str, object]]


class AuditJSON(TypedDict):
    """The `--json` document: scores as numbers (0 to 100, or null when nothing was judged), every case."""

    target: str
    score: float | None
    author_score: float | None
    formula: str
    author_formula: str
    tokens: str
    seconds: float
    stopped: str | None
    failure: str | None
    network: str
    limits: dict[str, float | int | bool]
    tools: list[ToolJSON]
    worst: dict[str, Worst]
    unmatched_cases: list[dict[str, object]]
    notes: list[str]


KEPT_CHARS = 20_000
"""A reply's text in the JSON report is its first KEPT_CHARS characters (and how many more there were)."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def scrubbed(text: str) -> str:
    """`text` as a report may hold it: key-shaped strings and addresses' passwords redacted, and the value of every
    secret variable in this environment (contract.redaction.secret_values) hidden, even in pieces: a server, or a
    Python tool in this process, can read the environment and answer with it."""
    return redact_known(hide_login(redact(text)), secret_values(os.environ))


def printable(text: str) -> str:
    """`text` with every control character written as its escape: what a server says reaches no terminal as a
    command (clearing the screen, a fake line, a new row in the table)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def _kept(text: str) -> str:
    cut = len(text) - KEPT_CHARS
    return scrubbed(text if cut <= 0 else f"{text[:KEPT_CHARS]} ... ({cut:,} more characters)")


def clip(text: str, width: int) -> str:
    """`text` on one line in about `width` characters, cut between words (a word longer than that is cut too)."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    cut = flat.rfind(" ", 0, width - 1)
    head = flat[:cut] if cut > width // 2 else flat[:width - 2]
    return f"{head.rstrip(' ,;:')} … ({len(flat):,} characters)"


def counts(tool: ToolAudit) -> dict[Rule, Counts]:
    """Per rule: how many of the tool's judged answers passed, failed or had nothing to judge."""
    out: dict[Rule, Counts] = {r: {"pass": 0, "fail": 0, "n/a": 0} for r in RULES}
    for j in tool.judgements:
        for v in j.verdicts:
            out[v.rule][v.status] += 1
    return out


def worst(audit: Audit) -> dict[Rule, tuple[ToolAudit, Outcome]]:
    """Per rule, the failing answer with the lowest score (then the longest): the one to fix first."""
    found: dict[Rule, tuple[ToolAudit, Outcome]] = {}
    for rule in RULES:
        failing = [(t, o) for t in audit.tools for o in t.outcomes
                   if o.judgement is not None and o.judgement.verdict(rule).status == "fail"]
        if failing:
            found[rule] = min(failing, key=lambda pair: _rank(pair[1]))
    return found


def _rank(o: Outcome) -> tuple[float, int]:
    """Lower is worse: the answer's score, then its length (longer is worse)."""
    j = o.judgement
    return (0.0, 0) if j is None else (j.score or 0.0, -j.tokens)


def _case_json(o: Outcome) -> dict[str, object]:
    j, r = o.judgement, o.reply
    return {"kind": o.case.kind, "why": o.case.why, "argument": o.case.argument, "arguments": redact(o.case.arguments),
            "valid": o.case.valid, "outcome": o.kind, "reason": o.reason, "origin": o.origin,
            "reply": None if r is None else {"kind": r.kind, "text": _kept(r.text), "is_error": r.is_error,
                                             "code": r.code, "seconds": round(r.seconds, 3)},
            "score": None if j is None or j.score is None else round(100 * j.score, 1),
            "tokens": None if j is None else j.tokens,
            "verdicts": [] if j is None else [{"rule": v.rule, "status": v.status, "reason": scrubbed(v.reason)}
                                              for v in j.verdicts]}


def to_json(audit: Audit) -> AuditJSON:
    """Everything the audit found, as plain JSON types; scores rounded to one decimal."""
    def num(x: float | None) -> float | None:
        return None if x is None else round(x, 1)

    tools: list[ToolJSON] = [{"name": t.tool.name, "score": num(t.score), "author_score": num(t.author_score),
              "read_only": t.tool.read_only,
              "destructive": t.tool.destructive, "rules": counts(t),
              "mean_tokens": num(sum(j.tokens for j in t.judgements) / len(t.judgements)) if t.judgements else None,
              "cases": [_case_json(o) for o in t.outcomes]} for t in audit.tools]
    limits = audit.limits
    return {"target": scrubbed(audit.target), "score": num(audit.score), "author_score": num(audit.author_score),
            "formula": FORMULA, "author_formula": AUTHOR, "tokens": TOKENS,
            "seconds": round(audit.seconds, 2), "stopped": audit.stopped, "failure": audit.failure,
            "network": audit.network,
            "limits": {"call_timeout": limits.call_timeout, "total_seconds": limits.total_seconds,
                       "calls_per_tool": limits.calls_per_tool, "allow_side_effects": limits.allow_side_effects},
            "tools": tools,
            "worst": {rule: {"tool": t.tool.name, "case": o.case.kind, "text": _kept(o.reply.text if o.reply else ""),
                             "reason": scrubbed(o.judgement.verdict(rule).reason if o.judgement else "")}
                      for rule, (t, o) in worst(audit).items()},
            "unmatched_cases": [{"tool": c.tool, "why": c.why} for c in audit.unmatched],
            "notes": [scrubbed(n) for n in audit.notes]}


def _cell(c: Counts) -> str:
    judged = c["pass"] + c["fail"]
    if not judged:
        return "·"
    return f"✓{judged}" if not c["fail"] else f"✗{c['fail']}/{judged}"


def _score(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}"


def render_text(audit: Audit, *, width: int = 100) -> str:
    """The terminal report: the limits, a row per tool (score, then ✓/✗ and counts per rule), the worst answers."""
    lim = audit.limits
    calls = sum(o.reply is not None for t in audit.tools for o in t.outcomes)
    lines = [f"atlas-kit audit: {printable(clip(scrubbed(audit.target), width - 17))}",
             f"{len(audit.tools)} tool{'s' * (len(audit.tools) != 1)}, {calls} call{'s' * (calls != 1)} in "
             f"{audit.seconds:.1f} s. Limits: {lim.call_timeout:g} s a "
             f"call, {lim.total_seconds:g} s in all, at most {lim.calls_per_tool} calls a tool; side effects "
             f"{'allowed' if lim.allow_side_effects else 'not allowed'}; network {printable(audit.network)}.", ""]
    name_w = min(max([4, *(len(t.tool.name) for t in audit.tools)]), 28)
    lines.append(f"{'tool':<{name_w}}  {'score':>5}  " + " ".join(f"{_SHORT[r]:<7}" for r in RULES))
    for t in audit.tools:
        c = counts(t)
        shown = printable(t.tool.name) or "(no name)"
        name = shown if len(shown) <= name_w else shown[:name_w - 1] + "…"  # the column's width
        lines.append(f"{name:<{name_w}}  {_score(t.score):>5}  "
                     + " ".join(f"{_cell(c[r]):<7}" for r in RULES))
    sizes = [j.tokens for t in audit.tools for j in t.judgements]
    lines += ["", f"server score: {_score(audit.score)} / 100 ({FORMULA}).", _author_line(audit),
              f"✓n: all n answers passed; ✗k/n: k of n failed; ·: nothing to judge. Length: at most {MAX_TOKENS} "
              f"tokens, {TOKENS}."]
    if sizes:
        lines.append(f"Answers: {sum(sizes) / len(sizes):.0f} tokens on average, {max(sizes)} at most; an error stays "
                     "in the transcript, so each later request re-sends its tokens.")
    lines += _worst_lines(audit, width) + _notes(audit)
    return "\n".join(lines)


def _author_line(audit: Audit) -> str:
    """The author's part of the score, and how many replies were the SDK's and left out of it."""
    replies = [o for t in audit.tools for o in t.outcomes if o.judgement is not None]
    sdk = sum(o.origin == "sdk" for o in replies)
    part = (f"the author's part: {_score(audit.author_score)} / 100" if audit.author_score is not None else
            "the author's part: – (every judged reply was the MCP SDK's: the tools' own code wrote none)")
    return f"{part}; {sdk} of {len(replies)} judged replies were the MCP SDK's, made before the tool's code ran."


def _worst_lines(audit: Audit, width: int) -> list[str]:
    """Each worst answer once, then every rule it is the worst for, with the reason it fails that rule."""
    grouped: dict[int, tuple[ToolAudit, Outcome, list[Rule]]] = {}
    for rule, (t, o) in worst(audit).items():
        grouped.setdefault(id(o), (t, o, []))[2].append(rule)
    if not grouped:
        return []
    out = ["", "The worst answer for each rule failed (lowest score, then longest):"]
    for t, o, rules in grouped.values():
        j, text = o.judgement, o.reply.text[:KEPT_CHARS] if o.reply else ""
        score = "" if j is None or j.score is None else f", score {100 * j.score:.1f}"
        out.append(f"  {printable(t.tool.name)}, {o.case.kind} case ({printable(clip(o.case.why, 60))}){score}:")
        out.append(f"    “{printable(scrubbed(clip(text, width - 8)))}”")
        for rule in rules:
            reason = printable(scrubbed(j.verdict(rule).reason)) if j else ""
            out += textwrap.wrap(f"{rule}: {reason}", width, initial_indent="    - ", subsequent_indent="      ")
    return out


def _notes(audit: Audit) -> list[str]:
    out: list[str] = []
    kinds: dict[str, list[str]] = {}
    for t in audit.tools:
        for o in t.outcomes:
            if o.kind != "judged":
                kinds.setdefault(f"{o.kind.replace('_', ' ')}: {o.reason}", []).append(t.tool.name)
    for what, tools in kinds.items():
        names = ", ".join(dict.fromkeys(tools))
        out.append(printable(scrubbed(f"  {len(tools)} case(s) {what} [{clip(names, 80)}]")))
    out += [f"  a --cases entry names {c.tool!r}, which this target does not have" for c in audit.unmatched[:5]]
    out += [f"  {printable(scrubbed(note))}" for note in audit.notes]
    if not audit.tools:
        out.append("  the target lists no tools, so there is nothing to call and no score")
    texts = {o.reply.text for t in audit.tools for o in t.outcomes if o.judgement is not None and o.reply is not None}
    judged = sum(len(t.judgements) for t in audit.tools)
    if judged >= 5 and len(texts) == 1:
        out.append(f"  all {judged} answers were the same text: the server may need some state first (a login, a "
                   "session, an open ticket), so these scores judge that one answer")
    if audit.stopped:
        out.append(f"  the audit stopped early: {audit.stopped}.")
    if audit.failure:
        out.append(f"  the server failed the audit: {audit.failure}; the score counts each such call as 0.")
    return ["", "Not judged:", *out] if out else []
