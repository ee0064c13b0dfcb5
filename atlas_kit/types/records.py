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
from .exceptions import AtlasKitValueError

# --- where a result came from -----------------------------------------------------------------------------

SourceKind = Literal["simulated", "live", "replayed"]
"""The three kinds of evidence: the rule-based stand-in, a live model, a replayed recording."""
SOURCE_KINDS: tuple[SourceKind, ...] = typing.get_args(SourceKind)
SIMULATED = "simulated (offline rule-based stand-in, not an LLM)"


@dataclass(frozen=True)
class Source:
    """The kind of source, the model that answered, the day it answered (None for the stand-in), and the local
    server that ran it (`server`: "Ollama", "llama.cpp", or the address of another Anthropic-compatible server;
    None for Anthropic's API and the stand-in)."""

    kind: SourceKind
    model: str
    date: str | None = None
    server: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in SOURCE_KINDS:
            raise AtlasKitValueError(f"Source.kind must be one of {', '.join(SOURCE_KINDS)}; got {self.kind!r}.")
        if self.server is not None and self.kind == "simulated":
            raise AtlasKitValueError("Source.server names a local model's server; the stand-in has none.")

    @property
    def local(self) -> bool:
        """Whether a model on a local (or other non-Anthropic) server answered: free, and never priced."""
        return self.server is not None

    @property
    def label(self) -> str:
        """The long label every run and record carries: what a chart or table must say."""
        if self.kind == "simulated":
            return SIMULATED
        if self.kind == "live":
            return f"live (local: {self.model} via {self.server}, {self.date})" if self.local else \
                f"live ({self.model}, {self.date})"
        via = f" via {self.server}" if self.local else ""
        return f"replayed from {self.model}{via} on {self.date}"

    @property
    def short(self) -> str:
        """The label for a chart title or a table caption."""
        if self.kind == "simulated":
            return "simulated (offline stand-in)"
        return self.label if self.local else f"{self.kind} ({self.model}, {self.date})"

    @property
    def costs_money(self) -> bool:
        """Only a live run on Anthropic's API is paid; the stand-in, a replay and a local model cost $0."""
        return self.kind == "live" and not self.local

    def __str__(self) -> str:
        return self.label


# --- what a run offers its readers --------------------------------------------------------------------------

class FailureNote(Protocol):
    """Why a run ended at the API (replies.APIFailure): a reason, what to do, and one line for a person."""

    @property
    def reason(self) -> str: ...
    @property
    def fix(self) -> str: ...
    def line(self, *, local: bool = False) -> str: ...


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
    used (agent.Run and bridges.mcp.episode.McpEpisode fit; `source` None for a run nobody labelled). Both also read `notes` and `api_failure` (a FailureNote)
    when a run has them."""

    @property
    def model(self) -> str: ...
    @property
    def source(self) -> Source | None: ...
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
    source_server: str | None
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
