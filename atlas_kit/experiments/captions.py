"""What a chart title or an outcome table's caption says about its records: where they came from and, for the
stand-in's episodes, that its assumed rates set the result, so no comparison of styles on them reads as a finding
(issue 50). The source label itself is results.source_label. Taught in chapter 02; every chart and table uses it.
"""
from __future__ import annotations

from typing import Final, Iterable, Mapping

from ..types.records import Source
from ..types.results import record_kind
from .results import source_label

SIMULATED_NOTE: Final = "simulated: the result is set by the assumed rates"
"""What a chart or an outcome table drawn from the stand-in's episodes says: its rules and its profile's rates set
who recovers, so a comparison of styles on them is no finding."""


def simulated_note(records: Iterable[Mapping[str, object]]) -> str:
    """SIMULATED_NOTE when every record is the stand-in's; when only some are, a note that says so; else ''."""
    kinds = {record_kind(r) for r in records}
    if "simulated" not in kinds:
        return ""
    return SIMULATED_NOTE if kinds == {"simulated"} else "the simulated episodes' result is set by the assumed rates"


def data_caption(records: Iterable[Mapping[str, object]]) -> str:
    """The end of an outcome table's caption: "Data: <source>.", then the simulated note as its own sentence."""
    listed = list(records)
    note = simulated_note(listed)
    return f"Data: {source_label(listed)}.{_sentence(note)}"


def source_caption(source: Source) -> str:
    """The end of a caption for runs of one source (a table of single runs, no records): "Source: <short label>.",
    then, for the stand-in, SIMULATED_NOTE as its own sentence, as data_caption says it for records."""
    return f"Source: {source.short}.{_sentence(SIMULATED_NOTE if source.kind == 'simulated' else '')}"


def _sentence(note: str) -> str:
    """A note as a sentence of its own after a caption's source: ' Note, capitalised.', or '' for no note."""
    return f" {note[0].upper()}{note[1:]}." if note else ""
