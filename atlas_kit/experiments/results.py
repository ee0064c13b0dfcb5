"""Results that survive: one flat JSON record per finished episode, appended to a JSONL file at once.

A record holds the condition, the grade, the usage and the typed source of one episode, never its
transcript; every string in it is redacted before it is written. Reading tolerates a last line cut
short by a crash, and a later copy of an episode that failed at the API replaces it (a resume reruns
those). Taught in chapter 11, where an experiment must outlive a killed kernel.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields as dataclass_fields
from pathlib import Path
from typing import IO, Final, Iterable, Mapping, TypedDict, cast

from ..atlas.grade import Grade
from ..contract.redaction import redact
from ..types.results import API_FAILURE, HARNESS_ERROR, legacy_kind, parse_records, read_records, record_kind, source_of
from ..types.records import RECORD_FIELDS, SOURCE_KINDS, FailureNote, FinishedRun, Record, Source, SourceKind
from ..types.events import events_of
from ..types.exceptions import AtlasKitValueError

# Every record has exactly these keys, in this order (the condition's fields are flattened in): types.Record's.
FIELDS = RECORD_FIELDS
@dataclass(frozen=True)
class Condition:
    """What varies between arms of an experiment. `profile` is the offline stand-in's; None for a live model."""

    style: str
    faults: bool
    break_loops: bool
    profile: str | None
    model: str

    def label(self) -> str:
        """The condition as one string, the start of every episode key: model|style|faults=on|loops=on."""
        on = {True: "on", False: "off"}
        profile = f"|profile={self.profile}" if self.profile else ""
        return f"{self.model}|{self.style}|faults={on[self.faults]}|loops={on[self.break_loops]}{profile}"


def episode_key(condition: Condition, ticket: str, trial: int, *, seed: int | None = None) -> str:
    """The stable id of one episode: the same condition, ticket, trial and seed always give the same key.

    The seed is written only when it differs from the trial index (a sweep with first_seed > 0).
    """
    key = f"{condition.label()}|{ticket}|t{trial}"
    return key if seed is None or seed == trial else f"{key}|s{seed}"


class _SourceFields(TypedDict):
    source: str
    source_kind: SourceKind | None
    source_date: str | None
    source_server: str | None


def _source_fields(source: Source | None) -> _SourceFields:
    if source is None:
        return {"source": "", "source_kind": None, "source_date": None, "source_server": None}
    return {"source": source.label, "source_kind": source.kind, "source_date": source.date,
            "source_server": source.server}


def record_from_run(run: FinishedRun, grade: Grade, *, condition: Condition, ticket: str, trial: int, seed: int,
                    experiment: str = "") -> Record:
    """Flatten a finished Run and its Grade into a record.

    hit_error: at least one tool error reached the model (an `error` trace event; a crashed tool is one too).
    error_codes, branches: the distinct codes and contract branches of those errors, sorted; a
    branch is "none" when the error named no next step. The branch is the situation's, whatever
    style worded it, so arms with different styles can be compared branch by branch.
    """
    errors = events_of(run.trace, "error")
    failure: FailureNote | None = getattr(run, "api_failure", None)  # an agent.Run's; an MCP episode has none
    local = bool(run.source and run.source.local)  # a local server's failure is told what to do there
    return _record(
        condition, ticket, trial, seed, experiment, **_source_fields(run.source),
        api_failure=failure.reason if failure else None, api_error=failure.line(local=local) if failure else None,
        stop_reason=run.stop_reason, correct=bool(grade.correct), labels=sorted(grade.labels),
        hit_error=bool(errors), error_codes=sorted({e["code"] for e in errors}),
        branches=sorted({e.get("branch") or "none" for e in errors}),
        steps=run.steps, tool_calls=run.tool_calls, input_tokens=run.input_tokens,
        output_tokens=run.output_tokens, cost_usd=run.cost_usd,
        loop_detected=bool(events_of(run.trace, "loop_detected")),
    )


def harness_record(exc: BaseException, *, condition: Condition, ticket: str, trial: int, seed: int,
                   source: Source | None, experiment: str = "") -> Record:
    """The record of an episode that raised inside the harness: kept, so the sweep goes on and says so."""
    return _record(condition, ticket, trial, seed, experiment, **_source_fields(source),
                   stop_reason=HARNESS_ERROR, harness_error=redact(f"{type(exc).__name__}: {exc}")[:500])


