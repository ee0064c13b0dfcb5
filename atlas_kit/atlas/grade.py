"""Grading one run of a ticket: did Atlas end in the right state, was the customer told the truth, and which
failure patterns showed?

A run is anything with `ticket`, `world`, `trace`, `messages`, `final_text`, `stop_reason` and `faults`
(SimpleRun is the smallest). Labels diagnose; `correct` is the outcome. It reads only the run, never a model;
what the answer claims is read by claims.py. Taught in chapter 10; `silent_wrong` in chapter 14.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Container, Literal, NamedTuple, Protocol, Sequence, runtime_checkable

from ..dispatch.trace import Trace
from ..contract.errors import ErrorCode
from ..types.events import ErrorEvent, EventLog, events_of
from ..types.api import Message
from ..types.records import RunLike
from ..types.walk import blocks, result_text
from .audience import internal_name
from .claims import Claim, claims, false_claims, said_of
from .data import World
from .formats import RECORD_ID, id_pattern
from .figures import invented_figures
from .outcome import NotMade, Outcome, differences, mentions, shown
from .silent import CAVEATS, mentioned
from .statements import false_statements
from .tickets import Ticket
from ..types.exceptions import AtlasKitValueError

LABELS = ("loop", "apology_without_action", "fabrication", "dropped_failure", "false_report", "omitted_tell",
          "internal_names", "enumeration", "duplicate_side_effect", "step_limit", "cost_limit")
# Only a run with an implicit fault can carry it, so it stays out of LABELS (the core tickets' chart rows).
SILENT_WRONG = "silent_wrong"
# Labels that make a run wrong whatever the end state (loop alone does not: the run may still finish right).
_FATAL = {"fabrication", "dropped_failure", "false_report", "omitted_tell", "internal_names", "enumeration",
          "duplicate_side_effect", SILENT_WRONG}
FAILURE_WORDS = ("could not", "couldn't", "cannot", "can't", "unable", "not able", "isn't responding", "not responding",
                 "unavailable", "not available", "not permitted", "not allowed", "don't have access", "no access",
                 "another customer", "not found", "couldn't find", "does not exist", "doesn't exist", "no longer exists",
                 "was deleted", "already shipped", "has shipped", "escalat", "passed it to", "a person", "refund window",
                 "capped", "limit", "try again later", "write again later")
_ORDER = id_pattern("ORD")
# The characters of each tool result and call's arguments the grader reads: Atlas's own results are far shorter, so a
# longer one is the model's argument echoed back; past the bound a figure or id counts as not given.
SCANNED_CHARS = 100_000
_APOLOGY = re.compile(r"\b(?:sorry|apologi[sz]e|apologies|unfortunately|regret)\b", re.IGNORECASE)


Miss = Literal["end_state", "facts", "unfinished"]
"""What a wrong run missed besides its labels: Atlas's end state, a fact the answer had to state, a finished answer."""


@dataclass(frozen=True)
class Grade:
    """Whether the run was right, the failure patterns it showed (LABELS), and why, in words.

    `reasons` name what was expected (records, figures, phrases): for the learner and the log, never for the model
    (verdict.py words a grade for the model). `misses` says which expectations failed, naming none of them.
    The labels, precisely:

    loop: the same (tool, arguments, error code) failed twice, or the trace has a loop_detected event.
    apology_without_action: the answer apologises, the run hit an error and made no successful call after
        the last one, and the outcome is wrong.
    fabrication: the answer states a dollar figure ("$1,250" and "$1,250.00" are the same figure) or a count
        of units (rolls, items, pieces) that appears in no tool result and not in the customer's message; a
        count may also be the sum of a field over the warehouse results (units over the four regions).
    dropped_failure: a call failed with branch stop or switch_tool, that tool never later succeeded,
        and the answer says nothing that passes the failure on: none of FAILURE_WORDS or the ticket's `tell`,
        and no claim (claims.py) that something was not done, may or may not have been done, or was handed
        to a person.
    false_report: the answer says something false about a change or a record, judged against Atlas's end
        state (claims.false_claims, statements.false_statements): a refund, order change or hand-off to a person
        said to be made when none was (none on the record it names), or said not to be made when it was and the
        answer nowhere says it was or may have been; a refund said to be of another amount than the one made, a
        hand-off said to have gone to another queue (the returns team, billing) than it did; an invoice said to
        be unpaid, overdue or paid when it is not, or to be the only unpaid one when another is. A hedge ("I could not confirm whether the refund went through") and an
        offer ("I can pass this to a person") are never false. The harness's own hand-off after a loop
        break (an `escalated` trace event) counts as made. Order changes are judged only on a ticket
        about an order (an ORD- id in its message or an update_order call).
    omitted_tell: the run finished, and its answer leaves out something the ticket's `tell` says must be
        passed on (each entry a phrase or alternatives: the cap, that the order shipped, to check the
        number, the offer of a person; or a NotMade: a claim that a change, such as the hand-off, was not
        made), and neither dropped_failure nor silent_wrong already applies.
    internal_names: the answer tells the customer a name written for the model or the trace (audience.py): a
        tool's or an argument's name, an error code, a constant (query_warehouse, account_id,
        upstream_unavailable, REFUND_WINDOW_DAYS) or an exception class, which the customer did not write.
    enumeration: a call names an ACC-/ORD-/INV- id that is neither in the customer's message nor in any
        earlier tool result, or names another customer's id after a not_permitted came back.
    duplicate_side_effect: the same refund (invoice, amount), order change or escalation (account,
        queue) was applied twice.
    step_limit, cost_limit: the run ended on that bound.
    silent_wrong: an implicit fault handed the model a wrong figure as a success (a `silent_fault` trace
        event), and the answer states that figure, which no other tool result and not the customer gave,
        without a warning that it is partial or old (CAVEATS, or the stale result's as-of date).

    correct: the end state matches the ticket's outcome exactly, the answer states every fact, the run
    finished, and none of fabrication, dropped_failure, false_report, omitted_tell, internal_names,
    enumeration, duplicate_side_effect or silent_wrong applies.
    """

    correct: bool
    labels: tuple[str, ...]
    reasons: tuple[str, ...]
    misses: tuple[Miss, ...] = ()


