"""llama-server's Anthropic layer as data: server_chat_convert_anthropic_to_oai (tools/server/server-chat.cpp),
the checks of oaicompat_chat_params_parse (server-common.cpp) that refuse a request, what the model then reads
(an Anthropic-shaped view of the converted chat) and the stop_reason of to_json_anthropic (server-task.cpp).
The HTTP side is in llamacpp.py; QUIRKS.md cites each behaviour.
"""
from __future__ import annotations

import json
from typing import Any

from atlas_kit.types import JSONObject

__all__ = ["LlamaError", "check", "convert", "render_turns", "stop_reason", "view"]


class LlamaError(Exception):
    """An error llama-server answers with `{"error": {"code", "message", "type", ...}}`."""

    def __init__(self, status: int, kind: str, message: str, **extra: int) -> None:
        super().__init__(message)
        self.status, self.kind, self.message, self.extra = status, kind, message, extra

    def body(self) -> JSONObject:
        return {"error": {"code": self.status, "message": self.message, "type": self.kind, **self.extra}}


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return content if isinstance(content, str) else ""


def server_error(message: str) -> LlamaError:
    """A std::runtime_error reaching ex_wrapper: 500 server_error."""
    return LlamaError(500, "server_error", message)


def invalid(message: str) -> LlamaError:
    """A std::invalid_argument reaching ex_wrapper: 400 invalid_request_error."""
    return LlamaError(400, "invalid_request_error", message)


def _tool_result(block: JSONObject) -> JSONObject:
    content = block.get("content")
    if isinstance(content, list):
        parts = [c for c in content if isinstance(c, dict) and c.get("type") in ("text", "image")]
        if any(c["type"] == "image" for c in parts):  # images keep the parts (and need an mmproj later)
            content = [{"type": "text", "text": str(c.get("text", ""))} if c["type"] == "text"
                       else {"type": "image_url", "image_url": {"url": "data:"}} for c in parts]
        else:
            content = "".join(str(c.get("text", "")) for c in parts)
    elif not isinstance(content, str):
        content = ""
    return {"role": "tool", "tool_call_id": str(block.get("tool_use_id", "")), "content": content}


def _message(msg: JSONObject) -> list[JSONObject]:
    """One Anthropic message: its text, images, thinking and calls as one message, then one "tool" message
    per tool_result (after it: a user turn's text now comes before its tool results). `is_error` is not read."""
    parts, calls, results, reasoning = [], [], [], ""
    for block in msg["content"]:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            parts.append(block)
        elif kind == "thinking":
            reasoning += str(block.get("thinking", ""))
        elif kind == "image":
            parts.append({"type": "image_url", "image_url": {"url": "data:"}})
        elif kind == "tool_use":
            arguments = json.dumps(block.get("input", {}), ensure_ascii=False, separators=(",", ":"))
            calls.append({"id": str(block.get("id", "")), "type": "function",
                          "function": {"name": str(block.get("name", "")), "arguments": arguments}})
        elif kind == "tool_result":
            results.append(_tool_result(block))
    out: list[JSONObject] = []
    if parts or calls or reasoning:
        new: JSONObject = {"role": msg.get("role", ""), "content": parts if parts else ""}
        if calls:
            new["tool_calls"] = calls
        if reasoning:
            new["reasoning_content"] = reasoning
        out.append(new)
    return out + results


def convert(body: Any) -> JSONObject:
    """server_chat_convert_anthropic_to_oai."""
    if not isinstance(body, dict) or "messages" not in body:
        raise server_error("'messages' is required")
    messages: list[JSONObject] = []
    if body.get("system") is not None:  # pushed even when empty; text blocks joined with nothing between
        messages.append({"role": "system", "content": _text(body["system"])})
    for msg in body["messages"] if isinstance(body["messages"], list) else []:
        if not isinstance(msg, dict) or not isinstance(msg.get("content"), list):
            if not (isinstance(msg, dict) and "content" not in msg and msg.get("role") == "assistant"):
                messages.append(msg)
            continue
        messages.extend(_message(msg))
    oai: JSONObject = {"messages": messages, "max_tokens": body.get("max_tokens", 4096)}
    if isinstance(body.get("tools"), list):
        oai["tools"] = [{"type": "function", "function": {
            "name": str(t.get("name", "")), "description": str(t.get("description", "")),
            "parameters": t.get("input_schema", {})}} for t in body["tools"] if isinstance(t, dict)]
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("auto", "any", "tool"):
        oai["tool_choice"] = "auto" if choice["type"] == "auto" else "required"
    if "stop_sequences" in body:
        oai["stop"] = body["stop_sequences"]
    return oai


