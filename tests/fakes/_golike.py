"""What Ollama's Go code does to JSON that shows on the wire: its serialisation (encoding/json escapes <, >
and &, sorts the keys of a decoded map) and its request decoding errors, and the len/4 token estimate of
anthropic.go (`estimateTokens`), which counts Go byte lengths. Only what ollama.py needs; see QUIRKS.md.
"""
from __future__ import annotations

import json
from typing import Any

from atlas_kit.types import JSONObject

__all__ = ["GoDecodeError", "decode", "estimate_tokens", "go_json"]


def go_json(value: Any) -> str:
    """`json.Marshal` output: compact, UTF-8, with <, >, &, U+2028 and U+2029 escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def _sorted(value: Any) -> Any:
    """A value decoded into Go's `any`: objects become map[string]any, which Go marshals with sorted keys."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


class GoDecodeError(ValueError):
    """A request body encoding/json would refuse, with the message Go gives (see QUIRKS.md for how close)."""


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return f"number {value}" if isinstance(value, float) and not value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else "null"


_FIELDS = (("model", str, "string"), ("max_tokens", int, "int"), ("messages", list, "[]anthropic.MessageParam"),
           ("tools", list, "[]anthropic.Tool"), ("stream", bool, "bool"))


def decode(raw: bytes) -> JSONObject:
    """Decode a `POST /v1/messages` body as gin's ShouldBindJSON into anthropic.MessagesRequest would."""
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        raise GoDecodeError("EOF")
    try:
        body = json.loads(text)
    except json.JSONDecodeError as err:
        if err.pos >= len(text.rstrip()):
            raise GoDecodeError("unexpected EOF") from None
        raise GoDecodeError(f"invalid character '{text[err.pos]}' looking for beginning of value") from None
    if not isinstance(body, dict):
        raise GoDecodeError(f"json: cannot unmarshal {_kind(body)} into Go value of type anthropic.MessagesRequest")
    for name, want, go_type in _FIELDS:
        value = body.get(name)
        wrong = value is not None and (not isinstance(value, want) or (want is int and isinstance(value, bool)))
        if wrong:
            raise GoDecodeError(f"json: cannot unmarshal {_kind(value)} into Go struct field "
                                f"MessagesRequest.{name} of type {go_type}")
    return body


def _len(text: Any) -> int:
    return len(text.encode()) if isinstance(text, str) else 0


def _block_length(block: Any) -> int:
    """countContentBlock: text and thinking by length; a tool_use or tool_result by its marshalled length."""
    if not isinstance(block, dict):
        return 0
    total = _len(block.get("text")) + _len(block.get("thinking"))
    kind = block.get("type")
    if kind == "tool_use":
        shown: JSONObject = {"type": kind}
        for key in ("id", "name"):
            if block.get(key):
                shown[key] = block[key]
        if isinstance(block.get("input"), dict) and block["input"]:
            shown["input"] = {k: _sorted(v) for k, v in block["input"].items()}  # an ordered map at the top
        total += len(go_json(shown).encode())
    elif kind == "tool_result":
        shown = {"type": kind}
        if block.get("tool_use_id"):
            shown["tool_use_id"] = block["tool_use_id"]
        if block.get("content") is not None:
            shown["content"] = _sorted(block["content"])
        if block.get("is_error") is True:
            shown["is_error"] = True
        total += len(go_json(shown).encode())
    return total


def _content_length(content: Any) -> int:
    if isinstance(content, str):
        return _len(content)
    if isinstance(content, list):
        return sum(_block_length(b) for b in content)
    return 0


def estimate_tokens(body: JSONObject) -> int:
    """EstimateInputTokens: (system + each role and content + each tool's name, description and schema) / 4.

    A tool's schema counts as the bytes the client sent; this recomputes them with the compact encoding the
    anthropic SDK uses (separators "," and ":", no ASCII escaping), so it is exact for the SDK's requests.
    """
    messages = body.get("messages") or []
    system = body.get("system")
    total = _content_length(system)
    for message in messages:
        if isinstance(message, dict):
            total += _len(message.get("role")) + _content_length(message.get("content"))
    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            schema = tool.get("input_schema")
            raw = json.dumps(schema, ensure_ascii=False, separators=(",", ":")) if schema is not None else ""
            total += _len(tool.get("name")) + _len(tool.get("description")) + len(raw.encode())
    tokens = total // 4
    if tokens == 0 and (messages or system is not None):
        tokens = 1
    return tokens
