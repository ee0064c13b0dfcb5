"""Reading a transcript and writing canonical JSON: `blocks` is the one walker over a transcript,
`content_blocks` reads one message, `canonical` is the one canonical JSON. Chapter 13's own loop uses them.
"""
from __future__ import annotations

import json
import typing
from collections.abc import Iterable, Iterator, Mapping

from .api import Block, Placed, Role

_FIELDS = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input"),
           "tool_result": ("type", "tool_use_id", "content", "is_error")}


def content_blocks(content: object) -> Iterator[Block]:
    """The blocks of one message's content, in order: a string is one text block, an SDK block (or any object
    with the block's attributes) becomes its dict, and any other kind of block (thinking, ...) is passed over."""
    if isinstance(content, str):
        yield {"type": "text", "text": content}
        return
    if not isinstance(content, (list, tuple)) and (  # the usual content skips the slower abstract checks
            not isinstance(content, Iterable) or isinstance(content, (bytes, Mapping))):
        return
    for item in content:
        if not isinstance(item, dict):
            dump = getattr(item, "model_dump", None)
            fields = _FIELDS.get(str(getattr(item, "type", "")), ())
            item = dump(exclude_none=True) if callable(dump) else {f: getattr(item, f) for f in fields if hasattr(item, f)}
        kind = item.get("type") if isinstance(item, dict) else None
        if isinstance(kind, str) and kind in _FIELDS:  # any JSON may stand where a type should
            yield typing.cast(Block, item)


def blocks(messages: Iterable[object]) -> Iterator[Placed]:
    """Every block of a transcript (a list of Message) with its message's index and role: the one walker
    display, playground, the checks, the grader, transport and replay share. Non-messages are passed over."""
    for at, message in enumerate(messages):
        if not isinstance(message, Mapping):
            continue
        role: Role = "assistant" if message.get("role") == "assistant" else "user"
        for block in content_blocks(message.get("content")):
            yield Placed(at, role, block)


def result_text(content: object) -> str:
    """A tool_result's content as one string: text blocks joined, anything else as compact JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        return " ".join(str(b.get("text", "")) for b in content)
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def canonical(value: object) -> str:
    """`value` as canonical JSON: sorted keys, no spaces, non-JSON values as their str(). Two equal values
    always give the same text, so it keys fingerprints, argument digests and token estimates."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
