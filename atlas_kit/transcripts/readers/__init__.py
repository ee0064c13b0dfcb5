"""The transcript readers, one module per format, behind one `Reader` protocol (base.py), and `read_transcripts`,
which reads files with a named format or sniffs each one (sniff.py). A new format is a new module here and one
entry in READERS. Chapter "Errors in the wild".
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Literal, Union

from ..model import FORMATS, Episode, FileRead, Format, Transcripts, TranscriptError
from .anthropic import AnthropicReader
from .atlas import AtlasReader, record_episodes, run_episode
from .base import Reader
from .inspect_log import InspectReader
from .openai import OpenAIReader, looks_like_error
from .sniff import Sniffed, sniff
from .tau_bench import TauBenchReader, is_tau_error

__all__ = ["READERS", "FormatChoice", "Reader", "Sniffed", "is_tau_error", "looks_like_error", "read_file",
           "read_transcripts", "record_episodes", "run_episode", "sniff"]

FormatChoice = Union[Format, Literal["auto"]]

READERS: dict[Format, Reader] = {"tau-bench": TauBenchReader(), "anthropic": AnthropicReader(),
                                 "openai": OpenAIReader(), "inspect": InspectReader(), "atlas": AtlasReader()}


def read_file(path: str | os.PathLike[str], *, format: FormatChoice = "auto") -> tuple[list[Episode], FileRead]:
    """One file's episodes and its note. `format="auto"` sniffs the file; a named format is used as given."""
    where = Path(path)
    if format != "auto" and format not in FORMATS:
        raise ValueError(f"format must be auto or one of {', '.join(FORMATS)}; got {format!r}.")
    try:
        chosen = sniff(where) if format == "auto" else Sniffed(format, "named by the caller")
        episodes = READERS[chosen.format].read(where)
        _refuse_copies(episodes, {})
        episodes = _unique_ids(episodes)
    except RecursionError:  # json and the readers recurse once per level of nesting
        raise TranscriptError(str(where), "", "is nested too deeply to read (thousands of levels of lists or "
                              "objects); no transcript format nests so; give a transcript file.") from None
    if not episodes:
        raise TranscriptError(str(where), "", f"holds no episodes; expected at least one ({chosen.format} format).")
    models = tuple(sorted({e.model for e in episodes if e.model}))
    note = FileRead(str(where), chosen.format, chosen.reason, len(episodes), models,
                    tuple(sorted({e.evidence for e in episodes})))
    return episodes, note


def _unique_ids(episodes: list[Episode]) -> list[Episode]:
    """The episodes, each id unique within the file: two episodes that carry the same id (two runs both called
    "run") are told apart by their place, so no count merges them."""
    counts = Counter(e.id for e in episodes)
    return [replace(e, id=f"{e.id} ({e.where})") if counts[e.id] > 1 else e for e in episodes]


def _identity(e: Episode) -> str | None:
    """Who an episode says it is: an Atlas record's key, a task and trial, or an id the data gave. An episode named
    only by its place has none: a copy of it cannot be told from a repeat (the same prompt run twice at temperature
    0 gives the same turns), so it is never refused as a copy."""
    if e.format == "atlas":
        return e.id
    if e.task_id is not None and e.trial is not None:
        return f"task {e.task_id}, trial {e.trial}"
    return None if e.id == f"record-{e.record}" else e.id


def _refuse_copies(episodes: list[Episode], seen: dict[str, Episode]) -> None:
    """One TranscriptError at the first episode that is another one again: the same identity (_identity), turns and
    outcome, in this file or in one read before (`seen` remembers them). Results records without turns are not
    compared: their file keeps one record per key already."""
    for e in episodes:
        who = _identity(e)
        if who is None or e.detail == "summary":
            continue
        first = seen.setdefault(repr((who, e.format, e.model, e.system, e.turns, e.outcome)), e)
        if first is not e:
            again = first.where if first.file == e.file else f"{first.where} of {first.file}"
            raise TranscriptError(e.file, e.where, f"is the same episode as {again} ({who}, with the same turns and "
                                  "outcome); remove the copy, or it counts twice.")


def read_transcripts(paths: Iterable[str | os.PathLike[str]], *, format: FormatChoice = "auto") -> Transcripts:
    """Every episode of every file, in order, with a note per file. Raises TranscriptError (one line) on the first
    file a reader cannot understand, on a file given twice, and on an episode that appears twice (_refuse_copies: a
    file concatenated with itself, or one run copied into two files), since counting it twice would double its
    weight in every rate; nothing is returned in part."""
    episodes: list[Episode] = []
    notes: list[FileRead] = []
    seen_files: dict[Path, str] = {}
    seen: dict[str, Episode] = {}
    for path in paths:
        resolved = Path(path).resolve()
        if resolved in seen_files:
            raise TranscriptError(str(path), "", f"is given twice (also as {seen_files[resolved]}); give each file "
                                  "once, or its episodes count twice.")
        seen_files[resolved] = str(path)
        found, note = read_file(path, format=format)
        _refuse_copies(found, seen)
        episodes += found
        notes.append(note)
    if not notes:
        raise ValueError("read_transcripts needs at least one file; give the paths of transcript files.")
    return Transcripts(tuple(episodes), tuple(notes))
