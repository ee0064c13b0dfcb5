"""A recorded sweep's calls, kept beside its results as they are paid for, so a recording is never lost.

`start_tape` checks the cassette before anything is sent. `Tape` appends each finished episode's calls to
RESULTS.jsonl.tape (one line per episode, on disk before its record is) and writes the cassette from it: every
call the cassette held before, then every episode of the plan the tape holds, in plan order, whichever run
recorded it. A cassette is extended, never shrunk or replaced. Replay is models/replay.py's. Chapter 11.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Collection, Sequence, TypedDict

from ..models.cassette import Cassette
from ..models.record_path import check_cassette_path
from .results import repair
from ..types.exceptions import AtlasKitValueError


class Take(TypedDict):
    """One finished episode's recorded calls: a later take of the same episode (its rerun) replaces an earlier one."""

    key: str
    recorded_on: str
    entries: list[dict[str, Any]]


def tape_path(out: str | os.PathLike[str] | None) -> Path | None:
    """Where a recorded sweep keeps its calls: beside the results file (RESULTS.jsonl.tape), or nowhere."""
    return None if out is None else Path(os.fspath(out) + ".tape")


class Tape:
    """A recording sweep's calls per episode: in the file at `path` (None: in memory only, lost with the process)."""

    def __init__(self, path: Path | None, recording: Cassette) -> None:
        self.path, self.recording = path, recording
        self.held = list(recording.entries)  # the cassette's calls before this sweep (choose_model loaded them)
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
                raise AtlasKitValueError(f"{self.path}: line {n} is not a recorded episode ({err}); delete the file to "
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

    def cassette(self, keys: Sequence[str], *, ran: Collection[str] = ()) -> Cassette:
        """The cassette to write: every call it held before, then these episodes' latest takes, in this order; dated
        by the earliest. An episode the cassette held keeps its calls, unless this run (`ran`) ran it again: a
        resume reruns an episode that ended at the API, and its new take stands in for the failed attempt's."""
        held: dict[str | None, list[dict[str, Any]]] = {}
        for entry in self.held:
            held.setdefault(entry.get("episode"), []).append(entry)
        planned = [k for k in keys if k in self.takes or k in held]
        shown = set(planned)
        entries = [e for e in self.held if e.get("episode") not in shown]  # other recordings, kept as they were
        dates = [self.recording.recorded_on] if self.held else []
        for key in planned:
            if key in held and not (key in ran and key in self.takes):
                entries += held[key]
            else:
                entries += self.takes[key]["entries"]
                dates.append(self.takes[key]["recorded_on"])
        return Cassette(model=self.recording.model, recorded_on=min(dates, default=self.recording.recorded_on),
                        server=self.recording.server, entries=entries)

    def clashes(self, todo: Sequence[str]) -> list[str]:
        """The episodes this sweep would run that the cassette already holds from another recording (not this tape's
        take of them): recording them again would replace calls the cassette holds."""
        held: dict[str, list[str]] = {}
        for entry in self.held:
            if entry.get("episode"):
                held.setdefault(str(entry["episode"]), []).append(str(entry.get("fingerprint")))
        ours = {k: [str(e.get("fingerprint")) for e in t["entries"]] for k, t in self.takes.items()}
        return [k for k in todo if k in held and held[k] != ours.get(k)]


def start_tape(recording: Cassette | None, *, record: str | os.PathLike[str] | None,
               out: str | os.PathLike[str] | None, done: Sequence[str], todo: Sequence[str]) -> Tape | None:
    """The tape of a sweep that records (None for one that does not), checked before anything is sent.

    `recording` holds the calls the cassette already has (choose_model loaded and checked it). `done`: the plan's
    episodes already in the results; `todo`: those that will run. Refused when nothing is left to run and the
    tape holds none of the done ones (nothing to add), and when the cassette already holds, from another
    recording, an episode this sweep would run (recording it again would replace those calls).
    """
    if recording is None or record is None:
        return None
    check_cassette_path(record)
    tape = Tape(tape_path(out), recording)
    if not todo and done and not any(k in tape.takes for k in done):
        raise AtlasKitValueError(f"nothing to record: the {len(done):,} episode(s) of this sweep in {os.fspath(out or '')} ran "
                         "without record= (--record), and none is left to run; record into another --out or --name.")
    clash = tape.clashes(todo)
    if clash:
        raise AtlasKitValueError(f"the cassette {os.fspath(record)} already holds {len(clash):,} of the episodes this sweep "
                         f"would record (the first: {clash[0]}); recording adds to a cassette and never replaces its "
                         "calls: record into another path, or resume with the --out it was recorded with. Nothing "
                         "was sent.")
    return tape


def write_cassette(tape: Tape, keys: Sequence[str], path: str | os.PathLike[str], *, ran: Collection[str] = ()) -> str:
    """Write the cassette: what it held, then these episodes (the plan's, in the results; `ran`: those this run
    ran); returns a note worth a line, or "".

    A cassette with no call is not written. A save that fails raises ValueError saying where the calls are kept,
    so the same command with a path that can be written writes it, without running anything again.
    """
    cassette = tape.cassette(keys, ran=ran)
    if not cassette.entries:
        return f"no call was recorded, so no cassette was written to {os.fspath(path)}."
    try:
        cassette.save(path)
    except OSError as err:
        kept = (f"every recorded call is kept in {tape.path}: run the same command with a record path you can write "
                "to, and it writes the cassette without calling the API again") if tape.path is not None else \
            "the calls were kept in memory only (pass out= to keep them beside the results)"
        raise AtlasKitValueError(f"the cassette {os.fspath(path)} could not be written ({err.strerror or err}); {kept}.") from None
    missing = [k for k in tape.missing(keys) if k not in cassette.episodes()]
    if not missing:
        return ""
    return (f"the cassette {os.fspath(path)} holds {len(keys) - len(missing):,} of the {len(keys):,} episodes; "
            f"{len(missing):,} ran without recording (the first: {missing[0]}), so replaying the whole sweep "
            "would refuse: record it into another --out or --name.")
