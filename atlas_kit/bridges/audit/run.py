"""Running an audit: list the tools, plan each tool's cases within the bounds, call them one at a time, judge each
answer with the rubric (an error sent as a success too), fail `next` on a fixed reply, and say what was skipped and why.

Bounds: a timeout per call, a total time limit, at most N calls per tool, and a stop after MAX_SILENT calls in a row
get no answer. A call whose arguments satisfy the schema reaches the tool's own code, so a tool that may change state
gets none unless side effects are allowed. A call with no usable answer scores 0. Chapter 10.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Protocol

import anyio

from ...contract.rubric import Judgement, Verdict, judge, server_score
from .cases import CANARY, Case, cases_for, satisfies
from .fixed import mark_fixed
from .network import tried_network
from .outcomes import NO_ANSWER, Outcome, OutcomeKind
from .replies import origin_of, reads_as_error
from .targets import ConnectFailure, Reply, Target, ToolInfo
from ...types.exceptions import AtlasKitValueError

__all__ = ["MAX_SILENT", "Audit", "Limits", "Outcome", "OutcomeKind", "ToolAudit", "judge_replies", "run_audit"]

MAX_SILENT = 3  # calls in a row with no answer (timed out) after which the audit stops: the server hangs


class Progress(Protocol):
    """What a progress bar is told: the number of cases once planned, then each case as it is done."""

    def planned(self, total: int) -> None: ...

    def done(self, tool: str) -> None: ...


@dataclass(frozen=True)
class Limits:
    """The audit's bounds and its one permission; the defaults are printed with every report."""

    call_timeout: float = 10.0
    total_seconds: float = 120.0
    calls_per_tool: int = 12
    allow_side_effects: bool = False

    def __post_init__(self) -> None:
        for name in ("call_timeout", "total_seconds"):
            if not getattr(self, name) > 0:
                raise AtlasKitValueError(f"Limits.{name} is seconds above 0; got {getattr(self, name)!r}.")
        if isinstance(self.calls_per_tool, bool) or not isinstance(self.calls_per_tool, int) or self.calls_per_tool < 1:
            raise AtlasKitValueError(f"Limits.calls_per_tool must be a whole number of at least 1; got {self.calls_per_tool!r}.")


@dataclass
class ToolAudit:
    """One tool's cases and outcomes; its score is the mean of its answers' scores, no answer counting as 0."""

    tool: ToolInfo
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def judgements(self) -> list[Judgement]:
        return [o.judgement for o in self.outcomes if o.judgement is not None]

    @property
    def score(self) -> float | None:
        """100 x the mean of the answers' scores, a call with no usable answer counting as 0 (None: nothing to
        score)."""
        return _score(self.outcomes)

    @property
    def author_score(self) -> float | None:
        """The score of the replies the server's own code wrote (origin server or library) and of the calls it left
        unanswered; the SDK's answers, made before the tool's code ran, are left out."""
        return _score([o for o in self.outcomes if o.origin != "sdk"])


def _score(outcomes: list[Outcome]) -> float | None:
    scores = [s for o in outcomes if o.judgement is not None and (s := o.judgement.score) is not None]
    scores += [0.0 for o in outcomes if o.kind in NO_ANSWER]
    return 100 * sum(scores) / len(scores) if scores else None


@dataclass
class Audit:
    """A whole audit: the target, each tool's audit, the limits it ran under, and why it ended early, if it did."""

    target: str
    tools: list[ToolAudit]
    limits: Limits
    seconds: float = 0.0
    stopped: str | None = None
    closed: bool = False  # the server closed the connection mid-audit (stopped says during which case)
    unmatched: list[Case] = field(default_factory=list)  # --cases entries naming no tool of the target
    notes: list[str] = field(default_factory=list)  # what listing the tools could not do (the target's notes)
    network: str = "not blocked: the target does not say"  # whether the server could reach the network, and how
    silent: int = 0  # calls in a row that timed out (MAX_SILENT of them stop the audit)

    @property
    def score(self) -> float | None:
        """rubric.server_score: the mean of the tools' scores, each tool counting once."""
        return server_score(t.score for t in self.tools)

    @property
    def author_score(self) -> float | None:
        """The same mean over the tools' author_score: the part the server's own code wrote."""
        return server_score(t.author_score for t in self.tools)

    @property
    def failure(self) -> str | None:
        """Why the server failed the audit itself (it crashed, or no call got a usable answer), or None."""
        if self.closed and self.stopped:
            return self.stopped
        made = [o for t in self.tools for o in t.outcomes if o.reply is not None or o.kind in NO_ANSWER]
        if made and all(o.kind in NO_ANSWER for o in made):
            kinds = {k: sum(o.kind == k for o in made) for k in ("timeout", "invalid")}
            said = " and ".join(f"{n} {'timed out' if k == 'timeout' else 'got an invalid reply'}"
                                for k, n in kinds.items() if n)
            return f"no call got a usable answer ({said})"
        return None


