"""The episode log of `atlas-kit mcp --log`: checked by writing before the server serves, appended to after each
episode. A write that fails later is reported to the learner (stderr) and costs nothing else: the client already
has its grade, and the record stays in the server's memory. Chapter 15.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Mapping

from ...experiments.results import ResultsWriter
from ...types.exceptions import AtlasKitValueError
from ...types.results import read_records


class LogError(AtlasKitValueError):
    """Why a path cannot be the episode log, in one line that says what to do."""


def check_log(path: Path) -> None:
    """Refuse, before serving, a log the server could not append episodes to; create it (empty) if it is new.

    A folder, a device or other special file, a file no one may write (read-only, even for root), or a path the
    server cannot open for appending is refused. The check writes, as each episode will, but writes nothing: an
    empty write still fails on a device such as /dev/full. An existing file must also be a results log.
    """
    if path.is_dir():
        raise LogError("is a folder; give a file path, such as results/mcp/atlas.jsonl.")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = os.stat(path).st_mode if path.exists() else None
    except OSError as err:
        raise LogError(f"its folder cannot be made or read ({err.strerror}); choose a path in a folder you own.") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise LogError("is not a regular file (a device, a pipe or a socket); give a file path, such as "
                       "results/mcp/atlas.jsonl.")
    if mode is not None and not mode & 0o222:
        raise LogError("is read-only; make it writable (chmod u+w) or choose another file.")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, b"")
        finally:
            os.close(fd)
    except OSError as err:
        raise LogError(f"cannot be written ({err.strerror}); choose a file in a folder you can write to.") from None
    read_records(path)  # an existing file must be a results log (ValueError names the bad line)


def logged_keys(path: Path) -> set[str]:
    """The keys already in the log; none when it cannot be read now (the next trial numbers then restart at 0)."""
    try:
        return {r["key"] for r in read_records(path)}
    except (OSError, ValueError):
        return set()


def append_record(path: Path, record: Mapping[str, object]) -> str | None:
    """Append `record` to the log; on failure, the one line to tell the learner (None when it was written)."""
    try:
        with ResultsWriter(path) as writer:
            writer.append(record)
    except (OSError, ValueError) as err:
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        return (f"atlas-kit mcp: could not append episode {record.get('key')} to --log {path} ({why}); "
                "the client got its grade, and the record is kept only in this server's memory.")
    return None