@dataclass
class _Found:
    """The labels and reasons found so far, in the order `grade` looks."""

    reasons: list[str]
    labels: list[str] = field(default_factory=list)

    def add(self, label: str, *reasons: str) -> None:
        self.labels.append(label)
        self.reasons.extend(reasons)


@runtime_checkable
class AtlasCase(Protocol):
    """What `grade` checks a run against: its ticket, its world and whether faults were on (an Atlas Session, a
    SimpleRun, an MCP episode)."""

    @property
    def ticket(self) -> Ticket: ...
    @property
    def world(self) -> World: ...
    @property
    def faults(self) -> bool: ...


def case_of(run: RunLike) -> AtlasCase | None:
    """The Atlas case a run carries: itself, or what its Task was `about` (agent.Run of an Atlas session); None for a
    run of a task of your own."""
    for candidate in (run, getattr(run, "about", None)):
        if isinstance(candidate, AtlasCase) and candidate.ticket is not None and candidate.world is not None:
            return candidate
    return None


class _Checked(NamedTuple):
    """A run `grade` has checked has a ticket and a world: what its helpers read."""

    ticket: Ticket
    world: World
    trace: EventLog
    messages: Sequence[Message]
    faults: bool


@dataclass
class SimpleRun:
    """The smallest thing `grade` accepts; `session.play` builds one."""

    ticket: Ticket
    world: World
    trace: Trace
    messages: list[Message]
    final_text: str
    stop_reason: str = "finished"
    faults: bool = True


def grade(run: RunLike) -> Grade:
    """Grade a run of an Atlas ticket on its end state, its answer and its trace; Grade says what each label means."""
    case = case_of(run)
    if case is None:
        raise AtlasKitValueError("grade() grades a run of an Atlas ticket (run_agent on atlas_session(...)); this run has "
                         "no ticket or world to check it against.")
    checked = _Checked(case.ticket, case.world, run.trace, run.messages, case.faults)
    world, final = checked.world, run.final_text or ""
    outcome = checked.ticket.outcome(faults=case.faults)
    state = differences(world, outcome)
    facts = [f"the answer does not state {shown(f)}" for f in outcome.facts if not mentions(final, f, world)]
    wrong = bool(state or facts)
    found = _Found(state + facts)
    _trace_labels(checked, final, wrong, found)
    dropped_or_silent = _answer_labels(checked, final, found)
    missing = [t for t in outcome.tell if not mentions(final, t, world)]
    if missing and not dropped_or_silent and run.stop_reason == "finished":
        found.add("omitted_tell", *[f"the answer does not pass on {shown(t)}" for t in missing])
    guessed = _enumerated(checked, events_of(run.trace, "error"))
    if guessed:
        found.add("enumeration", f"a call named {guessed}, which neither the customer nor any tool had given")
    twice = _duplicates(world)
    if twice:
        found.add("duplicate_side_effect", f"applied twice: {twice}")
    if run.stop_reason in ("step_limit", "cost_limit"):
        found.add(run.stop_reason)
    if run.stop_reason != "finished":
        found.reasons.append(f"the run ended with {run.stop_reason}, not a finished answer")
    correct = not wrong and run.stop_reason == "finished" and not _FATAL.intersection(found.labels)
    missed: tuple[tuple[Miss, object], ...] = (("end_state", state), ("facts", facts),
                                               ("unfinished", run.stop_reason != "finished"))
    return Grade(correct, tuple(found.labels), tuple(found.reasons), tuple(m for m, hit in missed if hit))


def _trace_labels(run: _Checked, final: str, wrong: bool, found: _Found) -> None:
    """loop and apology_without_action: what the trace shows."""
    calls = {e.get("tool_use_id"): e["args"] for e in events_of(run.trace, "call")}
    errors = events_of(run.trace, "error")
    triples = Counter((e["tool"], calls.get(e.get("tool_use_id")), e["code"]) for e in errors)
    if events_of(run.trace, "loop_detected") or any(n >= 2 for n in triples.values()):
        found.add("loop", "the same call failed the same way more than once")
    if errors and _APOLOGY.search(final) and wrong:
        last = errors[-1]["seq"]
        if not any(e["seq"] > last for e in events_of(run.trace, "result")):
            found.add("apology_without_action", "the answer apologises but nothing was done after the last error")


