"""Ollama's Anthropic layer as data: the request conversion of anthropic.go (FromMessagesRequest, convertMessage,
convertTool), the message truncation of server/prompt.go (chatPrompt), what the model then reads (an
Anthropic-shaped view of what survived) and the response conversion (ToMessagesResponse, mapStopReason).
The HTTP side and the model call are in ollama.py; the sources are cited in QUIRKS.md.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from atlas_kit.types import JSONObject

__all__ = ["ConversionError", "Msg", "done_reason", "fit", "from_request", "render_turns", "stop_reason", "view"]

_SCHEMA_KEYS = ("type", "$defs", "items", "required", "properties")  # api.ToolFunctionParameters' fields


class ConversionError(ValueError):
    """FromMessagesRequest refused the request (the middleware answers 400 invalid_request_error)."""


@dataclass
class Msg:
    """One api.Message: Ollama's chat message, the unit its template renders and its truncation drops."""

    role: str
    content: str = ""
    thinking: str = ""
    tool_calls: list[JSONObject] = field(default_factory=list)  # {"id", "name", "arguments"}
    tool_call_id: str = ""


def _tool_result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # text parts are concatenated; images travel on the side; the rest is gone
        return "".join(c["text"] for c in content if isinstance(c, dict) and c.get("type") == "text"
                       and isinstance(c.get("text"), str))
    return ""


def _tool_use(block: JSONObject) -> JSONObject:
    if not block.get("id"):
        raise ConversionError("tool_use block missing required 'id' field")
    if not block.get("name"):
        raise ConversionError("tool_use block missing required 'name' field")
    arguments = block.get("input")
    if arguments is not None and not isinstance(arguments, dict):
        raise ConversionError(f"json: cannot unmarshal {type(arguments).__name__} into Go struct field "
                              "ContentBlock.input of type api.ToolCallFunctionArguments")
    return {"id": block["id"], "name": block["name"], "arguments": arguments or {}}


def _message(message: JSONObject) -> list[Msg]:
    """convertMessage: text joined with nothing between, the last thinking kept, a tool_result becomes a
    role "tool" message with its text only (`is_error` is read into the struct and never used)."""
    role = str(message.get("role", "")).lower()
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        raise ConversionError("json: cannot unmarshal into Go value of type []anthropic.ContentBlock")
    text, thinking, calls, results, images = "", "", [], [], 0
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            text += block["text"]
        elif kind == "image":
            source = block.get("source")
            if not isinstance(source, dict):
                raise ConversionError("invalid image source")
            if source.get("type") != "base64":
                raise ConversionError(f"invalid image source type: {source.get('type')}. Only base64 images are "
                                      "supported.")
            images += 1
        elif kind == "tool_use":
            calls.append(_tool_use(block))
        elif kind == "tool_result":
            results.append(Msg("tool", _tool_result_text(block.get("content")),
                               tool_call_id=str(block.get("tool_use_id", ""))))
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thinking = block["thinking"]
    out = list(results) if role == "user" else []
    if text or images or calls or thinking:
        out.append(Msg(role, text, thinking, calls))
    return out if role == "user" else out + results


def _system(system: Any) -> list[Msg]:
    if isinstance(system, str):
        return [Msg("system", system)] if system else []
    if isinstance(system, list):
        text = "".join(b["text"] for b in system if isinstance(b, dict) and b.get("type") == "text"
                       and isinstance(b.get("text"), str))
        return [Msg("system", text)] if text else []
    return []


def _tool(tool: Any) -> JSONObject:
    if not isinstance(tool, dict):
        raise ConversionError("json: cannot unmarshal into Go value of type anthropic.Tool")
    schema = tool.get("input_schema")
    if schema is not None and not isinstance(schema, dict):
        raise ConversionError(f"invalid input_schema for tool {json.dumps(tool.get('name'))}: json: cannot "
                              "unmarshal into Go value of type api.ToolFunctionParameters")
    params = {k: schema[k] for k in _SCHEMA_KEYS if schema and k in schema}
    return {"name": tool.get("name", ""), "description": tool.get("description", ""), "input_schema": params}


