"""What every reader shares: the `Reader` protocol, loading JSON or JSONL (gzipped or not) into one
TranscriptError per problem, the envelopes chat transcripts come in, and the small field checks.

No format's own rules here: each reader's module states them. Chapter "Errors in the wild".
"""
from __future__ import annotations

import gzip
import json
import math
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence

from ...types.sets import JSONObject
from ...types.walk import canonical
from ..model import Episode, Evidence, Format, Outcome, TranscriptError


class Reader(Protocol):
    """A transcript reader: one format, one module. `read` returns the file's episodes in file order, or raises
    TranscriptError with one line; it never returns part of a file."""

    format: Format

    def read(self, path: Path) -> list[Episode]: ...


_LAST: list[tuple[tuple[str, int, int], bytes]] = []  # (path, mtime, size) and its bytes


def read_bytes(path: Path) -> bytes:
    """The file's bytes, un-gzipped when it ends in .gz; a file that cannot be read is one TranscriptError. Sniffing
    a file, reading it and checking its provenance read the same bytes: the last file read is kept for them."""
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
        if _LAST and _LAST[0][0] == key:
            return _LAST[0][1]
        data = path.read_bytes()
        data = gzip.decompress(data) if path.suffix == ".gz" else data
        _LAST[:] = [(key, data)]
        return data
    except FileNotFoundError:
        raise TranscriptError(str(path), "", "no such file; give the path of a transcript file.") from None
    except (OSError, EOFError, zlib.error) as err:  # gzip.BadGzipFile is an OSError; a damaged stream a zlib.error
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise TranscriptError(str(path), "", f"cannot be read ({reason}); give a readable (optionally gzipped) "
                              "file.") from None


def read_text(path: Path) -> str:
    """The file's text, un-gzipped when it ends in .gz."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8-sig")  # a byte-order mark some editors write first is no part of the JSON
    except UnicodeDecodeError as err:
        raise TranscriptError(str(path), f"byte {err.start}", "is not UTF-8 text; expected a JSON or JSONL "
                              "file.") from None


def load_json(path: Path) -> object:
    """The file as one JSON value; a file that is not JSON names the line and column where parsing stopped."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise TranscriptError(str(path), f"line {err.lineno}, column {err.colno}",
                              f"is not JSON ({err.msg}); expected one JSON document or one JSON value per "
                              "line.") from None


def load_jsonl(path: Path, text: str | None = None) -> list[tuple[int, object]]:
    """(1-based line, value) for every non-blank line (of `text` when given, the file's already read); a line that
    is not JSON is named."""
    found: list[tuple[int, object]] = []
    for n, line in enumerate((read_text(path) if text is None else text).splitlines(), start=1):
        if line.strip():
            try:
                found.append((n, json.loads(line)))
            except json.JSONDecodeError as err:
                raise TranscriptError(str(path), f"line {n}", f"is not JSON ({err.msg}); expected one JSON value "
                                      "per line (JSONL).") from None
    return found


def parse_any(path: Path) -> tuple[object, bool]:
    """The file as one JSON value, or (when it is JSONL: its first line is JSON on its own) the list of its
    lines' values; the flag says JSONL."""
    text = read_text(path)
    try:
        return json.loads(text), False
    except json.JSONDecodeError:
        first = next((line for line in text.splitlines() if line.strip()), "")
        try:
            json.loads(first)
        except json.JSONDecodeError:  # not JSONL either: say where the document's parsing stopped
            load_json(path)
        return [value for _, value in load_jsonl(path)], True


@dataclass(frozen=True)
class Envelope:
    """One episode's messages as a chat file holds them, with its place and the fields around them."""

    record: int
    line: int | None
    messages: Sequence[object]
    fields: Mapping[str, object]

    @property
    def where(self) -> str:
        return f"line {self.line}" if self.line is not None else f"record {self.record}"


def envelopes(path: Path) -> list[Envelope]:
    """The episodes of a chat transcript file. Accepted: a JSON list of messages (one episode); a JSON object
    with `messages`, or with `input` (and `output`) as OpenAI's Responses API has them; a JSON list of such objects;
    or JSONL whose lines are either. A message is an object with `role`, or a Responses API item (is_message)."""
    value, jsonl = parse_any(path)
    if isinstance(value, dict):
        return [_envelope(path, value, 0, None)]
    if not isinstance(value, list) or not value:
        raise TranscriptError(str(path), "", f"holds {_kind(value)}; expected a list of messages, an object with "
                              "'messages', or one of those per line (JSONL).")
    if not jsonl and all(is_message(m) for m in value):
        return [Envelope(0, None, value, {})]
    lines = [n for n, _ in load_jsonl(path)] if jsonl else [None] * len(value)
    return [_envelope(path, item, i, lines[i]) for i, item in enumerate(value)]


def _envelope(path: Path, item: object, record: int, line: int | None) -> Envelope:
    where = f"line {line}" if line is not None else f"record {record}"
    if isinstance(item, list) and all(is_message(m) for m in item):
        return Envelope(record, line, item, {})
    if isinstance(item, dict) and isinstance(item.get("messages"), list):
        return Envelope(record, line, item["messages"], item)
    if isinstance(item, dict) and isinstance(item.get("input"), list) and all(is_message(m) for m in item["input"]):
        output = item.get("output")
        return Envelope(record, line, [*item["input"], *(output if isinstance(output, list) else [])], item)
    raise TranscriptError(str(path), where, f"is {_kind(item)}; expected an object with a 'messages' list, or a "
                          "list of messages (objects with 'role').")


