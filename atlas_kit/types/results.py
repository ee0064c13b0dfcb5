"""A results file read back: one episode record per line (JSONL), as experiments/results.py writes it.

Reading needs none of the sweep: `read_records` and `parse_records` give the records, one per key, and
`source_of` says where each came from, so a reader of atlas_kit's own logs (transcripts/) and a resumed sweep
share one reader. Writing, and what a record holds, are experiments/results.py's and records.py's. Chapter 11.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Final, Mapping, cast

from .exceptions import AtlasKitValueError
from .records import SOURCE_KINDS, Record, Source, SourceKind

# The stop reason of an episode the harness itself could not finish (a bug, not the model's doing).
HARNESS_ERROR: Final = "harness_error"
# The stop reason of an episode that ended at the API (the record's api_failure says why); a resume reruns it.
API_FAILURE: Final = "api_failure"


def read_records(path: str | os.PathLike[str]) -> list[Record]:
    """Every complete record in the file, one per key; [] when the file does not exist.

    The first copy of a key wins, except that a copy whose episode ended in an API failure gives way
    to a later copy (the rerun a resume makes). A last line without a newline is a write a crash cut
    short and is skipped. A bad line anywhere else is damage no crash makes, and raises ValueError naming the line.
    """
    path = Path(path)
    if not path.exists():
        return []
    return parse_records(path.read_bytes(), path)


def parse_records(data: bytes, path: str | os.PathLike[str], *, last_if_whole: bool = False) -> list[Record]:
    """read_records on a file's bytes already read (`path` names it in errors). With `last_if_whole`, a last line
    without a newline is kept when it is a whole record (a file someone wrote without a final newline); resuming
    never keeps it, since the next record would be appended to that line."""
    lines = data.split(b"\n")
    complete = lines[:-1]  # the piece after the last newline is empty, or a partial line
    if last_if_whole and lines[-1].strip() and _whole(lines[-1]):
        complete = lines
    records: dict[str, Record] = {}
    for n, line in enumerate(complete, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as err:
            raise AtlasKitValueError(f"{path}: line {n} is not a JSON record ({err}); fix or delete that line, "
                             "then run the experiment again to redo the episode.") from err
        if not isinstance(record, dict) or not isinstance(record.get("key"), str):
            raise AtlasKitValueError(f"{path}: line {n} is not an episode record (no 'key' string); is this an atlas_kit "
                             "results file?")
        earlier = records.get(record["key"])
        if earlier is None or earlier.get("stop_reason") == API_FAILURE:
            records.pop(record["key"], None)  # a rerun takes the place of the failed copy, at the end
            records[record["key"]] = cast(Record, record)
    return list(records.values())


def _whole(line: bytes) -> bool:
    try:
        record = json.loads(line)
    except ValueError:
        return False
    return isinstance(record, dict) and isinstance(record.get("key"), str)


def legacy_kind(label: object) -> SourceKind | None:
    """The kind a label of a record from before sources were typed starts with (its first word, which each kind's
    label has always started with). The one place a label is read back: old files only."""
    first = label.split(" ", 1)[0] if isinstance(label, str) else ""
    return next((kind for kind in SOURCE_KINDS if kind == first), None)


def source_of(record: Mapping[str, object]) -> Source | None:
    """The typed source of a record, from its fields; a record written before they existed is upgraded here.

    Records carry source_kind, source_date and (from issue 24 on) source_server beside the label; a file from
    before source_kind is read from its label's first word. None when the record names no source.
    """
    kind = record.get("source_kind")
    if kind not in SOURCE_KINDS:
        kind = legacy_kind(record.get("source"))
    if kind is None:
        return None
    date, server, model = record.get("source_date"), record.get("source_server"), record.get("model")
    return Source(kind, str(model or ""), date if isinstance(date, str) else None,
                  server if isinstance(server, str) and kind != "simulated" else None)


def record_kind(record: Mapping[str, object]) -> SourceKind | None:
    """The record's source kind (see `source_of`)."""
    found = source_of(record)
    return found.kind if found else None
