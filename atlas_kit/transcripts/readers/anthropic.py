"""Anthropic Messages transcripts: user and assistant messages whose content is a string or a list of blocks
(`text`, `tool_use`, `tool_result` with `is_error`). The error flag is the data's; a result without it is taken
as not an error (the API's default), with basis "absent". Thinking, image and other blocks are passed over.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from ...types import content_blocks, result_text
from ..model import Episode, ErrorBasis, Format, ModelText, ToolCall, ToolResult, TranscriptError, Turn, UserText
from .base import CallBook, arguments_of, envelopes, text_field
from .openai import episode_of, part_text

__all__ = ["AnthropicReader", "message_turns"]


def message_turns(messages: Sequence[object], path: Path, where: str) -> tuple[Turn, ...]:
    """The turns of a Messages API transcript (the list of `messages`, not the system prompt)."""
    turns: list[Turn] = []
    book = CallBook(path)
    for i, message in enumerate(messages):
        at = f"{where}, message {i}"
        role = message.get("role") if isinstance(message, dict) else None
        if not isinstance(message, dict) or role not in ("user", "assistant"):
            raise TranscriptError(str(path), at, f"has role {role!r}; expected a message with role 'user' or "
                                  "'assistant' (Anthropic Messages format).")
        if "content" not in message:
            raise TranscriptError(str(path), at, "has no 'content'; expected a string or a list of blocks.")
        for k, block in enumerate(content_blocks(message.get("content"))):
            turns += _block(block, role == "assistant", i, book, path, f"{at}, block {k}")
    return tuple(turns)


def _block(block: Mapping[str, object], assistant: bool, i: int, book: CallBook, path: Path, at: str) -> list[Turn]:
    kind = block["type"]
    if kind == "text":
        text = block.get("text")
        if not isinstance(text, str):
            raise TranscriptError(str(path), at, "a text block has no 'text' string; expected one.")
        return [] if not text.strip() else [ModelText(text, i) if assistant else UserText(text, i)]
    if kind == "tool_use":
        if not assistant:
            raise TranscriptError(str(path), at, "a tool_use block is in a user message; expected it in an "
                                  "assistant one.")
        call_id = text_field(block, "id", path, at, "this tool_use block")
        book.made(call_id)
        return [ToolCall(call_id, text_field(block, "name", path, at, "this tool_use block"),
                         arguments_of(block.get("input", {})), i)]
    call_id = book.answered(text_field(block, "tool_use_id", path, at, "this tool_result block"), at)
    flag = block.get("is_error")
    if flag is not None and not isinstance(flag, bool):
        raise TranscriptError(str(path), at, f"'is_error' is {flag!r}; expected true or false.")
    basis: ErrorBasis = "flag" if flag is not None else "absent"
    return [ToolResult(call_id, bool(flag), basis, result_text(block.get("content")), i)]


class AnthropicReader:
    """Reads Anthropic Messages transcripts in any envelope base.envelopes accepts (a request body works: its
    `system` becomes the episode's system text). An envelope object may carry `id`, `model`, `task_id`, `trial`,
    and `correct` or `reward` (base.outcome_of); a bare list of messages has an unknown outcome."""

    format: Format = "anthropic"

    def read(self, path: Path) -> list[Episode]:
        episodes = []
        for e in envelopes(path):
            system = e.fields.get("system")
            episodes.append(episode_of(path, e, message_turns(e.messages, path, e.where),
                                       system if isinstance(system, str) else part_text(system), self.format))
        return episodes
