"""Ollama's streamed answer (anthropic.go StreamConverter.Process, middleware/anthropic.go writeSSE), built
from the finished message: message_start carries the len/4 estimate as input_tokens (the first chunk has no
metrics yet), the real counts come in message_delta. The fake sends the events at once, not token by token.
"""
from __future__ import annotations

from atlas_kit.types import JSONObject

from ._golike import go_json
from ._server import Reply

__all__ = ["events", "reply"]


def _event(data: JSONObject) -> str:
    return f"event: {data['type']}\ndata: {go_json(data)}\n\n"


def _block(index: int, start: JSONObject, delta: JSONObject) -> list[JSONObject]:
    return [{"type": "content_block_start", "index": index, "content_block": start},
            {"type": "content_block_delta", "index": index, "delta": delta}]


def _stop(index: int) -> JSONObject:
    return {"type": "content_block_stop", "index": index}


def events(message: JSONObject, estimate: int) -> list[JSONObject]:
    """The events, in order, for one answer: thinking, then text, then each tool call, then the stop."""
    head = {k: message[k] for k in ("id", "type", "role", "model")}
    out: list[JSONObject] = [{"type": "message_start", "message": {
        **head, "content": [], "usage": {"input_tokens": estimate, "output_tokens": 0}}}]
    blocks = message.get("content") or []
    index, open_block = 0, False
    for block in blocks:
        if open_block:  # a thinking or text block closes when the next kind starts
            out.append(_stop(index))
            index += 1
            open_block = False
        if block["type"] == "thinking":
            out += _block(index, {"type": "thinking", "thinking": ""},
                          {"type": "thinking_delta", "thinking": block["thinking"]})
            open_block = True
        elif block["type"] == "text":
            out += _block(index, {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]})
            open_block = True
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            out += _block(index, start, {"type": "input_json_delta", "partial_json": go_json(block["input"])})
            out.append(_stop(index))
            index += 1
    if open_block:
        out.append(_stop(index))
    delta: JSONObject = {"stop_reason": message["stop_reason"]} if "stop_reason" in message else {}
    out.append({"type": "message_delta", "delta": delta, "usage": message["usage"]})
    out.append({"type": "message_stop"})
    return out


def reply(message: JSONObject, estimate: int) -> Reply:
    body = "".join(_event(e) for e in events(message, estimate))
    return Reply(200, body.encode(), "text/event-stream",
                 headers=(("Cache-Control", "no-cache"), ("Connection", "keep-alive")))
