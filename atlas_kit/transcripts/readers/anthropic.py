"""Anthropic Messages transcripts: user and assistant messages whose content is a string or a list of blocks
(`text`, `tool_use`, `tool_result` with `is_error`). The error flag is the data's; a result without it is taken
as not an error (the API's default), with basis "absent". The API's own tools count too: an MCP connector call
(`mcp_tool_use`, answered by `mcp_tool_result` with `is_error`) and a server tool call (`server_tool_use`, answered
by `web_search_tool_result` and the like, an error when its content is a `..._error` object: its error_code is the
text). A result's text is its text blocks; an image or a document in it is a placeholder ("[image]"), never its
bytes. Thinking and other blocks are passed over.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from ...types.walk import content_blocks, result_text
from ..model import Episode, ErrorBasis, Format, ModelText, ToolCall, ToolResult, TranscriptError, Turn, UserText
from .base import CallBook, arguments_of, envelopes, text_field
from .openai import episode_of, part_text


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
        for k, block in enumerate(_typed_blocks(message.get("content"))):
            turns += _block(block, role == "assistant", i, book, path, f"{at}, block {k}")
    return tuple(turns)


_CALLS = ("tool_use", "mcp_tool_use", "server_tool_use")


def _typed_blocks(content: object) -> list[Mapping[str, object]]:
    """Every block of a message's content that has a string type: content_blocks' three kinds, and the API's own
    tools' blocks (as dicts; an SDK block is dumped), so a server tool's error is not passed over."""
    if isinstance(content, str) or not isinstance(content, (list, tuple)):
        return list(content_blocks(content))
    found: list[Mapping[str, object]] = []
    for item in content:
        dump = getattr(item, "model_dump", None)
        block = item if isinstance(item, dict) else dump(exclude_none=True) if callable(dump) else None
        if isinstance(block, dict) and isinstance(block.get("type"), str):
            found.append(block)
    return found


def _result_text(content: object) -> str:
    """A result's content as the model read it: a string, or its text blocks joined, with a placeholder for each
    other block ("[image]"); a server tool's error object is its error_code."""
    if isinstance(content, dict):
        kind = str(content.get("type", ""))
        return str(content.get("error_code", kind)) if kind.endswith("_error") else f"[{kind or 'result'}]"
    if not isinstance(content, list):
        return result_text(content)
    parts = [str(b.get("text", "")) if b.get("type") == "text" else f"[{b.get('type', 'block')}]"
             for b in content if isinstance(b, dict)]
    return " ".join(parts)


def _block(block: Mapping[str, object], assistant: bool, i: int, book: CallBook, path: Path, at: str) -> list[Turn]:
    kind = str(block["type"])  # _typed_blocks keeps only blocks whose type is a string
    if kind in _CALLS:
        return _call(block, assistant, i, book, path, at)
    if kind == "tool_result" or kind == "mcp_tool_result":
        return [_flagged_result(block, i, book, path, at)]
    if kind.endswith("_tool_result"):  # a server tool's result: an error object, or what it found
        call_id = book.answered(text_field(block, "tool_use_id", path, at, f"this {kind} block"), at)
        content = block.get("content")
        failed = isinstance(content, dict) and str(content.get("type", "")).endswith("_error")
        return [ToolResult(call_id, failed, "flag", _result_text(content), i)]
    if kind == "text":
        text = block.get("text")
        if not isinstance(text, str):
            raise TranscriptError(str(path), at, "a text block has no 'text' string; expected one.")
        return [] if not text.strip() else [ModelText(text, i) if assistant else UserText(text, i)]
    return []  # thinking, an image the user sent, a citation: no turn of the loop


def _call(block: Mapping[str, object], assistant: bool, i: int, book: CallBook, path: Path, at: str) -> list[Turn]:
    kind = block["type"]
    if not assistant:
        raise TranscriptError(str(path), at, f"a {kind} block is in a user message; expected it in an assistant one.")
    call_id = text_field(block, "id", path, at, f"this {kind} block")
    book.made(call_id)
    return [ToolCall(call_id, text_field(block, "name", path, at, f"this {kind} block"),
                     arguments_of(block.get("input", {})), i)]


def _flagged_result(block: Mapping[str, object], i: int, book: CallBook, path: Path, at: str) -> ToolResult:
    kind = block["type"]
    call_id = book.answered(text_field(block, "tool_use_id", path, at, f"this {kind} block"), at)
    flag = block.get("is_error")
    if flag is not None and not isinstance(flag, bool):
        raise TranscriptError(str(path), at, f"'is_error' is {flag!r}; expected true or false.")
    basis: ErrorBasis = "flag" if flag is not None else "absent"
    return ToolResult(call_id, bool(flag), basis, _result_text(block.get("content")), i)


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
