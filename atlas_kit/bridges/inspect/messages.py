"""Inspect's chat messages as the Anthropic blocks atlas_kit speaks, and back: the tools a model is offered,
the tool results it reads, and the request body the offline stand-in answers.

A failed call becomes a tool message whose error text is the dispatcher's block content, word for word, so
inspect's Anthropic provider sends it as a `tool_result` with `is_error` set. Chapter 11 shows where it is used.
"""
from __future__ import annotations

from typing import Sequence

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser
from inspect_ai.tool import ToolCall, ToolCallError, ToolInfo, ToolParams

from ...types.api import Block, Message, MessagesRequest, TextBlock, ToolDefinition, ToolResultBlock, ToolUseBlock
from ...types.exceptions import AtlasKitTypeError, AtlasKitValueError

# The blocks are atlas_kit's own (types.py); a tool_use's input is None when the model's arguments were not
# valid JSON, so the dispatcher says so.
AnthropicMessage = Message
AnthropicRequest = MessagesRequest


def tool_info(definition: ToolDefinition) -> ToolInfo:
    """One Atlas tool definition as inspect's ToolInfo, its input_schema carried whole (patterns, examples, enums)."""
    schema = definition["input_schema"]
    params = ToolParams.model_validate(schema)
    if params.model_dump(exclude_none=True) != schema:
        raise AtlasKitValueError(f"Tool {definition['name']!r}: inspect's ToolParams drops part of its input_schema, so the "
                         "model would see a different schema than atlas_kit checks; keep to the JSON Schema fields "
                         "ToolParams models (type, properties, required, enum, pattern, examples, lengths).")
    return ToolInfo(name=definition["name"], description=definition["description"], parameters=params)


def tool_use_blocks(message: ChatMessageAssistant) -> list[ToolUseBlock]:
    """The message's tool calls as `tool_use` blocks, with inspect's call ids as the ids."""
    return [ToolUseBlock(type="tool_use", id=call.id, name=call.function,
                         input=None if call.parse_error else call.arguments)
            for call in message.tool_calls or []]


def tool_messages(calls: Sequence[ToolCall], results: Sequence[ToolResultBlock]) -> list[ChatMessageTool]:
    """The dispatcher's `tool_result` blocks as inspect tool messages, one per call, in the calls' order.

    A failure keeps its text twice: as the content (what logs and viewers show) and as the error's message
    (what inspect's Anthropic provider sends, with is_error). Its error type is "unknown", as for a ToolError.
    """
    by_id = {block["tool_use_id"]: block for block in results}
    out = []
    for call in calls:
        block = by_id[call.id]
        text = block["content"] if isinstance(block["content"], str) else str(block["content"])
        error = ToolCallError("unknown", text) if block.get("is_error") else None
        out.append(ChatMessageTool(content=text, tool_call_id=call.id, function=call.function, error=error))
    return out


def assistant_blocks(message: ChatMessageAssistant) -> list[TextBlock | ToolUseBlock]:
    """An assistant message as Anthropic content: its text, then its tool calls."""
    blocks: list[TextBlock | ToolUseBlock] = []
    if message.text:
        blocks.append(TextBlock(type="text", text=message.text))
    blocks.extend(tool_use_blocks(message))
    return blocks


def anthropic_request(messages: Sequence[ChatMessage], tools: Sequence[ToolInfo], *, model: str,
                      max_tokens: int) -> AnthropicRequest:
    """The Messages API body for a conversation, rendered as inspect's Anthropic provider renders it.

    System messages join the top-level system prompt; a tool message becomes a `tool_result` whose content is
    the error's message with is_error when it failed, else its text as a text block; consecutive user-side
    messages merge into one, as the API requires roles to alternate.
    """
    system = "\n\n".join(m.text for m in messages if isinstance(m, ChatMessageSystem))
    out: list[AnthropicMessage] = []
    for message in messages:
        if isinstance(message, ChatMessageSystem):
            continue
        if isinstance(message, ChatMessageAssistant):
            out.append(AnthropicMessage(role="assistant", content=list(assistant_blocks(message))))
        elif isinstance(message, ChatMessageTool):
            _user(out, [_tool_result(message)])
        elif isinstance(message, ChatMessageUser):
            _user(out, message.text)
        else:
            raise AtlasKitTypeError(f"anthropic_request: a {type(message).__name__} has no place in an Atlas conversation.")
    definitions = [ToolDefinition(name=t.name, description=t.description,
                                  input_schema=t.parameters.model_dump(exclude_none=True)) for t in tools]
    return AnthropicRequest(model=model, max_tokens=max_tokens, system=system, tools=definitions, messages=out)


def _tool_result(message: ChatMessageTool) -> ToolResultBlock:
    content: str | list[TextBlock] = [TextBlock(type="text", text=message.text)]
    if message.error is not None:  # the API refuses an empty error, hence the fallbacks (inspect's own)
        content = message.error.message or message.text or "error"
    return ToolResultBlock(type="tool_result", tool_use_id=str(message.tool_call_id), is_error=message.error is not None,
                           content=content)


def _user(out: list[AnthropicMessage], content: str | list[ToolResultBlock]) -> None:
    """Add user-side content, merged into the previous message when that is the user's too."""
    last = out[-1] if out else None
    if last is None or last["role"] != "user":
        out.append(AnthropicMessage(role="user", content=list(content) if isinstance(content, list) else content))
        return
    before = last["content"]
    head: list[Block] = (
        [TextBlock(type="text", text=before)] if isinstance(before, str) else list(before))
    tail = [TextBlock(type="text", text=content)] if isinstance(content, str) else content
    last["content"] = head + list(tail)
