"""The Messages API as far as atlas_kit builds and reads it: content blocks, messages, tool definitions,
a request and a response body. Chapter 03 shows a tool_result block; chapter 13 builds a loop on them.
"""
from __future__ import annotations

from typing import Any, Literal, NamedTuple, TypedDict, Union

from .sets import APIStopReason, JSONObject

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


class APIErrorDetail(TypedDict):
    """An error body's `error`: the API's error type (rate_limit_error, overloaded_error ...) and its message."""

    type: str
    message: str


class APIErrorBody(TypedDict):
    """The body the API sends with an error status (models.transport.APIFault builds one)."""

    type: Literal["error"]
    error: APIErrorDetail


class Placed(NamedTuple):
    """One block where it sits: the index of its message (`at`), that message's role, and the block."""

    at: int
    role: Role
    block: Block

