"""Running an audit: list the tools, plan each tool's cases within the bounds, call them one at a time, judge each
answer with the rubric, and say what was skipped and why.

Bounds: a timeout per call, a total time limit, at most N calls per tool. A call whose arguments satisfy the schema
reaches the tool's own code, so a tool that may change state gets none unless side effects are allowed. Chapter 10.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Literal, Protocol

import anyio

from ...contract.rubric import Judgement, Verdict, judge, server_score, tool_score
from .cases import CANARY, Case, cases_for, satisfies
from .targets import ConnectFailure, Reply, Target, ToolInfo
from ...types.exceptions import AtlasKitValueError

__all__ = ["Audit", "Limits", "Outcome", "OutcomeKind", "ToolAudit", "run_audit"]

OutcomeKind = Literal["judged", "accepted", "skipped", "timeout", "invalid", "not_run"]
"""judged: an answer the rubric scored; accepted: a call its schema allows that succeeded (no error to judge);
skipped: not made (side effects, the per-tool cap); timeout, invalid: no usable answer; not_run: the audit stopped."""


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


@dataclass(frozen=True)
class Outcome:
    """One case and what became of it: judged (with its reply), or why it was skipped or got no answer."""

    case: Case
    kind: OutcomeKind
    reason: str = ""
    reply: Reply | None = None
    judgement: Judgement | None = None


@dataclass
class ToolAudit:
    """One tool's cases and outcomes; its score is rubric.tool_score over the judged answers."""

    tool: ToolInfo
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def judgements(self) -> list[Judgement]:
        return [o.judgement for o in self.outcomes if o.judgement is not None]

    @property
    def score(self) -> float | None:
        return tool_score(self.judgements)


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

    @property
    def score(self) -> float | None:
        """rubric.server_score: the mean of the tools' scores, each tool counting once."""
        return server_score(t.score for t in self.tools)


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
    is judged only when the call breaks the schema or is one of your own, which should have failed."""
    if reply.kind == "result" and reply.is_error is False and case.valid and case.kind != "user":
        return Outcome(case, "accepted", "its arguments satisfy the schema and the call succeeded: no error to judge",
                       reply)
    planted = CANARY in json.dumps(case.arguments, ensure_ascii=False)  # only a case that carries it can echo it
    j = judge(reply.text, is_error=reply.is_error, arguments=case.arguments, schema=tool.input_schema,
              canary=CANARY if planted else None)
    if reply.kind == "protocol_error":
        why = (f"answered with a JSON-RPC error ({reply.code}) instead of a result with isError: the MCP spec "
               "(SEP-1303) asks for invalid arguments to come back as a tool execution error the model reads")
        j = replace(j, verdicts=tuple(Verdict("is_error", "fail", why) if v.rule == "is_error" else v
                                      for v in j.verdicts))
    return Outcome(case, "judged", reply=reply, judgement=j)


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
    return audit


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
    if reply.kind in ("result", "protocol_error"):
        return judged(case, tool, reply)
    if reply.kind == "timeout":
        return Outcome(case, "timeout", f"no answer within {limits.call_timeout:g} s (--call-timeout)", reply)
    if reply.kind == "closed":
        audit.stopped, audit.closed = f"the server closed the connection during {tool.name}'s {case.kind} case", True
        return Outcome(case, "not_run", audit.stopped, reply)
    return Outcome(case, "invalid", reply.text, reply)
