"""Where a result came from: simulated (the offline stand-in), live (a model, a date) or replayed (a cassette).

One small typed value carried by model choices, runs and result records, so that no label
is ever parsed back out of text. Taught in chapter 00; chapter 11 labels every chart with it.
"""
from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Literal

__all__ = ["SIMULATED", "SOURCE_KINDS", "Source", "SourceKind", "kind_of_label"]

SourceKind = Literal["simulated", "live", "replayed"]
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


def kind_of_label(label: str) -> SourceKind | None:
    """The kind of a bare label string, for runs and records made before sources were typed.

    Reads only the first word, which each kind's label has always started with.
    """
    first = label.split(" ", 1)[0] if isinstance(label, str) else ""
    return {"simulated": "simulated", "live": "live", "replayed": "replayed"}.get(first)  # type: ignore[return-value]
