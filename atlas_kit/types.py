"""The shapes that flow between the layers: API blocks and messages, trace events, result records, the closed
sets (stop reasons, modes, styles, fault kinds) and where a result came from (`Source`).

The bottom layer: it imports nothing from atlas_kit. `blocks` is the one walker over a transcript and
`canonical` the one canonical JSON. The codes themselves are errors.ErrorCode (chapter 03); the trace is
taught in chapter 07, records and sources in chapter 11.
"""
from __future__ import annotations

import json
import typing
from dataclasses import dataclass
from typing import (Any, Callable, Iterable, Iterator, Literal, Mapping, NamedTuple, Protocol, Sequence, TypedDict,
                    Union, overload)

__all__ = [
    "APIFailureEvent", "APIStopReason", "API_STOP_REASONS", "AttemptEvent", "Block", "BoundEvent", "CallEvent",
    "DEFAULT_MODEL", "EpisodeStop", "ErrorEvent", "EscalatedEvent", "EventKind", "EventLog", "FailureNote",
    "FaultKind", "FinishedEvent", "FinishedRun", "ImplicitKind", "JSONObject", "LoopDetectedEvent",
    "MaxTokensRetryEvent", "Message", "MessageBody", "MessagesRequest", "Mode", "Placed", "RECORD_FIELDS",
    "RENDERERS", "Record", "RefusalKind", "RefusedEvent", "ResultEvent", "Role", "RunLike", "SIMULATED",
    "SOURCE_KINDS", "STOP_REASONS", "STYLE_NAMES", "SilentFaultEvent", "Source", "SourceKind", "StopReason",
    "StoppedEvent", "StyleName", "TableRows", "TextBlock", "ToolDefinition", "ToolResultBlock", "ToolUseBlock",
    "TraceEvent", "TransientEvent", "TransientKind", "UnanswerableEvent", "Usage", "blocks", "canonical",
    "content_blocks", "events_of", "kind_of_label", "result_text",
]

JSONObject = dict[str, Any]
"""A JSON object as `json.loads` gives it: a tool's arguments, its schema, a result body."""

# The live model a key-holder gets when no model is named; its price is in pricing.py.
DEFAULT_MODEL = "claude-sonnet-5-5"

# --- closed sets ------------------------------------------------------------------------------------------

Mode = Literal["offline", "live", "replay"]
"""Who answers: the offline stand-in, a live model, or a recorded cassette (models.choose_model)."""

StyleName = Literal["raw", "generic", "contract"]
"""The three wordings of a failure (atlas/styles.py)."""
STYLE_NAMES: tuple[StyleName, ...] = typing.get_args(StyleName)

APIStopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal",
                        "model_context_window_exceeded"]
"""Every `stop_reason` the Messages API defines."""
API_STOP_REASONS: tuple[APIStopReason, ...] = typing.get_args(APIStopReason)

StopReason = Literal["finished", "loop_broken", "step_limit", "cost_limit", "api_failure", "truncated", "refused",
                     "context_exceeded", "stop_sequence", "paused", "unknown_stop"]
"""Why one agent run ended (agent.py): each API stop reason and each bound has its outcome."""
STOP_REASONS: tuple[StopReason, ...] = typing.get_args(StopReason)

EpisodeStop = Union[StopReason, Literal["harness_error"]]
"""A record's stop reason: the run's, or `harness_error` when the harness itself could not finish it."""

RefusalKind = Literal["not_permitted", "not_found", "invalid_argument", "limit_exceeded"]
"""Faults that refuse the call: each is the value of the errors.ErrorCode it fails with."""
TransientKind = Literal["timeout", "rate_limit", "outage"]
"""Faults the dispatcher retries: they reach the model only when the retries run out."""
ImplicitKind = Literal["truncated", "stale", "empty_wrong"]
"""Faults that succeed with a wrong answer (atlas/silent.py)."""
FaultKind = Union[RefusalKind, TransientKind, Literal["empty"], ImplicitKind]
"""Every fault atlas/faults.py can inject."""

# --- where a result came from -----------------------------------------------------------------------------

