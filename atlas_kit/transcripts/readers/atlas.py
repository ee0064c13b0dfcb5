"""atlas_kit's own results: a results JSONL (results.py) has no transcript, only counts and labels, so it gives the
outcome, whether an error reached the model and its codes (a Summary), never an error's text or the next action.
Chapter 15's MCP log (mcp_episode.McpRecord) adds every call, its isError, the text sent back and the reply: turns.
`run_episode` reads an agent Run in memory.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

from ...types.results import API_FAILURE, HARNESS_ERROR, parse_records, record_kind
from ...types.records import FinishedRun
from ..model import Episode, Evidence, Format, ModelText, Outcome, Summary, ToolCall, ToolResult, TranscriptError, Turn
from .anthropic import message_turns
from .base import arguments_of, evidence_of, read_bytes

_EVIDENCE: dict[str, Evidence] = {"simulated": "simulated", "live": "real", "replayed": "replayed"}
_NEEDED = ("key", "correct", "hit_error", "stop_reason", "ticket", "trial", "model")


class AtlasReader:
    """Reads an Atlas results JSONL or MCP log (read as results.read_records reads it: a later copy of an episode
    that failed at the API replaces it). Episodes that the harness could not finish or that ended at the API
    have an unknown outcome: no model failed there."""

    format: Format = "atlas"

    def read(self, path: Path) -> list[Episode]:
        data = read_bytes(path)  # un-gzipped when it ends in .gz
        _check_lines(path, data)
        try:
            records = parse_records(data, path, last_if_whole=True)
        except (ValueError, OSError) as err:  # _check_lines has said what it can; this is the rest
            raise TranscriptError(str(path), "", _one_line(err).replace(f"{path}: ", "")) from None
        if not records:
            raise TranscriptError(str(path), "", "holds no results records; expected an atlas_kit results JSONL or "
                                  "MCP log (one episode per line).")
        return record_episodes(records, file=str(path))


def _check_lines(path: Path, data: bytes) -> None:
    """Every complete line is a JSON object with a 'key', said in this reader's words. A last line with no newline
    is read when it is a whole record (a file written without a final newline) and passed over when it is not (a
    write a crash cut short, or one still being written)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise TranscriptError(str(path), f"byte {err.start}", "is not UTF-8 text; expected an atlas_kit results "
                              "JSONL.") from None
    for n, line in enumerate(text.split("\n")[:-1], start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as err:
            raise TranscriptError(str(path), f"line {n}", f"is not JSON ({err.msg}); expected one atlas_kit results "
                                  "record per line (a results JSONL or an MCP log).") from None
        if not isinstance(value, dict) or not isinstance(value.get("key"), str):
            raise TranscriptError(str(path), f"line {n}", "is not an atlas_kit results record (no 'key' string); "
                                  "expected one record per line, as results.ResultsWriter writes.")


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())


def record_episodes(records: Sequence[Mapping[str, object]], *, file: str) -> list[Episode]:
    """The episodes of results records already in memory (e.g. `run_experiment`'s return value)."""
    return [_episode(r, i, file) for i, r in enumerate(records)]


def _episode(r: Mapping[str, object], i: int, file: str) -> Episode:
    where = f"record {i} (key {r.get('key')!r})"
    missing = [k for k in _NEEDED if k not in r]
    if missing:
        raise TranscriptError(file, where, f"has no {', '.join(missing)}; expected an atlas_kit results record "
                              "(results.FIELDS).")
    kind = record_kind(r)
    if kind is None:
        raise TranscriptError(file, where, "names no source kind (simulated, live or replayed); expected "
                              "'source_kind' or a 'source' label, as results.record_from_run writes.")
    unknown = r["stop_reason"] in (HARNESS_ERROR, API_FAILURE)
    calls = r.get("calls")
    turns = _mcp_turns(calls, r.get("answer"), file, where) if isinstance(calls, list) else ()
    trial = r["trial"]
    return Episode(
        id=str(r["key"]), format="atlas", file=file, record=i, turns=turns,
        outcome=Outcome(None if unknown else bool(r["correct"])), evidence=_EVIDENCE[kind],
        task_id=str(r["ticket"]), trial=trial if isinstance(trial, int) else None, model=str(r["model"]),
        detail="turns" if isinstance(calls, list) else "summary",
        summary=Summary(bool(r["hit_error"]), tuple(map(str, _list(r.get("error_codes")))),
                        tuple(map(str, _list(r.get("branches")))), _count(r.get("tool_calls")),
                        bool(r.get("loop_detected"))),
        metadata={"style": str(r.get("style")), "stop_reason": str(r["stop_reason"]),
                  "labels": ",".join(map(str, _list(r.get("labels")))), "source": str(r.get("source"))})


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _mcp_turns(calls: list[object], answer: object, file: str, where: str) -> tuple[Turn, ...]:
    """An MCP log's calls as turns: call k is tool_use id mcp_<k+1>, as mcp_episode numbers them; the answer
    handed in with finish is the model's last text."""
    turns: list[Turn] = []
    for k, call in enumerate(calls):
        shaped = isinstance(call, dict) and isinstance(call.get("tool"), str) and isinstance(call.get("result"), str)
        if not shaped or not isinstance(call, dict) or not isinstance(call.get("is_error"), bool):
            raise TranscriptError(file, f"{where}, call {k}", "expected an MCP call with 'tool', 'arguments', "
                                  "'is_error' (true or false) and 'result' (mcp_episode.McpCall).")
        call_id = f"mcp_{k + 1:03d}"
        turns += [ToolCall(call_id, call["tool"], arguments_of(call.get("arguments")), k),
                  ToolResult(call_id, call["is_error"], "flag", call["result"], k)]
    if isinstance(answer, str) and answer.strip():
        turns.append(ModelText(answer, len(calls)))
    return tuple(turns)


def run_episode(run: FinishedRun, *, correct: bool | None, id: str = "run") -> Episode:
    """An agent Run in memory (its Anthropic-format `messages`) as an episode; `correct` is the grade's
    (atlas.grade(run).correct), None when unknown. Its evidence is the run's typed source when it has one."""
    turns = message_turns(run.messages, Path("<run>"), id)
    evidence = _EVIDENCE[run.source.kind] if run.source else evidence_of(run.model)
    return Episode(id=id, format="anthropic", file="<run>", record=0, turns=turns, outcome=Outcome(correct),
                   evidence=evidence, model=run.model)
