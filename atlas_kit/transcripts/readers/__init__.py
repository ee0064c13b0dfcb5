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
        episodes = _unique_ids(READERS[chosen.format].read(where))
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


def _fingerprint(e: Episode) -> str | None:
    """What makes two episodes one: their task, trial, model, turns and outcome. An Atlas record's key is its
    identity (two conditions can end alike), and a results record without turns is never compared: its file keeps
    one record per key already."""
    if e.detail == "summary":
        return None
    return repr((e.id if e.format == "atlas" else None, e.format, e.task_id, e.trial, e.model, e.system, e.turns,
                 e.outcome))


def read_transcripts(paths: Iterable[str | os.PathLike[str]], *, format: FormatChoice = "auto") -> Transcripts:
    """Every episode of every file, in order, with a note per file. Raises TranscriptError (one line) on the first
    file a reader cannot understand, on a file given twice, and on an episode that appears twice (the same task,
    trial, turns and outcome: a file concatenated with itself, or one run copied into two files), since counting it
    twice would double its weight in every rate; nothing is returned in part."""
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
        for e in found:
            mark = _fingerprint(e)
            first = e if mark is None else seen.setdefault(mark, e)
            if first is not e:
                again = first.where if first.file == e.file else f"{first.where} of {first.file}"
                raise TranscriptError(e.file, e.where, f"is the same episode as {again} (the same task, trial, turns "
                                      "and outcome); remove the copy, or it counts twice.")
        episodes += found
        notes.append(note)
    if not notes:
        raise ValueError("read_transcripts needs at least one file; give the paths of transcript files.")
    return Transcripts(tuple(episodes), tuple(notes))