def _fields_of(condition: Condition) -> dict[str, object]:
    # Its fields are all scalars: asdict's deep copy of each would cost more than the rest of the record.
    return {f.name: getattr(condition, f.name) for f in dataclass_fields(condition)}


def _record(condition: Condition, ticket: str, trial: int, seed: int, experiment: str, **fields: object) -> Record:
    base: dict[str, object] = {
        "key": episode_key(condition, ticket, trial, seed=seed), "experiment": experiment, **_fields_of(condition),
        "ticket": ticket, "trial": trial, "seed": seed, "source": "", "source_kind": None, "source_date": None,
        "source_server": None,
        "stop_reason": "", "correct": False, "labels": [], "hit_error": False, "error_codes": [], "branches": [],
        "steps": 0, "tool_calls": 0, "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "loop_detected": False,
        "api_failure": None, "api_error": None, "harness_error": None,
    }
    base.update(fields)
    return cast(Record, {name: base[name] for name in FIELDS})


class ResultsWriter:
    """Appends records to a JSONL file, each one whole and on disk before `append` returns.

    Opening it repairs a line a crash cut short, so the next record starts on a fresh line.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        repair(self.path)
        self._file: IO[str] | None = open(self.path, "a", encoding="utf-8")

    def append(self, record: Mapping[str, object]) -> None:
        """Write one record (redacted) as a line, and flush it to disk before returning."""
        if self._file is None:
            raise AtlasKitValueError(f"ResultsWriter for {self.path} is closed; open a new one to append.")
        # One write of the whole line, then flush and fsync: a kill can cut only this line, never an earlier one.
        self._file.write(json.dumps(redact(record), ensure_ascii=False, sort_keys=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """Close the file; a closed writer refuses to append."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def repair(path: str | os.PathLike[str]) -> int:
    """Cut a final line that has no newline (a write a crash interrupted); returns the bytes dropped."""
    path = Path(path)
    if not path.exists():
        return 0
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return 0
    keep = data.rfind(b"\n") + 1  # 0 when the only line is the partial one
    with open(path, "r+b") as f:
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
    return len(data) - keep


def check_source(records: Iterable[Mapping[str, object]], source: Source, path: str | os.PathLike[str]) -> None:
    """Refuse to add `source`'s episodes to a results file that holds another kind of source (a local model's
    and Claude's live runs are two kinds: one is free and unpriced, the other paid), or a local model's runs on
    another server (an episode's key names the model, not the server: Ollama's qwen3 would pass for llama.cpp's)."""
    def family(s: Source) -> str:
        return f"{s.kind} (local: {s.server or 'a local server'})" if s.local else s.kind

    other = sorted({family(s) for r in records if (s := source_of(r)) and family(s) != family(source)})
    if other:
        raise AtlasKitValueError(f"{os.fspath(path)} holds {' and '.join(other)} results; this sweep would add "
                         f"{family(source)} ones and resume from theirs. Use another --out or --name (out= in Python).")


RESUMED_FIELDS = ("style", "faults", "break_loops", "profile", "model", "correct", "stop_reason", "ticket", "trial")
"""What a sweep reads of each record it resumes from (its tables, charts and statistics)."""


def check_resumable(records: Iterable[Mapping[str, object]], path: str | os.PathLike[str]) -> None:
    """Refuse a results file whose records lack what a sweep reads of them, naming the first such record."""
    for r in records:
        missing = [f for f in RESUMED_FIELDS if f not in r]
        if missing:
            raise AtlasKitValueError(f"{os.fspath(path)}: the record of {r.get('key')!r} has no {', '.join(missing)}; it was "
                             "not written by this sweep: delete that line to redo the episode, or use another --out "
                             "or --name.")


def _short_source(record: Mapping[str, object]) -> str:
    """The typed source's short label; a label that is not the typed source's own (relabelled by hand) is shown as
    it stands."""
    label = str(record.get("source") or "")
    typed = source_of(record)
    if typed is not None and typed.label == label:
        return typed.short
    if legacy_kind(label) == "simulated":
        return "simulated (offline stand-in)"
    return label or "unlabelled source"


def source_label(records: Iterable[Mapping[str, object]]) -> str:
    """Where the records came from, for a chart title or a table: one source, or 'mixed: ...' naming each."""
    sources = sorted({_short_source(r) for r in records})
    if not sources:
        return "no data"
    if len(sources) == 1:
        return sources[0]
    return "mixed sources: " + "; ".join(sources)
