"""The token estimate every layer shares: about four characters per token, with no tokenizer and no SDK, for a
text (`estimate_tokens`) and for a whole Messages request (`request_tokens`).

An approximation for comparing texts (an error against another, an answer against the rubric's 80-token mark),
never for a bill: real counts differ by language and content. Chapter 07 shows both uses.
"""
from __future__ import annotations

import copy
import math
from typing import Mapping

from .walk import canonical, content_blocks

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """About 4 characters per token, rounded up: ceil(len(text) / 4). An approximation, not a tokenizer.

    Monotone: a longer text never estimates fewer tokens. Real counts differ by language and content.
    """
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def request_tokens(body: Mapping[str, object]) -> int:
    """Estimated input tokens of a request: system, every message's content, and the tool definitions.

    Counts text, tool_use input (as compact JSON), tool_result content and each tool's
    name, description and input_schema; roles and framing are not counted.
    """
    parts: list[str] = []
    system = body.get("system")
    parts.extend([system] if isinstance(system, str) else block_texts(system or []))
    for message in _objects(body.get("messages")):
        content = message.get("content")
        parts.extend([content] if isinstance(content, str) else block_texts(content or []))
    parts.append(_tools_text(body.get("tools")))
    return estimate_tokens("".join(parts))


class _Counted:
    """The last few tool lists counted (copies, so a list changed in place later is no match) and their text, newest
    last: a tuple replaced whole, so a thread reading it never sees it half-changed. It lives on one object bound
    once: the grader's checking kernel (course/grading/judge.py) takes a module-level name rebound while an answer
    is checked for tampering, and a check that counts a request's tokens must not look like one."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self.recent: tuple[tuple[object, str], ...] = ()


_COUNTED = _Counted(8)


def _tools_text(tools: object) -> str:
    """What a request's tool definitions count as. A sweep sends the same few lists with every request: a list equal
    (as Python values) to one counted recently is not serialised again; comparing costs a fraction of canonical JSON."""
    recent = _COUNTED.recent
    for seen, text in reversed(recent):
        if seen == tools:
            return text
    text = "".join(part for tool in _objects(tools) for part in (str(tool.get("name", "")),
                   str(tool.get("description", "")), canonical(tool.get("input_schema", {}))))
    if isinstance(tools, list):
        _COUNTED.recent = (*recent[-(_COUNTED.kept - 1):], (copy.deepcopy(tools), text))
    return text


def _objects(items: object) -> list[Mapping[str, object]]:
    """The JSON objects in a request's list (its messages, its tools); anything else there counts no tokens."""
    return [item for item in items if isinstance(item, Mapping)] if isinstance(items, (list, tuple)) else []


def block_texts(blocks: object) -> list[str]:
    """What a message's blocks count as: text, a tool call's name and compact input, a tool result's content."""
    texts: list[str] = []
    for block in content_blocks(blocks):
        if block["type"] == "text":
            texts.append(block.get("text", ""))
        elif block["type"] == "tool_use":
            texts.extend([block.get("name", ""), canonical(block.get("input", {}))])
        else:
            content = block.get("content", "")
            texts.extend([content] if isinstance(content, str) else block_texts(content))
    return texts
