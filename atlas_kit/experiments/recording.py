"""A recorded sweep's calls, kept beside its results as they are paid for, so a recording is never lost.

`check_cassette_path` tries the cassette's path before anything is sent. `Tape` appends each finished episode's
calls to RESULTS.jsonl.tape (one line per episode, on disk before its record is) and writes the cassette from
it: every episode of the plan the tape holds, in plan order, whichever run recorded it. Replay is models/replay.py's.
Chapter 11.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Sequence, TypedDict

from ..models.cassette import Cassette
from .results import repair

__all__ = ["Take", "Tape", "check_cassette_path", "start_tape", "tape_path", "write_cassette"]


class Take(TypedDict):
    """One finished episode's recorded calls: a later take of the same episode (its rerun) replaces an earlier one."""

    key: str
    recorded_on: str
    entries: list[dict[str, Any]]


def tape_path(out: str | os.PathLike[str] | None) -> Path | None:
    """Where a recorded sweep keeps its calls: beside the results file (RESULTS.jsonl.tape), or nowhere."""
    return None if out is None else Path(os.fspath(out) + ".tape")


def check_cassette_path(path: str | os.PathLike[str]) -> None:
    """Refuse a cassette path that cannot be written, before a call is paid for: one line, with the fix.

    A small placeholder is written and synced in the cassette's folder (made if missing), so a folder that is
    read-only, full or not a folder at all is found now, not when the paid calls are saved.
    """
    target = Path(path)
    fix = "give a cassette file you can write to, such as cassettes/class.json; nothing was sent"
    if target.is_dir():
        raise ValueError(f"the cassette path {target} (record=, --record) is a folder; {fix}.")
    if target.exists() and not target.is_file():
        raise ValueError(f"the cassette path {target} (record=, --record) is not a regular file; {fix}.")
    above = next((p for p in target.parents if p.exists()), None)
    if above is not None and not above.is_dir():
        raise ValueError(f"the cassette path {target} (record=, --record) cannot be written ({above} is a file, "
                         f"not a folder); {fix}.")
    probe = target.parent / f".{target.name}.{os.getpid()}.check"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(probe, "w", encoding="utf-8") as f:
            f.write("{}\n")
            f.flush()
            os.fsync(f.fileno())
        if target.exists() and not os.access(target, os.W_OK):
            raise PermissionError(13, "Permission denied", os.fspath(target))
    except OSError as err:
        raise ValueError(f"the cassette path {target} (record=, --record) cannot be written "
                         f"({err.strerror or type(err).__name__}); {fix}.") from None
    finally:
        if probe.exists():
            probe.unlink()


class Tape:
    """A recording sweep's calls per episode: in the file at `path` (None: in memory only, lost with the process)."""

    def __init__(self, path: Path | None, recording: Cassette) -> None:
        self.path, self.recording = path, recording
        self._from = len(recording.entries)  # calls recorded before this sweep are not its episodes'
        self.takes = self._read()

    def _read(self) -> dict[str, Take]:
        takes: dict[str, Take] = {}
        if self.path is None or not self.path.exists():
            return takes
        repair(self.path)  # a last line a kill cut short: that episode's record was never written, so it reruns
        for n, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                take = json.loads(line)
                takes[str(take["key"])] = Take(key=str(take["key"]), recorded_on=str(take["recorded_on"]),
                                               entries=list(take["entries"]))
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(f"{self.path}: line {n} is not a recorded episode ({err}); delete the file to "
                                 "record the sweep again into a new --out.") from None
        return takes

    def keep(self, key: str) -> None:
        """Move the calls recorded since the last episode into a take of `key`, on disk before its record is."""
        new, self._from = self.recording.entries[self._from:], len(self.recording.entries)
        take = Take(key=key, recorded_on=self.recording.recorded_on,
                    entries=[e for e in new if e.get("episode") in (key, None)])
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            repair(self.path)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(take, ensure_ascii=False, separators=(",", ":")) + "\n")  # entries are redacted
                f.flush()
                os.fsync(f.fileno())
        self.takes[key] = take

    def missing(self, keys: Sequence[str]) -> list[str]:
        """Which of these finished episodes the tape holds no take of (run without recording)."""
        return [k for k in keys if k not in self.takes]

    def cassette(self, keys: Sequence[str]) -> Cassette:
        """The cassette of these episodes, in this order, from their latest takes; dated by the earliest take."""
        takes = [self.takes[k] for k in keys if k in self.takes]
        dated = min((t["recorded_on"] for t in takes), default=self.recording.recorded_on)
        return Cassette(model=self.recording.model, recorded_on=dated, server=self.recording.server,
                        entries=[e for t in takes for e in t["entries"]])


def start_tape(recording: Cassette | None, *, record: str | os.PathLike[str] | None,
               out: str | os.PathLike[str] | None, done: Sequence[str], left: int) -> Tape | None:
    """The tape of a sweep that records (None for one that does not), checked before anything is sent.

    `done`: the plan's episodes already in the results; `left`: how many will run. Refused when nothing is
    left to run and the tape holds none of the done ones: the cassette would be empty.
    """
    if recording is None or record is None:
        return None
    check_cassette_path(record)
    tape = Tape(tape_path(out), recording)
    if not left and done and not any(k in tape.takes for k in done):
        raise ValueError(f"nothing to record: the {len(done):,} episode(s) of this sweep in {os.fspath(out or '')} ran "
                         "without record= (--record), and none is left to run; record into another --out or --name.")
    return tape


def write_cassette(tape: Tape, keys: Sequence[str], path: str | os.PathLike[str]) -> str:
    """Write the cassette of these episodes (the plan's, in the results); returns a note worth a line, or "".

    A cassette with no call is not written. A save that fails raises ValueError saying where the calls are kept,
    so the same command with a path that can be written writes it, without running anything again.
    """
    cassette = tape.cassette(keys)
    if not cassette.entries:
        return f"no call was recorded, so no cassette was written to {os.fspath(path)}."
    try:
        cassette.save(path)
    except OSError as err:
        kept = (f"every recorded call is kept in {tape.path}: run the same command with a record path you can write "
                "to, and it writes the cassette without calling the API again") if tape.path is not None else \
            "the calls were kept in memory only (pass out= to keep them beside the results)"
        raise ValueError(f"the cassette {os.fspath(path)} could not be written ({err.strerror or err}); {kept}.") from None
    missing = tape.missing(keys)
    if not missing:
        return ""
    return (f"the cassette {os.fspath(path)} holds {len(keys) - len(missing):,} of the {len(keys):,} episodes; "
            f"{len(missing):,} ran without recording (the first: {missing[0]}), so replaying the whole sweep "
            "would refuse: record it into another --out or --name.")
