"""Induced failures for Atlas's tools: a seeded, deterministic schedule of what goes wrong and when.

A Fault fires on chosen handler invocations of one tool (harness retries count), on every
one (persistent), or by chance from a seeded RNG. Kinds: four refusals, three transient
failures the dispatcher retries, `empty`, a success with nothing in it, and the implicit kinds of
silent.py (truncated, stale, empty_wrong), a success with a wrong answer. Chapters 05, 09 and 14.
"""
from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import dataclass
import typing
from typing import Iterable, Literal, TypedDict, TypeGuard

from ..dispatch.transient import Transient
from ..dispatch.tool import CallContext, Handler, Tool
from ..contract.errors import ErrorCode, ToolFailure, empty_result, retry_changed, stop, switch_tool
from ..dispatch.trace import Trace
from ..types.sets import FaultKind, ImplicitKind, JSONObject, RefusalKind, TransientKind
from .silent import IMPLICIT_KINDS, SILENT_TOOLS, corrupt, stale_args
from ..types.exceptions import AtlasKitTypeError, AtlasKitValueError

# A refusal fails with the contract code of the same name: the fault kinds are built on ErrorCode.
REFUSALS: dict[RefusalKind, ErrorCode] = {kind: ErrorCode(kind) for kind in typing.get_args(RefusalKind)}
TRANSIENT: frozenset[TransientKind] = frozenset(typing.get_args(TransientKind))
KINDS: tuple[FaultKind, ...] = (*REFUSALS, *typing.get_args(TransientKind), "empty")
# ToolMaze's 2x2 (arXiv 2606.05806): does the failure show (an error) or hide (a wrong success), and does it clear?
Cell = tuple[Literal["explicit", "implicit"], Literal["transient", "permanent"]]
CELLS: tuple[Cell, ...] = (("explicit", "transient"), ("explicit", "permanent"),
                           ("implicit", "transient"), ("implicit", "permanent"))
_EMPTY: dict[str, tuple[str, str, JSONObject]] = {  # tools whose answer can be "nothing": items key, note, zeros
    "list_invoices": ("invoices", "No invoices match this account_id and status.", {"total_amount": "$0.00"}),
    "query_warehouse": ("by_region", "No warehouse records match this sku, date range and region.",
                        {"units_shipped": 0, "on_hand": 0}),
}


@dataclass(frozen=True)
class Fault:
    """One failure to inject into `tool`.

    calls: the 1-based handler invocations it fires on; () fires on every one (persistent).
    probability: when set, replaces `calls`: fire on each invocation with this chance.
    retry_after: for rate_limit, the seconds the upstream asks for (the harness waits only up to its max).
    after_effect: for a transient kind, run the real handler first: the effect applies, the reply is lost.
    """

    tool: str
    kind: FaultKind
    calls: tuple[int, ...] = (1,)
    probability: float | None = None
    retry_after: float | None = None
    after_effect: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS and self.kind not in IMPLICIT_KINDS:
            raise AtlasKitValueError(f"Fault.kind {self.kind!r} is not a fault kind; use one of: "
                             f"{', '.join(KINDS + IMPLICIT_KINDS)}.")
        if not isinstance(self.tool, str) or not self.tool:
            raise AtlasKitValueError("Fault.tool must name the tool to fail, such as 'issue_refund'.")
        bad_call = any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in self.calls)
        if not isinstance(self.calls, tuple) or bad_call:
            raise AtlasKitValueError("Fault.calls must be a tuple of call numbers from 1, or () for every call.")
        if self.probability is not None and not 0.0 <= self.probability <= 1.0:
            raise AtlasKitValueError("Fault.probability must be between 0 and 1.")
        if self.after_effect and self.kind not in TRANSIENT:
            raise AtlasKitValueError("Fault.after_effect needs a transient kind (timeout, rate_limit, outage): "
                             "only a lost reply can follow an applied effect.")
        if self.retry_after is not None and self.kind != "rate_limit":
            raise AtlasKitValueError("Fault.retry_after applies only to kind 'rate_limit'.")
        if self.kind == "empty" and self.tool not in _EMPTY:
            raise AtlasKitValueError(f"Fault kind 'empty' applies only to {', '.join(sorted(_EMPTY))}: "
                             "other tools have no list to empty.")
        if self.kind in IMPLICIT_KINDS:
            fits = [t for t, (_, _, kinds) in SILENT_TOOLS.items() if self.kind in kinds]
            if self.tool not in fits:
                raise AtlasKitValueError(f"Fault kind {self.kind!r} applies only to {', '.join(fits)}: other tools have no "
                                 "list or dated figure to get silently wrong.")

    @property
    def persistent(self) -> bool:
        return not self.calls and self.probability is None

    @property
    def cell(self) -> Cell:
        """Where the fault sits in the 2x2: implicit if it returns a wrong success, permanent if it never clears."""
        return ("implicit" if self.kind in IMPLICIT_KINDS else "explicit",
                "permanent" if self.persistent else "transient")


