"""`--format auto`: look at a file and say which reader fits and why, as a `Sniffed` a person can read.

Only the file's shape is read (keys, roles, block types), never its meaning; a file that fits none is one
TranscriptError that says what each format looks like and how to name one.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..model import Format, TranscriptError
from .agentdojo import is_bundle_line, is_run, run_files
from .base import envelopes, is_response_item, parse_any, read_bytes, read_text
from .tau2_bench import is_results


@dataclass(frozen=True)
class Sniffed:
    """The format chosen for a file and the reason, in a few words ('a JSON list of episodes with traj')."""

    format: Format
    reason: str


def sniff(path: Path) -> Sniffed:
    """Which reader fits `path`: agentdojo for a folder of AgentDojo runs, one run (an object with pipeline_name,
    user_task_id and messages) or a bundle of them (JSONL of {path, run}); inspect for a .eval (zip) or a JSON object
    with `eval`; tau2-bench for an object with `info` and `simulations`; tau-bench for a list of objects with `traj`
    and `task_id`; atlas for JSONL records with `key` and `stop_reason`; anthropic or openai for chat messages, by
    their tool-call shapes (tool_use / tool_result blocks against tool_calls / role tool)."""
    if path.is_dir():
        return _folder(path)
    if path.suffix == ".eval" or read_bytes(path)[:2] == b"PK":  # a missing or unreadable file is said plainly
        return Sniffed("inspect", "a .eval (zip) file, inspect_ai's log format")
    if _bundle_line(path):  # read by its first line alone: a bundle of every run is large
        return Sniffed("agentdojo", "records of a run file's 'path' and its 'run', a bundle of AgentDojo runs")
    try:
        value, jsonl = parse_any(path)
    except TranscriptError:
        if _results_line(path):  # a results file a running sweep is writing ends in a line cut short
            return Sniffed("atlas", "JSONL records with 'key' and 'stop_reason', an atlas_kit results JSONL")
        raise
    found = _shaped(value, jsonl)
    if found is not None:
        return found
    try:
        messages = [m for e in envelopes(path) for m in e.messages if isinstance(m, dict)]
    except TranscriptError as err:
        raise TranscriptError(str(path), "", "fits no known format; expected a tau-bench trajectory list, "
                              "tau2-bench results, an AgentDojo run, an atlas_kit results JSONL, an inspect log, or "
                              "chat messages (Anthropic or OpenAI). "
                              "Name one with --format.") from None
    return _chat(messages)


def _shaped(value: object, jsonl: bool) -> Sniffed | None:
    """The format a parsed file's keys name, or None (chat messages, told apart by _chat)."""
    if isinstance(value, dict) and "eval" in value and ("samples" in value or "version" in value):
        return Sniffed("inspect", "a JSON object with 'eval' and 'samples', inspect_ai's JSON log")
    if is_results(value):
        return Sniffed("tau2-bench", "a JSON object with 'info' and 'simulations', tau2-bench's results")
    if is_run(value):
        return Sniffed("agentdojo", "a JSON object with 'pipeline_name', 'user_task_id' and 'messages', an AgentDojo "
                       "run")
    first = value[0] if isinstance(value, list) and value else None
    if is_bundle_line(first):
        return Sniffed("agentdojo", "a JSON list of a run file's 'path' and its 'run', a bundle of AgentDojo runs")
    if isinstance(first, dict) and "traj" in first and "task_id" in first:
        return Sniffed("tau-bench", "a JSON list of episodes with 'task_id' and 'traj', tau-bench's trajectories")
    if jsonl and isinstance(first, dict) and "key" in first and "stop_reason" in first:
        kind = "MCP log" if "calls" in first else "results JSONL"
        return Sniffed("atlas", f"JSONL records with 'key' and 'stop_reason', an atlas_kit {kind}")
    return None


def _folder(path: Path) -> Sniffed:
    """A folder is read only as AgentDojo's runs folder."""
    found = len(run_files(path))
    if not found:
        raise TranscriptError(str(path), "", "is a folder with no AgentDojo runs (<model>/<suite>/<user_task>/"
                              "none/none.json in it); give transcript files, or an AgentDojo runs folder.")
    return Sniffed("agentdojo", f"a folder of {found:,} AgentDojo runs (<model>/<suite>/<user_task>/none/none.json)")


def _first_line(path: Path) -> object:
    """The file's first non-blank line as JSON, or None when it is not JSON on its own."""
    first = next((line for line in read_text(path).splitlines() if line.strip()), "")
    try:
        return json.loads(first)
    except json.JSONDecodeError:
        return None


def _bundle_line(path: Path) -> bool:
    return is_bundle_line(_first_line(path))


def _results_line(path: Path) -> bool:
    """Whether the file's first line is an atlas_kit results record (JSON with 'key' and 'stop_reason')."""
    value = _first_line(path)
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
