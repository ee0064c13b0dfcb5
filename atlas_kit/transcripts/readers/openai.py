"""OpenAI transcripts: chat messages with roles system/developer, user, assistant (with `tool_calls`) and tool; the
older function calling (an assistant's `function_call`, answered by a message with role `function`); and the
Responses API's items (`function_call` and `function_call_output`, beside its messages).

None of them has an error flag on a tool's answer, so errors are inferred from the text by `looks_like_error`, a
heuristic stated below (every result's basis is "text"). tau_bench.py reuses `chat_turns` with its own rule.
A legacy function call has no id: it is named `function_call@<message>`, and a `function` message answers the
oldest call not yet answered (one call per message, in order, as that API had them).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable, Sequence

from ..model import Episode, ErrorBasis, Format, ModelText, ToolCall, ToolResult, TranscriptError, Turn, UserText
from .base import (CallBook, Envelope, arguments_of, envelopes, evidence_of, is_response_item, outcome_of, task_of,
                   text_field)

_ERROR_WORD = re.compile(r"\s*(?:error|exception)\b", re.IGNORECASE)
# An exception as Python writes it: its class (a dotted module path allowed) then ": message" (str of the exception,
# as AgentDojo and most tool runners send it), "(...)" (its repr, as the Anthropic SDK's tool runner sends it), or
# nothing; the class ends in Error or Exception, as Python's own and most libraries' do.
_EXCEPTION = re.compile(r"\s*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)(?:\s*:|\(|\s*$)")
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)", re.IGNORECASE)


def looks_like_error(text: str) -> bool:
    """The OpenAI reader's heuristic, since the format has no flag: a tool message is an error when its text starts
    with the word error or exception (any case), or with an exception as Python writes it (`ValueError: ...`,
    `pydantic_core._pydantic_core.ValidationError: 1 validation error ...`, `KeyError: 'x'`, `ValueError('x')`),
    or holds a traceback ('Traceback (most recent call last)'), or is a JSON object whose `error` is set (not null,
    false or empty) or whose `is_error` / `isError` is true. It can miss an error worded otherwise ("Flight not
    found") and cannot tell a result that merely starts with the word."""
    if _ERROR_WORD.match(text) or _EXCEPTION.match(text) or _TRACEBACK.search(text):
        return True
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        return False
    return isinstance(body, dict) and (bool(body.get("error")) or body.get("is_error") is True
                                       or body.get("isError") is True)


def part_text(content: object) -> str:
    """A message's content as text: a string, or the `text` of each part of a list, joined; None is ''."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def chat_turns(messages: Sequence[object], path: Path, where: str, *, is_error: Callable[[str], bool],
               basis: ErrorBasis = "text") -> tuple[tuple[Turn, ...], str]:
    """The turns of an OpenAI-format transcript and its system text; `is_error` decides each tool message."""
    turns: list[Turn] = []
    system: list[str] = []
    book = CallBook(path)
    legacy: list[str] = []  # legacy function calls not yet answered, oldest first
    for i, message in enumerate(messages):
        at = f"message {i}"
        if not isinstance(message, dict):
            raise TranscriptError(str(path), f"{where}, {at}", "is not an object; expected a chat message with 'role'.")
        if is_response_item(message):
            turns += _item(message, i, book, path, f"{where}, {at}", is_error=is_error, basis=basis)
            continue
        _no_blocks(message.get("content"), path, f"{where}, {at}")
        role, text = message.get("role"), part_text(message.get("content"))
        if role in ("system", "developer"):
            system.append(text)
        elif role == "user":
            turns.append(UserText(text, i))
        elif role == "assistant":
            turns += _assistant(message, i, text, book, path, f"{where}, {at}", legacy)
        elif role == "tool":
            call_id = book.answered(text_field(message, "tool_call_id", path, f"{where}, {at}", "this tool message"),
                                   f"{where}, {at}")
            turns.append(ToolResult(call_id, is_error(text), basis, text, i))
        elif role == "function":
            if not legacy:
                raise TranscriptError(str(path), f"{where}, {at}", "a function message answers no function_call "
                                      "made before it; expected an assistant message with 'function_call' first.")
            turns.append(ToolResult(book.answered(legacy.pop(0), f"{where}, {at}"), is_error(text), basis, text, i))
        else:
            raise TranscriptError(str(path), f"{where}, {at}", f"has role {role!r}; expected system, developer, "
                                  "user, assistant, tool or function (OpenAI chat format).")
    return tuple(turns), "\n\n".join(s for s in system if s)


def _item(item: dict[str, object], i: int, book: CallBook, path: Path, where: str, *,
          is_error: Callable[[str], bool], basis: ErrorBasis) -> list[Turn]:
    """A Responses API item that is not a message: a call, a call's output, or reasoning (passed over)."""
    kind = item["type"]
    if kind in ("function_call", "custom_tool_call"):
        call_id = text_field(item, "call_id", path, where, f"this {kind}")
        book.made(call_id)
        raw = item.get("arguments", "") if kind == "function_call" else item.get("input", "")
        return [ToolCall(call_id, text_field(item, "name", path, where, f"this {kind}"), arguments_of(raw), i)]
    if kind in ("function_call_output", "custom_tool_call_output"):
        call_id = book.answered(text_field(item, "call_id", path, where, f"this {kind}"), where)
        output = item.get("output")
        text = output if isinstance(output, str) else part_text(output)
        return [ToolResult(call_id, is_error(text), basis, text, i)]
    return []  # reasoning: the model's own notes, not a turn the analysis reads


def _no_blocks(content: object, path: Path, at: str) -> None:
    """Refuse Anthropic tool blocks: read as OpenAI parts they would vanish, and their errors with them."""
    if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") in ("tool_use", "tool_result")
                                         for p in content):
        raise TranscriptError(str(path), at, "holds an Anthropic tool_use or tool_result block; expected OpenAI "
                              "chat messages (tool_calls, role 'tool'). Read it as format 'anthropic'.")