def cell_of(faults: Iterable[Fault]) -> Cell | None:
    """The one cell a set of faults exercises; None for no faults, or for faults that span cells."""
    cells = {f.cell for f in faults}
    return cells.pop() if len(cells) == 1 else None


def always(tool: str, kind: FaultKind, *, retry_after: float | None = None, after_effect: bool = False) -> Fault:
    """A fault on every invocation: a transient one outlasts the harness's retries and reaches the model."""
    return Fault(tool, kind, calls=(), retry_after=retry_after, after_effect=after_effect)


def sometimes(tool: str, kind: FaultKind, probability: float, *, retry_after: float | None = None) -> Fault:
    """A fault that fires on each invocation with `probability`, drawn from the schedule's seeded RNG."""
    return Fault(tool, kind, probability=probability, retry_after=retry_after)


class _Fired(TypedDict):
    """One fault that fired: on which tool, on its how-manyth invocation, and of what kind."""

    tool: str
    call: int
    kind: FaultKind


class FaultSchedule:
    """Counts each tool's handler invocations and decides, deterministically, which ones fail.

    explicit: an implicit fault's wrong result says what went wrong (the contract-style tool); else it is
    silent. trace: where an implicit fault records what it got wrong (`silent_fault`), for the grader.
    """

    def __init__(self, faults: Iterable[Fault] = (), *, seed: int = 0, explicit: bool = False,
                 trace: Trace | None = None) -> None:
        self.faults = tuple(faults)
        for fault in self.faults:
            if not isinstance(fault, Fault):
                raise AtlasKitTypeError(f"faults must hold Fault objects; got {type(fault).__name__}. "
                                "Build them with Fault(...) or always(...).")
        self.seed = seed
        self._rng = random.Random(f"atlas-faults:{seed}")
        self.calls: Counter[str] = Counter()
        self.fired: list[_Fired] = []
        self.explicit, self.trace = explicit, trace

    def due(self, tool: str) -> Fault | None:
        """Count one invocation of `tool` and return the fault that fires on it, if any."""
        self.calls[tool] += 1
        n = self.calls[tool]
        for fault in self.faults:
            if fault.tool != tool:
                continue
            if fault.probability is not None:
                hit = self._rng.random() < fault.probability
            else:
                hit = not fault.calls or n in fault.calls
            if hit:
                self.fired.append({"tool": tool, "call": n, "kind": fault.kind})
                return fault
        return None

    def wrap(self, tools: Iterable[Tool]) -> list[Tool]:
        """The same tools, with each handler passing through this schedule first."""
        tools = list(tools)
        names = {t.name for t in tools}
        for fault in self.faults:
            if fault.tool not in names:
                raise AtlasKitValueError(f"Fault names tool {fault.tool!r}, which is not among: {', '.join(sorted(names))}.")
        wrapped = []
        for t in tools:
            copy_ = copy.copy(t)  # not dataclasses.replace: the schema was checked when the tool was built
            copy_.handler = self._guard(t)
            wrapped.append(copy_)
        return wrapped

    def _guard(self, tool: Tool) -> Handler:
        def handler(args: JSONObject, ctx: CallContext) -> object:
            fault = self.due(tool.name)
            if fault is None:
                return tool.handler(args, ctx)
            if _implicit_kind(fault.kind):
                return self._implicit(fault.kind, tool, args, ctx)
            if fault.kind == "empty":
                key, note, zeros = _EMPTY[tool.name]
                return empty_result(key, note, **zeros)
            if fault.kind in TRANSIENT:
                if fault.after_effect:
                    tool.handler(args, ctx)  # the change is made; only the reply goes missing
                raise _transient(fault, tool.name)
            raise _refusal(fault.kind, tool)
        return handler

    def _implicit(self, kind: ImplicitKind, tool: Tool, args: JSONObject, ctx: CallContext) -> object:
        """Answer for real, then hand back a wrong answer in its place; a call that fails anyway fails as it is."""
        try:
            true = tool.handler(args, ctx)
            older = stale_args(args) if kind == "stale" else None
            served = tool.handler(older, ctx) if older is not None else true
        except BaseException:
            self.fired.pop()  # nothing came back to corrupt
            raise
        wrong = corrupt(tool.name, kind, true, served, explicit=self.explicit)
        if wrong is None:
            self.fired.pop()
            return true
        if self.trace is not None:
            self.trace.add("silent_fault", tool_use_id=ctx.tool_use_id, tool=tool.name, fault=kind,
                           explicit=self.explicit, wrong=list(wrong.wrong), as_of=wrong.as_of)
        return wrong.result