SourceKind = Literal["simulated", "live", "replayed"]
"""The three kinds of evidence: the rule-based stand-in, a live model, a replayed recording."""
SOURCE_KINDS: tuple[SourceKind, ...] = typing.get_args(SourceKind)
SIMULATED = "simulated (offline rule-based stand-in, not an LLM)"


@dataclass(frozen=True)
class Source:
    """The kind of source, the model that answered, and the day it answered (None for the stand-in)."""

    kind: SourceKind
    model: str
    date: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in SOURCE_KINDS:
            raise ValueError(f"Source.kind must be one of {', '.join(SOURCE_KINDS)}; got {self.kind!r}.")

    @property
    def label(self) -> str:
        """The long label every run and record carries: what a chart or table must say."""
        if self.kind == "simulated":
            return SIMULATED
        if self.kind == "live":
            return f"live ({self.model}, {self.date})"
        return f"replayed from {self.model} on {self.date}"

    @property
    def short(self) -> str:
        """The label for a chart title or a table caption."""
        if self.kind == "simulated":
            return "simulated (offline stand-in)"
        return f"{self.kind} ({self.model}, {self.date})"

    @property
    def costs_money(self) -> bool:
        """Only a live run calls a paid API; the stand-in and a replay cost $0."""
        return self.kind == "live"

    def __str__(self) -> str:
        return self.label


def kind_of_label(label: object) -> SourceKind | None:
    """The kind of a bare label string, for runs and records made before sources were typed.

    Reads only the first word, which each kind's label has always started with.
    """
    first = label.split(" ", 1)[0] if isinstance(label, str) else ""
    return next((kind for kind in SOURCE_KINDS if kind == first), None)


# --- the Messages API, as far as atlas_kit builds and reads it ---------------------------------------------

Role = Literal["user", "assistant"]


class TextBlock(TypedDict):
    """Text the model wrote, or a user's text."""

    type: Literal["text"]
    text: str


class ToolUseBlock(TypedDict):
    """A tool call. `input` is the model's arguments (not always an object: the dispatcher says so)."""

    type: Literal["tool_use"]
    id: str
    name: str
    input: Any


class _ToolResultFields(TypedDict):
    type: Literal["tool_result"]
    tool_use_id: str
    content: str | list[TextBlock]


class ToolResultBlock(_ToolResultFields, total=False):
    """The answer to one tool call; `is_error` marks a failure."""

    is_error: bool


Block = Union[TextBlock, ToolUseBlock, ToolResultBlock]
"""The content blocks the course's transcripts hold (others, such as thinking, are passed over by `blocks`)."""


class Message(TypedDict):
    """One turn of a transcript: a string is one text block."""

    role: Role
    content: str | list[Block]


class ToolDefinition(TypedDict):
    """What the model is told about a tool."""

    name: str
    description: str
    input_schema: JSONObject


class Usage(TypedDict):
    """Tokens one call read and wrote."""

    input_tokens: int
    output_tokens: int


class MessagesRequest(TypedDict):
    """The body of `POST /v1/messages` the agent loop sends."""

    model: str
    max_tokens: int
    system: str
    tools: list[ToolDefinition]
    messages: list[Message]


class MessageBody(TypedDict):
    """A Messages API response body, as transport.message_body builds it and replies.read_reply checks it."""

    id: str
    type: Literal["message"]
    role: Literal["assistant"]
    content: list[Block]
    model: str
    stop_reason: APIStopReason
    stop_sequence: str | None
    usage: Usage


class Placed(NamedTuple):
    """One block where it sits: the index of its message (`at`), that message's role, and the block."""

    at: int
    role: Role
    block: Block


_FIELDS = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input"),
           "tool_result": ("type", "tool_use_id", "content", "is_error")}