def plan(tool: ToolInfo, extra: list[Case], limits: Limits) -> list[Outcome | Case]:
    """The tool's cases in the order they run (your own first), each either a Case to call or a skipped Outcome."""
    planned: list[Outcome | Case] = []
    calls = 0
    for case in [*extra, *cases_for(tool.name, tool.input_schema)]:
        if case.kind == "user":
            case = replace(case, valid=satisfies(tool.input_schema, case.arguments))
        if tool.task_only:  # a plain tools/call gets the protocol's refusal, whatever the arguments
            planned.append(Outcome(case, "skipped", "the server says the tool must be called as a task "
                                                    "(execution.taskSupport: required), which the audit does not do"))
        elif case.valid and tool.may_change_state and not limits.allow_side_effects:
            planned.append(Outcome(case, "skipped", f"its arguments satisfy the schema, so it would run the tool, and "
                                                    f"{_hints(tool)}; --allow-side-effects runs it"))
        elif calls >= limits.calls_per_tool:
            planned.append(Outcome(case, "skipped", f"over the limit of {limits.calls_per_tool} calls per tool "
                                                    "(--max-calls)"))
        else:
            planned.append(case)
            calls += 1
    return planned


def _hints(tool: ToolInfo) -> str:
    """What the server says about a tool that may change state, in its own annotations' terms."""
    if tool.read_only is None:
        return "the server does not say the tool is read-only (no readOnlyHint)"
    if tool.destructive is False:
        return "the server says the tool changes state, additively (readOnlyHint false, destructiveHint false)"
    return "the server says the tool changes state and may be destructive (readOnlyHint false)"


def judged(case: Case, tool: ToolInfo, reply: Reply) -> Outcome:
    """The rubric's judgement of one reply. A JSON-RPC error instead of a result fails is_error (SEP-1303); a success
    whose text reads as an error fails is_error and is judged on every rule; another success is judged only when the
    call breaks the schema or is one of your own, which should have failed."""
    disguised = reply.kind == "result" and reply.is_error is False and reads_as_error(reply.text)
    origin = origin_of(reply.text)
    if reply.kind == "result" and reply.is_error is False and case.valid and case.kind != "user" and not disguised:
        return Outcome(case, "accepted", "its arguments satisfy the schema and the call succeeded: no error to judge",
                       reply, origin=origin)
    planted = CANARY in json.dumps(case.arguments, ensure_ascii=False)  # only a case that carries it can echo it
    j = judge(reply.text, is_error=True if disguised else reply.is_error, arguments=case.arguments,
              schema=tool.input_schema, canary=CANARY if planted else None, short_echoes=True)  # values it made up
    why = ("an error returned as a success (isError false): the model reads it as the tool's answer, not a failure"
           if disguised else
           f"answered with a JSON-RPC error ({reply.code}) instead of a result with isError: the MCP spec (SEP-1303) "
           "asks for invalid arguments to come back as a tool execution error the model reads"
           if reply.kind == "protocol_error" else None)
    if why is not None:
        j = replace(j, verdicts=tuple(Verdict("is_error", "fail", why) if v.rule == "is_error" else v
                                      for v in j.verdicts))
    return Outcome(case, "judged", reply=reply, judgement=j, origin=origin)


def judge_replies(calls: list[tuple[ToolInfo, Case, Reply]]) -> list[Outcome]:
    """Every reply judged, then together: a reply that came back for failures of different arguments fails `next`
    (fixed.py). What an audit does once its calls are made; the hand-label test calls it on recorded replies."""
    props = {tool.name: _props(tool) for tool, _, _ in calls}
    return mark_fixed([judged(case, tool, reply) for tool, case, reply in calls], props)