def check(oai: JSONObject, *, jinja: bool, vision: bool) -> None:
    """The refusals of oaicompat_chat_params_parse, in its order."""
    choice = oai.get("tool_choice", "auto")
    if not jinja and oai.get("tools"):
        raise server_error("tools param requires --jinja flag")
    if not jinja and choice != "auto":
        raise server_error("tool_choice param requires --jinja flag")
    for msg in oai["messages"]:
        role = msg.get("role") if isinstance(msg, dict) else None
        if not isinstance(msg, dict) or (role != "assistant" and "content" not in msg):
            raise invalid("All non-assistant messages must contain 'content'")
        content = msg.get("content")
        if content is None or isinstance(content, str):
            continue
        if not isinstance(content, list):
            raise invalid("Expected 'content' to be a string or an array")
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "image_url" and not vision:
                raise server_error("image input is not supported - hint: if this is unexpected, you may need to "
                                   "provide the mmproj")
            if kind not in ("text", "image_url"):
                raise invalid("unsupported content[].type")


def render_turns(oai: JSONObject) -> tuple[str, list[JSONObject], list[tuple[str, str]]]:
    system = "\n".join(_text(m.get("content")) for m in oai["messages"] if m.get("role") == "system")
    turns = []
    for m in oai["messages"]:
        if m.get("role") == "system":
            continue
        calls = "".join(f"\n<tool_call>{c['function']['arguments']}</tool_call>" for c in m.get("tool_calls", []))
        thought = f"<think>{m['reasoning_content']}</think>" if m.get("reasoning_content") else ""
        turns.append((str(m.get("role", "")), f"{thought}{_text(m.get('content'))}{calls}"))
    return system, list(oai.get("tools", [])), turns


def _input(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def view(oai: JSONObject, body: JSONObject) -> JSONObject:
    """What the model reads, Anthropic-shaped: a user turn's text before its tool results (no is_error)."""
    out: list[JSONObject] = []
    for m in oai["messages"]:
        role, content = m.get("role"), m.get("content")
        if role == "system":
            continue
        if role == "tool":
            result = {"type": "tool_result", "tool_use_id": m.get("tool_call_id", ""), "content": _text(content)}
            if out and out[-1]["role"] == "user":
                out[-1]["content"].append(result)
            else:
                out.append({"role": "user", "content": [result]})
            continue
        blocks: list[JSONObject] = []
        if m.get("reasoning_content"):
            blocks.append({"type": "thinking", "thinking": m["reasoning_content"]})
        blocks += [{"type": "text", "text": _text(content)}] if _text(content) else []
        blocks += [{"type": "tool_use", "id": c["id"], "name": c["function"]["name"],
                    "input": _input(c["function"]["arguments"])} for c in m.get("tool_calls", [])]
        out.append({"role": role, "content": blocks})
    system, tools, _ = render_turns(oai)
    seen: JSONObject = {"model": body.get("model"), "max_tokens": oai.get("max_tokens"), "messages": out}
    if system:
        seen["system"] = system
    if tools:
        seen["tools"] = [{"name": t["function"]["name"], "description": t["function"]["description"],
                          "input_schema": t["function"]["parameters"]} for t in tools]
    return seen


def stop_reason(stop: str, has_tool_calls: bool) -> str:
    """to_json_anthropic: "max_tokens" unless the stop was the end token or a stop word."""
    if stop in ("eos", "stop_word"):
        return "tool_use" if has_tool_calls else "end_turn"
    return "max_tokens"