# The items of OpenAI's Responses API that are not chat messages (no `role`): a call, its output, the model's
# reasoning. A reader decides what each means (openai.py); here they only mark a list as a conversation.
RESPONSE_ITEMS = frozenset({"function_call", "function_call_output", "reasoning", "custom_tool_call",
                            "custom_tool_call_output"})


def is_response_item(value: object) -> bool:
    """Whether `value` is a Responses API item: an object with no `role` whose `type` names one (any JSON may
    stand where a type should, a list or an object included)."""
    if not isinstance(value, dict) or "role" in value:
        return False
    kind = value.get("type")
    return isinstance(kind, str) and kind in RESPONSE_ITEMS


def is_message(value: object) -> bool:
    """Whether `value` can be one entry of a conversation: an object with `role`, or a Responses API item."""
    return isinstance(value, dict) and ("role" in value or is_response_item(value))


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return f"an object with keys {', '.join(sorted(map(str, value))[:6]) or 'none'}"
    if isinstance(value, list):
        return "an empty list" if not value else f"a list of {type(value[0]).__name__}"
    return f"a JSON {type(value).__name__}"


def text_field(obj: Mapping[str, object], key: str, path: Path, where: str, what: str) -> str:
    """obj[key] as a non-empty string, else one TranscriptError saying which field `what` needs."""
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise TranscriptError(str(path), where, f"{what} has no '{key}' (a non-empty string); expected one.")
    return value


class CallBook:
    """The calls made so far in one episode, so a tool result answering an unknown call id is refused. `open` keeps
    the calls not yet answered in the order they were made."""

    def __init__(self, path: Path) -> None:
        self.path, self.ids, self.open = path, set[str](), dict[str, None]()

    def made(self, call_id: str) -> None:
        self.ids.add(call_id)
        self.open[call_id] = None  # a log that uses an id again makes a new call, which may be answered again

    def answered(self, call_id: str, at: str) -> str:
        """`call_id`, when a call made it and no result has answered that call yet; else one TranscriptError at
        `at` (the result's full place): a call answered twice would count as two errors."""
        if call_id not in self.ids:
            raise TranscriptError(str(self.path), at, f"a tool result answers call {call_id!r}, "
                                  "which no earlier message made; expected each result to answer a call made "
                                  "before it.")
        if call_id not in self.open:
            raise TranscriptError(str(self.path), at, f"a second tool result answers call {call_id!r}; expected "
                                  "one result per call.")
        del self.open[call_id]
        return call_id

    def oldest(self, at: str, fits: Callable[[str], bool] = lambda _: True) -> str:
        """The oldest call not yet answered that `fits` accepts, now answered: for a result that names no call, in
        formats whose call ids may be missing (AgentDojo, tau2-bench answer a step's calls in the order made)."""
        found = next((c for c in self.open if fits(c)), None)
        if found is None:
            raise TranscriptError(str(self.path), at, "a tool result names no call, and no call made before it that "
                                  "it could answer is still unanswered; expected each result to answer a call made "
                                  "before it.")
        del self.open[found]
        return found


def arguments_of(raw: object) -> JSONObject | str:
    """A call's arguments as a JSON object; a JSON string is parsed, and anything that is not an object ends up as
    its raw text (a string as written, another value as canonical JSON), so nothing is guessed."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError:
            return raw
        return parsed if isinstance(parsed, dict) else raw
    return canonical(raw)


def outcome_of(fields: Mapping[str, object], path: Path, where: str) -> Outcome:
    """The outcome an envelope states: `correct` (a boolean) if present; else `reward` (a number), with correct
    known only when the reward is exactly 0 or 1; else unknown."""
    correct, raw = fields.get("correct"), fields.get("reward")
    if correct is not None and not isinstance(correct, bool):
        raise TranscriptError(str(path), where, f"'correct' is {correct!r}; expected true, false or null.")
    reward = None if raw is None else reward_of(raw, path, where, "a finite number or null")
    if correct is None and reward in (0, 1):
        correct = reward == 1
    return Outcome(correct, reward)


def task_of(raw: object, path: Path, where: str) -> str | None:
    """A task id as text: a string or a whole number; None when the data has none (null or absent), so episodes
    without one are never lumped into one task; anything else is one TranscriptError."""
    if raw is None:
        return None
    if isinstance(raw, str) or (isinstance(raw, int) and not isinstance(raw, bool)):
        return str(raw)
    raise TranscriptError(str(path), where, f"'task_id' is {_kind(raw)}; expected a string, a whole number or null.")


def reward_of(raw: object, path: Path, where: str, expected: str) -> float:
    """A reward as a finite float; anything else (a string, a boolean, NaN, Infinity, a number too large for a float)
    is one TranscriptError saying what was `expected`."""
    try:
        reward = float(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else math.nan
    except OverflowError:
        reward = math.nan
    if not math.isfinite(reward):
        shown = repr(raw) if len(repr(raw)) <= 40 else f"{repr(raw)[:40]}..."
        raise TranscriptError(str(path), where, f"'reward' is {shown}; expected {expected}.")
    return reward


def evidence_of(model: str | None) -> Evidence:
    """'simulated' for atlas_kit's stand-in and inspect's mockllm, otherwise 'real' (as the file presents it)."""
    if not model:
        return "real"
    if model.startswith("mockllm/"):
        return "simulated"
    from ...models.standin.model import OFFLINE_MODEL  # only when a model is named: it imports the SDK

    return "simulated" if model.split("/")[-1] == OFFLINE_MODEL else "real"