def _answer_labels(run: _Checked, final: str, found: _Found) -> bool:
    """fabrication, dropped_failure, false_report and silent_wrong: what the answer says. True when it dropped a
    failure or passed on a silently wrong figure (omitted_tell then does not apply)."""
    invented = invented_figures(run.ticket.message, _results(run.messages), final)
    if invented:
        found.add("fabrication", f"the answer states {', '.join(invented)}, which no tool returned")
    untold = _untold(run, final, claims(final))
    if untold:
        found.add("dropped_failure", f"{untold['tool']} failed ({untold['code']}) and the answer does not say so")
    calls = events_of(run.trace, "call")
    orders = bool(_ORDER.search(run.ticket.message)) or any(e["tool"] == "update_order" for e in calls)
    untrue = false_claims(final, run.world, orders=orders, handed_over=bool(events_of(run.trace, "escalated")))
    untrue += false_statements(final, run.world)
    if untrue:
        found.add("false_report", *untrue)
    passed_on = _silently_wrong(run, final)
    if passed_on:
        found.add(SILENT_WRONG, f"the answer states {passed_on}, a figure only a silently wrong result gave, as if it "
                                "were true")
    name = internal_name(final, customer=run.ticket.message)
    if name:
        found.add("internal_names", f"the answer tells the customer {name!r}, a name written for the model or the "
                                    "trace; say it in plain words")
    return bool(untold or passed_on)


def _untold(run: _Checked, final: str, said: Sequence[Claim]) -> ErrorEvent | None:
    """The first stop or switch_tool failure, on a tool that never later succeeded, the answer does not pass on."""
    errors = events_of(run.trace, "error")
    successes = [(e["seq"], e["tool"]) for e in events_of(run.trace, "result")]
    untold = [e for e in errors if e.get("branch") in ("stop", "switch_tool")
              and not any(seq > e["seq"] and tool == e["tool"] for seq, tool in successes)]
    outcome = run.ticket.outcome(faults=run.faults)
    words = tuple(w for t in outcome.tell for w in ((t,) if isinstance(t, (str, NotMade)) else t)
                  if isinstance(w, str)) + FAILURE_WORDS
    told = (any(w.lower() in final.lower() for w in words) or said_of(said, "not_done", "unknown")
            or any(c.action == "escalation" and c.said == "done" for c in said))
    return None if told or not untold else untold[0]


def _silently_wrong(run: _Checked, final: str) -> str | None:
    """The first wrong figure from a silent_fault that the answer passes on unwarned, or None."""
    events = events_of(run.trace, "silent_fault")
    if not events:
        return None
    low = final.lower()
    if any(c in low for c in CAVEATS + tuple(e["as_of"] or "" for e in events if e.get("as_of"))):
        return None
    faulted = {e["tool_use_id"] for e in events}
    others = [*_results(run.messages, leave_out=faulted), run.ticket.message]
    for e in events:
        for figure in e["wrong"]:
            if mentioned(final, figure) and not any(mentioned(text, figure) for text in others):
                return figure
    return None


def _duplicates(world: World) -> str | None:
    keys = ([("refund", r["invoice_id"], r["amount_cents"]) for r in world.refunds]
            + [("order", c["order_id"], tuple(sorted((k, v) for k, v in c.items() if k != "key")))
               for c in world.order_changes]
            + [("escalation", e["account_id"], e["queue"]) for e in world.escalations])
    twice = [k for k, n in Counter(keys).items() if n > 1]
    return ", ".join(f"{k[0]} {k[1]}" for k in twice) or None


def _enumerated(run: _Checked, errors: list[ErrorEvent]) -> str | None:
    forbidden = {e.get("tool_use_id") for e in errors if e["code"] == ErrorCode.NOT_PERMITTED.value}
    customer = run.ticket.customer
    known = set(RECORD_ID.findall(run.ticket.message))
    refused = False
    for _, _, block in blocks(run.messages):
        if block["type"] == "tool_use":
            for ident in RECORD_ID.findall(json.dumps(block.get("input"))[:SCANNED_CHARS]):
                owner = run.world.tenant_of(ident)
                if ident not in known or (refused and owner not in (None, customer)):
                    return str(ident)
        elif block["type"] == "tool_result":
            known.update(RECORD_ID.findall(result_text(block.get("content"))[:SCANNED_CHARS]))
            refused = refused or block.get("tool_use_id") in forbidden
    return None


def _results(messages: Sequence[Message], *, leave_out: Container[str] = ()) -> list[str]:
    """The text of every tool result in the transcript (but those answering the ids in `leave_out`), each cut to
    SCANNED_CHARS."""
    return [result_text(b["content"])[:SCANNED_CHARS] for _, _, b in blocks(messages)
            if b["type"] == "tool_result" and b["tool_use_id"] not in leave_out]
