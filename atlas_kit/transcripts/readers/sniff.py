"""`--format auto`: look at a file and say which reader fits and why, as a `Sniffed` a person can read.

Only the file's shape is read (keys, roles, block types), never its meaning; a file that fits none is one
TranscriptError that says what each format looks like and how to name one.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..model import Format, TranscriptError
from .base import envelopes, is_response_item, parse_any, read_bytes, read_text

__all__ = ["Sniffed", "sniff"]


@dataclass(frozen=True)
class Sniffed:
    """The format chosen for a file and the reason, in a few words ('a JSON list of episodes with traj')."""

    format: Format
    reason: str


def sniff(path: Path) -> Sniffed:
    """Which reader fits `path`: inspect for a .eval (zip) or a JSON object with `eval`; tau-bench for a list of
    objects with `traj` and `task_id`; atlas for JSONL records with `key` and `stop_reason`; anthropic or openai
    for chat messages, by their tool-call shapes (tool_use / tool_result blocks against tool_calls / role tool)."""
    if path.suffix == ".eval" or read_bytes(path)[:2] == b"PK":  # a missing or unreadable file is said plainly
        return Sniffed("inspect", "a .eval (zip) file, inspect_ai's log format")
    try:
        value, jsonl = parse_any(path)
    except TranscriptError:
        if _results_line(path):  # a results file a running sweep is writing ends in a line cut short
            return Sniffed("atlas", "JSONL records with 'key' and 'stop_reason', an atlas_kit results JSONL")
        raise
    if isinstance(value, dict) and "eval" in value and ("samples" in value or "version" in value):
        return Sniffed("inspect", "a JSON object with 'eval' and 'samples', inspect_ai's JSON log")
    first = value[0] if isinstance(value, list) and value else None
    if isinstance(first, dict) and "traj" in first and "task_id" in first:
        return Sniffed("tau-bench", "a JSON list of episodes with 'task_id' and 'traj', tau-bench's trajectories")
    if jsonl and isinstance(first, dict) and "key" in first and "stop_reason" in first:
        kind = "MCP log" if "calls" in first else "results JSONL"
        return Sniffed("atlas", f"JSONL records with 'key' and 'stop_reason', an atlas_kit {kind}")
    try:
        messages = [m for e in envelopes(path) for m in e.messages if isinstance(m, dict)]
    except TranscriptError as err:
        raise TranscriptError(str(path), "", "fits no known format; expected a tau-bench trajectory list, an "
                              "atlas_kit results JSONL, an inspect log, or chat messages (Anthropic or OpenAI). "
                              "Name one with --format.") from None
    return _chat(messages)


def _results_line(path: Path) -> bool:
    """Whether the file's first line is an atlas_kit results record (JSON with 'key' and 'stop_reason')."""
    first = next((line for line in read_text(path).splitlines() if line.strip()), "")
    try:
        value = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(value, dict) and "key" in value and "stop_reason" in value


def _block_types(messages: list[dict[str, object]]) -> set[object]:
    found: set[object] = set()
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            found |= {b["type"] for b in content if isinstance(b, dict) and isinstance(b.get("type"), str)}
    return found


def _chat(messages: list[dict[str, object]]) -> Sniffed:
    if _block_types(messages) & {"tool_use", "tool_result"}:
        return Sniffed("anthropic", "chat messages with tool_use / tool_result blocks, Anthropic's Messages format")
    if any("tool_calls" in m or m.get("role") == "tool" for m in messages):
        return Sniffed("openai", "chat messages with tool_calls or role 'tool', OpenAI's chat format")
    if any("function_call" in m or m.get("role") == "function" for m in messages):
        return Sniffed("openai", "chat messages with function_call or role 'function', OpenAI's older function "
                       "calling")
    if any(is_response_item(m) for m in messages):
        return Sniffed("openai", "items with function_call / function_call_output, OpenAI's Responses API")
    if any(m.get("role") in ("system", "developer") for m in messages):
        return Sniffed("openai", "chat messages with role 'system' or 'developer', OpenAI's chat format")
    return Sniffed("anthropic", "chat messages with no tool calls in either format's shape; read as Anthropic "
                   "Messages (both formats read plain text alike)")