def _props(tool: ToolInfo) -> list[str]:
    found = tool.input_schema.get("properties")
    return [str(p) for p in found] if isinstance(found, dict) else []


async def run_audit(target: Target, *, limits: Limits = Limits(), cases: list[Case] | None = None,
                    progress: Progress | None = None, clock: Callable[[], float] = time.monotonic) -> Audit:
    """Audit `target` (entered and left here) within `limits`; `cases` are your own, matched to tools by name.

    Raises ConnectFailure when the target cannot be entered or listed, or not within its connect_timeout.
    """
    start = clock()
    with anyio.CancelScope() as connecting:  # one deadline for the whole handshake, however many rounds it takes
        connecting.deadline = anyio.current_time() + target.connect_timeout
        async with target:
            connecting.deadline = math.inf
            audit = await _audit(target, limits, cases or [], progress, lambda: clock() - start)
    if connecting.cancelled_caught:
        raise ConnectFailure(f"timed out: {target.label} did not start and answer the MCP handshake within "
                             f"{target.connect_timeout:g} s (raise --connect-timeout if it is slow to start).")
    audit.seconds = clock() - start
    return audit


async def _audit(target: Target, limits: Limits, cases: list[Case], progress: Progress | None,
                 elapsed: Callable[[], float]) -> Audit:
    tools = await target.list_tools()
    names = {t.name for t in tools}
    audit = Audit(target.label, [ToolAudit(t) for t in tools], limits,
                  unmatched=[c for c in cases if c.tool not in names], notes=getattr(target, "notes", []))  # the target's own list: a call can add to it
    plans = [plan(entry.tool, [c for c in cases if c.tool == entry.tool.name], limits) for entry in audit.tools]
    if progress is not None:
        progress.planned(sum(len(p) for p in plans))
    for entry, planned in zip(audit.tools, plans):
        for item in planned:
            entry.outcomes.append(await _next(target, entry.tool, item, limits, audit, elapsed()))
            if progress is not None:
                progress.done(entry.tool.name)
    _together(audit)
    audit.network = getattr(target, "network", audit.network)
    audit.notes += tried_network([(t.tool.name, o) for t in audit.tools for o in t.outcomes],
                                 getattr(target, "stderr_text", lambda: "")(), blocked=audit.network.startswith("blocked"))
    return audit


def _together(audit: Audit) -> None:
    """Every tool's outcomes through fixed.mark_fixed at once: a fixed reply may span tools."""
    every = [o for t in audit.tools for o in t.outcomes]
    marked = iter(mark_fixed(every, {t.tool.name: _props(t.tool) for t in audit.tools}))
    for t in audit.tools:
        t.outcomes = [next(marked) for _ in t.outcomes]


async def _next(target: Target, tool: ToolInfo, item: Outcome | Case, limits: Limits, audit: Audit,
                elapsed: float) -> Outcome:
    """The outcome of one planned item: already decided, not run (the audit stopped), or called now."""
    if isinstance(item, Outcome):
        return item
    if audit.stopped is None and elapsed > limits.total_seconds:
        audit.stopped = f"the total time limit of {limits.total_seconds:g} s was reached (--time-limit)"
    if audit.stopped is not None:
        return Outcome(item, "not_run", audit.stopped)
    return await _call(target, tool, item, limits, audit)


async def _call(target: Target, tool: ToolInfo, case: Case, limits: Limits, audit: Audit) -> Outcome:
    reply = await target.call(tool.name, case.arguments, timeout=limits.call_timeout)
    audit.silent = audit.silent + 1 if reply.kind == "timeout" else 0
    if reply.kind in ("result", "protocol_error"):
        return judged(case, tool, reply)
    if reply.kind == "timeout":
        if audit.silent >= MAX_SILENT:
            audit.stopped = (f"the server answered none of the last {MAX_SILENT} calls within {limits.call_timeout:g} s "
                             "each, so it may hang on every call")
        return Outcome(case, "timeout", f"no answer within {limits.call_timeout:g} s (--call-timeout)", reply)
    if reply.kind == "closed":
        audit.stopped, audit.closed = f"the server closed the connection during {tool.name}'s {case.kind} case", True
        return Outcome(case, "crashed", f"{audit.stopped}: the call got no answer", reply)
    return Outcome(case, "invalid", reply.text, reply)