def content_blocks(content: object) -> Iterator[Block]:
    """The blocks of one message's content, in order: a string is one text block, an SDK block (or any object
    with the block's attributes) becomes its dict, and any other kind of block (thinking, ...) is passed over."""
    if isinstance(content, str):
        yield {"type": "text", "text": content}
        return
    if not isinstance(content, Iterable) or isinstance(content, (bytes, Mapping)):
        return
    for item in content:
        if not isinstance(item, dict):
            dump = getattr(item, "model_dump", None)
            fields = _FIELDS.get(str(getattr(item, "type", "")), ())
            item = dump(exclude_none=True) if callable(dump) else {f: getattr(item, f) for f in fields if hasattr(item, f)}
        if isinstance(item, dict) and item.get("type") in _FIELDS:
            yield typing.cast(Block, item)


def blocks(messages: Iterable[object]) -> Iterator[Placed]:
    """Every block of a transcript (a list of Message) with its message's index and role: the one walker
    display, playground, the checks, the grader, transport and replay share. Non-messages are passed over."""
    for at, message in enumerate(messages):
        if not isinstance(message, Mapping):
            continue
        role: Role = "assistant" if message.get("role") == "assistant" else "user"
        for block in content_blocks(message.get("content")):
            yield Placed(at, role, block)


def result_text(content: object) -> str:
    """A tool_result's content as one string: text blocks joined, anything else as compact JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        return " ".join(str(b.get("text", "")) for b in content)
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def canonical(value: object) -> str:
    """`value` as canonical JSON: sorted keys, no spaces, non-JSON values as their str(). Two equal values
    always give the same text, so it keys fingerprints, argument digests and token estimates."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


# --- trace events: a union tagged by `kind` ----------------------------------------------------------------
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


# --- what a run offers its readers --------------------------------------------------------------------------

class FailureNote(Protocol):
    """Why a run ended at the API (replies.APIFailure): a reason, what to do, and one line for a person."""

    @property
    def reason(self) -> str: ...
    @property
    def fix(self) -> str: ...
    def line(self) -> str: ...


class RunLike(Protocol):
    """What the grader and the display read from a run: agent.Run fits, and so does atlas.SimpleRun."""

    @property
    def messages(self) -> Sequence[Message]: ...
    @property
    def trace(self) -> EventLog: ...
    @property
    def final_text(self) -> str: ...
    @property
    def stop_reason(self) -> str: ...


class FinishedRun(RunLike, Protocol):
    """A finished run as the display and a results record read it: RunLike plus where it came from and what it
    used (agent.Run and mcp_episode.McpEpisode fit). Both also read `notes` and `api_failure` (a FailureNote)
    when a run has them."""

    @property
    def model(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def origin(self) -> Source | None: ...
    @property
    def steps(self) -> int: ...
    @property
    def tool_calls(self) -> int: ...
    @property
    def input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def cost_usd(self) -> float: ...


RENDERERS: dict[Literal["text", "html"], Callable[[FinishedRun], str]] = {}
"""How a run prints (`str(run)`, a notebook's HTML): display.py fills it when imported, and agent.Run reads it,
so the agent layer never imports the display layer. Each renderer takes a FinishedRun."""


# --- the results record ---------------------------------------------------------------------------------------

class Record(TypedDict):
    """One finished episode, flat: one line of a results JSONL file (results.py). Its keys, in this order,
    are RECORD_FIELDS; the condition's fields (style to model) are flattened in."""

    key: str
    experiment: str
    style: str
    faults: bool
    break_loops: bool
    profile: str | None
    model: str
    ticket: str
    trial: int
    seed: int
    source: str
    source_kind: SourceKind | None
    source_date: str | None
    stop_reason: EpisodeStop
    correct: bool
    labels: list[str]
    hit_error: bool
    error_codes: list[str]
    branches: list[str]
    steps: int
    tool_calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    loop_detected: bool
    api_failure: str | None
    api_error: str | None
    harness_error: str | None


RECORD_FIELDS: tuple[str, ...] = tuple(Record.__annotations__)
"""Every record's keys, in file order: derived from Record, so the two cannot drift."""


class TableRows(NamedTuple):
    """A table's content as a metric computes it: column names, rows of cells and a caption (its data's source).
    tables.Table.of shows it; computing and showing stay in their own layers."""

    columns: list[str]
    rows: list[list[object]]
    caption: str
