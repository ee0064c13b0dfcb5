"""The journal of a batch sweep: every batch it submitted and every answer it collected, one JSON line each.

Lines are appended and flushed as they happen (fsynced at each batch's checkpoints), so a kill loses at
most the line being written; `replay` reads back which batches are pending and what each episode has
heard, so a resumed sweep polls the batches it already paid for instead of resubmitting. Chapter 11.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal, TypedDict, Union

from ..results import repair
from ...types.exceptions import AtlasKitValueError

FailureKind = Literal["errored", "expired", "canceled", "missing"]


class Started(TypedDict):
    """The journal's first line: which sweep it belongs to."""

    event: Literal["started"]
    tag: str  # the sweep's prefix in every custom_id
    experiment: str
    model: str


class Pending(TypedDict):
    """One request of a part: whose it is, which answer it asks for, which attempt, and its params' digest."""

    key: str
    step: int
    attempt: int
    digest: str


class Submitting(TypedDict):
    """Written just before `batches.create`: what the part holds and when it was sent."""

    event: Literal["submitting"]
    part: str
    at: float
    requests: dict[str, Pending]  # custom_id -> Pending


class Submitted(TypedDict):
    """Written once `batches.create` answered (or a listed batch was adopted): the part's batch id."""

    event: Literal["submitted"]
    part: str
    batch_id: str
    adopted: bool  # found by listing batches after a kill between create and this line


class Answered(TypedDict):
    """A succeeded result: the message body an episode heard for one step."""

    event: Literal["answered"]
    key: str
    step: int
    body: dict[str, Any]


class Failed(TypedDict):
    """A step that ended at the API: its attempts ran out, or its error is not worth retrying."""

    event: Literal["failed"]
    key: str
    step: int
    kind: FailureKind
    error_type: str
    message: str


class Bounced(TypedDict):
    """A request that came back errored (with a transient error) or expired, and will go again as a new attempt."""

    event: Literal["bounced"]
    key: str
    step: int
    custom_id: str
    kind: FailureKind


class Collected(TypedDict):
    """Every result of a part is journaled (or the part was never created): it is no longer pending."""

    event: Literal["collected"]
    part: str


Event = Union[Started, Submitting, Submitted, Answered, Failed, Bounced, Collected]


@dataclass
class Part:
    """A batch of one round, submitted or about to be; `batch_id` is None until create's answer is journaled."""

    part: str
    at: float
    requests: dict[str, Pending]
    batch_id: str | None = None
    adopted: bool = False


@dataclass
class JournalState:
    """What a journal says: the sweep's tag, each episode's answers in step order, attempts used, pending parts."""

    started: Started | None = None
    heard: dict[str, list[Answered | Failed]] = field(default_factory=dict)
    attempts: dict[tuple[str, int], int] = field(default_factory=dict)  # (key, step) -> attempts submitted
    bounced: dict[tuple[str, int], set[str]] = field(default_factory=dict)  # (key, step) -> custom_ids sent back
    pending: dict[str, Part] = field(default_factory=dict)
    batch_ids: set[str] = field(default_factory=set)  # every batch this sweep created or adopted
    parts: int = 0  # parts ever started, so a new part's name is never reused

    def apply(self, event: Event) -> None:
        if event["event"] == "started":
            self.started = event
        elif event["event"] == "submitting":
            self.parts += 1
            self.pending[event["part"]] = Part(event["part"], event["at"], dict(event["requests"]))
            for p in event["requests"].values():
                slot = (p["key"], p["step"])
                self.attempts[slot] = max(self.attempts.get(slot, 0), p["attempt"] + 1)
        elif event["event"] == "submitted":
            part = self.pending.get(event["part"])
            if part is not None:
                part.batch_id, part.adopted = event["batch_id"], event["adopted"]
            self.batch_ids.add(event["batch_id"])
        elif event["event"] == "collected":
            self.pending.pop(event["part"], None)
        elif event["event"] == "bounced":
            self.bounced.setdefault((event["key"], event["step"]), set()).add(event["custom_id"])
        else:  # answered or failed: the next answer of an episode, in order; a repeat is ignored
            heard = self.heard.setdefault(event["key"], [])
            if event["step"] == len(heard):
                heard.append(event)

    def answered(self, key: str, step: int) -> bool:
        return step < len(self.heard.get(key, []))


class Journal:
    """Append-only JSONL at `path` (None: kept in memory only, so nothing can resume)."""

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.path = Path(path) if path is not None else None
        self._file: IO[str] | None = None

    def replay(self) -> JournalState:
        """The state the journal's lines describe; a last line cut short by a kill is dropped."""
        state = JournalState()
        if self.path is None or not self.path.exists():
            return state
        repair(self.path)
        for n, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
                state.apply(event)
            except (ValueError, KeyError, TypeError) as err:
                raise AtlasKitValueError(f"{self.path}: line {n} is not a batch journal event ({err}); delete the file to "
                                 "start the unfinished episodes again (finished ones stay in the results).") from err
        return state

    def write(self, event: Event, *, sync: bool = False) -> None:
        """Append one event; `sync` also forces it (and every line before it) to disk."""
        if self.path is None:
            return
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            repair(self.path)
            self._file = open(self.path, "a", encoding="utf-8")
        self._file.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()  # in the OS's hands: a killed process loses nothing written so far
        if sync:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def remove(self) -> None:
        """Delete the journal once every episode it tracked is in the results file."""
        self.close()
        if self.path is not None and self.path.exists():
            self.path.unlink()


def journal_path(out: str | os.PathLike[str] | None) -> str | None:
    """Where a batch sweep keeps its journal: beside the results file (RESULTS.jsonl.batch), or nowhere."""
    return None if out is None else os.fspath(out) + ".batch"
