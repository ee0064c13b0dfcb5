"""The transcript readers, one module per format, behind one `Reader` protocol (base.py), and `read_transcripts`,
which reads files with a named format or sniffs each one (sniff.py). A new format is a new module here and one
entry in READERS. Chapter "Errors in the wild".
"""
from __future__ import annotations

import os
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
    chosen = sniff(where) if format == "auto" else Sniffed(format, "named by the caller")
    episodes = READERS[chosen.format].read(where)
    if not episodes:
        raise TranscriptError(str(where), "", f"holds no episodes; expected at least one ({chosen.format} format).")
    models = tuple(sorted({e.model for e in episodes if e.model}))
    note = FileRead(str(where), chosen.format, chosen.reason, len(episodes), models,
                    tuple(sorted({e.evidence for e in episodes})))
    return episodes, note


def read_transcripts(paths: Iterable[str | os.PathLike[str]], *, format: FormatChoice = "auto") -> Transcripts:
    """Every episode of every file, in order, with a note per file. Raises TranscriptError (one line) on the first
    file a reader cannot understand; nothing is returned in part."""
    episodes: list[Episode] = []
    notes: list[FileRead] = []
    for path in paths:
        found, note = read_file(path, format=format)
        episodes += found
        notes.append(note)
    if not notes:
        raise ValueError("read_transcripts needs at least one file; give the paths of transcript files.")
    return Transcripts(tuple(episodes), tuple(notes))