def fail_first_call(tool: Tool, failure: ToolFailure) -> Tool:
    """A copy of `tool` whose first call raises `failure` (an error you wrote) and whose later calls run for real.

    The playground and the exercise checks put a composed error in Atlas's place with it.
    """
    calls = 0

    def handler(args: JSONObject, ctx: CallContext) -> object:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise failure
        return tool.handler(args, ctx)

    wrapped = copy.copy(tool)  # not Tool(...): the schema was checked when the tool was built
    wrapped.handler = handler
    return wrapped


def _implicit_kind(kind: FaultKind) -> TypeGuard[ImplicitKind]:
    return kind in IMPLICIT_KINDS


def _transient(fault: Fault, tool: str) -> Transient:
    if fault.kind == "timeout":
        raw = ("Traceback (most recent call last):\n"
               f'  File "/srv/atlas/services/{tool}.py", line 88, in handle\n'
               "    return self.client.post(payload, timeout=30)\n"
               f"TimeoutError: {tool.replace('_', '-')}.atlas.internal:443 did not respond within 30.0s")
        return Transient(raw, kind="timeout")
    if fault.kind == "rate_limit":
        after = 2.0 if fault.retry_after is None else fault.retry_after
        return Transient(f"HTTP/1.1 429 Too Many Requests\nRetry-After: {after:g}\n\n429 Too Many Requests",
                         retry_after=after, kind="rate_limit")
    return Transient("HTTP/1.1 503 Service Unavailable\nContent-Type: text/html\n\n<html><head><title>503 Service "
                     "Unavailable</title></head><body><h1>Service Unavailable</h1><p>The server is temporarily unable "
                     "to service your request.</p><hr><address>nginx/1.24.0</address></body></html>", kind="outage")


def _refusal(kind: FaultKind, tool: Tool) -> ToolFailure:
    code = ErrorCode(kind)  # the caller has ruled out every other kind: a refusal's kind is its code's value
    if code is ErrorCode.NOT_PERMITTED:
        return ToolFailure(code, "This session is not allowed to use that record. Do not try other ids; tell the "
                                 "customer it cannot be done here.",
                           next=stop("Tell the customer you cannot do this for them here."), raw="HTTP 403 Forbidden",
                           plain="This session is not allowed to use that record.")
    if code is ErrorCode.NOT_FOUND:
        return ToolFailure(code, "No record matches the id given. Ask the customer to check it; do not guess other ids.",
                           next=stop("Tell the customer it was not found and ask them to confirm the id."),
                           raw="HTTP 404 Not Found", plain="No record matches the id given.")
    if code is ErrorCode.INVALID_ARGUMENT:
        name = str(tool.input_schema.get("required", ["input"])[0])
        return ToolFailure(code, f"The service rejected argument {name}; check it against the tool's description "
                                 "and call again.",
                           next=retry_changed(name, f"Call again with a corrected {name}."),
                           raw=f"pydantic_core.ValidationError: 1 validation error for Request\n{name}\n  Value error",
                           plain=f"The service rejected the value given for the {name.replace('_', ' ')}.")
    raw = "PolicyError: daily quota exceeded for tenant"
    if tool.name == "escalate_to_human":
        return ToolFailure(code, "This customer has reached today's limit for escalations. Tell the customer no case "
                                 "could be opened today and to write again tomorrow.",
                           next=stop("Tell the customer no new case could be opened today."), raw=raw,
                           plain="This customer has reached today's limit for escalations.")
    return ToolFailure(code, "This customer has reached today's limit for this action. A person can finish it: use "
                             "escalate_to_human with queue general.",
                       next=switch_tool("escalate_to_human", "Escalate to queue general, then tell the customer."), raw=raw,
                       plain="This customer has reached today's limit for this action.")
