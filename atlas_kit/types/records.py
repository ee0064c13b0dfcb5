"""Where a result came from (`Source`), what a finished run offers its readers, and the results record
(`Record`, its keys `RECORD_FIELDS`) with the rows a metric computes. Records and sources are taught in chapter 11.
"""
from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Callable, Literal, NamedTuple, Protocol, Sequence, TypedDict

from .api import Message
from .events import EventLog
from .sets import EpisodeStop

__all__ = [
    "FailureNote", "FinishedRun", "RECORD_FIELDS", "RENDERERS", "Record", "RunLike", "SIMULATED", "SOURCE_KINDS",
    "Source", "SourceKind", "TableRows", "kind_of_label",
]

# --- where a result came from -----------------------------------------------------------------------------

SourceKind = Literal["simulated", "live", "replayed"]
"""The three kinds of evidence: the rule-based stand-in, a live model, a replayed recording."""
SOURCE_KINDS: tuple[SourceKind, ...] = typing.get_args(SourceKind)
SIMULATED = "simulated (offline rule-based stand-in, not an LLM)"


@dataclass(frozen=True)
class Source:
    """The kind of source, the model that answered, and the day it answered (None for the stand-in)."""

    kind: SourceKind
    model: str
    date: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in SOURCE_KINDS:
            raise ValueError(f"Source.kind must be one of {', '.join(SOURCE_KINDS)}; got {self.kind!r}.")

    @property
    def label(self) -> str:
        """The long label every run and record carries: what a chart or table must say."""
        if self.kind == "simulated":
            return SIMULATED
        if self.kind == "live":
            return f"live ({self.model}, {self.date})"
        return f"replayed from {self.model} on {self.date}"

    @property
    def short(self) -> str:
        """The label for a chart title or a table caption."""
        if self.kind == "simulated":
            return "simulated (offline stand-in)"
        return f"{self.kind} ({self.model}, {self.date})"

    @property
    def costs_money(self) -> bool:
        """Only a live run calls a paid API; the stand-in and a replay cost $0."""
        return self.kind == "live"

    def __str__(self) -> str:
        return self.label


def kind_of_label(label: object) -> SourceKind | None:
    """The kind of a bare label string, for runs and records made before sources were typed.

    Reads only the first word, which each kind's label has always started with.
    """
    first = label.split(" ", 1)[0] if isinstance(label, str) else ""
    return next((kind for kind in SOURCE_KINDS if kind == first), None)


# --- what a run offers its readers --------------------------------------------------------------------------

class FailureNote(Protocol):
    """Why a run ended at the API (replies.APIFailure): a reason, what to do, and one line for a person."""

    @property
    def reason(self) -> str: ...
    @property
    def fix(self) -> str: ...
    def line(self) -> str: ...


class RunLike(Protocol):
    """What the grader and the display read from a run: agent.Run fits, and so does atlas.SimpleRun."""

    @property
    def messages(self) -> Sequence[Message]: ...
    @property
    def trace(self) -> EventLog: ...
    @property
    def final_text(self) -> str: ...
    @property
    def stop_reason(self) -> str: ...


class FinishedRun(RunLike, Protocol):
    """A finished run as the display and a results record read it: RunLike plus where it came from and what it
    used (agent.Run and mcp_episode.McpEpisode fit). Both also read `notes` and `api_failure` (a FailureNote)
    when a run has them."""

    @property
    def model(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def origin(self) -> Source | None: ...
    @property
    def steps(self) -> int: ...
    @property
    def tool_calls(self) -> int: ...
    @property
    def input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def cost_usd(self) -> float: ...


RENDERERS: dict[Literal["text", "html"], Callable[[FinishedRun], str]] = {}
"""How a run prints (`str(run)`, a notebook's HTML): display.py fills it when imported, and agent.Run reads it,
so the agent layer never imports the display layer. Each renderer takes a FinishedRun."""


# --- the results record ---------------------------------------------------------------------------------------

class Record(TypedDict):
    """One finished episode, flat: one line of a results JSONL file (results.py). Its keys, in this order,
    are RECORD_FIELDS; the condition's fields (style to model) are flattened in."""

    key: str
    experiment: str
    style: str
    faults: bool
    break_loops: bool
    profile: str | None
    model: str
    ticket: str
    trial: int
    seed: int
    source: str
    source_kind: SourceKind | None
    source_date: str | None
    stop_reason: EpisodeStop
    correct: bool
    labels: list[str]
    hit_error: bool
    error_codes: list[str]
    branches: list[str]
    steps: int
    tool_calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    loop_detected: bool
    api_failure: str | None
    api_error: str | None
    harness_error: str | None


RECORD_FIELDS: tuple[str, ...] = tuple(Record.__annotations__)
"""Every record's keys, in file order: derived from Record, so the two cannot drift."""


class TableRows(NamedTuple):
    """A table's content as a metric computes it: column names, rows of cells and a caption (its data's source).
    tables.Table.of shows it; computing and showing stay in their own layers."""

    columns: list[str]
    rows: list[list[object]]
    caption: str