def _assistant(message: dict[str, object], i: int, text: str, book: CallBook, path: Path, where: str,
               legacy: list[str]) -> list[Turn]:
    turns: list[Turn] = [ModelText(text, i)] if text.strip() else []
    function = message.get("function_call")
    if function is not None:  # the older function calling: one call, no id
        if not isinstance(function, dict):
            raise TranscriptError(str(path), where, "'function_call' is not an object; expected {'name': ..., "
                                  "'arguments': ...}.")
        call_id = f"function_call@{i}"
        book.made(call_id)
        legacy.append(call_id)
        name = text_field(function, "name", path, where, "this function_call")
        turns.append(ToolCall(call_id, name, arguments_of(function.get("arguments", "")), i))
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise TranscriptError(str(path), where, "'tool_calls' is not a list; expected a list of tool calls.")
    for k, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(call, dict) or not isinstance(function, dict):
            raise TranscriptError(str(path), f"{where}, tool call {k}", "has no 'function' object; expected "
                                  "{'id': ..., 'function': {'name': ..., 'arguments': ...}}.")
        call_id = text_field(call, "id", path, f"{where}, tool call {k}", "this tool call")
        name = text_field(function, "name", path, f"{where}, tool call {k}", "this tool call's function")
        book.made(call_id)
        turns.append(ToolCall(call_id, name, arguments_of(function.get("arguments", "")), i))
    return turns


class OpenAIReader:
    """Reads OpenAI chat transcripts in any envelope base.envelopes accepts. An envelope object may carry `id`,
    `model`, `task_id`, `trial`, and `correct` or `reward` (see base.outcome_of); a bare list has none of them,
    so its outcome is unknown."""

    format: Format = "openai"

    def read(self, path: Path) -> list[Episode]:
        return [self._episode(path, e) for e in envelopes(path)]

    def _episode(self, path: Path, e: Envelope) -> Episode:
        turns, system = chat_turns(e.messages, path, e.where, is_error=looks_like_error)
        return episode_of(path, e, turns, system, self.format)


def episode_of(path: Path, e: Envelope, turns: tuple[Turn, ...], system: str, format: Format) -> Episode:
    """The episode of a chat envelope: its fields give id, model, task, trial and outcome when present."""
    model = e.fields.get("model")
    model = model if isinstance(model, str) and model else None
    task, trial = e.fields.get("task_id"), e.fields.get("trial")
    return Episode(id=str(e.fields.get("id") or f"record-{e.record}"), format=format, file=str(path),
                   record=e.record, line=e.line, turns=turns, outcome=outcome_of(e.fields, path, e.where),
                   evidence=evidence_of(model), task_id=task_of(task, path, e.where),
                   trial=trial if isinstance(trial, int) and not isinstance(trial, bool) else None,
                   model=model, system=system)
