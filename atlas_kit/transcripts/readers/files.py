"""The transcript readers, one module per format, behind one `Reader` protocol (base.py), and `read_transcripts`,
which reads files with a named format or sniffs each one (sniff.py) and counts each episode once (an identical copy,
under any name or in any format, is left out and said). A new format is a new module here and one entry in READERS.
Chapter "Errors in the wild".
"""
from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Literal, Union

from ...types.walk import canonical
from ..model import FORMATS, Copy, Episode, FileRead, Format, ToolCall, ToolResult, Transcripts, TranscriptError, Turn
from .agentdojo import AgentDojoReader, write_bundle
from .anthropic import AnthropicReader
from .atlas import AtlasReader, record_episodes, run_episode
from .base import Reader
from .inspect_log import InspectReader
from .openai import OpenAIReader, looks_like_error
from .sniff import Sniffed, sniff
from .tau2_bench import Tau2BenchReader
from .tau_bench import TauBenchReader, is_tau_error
from ...types.exceptions import AtlasKitValueError

FormatChoice = Union[Format, Literal["auto"]]

READERS: dict[Format, Reader] = {"tau-bench": TauBenchReader(), "tau2-bench": Tau2BenchReader(),
                                 "agentdojo": AgentDojoReader(), "anthropic": AnthropicReader(),
                                 "openai": OpenAIReader(), "inspect": InspectReader(), "atlas": AtlasReader()}


def read_file(path: str | os.PathLike[str], *, format: FormatChoice = "auto") -> tuple[list[Episode], FileRead]:
    """One file's episodes, each counted once (a copy within the file is left out: its note's `dropped`), and its
    note. `format="auto"` sniffs the file; a named format is used as given. An AgentDojo runs folder reads as one."""
    episodes, note, _ = _read_one(Path(path), format, {})
    return episodes, note


def _read_one(where: Path, format: FormatChoice, seen: dict[str, list[Episode]]) -> tuple[list[Episode], FileRead,
                                                                                           list[Copy]]:
    if format != "auto" and format not in FORMATS:
        raise AtlasKitValueError(f"format must be auto or one of {', '.join(FORMATS)}; got {format!r}.")
    try:
        chosen = sniff(where) if format == "auto" else Sniffed(format, "named by the caller")
        read = READERS[chosen.format].read(where)
    except RecursionError:  # json and the readers recurse once per level of nesting
        raise TranscriptError(str(where), "", "is nested too deeply to read (thousands of levels of lists or "
                              "objects); no transcript format nests so; give a transcript file.") from None
    if not read:
        raise TranscriptError(str(where), "", f"holds no episodes; expected at least one ({chosen.format} format).")
    episodes, copies = _drop_copies(read, seen)  # before _unique_ids: a copy carries the data's own id
    episodes = _unique_ids(episodes)
    models = tuple(sorted({e.model for e in read if e.model}))
    note = FileRead(str(where), chosen.format, chosen.reason, len(episodes), models,
                    tuple(sorted({e.evidence for e in read})), dropped=len(copies))
    return episodes, note, copies


def _unique_ids(episodes: list[Episode]) -> list[Episode]:
    """The episodes, each id unique within the file: two episodes that carry the same id (two runs both called
    "run") are told apart by their place, so no count merges them."""
    counts = Counter(e.id for e in episodes)
    return [replace(e, id=f"{e.id} ({e.where})") if counts[e.id] > 1 else e for e in episodes]


def _identity(e: Episode) -> str:
    """Who an episode says it is, whatever its file or format: an Atlas record's key; its task and trial (the trial
    may be unknown); else an id the data gave; else only its place (`record 3`). Named only by its place, a copy
    is told from a repeat (the same prompt run twice at temperature 0 gives the same turns) by its file: the same
    place in another file is a copy, another place in the same file a repeat."""
    if e.format == "atlas":
        return e.id
    if e.task_id is not None:
        return f"task {e.task_id}, trial {'unknown' if e.trial is None else e.trial}"
    return f"record {e.record}" if e.id == f"record-{e.record}" else e.id


def _content(t: Turn) -> tuple[object, ...]:
    """A turn's words and calls, without how a reader judged it (is_error and its basis differ between formats)."""
    if isinstance(t, ToolCall):
        arguments = t.arguments if isinstance(t.arguments, str) else canonical(t.arguments)
        return (t.kind, t.message, t.id, t.tool, arguments)
    if isinstance(t, ToolResult):
        return (t.kind, t.message, t.call_id, t.text)
    return (t.kind, t.message, t.text)


def _fingerprint(e: Episode) -> str:
    """An episode's identity, system text, turns (_content) and outcome, hashed: equal for the same episode read
    from a copy under another name or in another format."""
    whole = (_identity(e), e.system, [_content(t) for t in e.turns], e.outcome.correct, e.outcome.reward, e.detail,
             e.summary)
    return hashlib.sha256(repr(whole).encode("utf-8", "backslashreplace")).hexdigest()


def _drop_copies(episodes: list[Episode], seen: dict[str, list[Episode]]) -> tuple[list[Episode], list[Copy]]:
    """The episodes that are not one read before again (in this file, or in one `seen` remembers), and a Copy for
    each that is. Two episodes whose data name different models are never copies of each other."""
    kept: list[Episode] = []
    copies: list[Copy] = []
    for e in episodes:
        same = seen.setdefault(_fingerprint(e), [])
        first = next((f for f in same if f.model is None or e.model is None or f.model == e.model), None)
        if first is None:
            same.append(e)
            kept.append(e)
        else:
            copies.append(Copy(e.file, _place(e), first.file, _place(first), _identity(first)))
    return kept, copies


def _place(e: Episode) -> str:
    """Where an episode is, for a person: its record or line, and the run file's path when a folder or bundle
    holds many files (AgentDojo's `path`)."""
    path = e.metadata.get("path")
    return f"{e.where} ({path})" if isinstance(path, str) else e.where


def read_transcripts(paths: Iterable[str | os.PathLike[str]], *, format: FormatChoice = "auto") -> Transcripts:
    """Every episode of every file (or AgentDojo runs folder), in order, each counted once, with a note per file.
    An episode that is one read before again (the same identity, turns and outcome: _fingerprint), in the same file or
    another, under any name or in any format, is left out and listed in `copies`, since counting it twice would
    double its weight in every rate. Raises TranscriptError (one line) on the first file a reader cannot understand
    and on a path given twice; nothing is returned in part."""
    episodes: list[Episode] = []
    notes: list[FileRead] = []
    copies: list[Copy] = []
    seen_files: dict[Path, str] = {}
    seen: dict[str, list[Episode]] = {}
    for path in paths:
        resolved = Path(path).resolve()
        if resolved in seen_files:
            raise TranscriptError(str(path), "", f"is given twice (also as {seen_files[resolved]}); give each file "
                                  "once, or its episodes count twice.")
        seen_files[resolved] = str(path)
        found, note, dropped = _read_one(Path(path), format, seen)
        episodes += found
        notes.append(note)
        copies += dropped
    if not notes:
        raise AtlasKitValueError("read_transcripts needs at least one file; give the paths of transcript files.")
    return Transcripts(tuple(episodes), tuple(notes), tuple(copies))
