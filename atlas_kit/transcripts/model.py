"""One transcript model for every reader: an Episode is its turns (model text, tool calls, tool results, user
messages), its outcome when known, and where it came from (file, record, format, model). No reading and no
analysis here (readers/, analysis.py). Chapter "Errors in the wild" reads real episodes through it.
"""
from __future__ import annotations

import typing
from dataclasses import dataclass, field
from typing import Literal, Union

from ..types.exceptions import AtlasKitValueError
from ..types.sets import JSONObject

Format = Literal["tau-bench", "tau2-bench", "agentdojo", "anthropic", "openai", "inspect", "atlas"]
"""The formats a reader understands (readers/): one module each."""
FORMATS: tuple[Format, ...] = typing.get_args(Format)

ErrorBasis = Literal["flag", "text", "absent"]
"""How a tool result's `is_error` was known: "flag", the data carries an error flag (Anthropic `is_error`, MCP
`isError`, inspect's, AgentDojo's and tau2-bench's `error`) and is_error is its value; "text", inferred from the
text by the reader's stated rule (tau-bench's `Error:` prefix, the OpenAI reader's heuristic); "absent", the format
has a flag but this result
omits it, so it is taken as not an error (the format's default) and nothing was inferred."""

Evidence = Literal["real", "simulated", "replayed"]
"""What produced the model's turns: "real", a model's own run as the file records it (tau-bench, a live Atlas
run, a user's log); "simulated", atlas_kit's rule-based stand-in or inspect's scripted mockllm, not a language
model; "replayed", an Atlas cassette replay of a recorded live run."""

Detail = Literal["turns", "summary"]
"""What an episode holds: "turns", a transcript; "summary", an Atlas results record with counts and labels only
(no turns, so no error text and no next action: see Summary)."""


class TranscriptError(AtlasKitValueError):
    """A file a reader cannot understand: one line naming the file, the record and what was expected."""

    def __init__(self, file: str, where: str, problem: str) -> None:
        self.file, self.where, self.problem = file, where, problem
        place = f"{file}: {where}: " if where else f"{file}: "
        super().__init__(" ".join(f"{place}{problem}".split()))


@dataclass(frozen=True)
class ModelText:
    """Text the model wrote. `message` is the index of the message that held it in the episode's transcript
    (turns that share it were one model step)."""

    text: str
    message: int
    kind: Literal["model_text"] = "model_text"


@dataclass(frozen=True)
class ToolCall:
    """A tool call: its id, the tool's name, and its arguments as a JSON object, or the raw string when the
    model's arguments were not a JSON object (kept as written, never guessed at)."""

    id: str
    tool: str
    arguments: JSONObject | str
    message: int
    kind: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True)
class ToolResult:
    """What a tool call got back: the id of the call it answers, whether it was an error (and how that was
    known: ErrorBasis), and its text as the model read it."""

    call_id: str
    is_error: bool
    basis: ErrorBasis
    text: str
    message: int
    kind: Literal["tool_result"] = "tool_result"


@dataclass(frozen=True)
class UserText:
    """A user's message (in tau-bench, the simulated customer's)."""

    text: str
    message: int
    kind: Literal["user_text"] = "user_text"


Turn = Union[ModelText, ToolCall, ToolResult, UserText]
"""One turn of an episode, told apart by `kind`."""


@dataclass(frozen=True)
class Outcome:
    """How the episode ended, when the data says: `correct` (None when unknown) and `reward` (None when the data
    has none). Each reader's docstring says how it decides `correct`."""

    correct: bool | None = None
    reward: float | None = None

    @property
    def known(self) -> bool:
        return self.correct is not None


@dataclass(frozen=True)
class Summary:
    """What an Atlas results record keeps instead of a transcript: whether an error reached the model, the
    distinct error codes and contract branches, the tool calls made, and whether the loop breaker's
    (tool, arguments, code) signal fired. No error text, arguments or order of turns."""

    hit_error: bool
    error_codes: tuple[str, ...]
    branches: tuple[str, ...]
    tool_calls: int
    loop_detected: bool


@dataclass(frozen=True)
class Episode:
    """One episode. `id` is unique within its file; `record` is its 0-based place among the file's episodes and
    `line` its 1-based line in a JSONL file (None otherwise). `task_id`, `trial` and `model` are None when the
    data does not say; `metadata` holds whatever else a reader kept (a scorer's name, a ticket's labels)."""

    id: str
    format: Format
    file: str
    record: int
    turns: tuple[Turn, ...]
    outcome: Outcome
    evidence: Evidence
    line: int | None = None
    task_id: str | None = None
    trial: int | None = None
    model: str | None = None
    system: str = ""
    detail: Detail = "turns"
    summary: Summary | None = None
    metadata: dict[str, str | int | float | bool | None] = field(default_factory=dict)

    @property
    def where(self) -> str:
        """The episode's place for a person: 'record 3' or 'line 4'."""
        return f"line {self.line}" if self.line is not None else f"record {self.record}"


@dataclass(frozen=True)
class FileRead:
    """One file (or AgentDojo runs folder) as it was read: the format, why that reader (the sniff's reason, or
    "named"), how many of its episodes count, and the models and kinds of evidence its episodes carry (sorted; empty
    when the data names no model). `dropped` episodes were copies of episodes read before (Copy) and count once."""

    path: str
    format: Format
    reason: str
    episodes: int
    models: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    dropped: int = 0


@dataclass(frozen=True)
class Copy:
    """An episode left out because it is one read before again (the same task and trial, or id, and the same turns
    and outcome, whatever the file's name or format): where the copy was, and where the episode that counts is."""

    file: str
    where: str
    of_file: str
    of_where: str
    identity: str


@dataclass(frozen=True)
class Transcripts:
    """Every episode of the files read, in file order, each counted once, with a note per file and the copies left
    out (`copies`): what every analysis takes."""

    episodes: tuple[Episode, ...]
    files: tuple[FileRead, ...]
    copies: tuple[Copy, ...] = ()
