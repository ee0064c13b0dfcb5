"""The shapes that flow between the layers: API blocks and messages, trace events, result records, the closed
sets (stop reasons, modes, styles, fault kinds), where a result came from (`Source`) and atlas_kit's exceptions.

The bottom layer: it imports nothing from atlas_kit. `blocks` is the one walker over a transcript and
`canonical` the one canonical JSON. The codes themselves are errors.ErrorCode (chapter 03); the trace is
taught in chapter 07, records and sources in chapter 11. Import every name from here (`from .types import X`):
sets.py, api.py, walk.py, events.py, records.py and exceptions.py hold them by idea.
"""
from __future__ import annotations

from .api import (APIErrorBody, APIErrorDetail, Block, Message, MessageBody, MessagesRequest, Placed, Role, TextBlock,
    ToolDefinition, ToolResultBlock, ToolUseBlock, Usage)
from .clients import AsyncMessagesAPI, AsyncMessagesClient, MessagesAPI, MessagesClient, WireRequest, wire
from .events import (APIFailureEvent, AttemptEvent, BoundEvent, CallEvent, ErrorEvent, EscalatedEvent, EventKind,
    EventLog, FinishedEvent, LoopDetectedEvent, MaxTokensRetryEvent, RefusedEvent, ResultEvent, SilentFaultEvent,
    StoppedEvent, TraceEvent, TransientEvent, UnanswerableEvent, events_of)
from .exceptions import AtlasKitError, AtlasKitKeyError, AtlasKitTypeError, AtlasKitValueError
from .records import (RECORD_FIELDS, RENDERERS, SIMULATED, SOURCE_KINDS, FailureNote, FinishedRun, Record, RunLike,
    Source, SourceKind, TableRows)
from .sets import (API_STOP_REASONS, DEFAULT_MODEL, MAX_EPISODES, STOP_REASONS, STYLE_NAMES, APIStopReason, EpisodeStop, FaultKind,
    ImplicitKind, JSONObject, Mode, RefusalKind, StopReason, StyleName, TransientKind)
from .walk import blocks, canonical, content_blocks, result_text

__all__ = [
    "AsyncMessagesAPI", "AsyncMessagesClient", "MessagesAPI", "MessagesClient", "WireRequest", "wire",
    "APIErrorBody", "APIErrorDetail", "APIFailureEvent", "APIStopReason", "API_STOP_REASONS", "AtlasKitError",
    "AtlasKitKeyError", "AtlasKitTypeError", "AtlasKitValueError", "AttemptEvent", "Block", "BoundEvent", "CallEvent",
    "DEFAULT_MODEL", "EpisodeStop", "ErrorEvent", "EscalatedEvent", "EventKind", "EventLog", "FailureNote", "FaultKind",
    "FinishedEvent", "FinishedRun", "ImplicitKind", "JSONObject", "LoopDetectedEvent", "MAX_EPISODES",
    "MaxTokensRetryEvent", "Message", "MessageBody", "MessagesRequest", "Mode", "Placed", "RECORD_FIELDS", "RENDERERS",
    "Record", "RefusalKind", "RefusedEvent", "ResultEvent", "Role", "RunLike", "SIMULATED", "SOURCE_KINDS",
    "STOP_REASONS", "STYLE_NAMES", "SilentFaultEvent", "Source", "SourceKind", "StopReason", "StoppedEvent",
    "StyleName", "TableRows", "TextBlock", "ToolDefinition", "ToolResultBlock", "ToolUseBlock", "TraceEvent",
    "TransientEvent", "TransientKind", "UnanswerableEvent", "Usage", "blocks", "canonical", "content_blocks",
    "events_of", "result_text",
]
