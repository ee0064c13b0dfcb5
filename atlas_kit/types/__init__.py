"""The shapes that flow between the layers: API blocks and messages, trace events, result records, the closed
sets (stop reasons, modes, styles, fault kinds), where a result came from (`Source`) and atlas_kit's exceptions.

The bottom layer: it imports nothing from atlas_kit. `blocks` is the one walker over a transcript and
`canonical` the one canonical JSON. The codes themselves are errors.ErrorCode (chapter 03); the trace is
taught in chapter 07, records and sources in chapter 11. Import every name from here (`from .types import X`):
sets.py, api.py, walk.py, events.py, records.py and exceptions.py hold them by idea.
"""
from __future__ import annotations

from .api import Block, Message, ToolDefinition, ToolResultBlock, ToolUseBlock
from .clients import AsyncMessagesClient, MessagesClient
from .events import TraceEvent
from .records import Record, Source
from .sets import JSONObject, StopReason, StyleName
from .walk import blocks

__all__ = ["AsyncMessagesClient", "Block", "JSONObject", "Message", "MessagesClient", "Record", "Source",
    "StopReason", "StyleName", "ToolDefinition", "ToolResultBlock", "ToolUseBlock", "TraceEvent", "blocks"]
