"""Trace events: a union tagged by `kind`, and `events_of`, which reads the events of one kind with that
kind's type. The trace is taught in chapter 07.
"""
from __future__ import annotations

from typing import Literal, Protocol, Sequence, TypedDict, Union, overload

# Every event has `seq` (its place in the trace) and `kind`. tool_use_id is absent where the SDK's tool
# runner (tool_runner.py) makes the call: it does not tell a tool its id.

class _CallFields(TypedDict):
    seq: int
    kind: Literal["call"]
    tool: str
    args: str  # canonical JSON, cut at 2,000 characters


class CallEvent(_CallFields, total=False):
    """A tool call the dispatcher received (`tool` is "<unknown>" for a name no tool has)."""

    tool_use_id: str


class _ResultFields(TypedDict):
    seq: int
    kind: Literal["result"]
    tool: str


class ResultEvent(_ResultFields, total=False):
    """A call that succeeded, on its `attempt`-th try."""

    tool_use_id: str
    attempt: int


class _ErrorFields(TypedDict):
    seq: int
    kind: Literal["error"]
    tool: str
    code: str
    branch: str | None
    detail: str


class ErrorEvent(_ErrorFields, total=False):
    """A failure that reached the model: its code, the branch its `next` selected, and the detail it never saw."""

    tool_use_id: str
    crashed: bool


class TransientEvent(TypedDict):
    """A transient failure; `wait` is None when the harness gave up instead of retrying."""

    seq: int
    kind: Literal["transient"]
    tool_use_id: str
    tool: str
    attempt: int
    raw: str
    wait: float | None


class LoopDetectedEvent(TypedDict):
    """The same (tool, arguments, code) failed again; `acted` says whether the run was stopped for it."""

    seq: int
    kind: Literal["loop_detected"]
    tool: str
    args_key: str
    code: str
    count: int
    acted: bool


class UnanswerableEvent(TypedDict):
    """A tool_use block with no usable id (or a repeated one): nothing can answer it."""

    seq: int
    kind: Literal["unanswerable_block"]
    tool_use_id: str


class RefusedEvent(TypedDict):
    """The SDK's tool runner refused a call the loop breaker had already stopped."""

    seq: int
    kind: Literal["refused"]
    tool: str
    args_key: str
    code: str
    count: int | None


class AttemptEvent(TypedDict):
    """One try of a learner's retry harness (byo/)."""

    seq: int
    kind: Literal["attempt"]
    tool: str
    key: str | None
    attempt: int
    outcome: str


class SilentFaultEvent(TypedDict):
    """An implicit fault handed back a wrong answer as a success: the figures it got wrong, for the grader."""

    seq: int
    kind: Literal["silent_fault"]
    tool_use_id: str
    tool: str
    fault: str
    explicit: bool
    wrong: list[str]
    as_of: str | None


class APIFailureEvent(TypedDict):
    """The API call failed (never the model's doing): replies.APIFailure's fields."""

    seq: int
    kind: Literal["api_failure"]
    error: str
    message: str
    reason: str
    status: int | None


class MaxTokensRetryEvent(TypedDict):
    """A reply cut off at max_tokens was dropped (its tool calls unexecuted) and asked for again."""

    seq: int
    kind: Literal["max_tokens_retry"]
    max_tokens: int
    retry_max_tokens: int
    unexecuted: list[str]


class FinishedEvent(TypedDict):
    """The model answered the customer."""

    seq: int
    kind: Literal["finished"]
    model_stop_reason: str


class EscalatedEvent(TypedDict):
    """The loop breaker stopped the run and handed it to a person."""

    seq: int
    kind: Literal["escalated"]
    reason: str
    tool: str
    code: str


class StoppedEvent(TypedDict):
    """The reply stopped for a reason that ends the run without a finished answer."""

    seq: int
    kind: Literal["stopped"]
    reason: str
    model_stop_reason: str
    unexecuted: list[str]


class _BoundFields(TypedDict):
    seq: int
    kind: Literal["bound"]
    bound: Literal["cost", "steps"]


class BoundEvent(_BoundFields, total=False):
    """The run reached a bound: cost (dollars or tokens) or steps."""

    cost_usd: float
    tokens: int
    steps: int


TraceEvent = Union[CallEvent, ResultEvent, ErrorEvent, TransientEvent, LoopDetectedEvent, UnanswerableEvent,
                   RefusedEvent, AttemptEvent, SilentFaultEvent, APIFailureEvent, MaxTokensRetryEvent, FinishedEvent,
                   EscalatedEvent, StoppedEvent, BoundEvent]
"""One trace event; its `kind` says which."""
EventKind = Literal["call", "result", "error", "transient", "loop_detected", "unanswerable_block", "refused",
                    "attempt", "silent_fault", "api_failure", "max_tokens_retry", "finished", "escalated", "stopped",
                    "bound"]
"""Every `kind` a trace event can have."""


class EventLog(Protocol):
    """Anything that holds trace events in order (trace.Trace)."""

    @property
    def events(self) -> Sequence[TraceEvent]: ...


@overload
def events_of(log: EventLog, kind: Literal["call"]) -> list[CallEvent]: ...
@overload
def events_of(log: EventLog, kind: Literal["result"]) -> list[ResultEvent]: ...
@overload
def events_of(log: EventLog, kind: Literal["error"]) -> list[ErrorEvent]: ...
@overload
def events_of(log: EventLog, kind: Literal["transient"]) -> list[TransientEvent]: ...
@overload
def events_of(log: EventLog, kind: Literal["loop_detected"]) -> list[LoopDetectedEvent]: ...
@overload
def events_of(log: EventLog, kind: Literal["silent_fault"]) -> list[SilentFaultEvent]: ...
@overload
def events_of(log: EventLog, kind: Literal["api_failure"]) -> list[APIFailureEvent]: ...
@overload
def events_of(log: EventLog, kind: str) -> list[TraceEvent]: ...
def events_of(log: EventLog, kind: str) -> Sequence[TraceEvent]:
    """The events of one kind, in order, typed as that kind's event (Trace.of_kind is this function)."""
    return [e for e in log.events if e["kind"] == kind]