def from_request(body: JSONObject) -> tuple[list[Msg], list[JSONObject], bool | None]:
    """FromMessagesRequest: the chat messages, the tools (their schema cut to api.ToolFunctionParameters)
    and `think` (True, False, or None when the request says nothing)."""
    msgs = _system(body.get("system"))
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            raise ConversionError("json: cannot unmarshal into Go value of type anthropic.MessageParam")
        msgs.extend(_message(message))
    tools = [_tool(t) for t in body.get("tools") or []]
    thinking = body.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    return msgs, tools, {"enabled": True, "disabled": False}.get(kind) if kind else None


def render_turns(msgs: list[Msg]) -> list[tuple[str, str]]:
    turns = []
    for m in msgs:
        calls = "".join(f"\n<tool_call>{json.dumps(c, sort_keys=True)}</tool_call>" for c in m.tool_calls)
        thought = f"<think>{m.thinking}</think>" if m.thinking else ""
        turns.append((m.role, f"{thought}{m.content}{calls}"))
    return turns


def _tool_block_start(msgs: list[Msg], i: int) -> int:
    if i <= 0 or i >= len(msgs) or msgs[i].role != "tool":
        return i
    start = i
    while start > 0 and msgs[start - 1].role == "tool":
        start -= 1
    before = start - 1
    return before if before >= 0 and msgs[before].role == "assistant" and msgs[before].tool_calls else i


def fit(msgs: list[Msg], num_ctx: int, count: Callable[[list[Msg]], int]) -> list[Msg]:
    """chatPrompt's truncation: drop messages from the front (system messages stay) until the prompt fits
    in num_ctx, always keeping the last message and never orphaning a tool result from its call."""
    for i in range(len(msgs)):
        start = _tool_block_start(msgs, i)
        kept = [m for m in msgs[:start] if m.role == "system"] + msgs[start:]
        if count(kept) <= num_ctx or i == len(msgs) - 1:
            return kept
    return msgs


def view(msgs: list[Msg], tools: list[JSONObject], body: JSONObject) -> JSONObject:
    """What the model reads, as an Anthropic-shaped body: the surviving messages, tool results (with no
    is_error) joined to the user turn that follows them, an assistant turn as thinking, text, tool_use."""
    out: list[JSONObject] = []
    pending: list[JSONObject] = []
    for m in msgs:
        if m.role == "system":
            continue
        if m.role == "tool":
            pending.append({"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content})
            continue
        if m.role != "user" and pending:  # results with no user turn after them are a user turn of their own
            out.append({"role": "user", "content": pending})
        blocks = pending if m.role == "user" else []
        pending = []
        if m.thinking:
            blocks.append({"type": "thinking", "thinking": m.thinking})
        if m.content:
            blocks.append({"type": "text", "text": m.content})
        blocks += [{"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["arguments"]}
                   for c in m.tool_calls]
        out.append({"role": m.role, "content": blocks})
    if pending:
        out.append({"role": "user", "content": pending})
    seen: JSONObject = {"model": body.get("model"), "max_tokens": body.get("max_tokens"), "messages": out}
    system = "\n".join(m.content for m in msgs if m.role == "system")
    if system:
        seen["system"] = system
    if tools:
        seen["tools"] = tools
    return seen


def done_reason(stop: str) -> str:
    """The runner's done_reason for an engine stop (a stop word ends with "stop" too)."""
    return {"eos": "stop", "stop_word": "stop", "length": "length", "empty": ""}.get(stop, "load")


def stop_reason(done: str, has_tool_calls: bool) -> str:
    """mapStopReason; the empty string is then omitted from the body (`stop_reason,omitempty`)."""
    if has_tool_calls:
        return "tool_use"
    return {"stop": "end_turn", "length": "max_tokens"}.get(done, "stop_sequence" if done else "")
