"""What happened around each tool error in a set of episodes, as typed rows: did an error reach the model, each
error with the model's next action, and the loop signal. Pure functions: no printing, no drawing (report.py
writes, transcript_charts.py draws); recovery.py and groups.py compute the rates. Chapter "Errors in the wild".
"""
from __future__ import annotations

import typing
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Literal, Sequence

from ..types.sets import JSONObject
from ..types.walk import canonical
from .masking import masked
from .model import Episode, ErrorBasis, Evidence, ToolCall, ToolResult, Turn
from ..types.exceptions import AtlasKitValueError

NextAction = Literal["identical_retry", "changed_arguments", "other_tool", "reply", "end"]
"""What the model did next after a tool error; `next_action` defines each."""
NEXT_ACTIONS: tuple[NextAction, ...] = typing.get_args(NextAction)


@dataclass(frozen=True)
class Next:
    """The model's next step after an error: the action, the tool it called (None for reply and end), whether
    that step also wrote text, and whether a user message came between the error and the step."""

    action: NextAction
    tool: str | None
    has_text: bool
    user_first: bool


@dataclass(frozen=True)
class ErrorEvent:
    """One tool error that reached the model: the call it answered (tool, arguments), the text the model read,
    that text masked (mask.py), how the error was known, what the model did next, and the episode's outcome.
    `ordinal` is 1 for the episode's first error; `position` is the error's index in the episode's turns;
    `model` and `evidence` are the episode's. The contract rubric (rubric.py) reads `tool`, `arguments`, `text`.
    `text` and `arguments` are the data's own (a key in them is there for the rubric to find); `masked` is redacted
    first (masking.masked), and every output (the dashboard, the CSV, the charts) shows only redacted text."""

    file: str
    episode: str
    model: str | None
    evidence: Evidence
    task_id: str | None
    trial: int | None
    ordinal: int
    position: int
    tool: str
    arguments: JSONObject | str
    text: str
    masked: str
    basis: ErrorBasis
    next: Next
    correct: bool | None
    reward: float | None


@dataclass(frozen=True)
class EpisodeRow:
    """One episode: how many tool errors reached the model (None for a results record, which keeps no count),
    whether any did, its outcome, how many loop signals it shows, and whether it came from a summary only."""

    file: str
    episode: str
    task_id: str | None
    trial: int | None
    errors: int | None
    hit_error: bool
    correct: bool | None
    loops: int
    from_summary: bool


@dataclass(frozen=True)
class LoopRow:
    """The loop signal: the same tool, the same arguments and the same error text, `count` (2 or more) times in
    one episode; `positions` are the errors' indexes in the episode's turns."""

    file: str
    episode: str
    tool: str
    arguments: JSONObject | str
    text: str
    count: int
    positions: tuple[int, ...]


@dataclass(frozen=True)
class ActionCount:
    """How often one next action followed an error, and its share of all errors (nan when there are none)."""

    action: NextAction
    count: int
    share: float


def _errors(episode: Episode) -> list[tuple[int, ToolResult]]:
    return [(i, t) for i, t in enumerate(episode.turns) if isinstance(t, ToolResult) and t.is_error]


def hit_error(episode: Episode) -> bool:
    """Whether a tool error reached the model: a result flagged or inferred as an error is in the transcript
    (an error in the last turn counts, though the run stopped before the model answered it); for a results
    record, its own `hit_error`, which counts the errors atlas_kit's dispatcher passed to the model."""
    if episode.detail == "summary":
        return bool(episode.summary and episode.summary.hit_error)
    return bool(_errors(episode))


def _call_of(turns: Sequence[Turn], position: int, call_id: str) -> ToolCall | None:
    return next((t for t in reversed(turns[:position]) if isinstance(t, ToolCall) and t.id == call_id), None)


def _same(a: JSONObject | str, b: JSONObject | str) -> bool:
    """Arguments are the same when equal as JSON values (key order aside); raw strings only when identical."""
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return canonical(a) == canonical(b)


def next_action(episode: Episode, position: int, *, skip: Iterable[str] = ()) -> Next:
    """The model's next step after the error at `turns[position]`, which answered call C (tool T, arguments A).

    The next step is the first model turn (text or a tool call) after the error, other tool results and user
    messages passed over, with every model turn of the same message. Classified, first match wins:
    identical_retry, a call in the step has tool T and arguments equal to A (as JSON; key order aside);
    changed_arguments, a call has tool T with other arguments; other_tool, the step calls only other tools;
    reply, the step is text only (a reply to the user); end, no model turn follows the error.
    A step with text and a call is classified by its call (the call is the action: tau-bench, for one, never
    shows the user the text of a message that calls a tool); `has_text` records that it also wrote.
    `skip` names tools that are not actions (tau-bench's `think`): their calls and results are passed over as if
    absent, so the step after them is the next action. By default nothing is skipped.
    """
    turns = episode.turns
    result = turns[position]
    if not isinstance(result, ToolResult) or not result.is_error:
        raise AtlasKitValueError(f"position must index a tool error in episode {episode.id!r}; turns[{position}] is "
                         f"{type(result).__name__}.")
    call = _call_of(turns, position, result.call_id)
    after = _without(turns[position + 1:], frozenset(skip))
    start = next((k for k, t in enumerate(after) if t.kind in ("model_text", "tool_call")), None)
    user_first = any(t.kind == "user_text" for t in after[:start])
    if start is None:
        return Next("end", None, False, user_first)
    message = after[start].message
    step = [t for t in after[start:] if t.kind in ("model_text", "tool_call") and t.message == message]
    calls = [t for t in step if isinstance(t, ToolCall)]
    has_text = any(t.kind == "model_text" for t in step)
    same_tool = [c for c in calls if call is not None and c.tool == call.tool]
    if call is not None and any(_same(c.arguments, call.arguments) for c in same_tool):
        return Next("identical_retry", call.tool, has_text, user_first)
    if same_tool:
        return Next("changed_arguments", same_tool[0].tool, has_text, user_first)
    if calls:
        return Next("other_tool", calls[0].tool, has_text, user_first)
    return Next("reply", None, has_text, user_first)


def _without(turns: Sequence[Turn], skip: frozenset[str]) -> list[Turn]:
    """`turns` less the calls to the tools in `skip` and the results that answer them. A result answers the latest
    call before it with its id (some logs use one id for two calls: tau-bench does), so a real call that shares an
    id with a skipped one stays, and so does its result."""
    if not skip:
        return list(turns)
    kept: list[Turn] = []
    latest: dict[str, str] = {}  # call id -> the tool of the latest call with it so far
    for t in turns:
        if isinstance(t, ToolCall):
            latest[t.id] = t.tool
            if t.tool in skip:
                continue
        elif isinstance(t, ToolResult) and latest.get(t.call_id) in skip:
            continue
        kept.append(t)
    return kept


def error_events(episodes: Iterable[Episode], *, skip: Iterable[str] = ()) -> list[ErrorEvent]:
    """Every tool error in episodes that have turns, in order, with its next action (`skip`: see next_action).
    Results records (summary episodes) keep no error text, so they give none."""
    skip = frozenset(skip)
    events: list[ErrorEvent] = []
    for e in episodes:
        for n, (i, result) in enumerate(_errors(e), start=1):
            call = _call_of(e.turns, i, result.call_id)
            events.append(ErrorEvent(e.file, e.id, e.model, e.evidence, e.task_id, e.trial, n, i,
                                     call.tool if call else "<unknown>",
                                     call.arguments if call else "", result.text, masked(result.text), result.basis,
                                     next_action(e, i, skip=skip), e.outcome.correct, e.outcome.reward))
    return events


def loops(events: Iterable[ErrorEvent]) -> list[LoopRow]:
    """The loop signal in each episode: every (tool, arguments, error text) that failed twice or more."""
    seen: dict[tuple[str, str, str, str, str], list[ErrorEvent]] = {}
    for ev in events:
        args = ev.arguments if isinstance(ev.arguments, str) else canonical(ev.arguments)
        seen.setdefault((ev.file, ev.episode, ev.tool, args, ev.text), []).append(ev)
    return [LoopRow(evs[0].file, evs[0].episode, evs[0].tool, evs[0].arguments, evs[0].text, len(evs),
                    tuple(ev.position for ev in evs)) for evs in seen.values() if len(evs) > 1]


def episode_rows(episodes: Iterable[Episode]) -> list[EpisodeRow]:
    """One row per episode: its errors, whether one reached the model, its outcome and its loop signals."""
    rows = []
    for e in episodes:
        summary = e.detail == "summary"
        signals = loops(error_events([e]))
        rows.append(EpisodeRow(e.file, e.id, e.task_id, e.trial, None if summary else len(_errors(e)), hit_error(e),
                               e.outcome.correct, len(signals), summary))
    return rows


def next_action_counts(events: Sequence[ErrorEvent]) -> list[ActionCount]:
    """How often each next action followed an error, in NEXT_ACTIONS order (every action, zeros included)."""
    counts = Counter(ev.next.action for ev in events)
    total = len(events)
    return [ActionCount(a, counts[a], counts[a] / total if total else float("nan")) for a in NEXT_ACTIONS]


@dataclass(frozen=True)
class ModelActions:
    """What one model (None: the data names none) did next after its tool errors: one ActionCount per next action,
    in NEXT_ACTIONS order, shares of this model's errors."""

    model: str | None
    counts: tuple[ActionCount, ...]

    @property
    def errors(self) -> int:
        return sum(c.count for c in self.counts)

    def count(self, action: NextAction) -> ActionCount:
        return next(c for c in self.counts if c.action == action)


def next_actions_by_model(events: Iterable[ErrorEvent]) -> list[ModelActions]:
    """next_action_counts for each model the errors' episodes name, sorted by name, 'not named' last."""
    by: dict[str | None, list[ErrorEvent]] = {}
    for ev in events:
        by.setdefault(ev.model, []).append(ev)
    return [ModelActions(m, tuple(next_action_counts(by[m]))) for m in sorted(by, key=model_order)]


def model_order(model: str | None) -> tuple[bool, str]:
    """The order every per-model table follows: models by name, then the episodes whose data names none."""
    return model is None, model or ""


def window(episode: Episode, position: int, *, before: int = 2, after: int = 3) -> tuple[Turn, ...]:
    """The turns around `turns[position]`: `before` turns before it, the turn itself, and `after` after it, for
    reading an error in its context (the call it answered is usually the turn just before it)."""
    return episode.turns[max(0, position - before): position + after + 1]


def find_episode(episodes: Iterable[Episode], *, task_id: str | int, trial: int | None = None) -> Episode:
    """The episode with this task id (and trial, when given); a ValueError names what is there otherwise."""
    found = [e for e in episodes if e.task_id == str(task_id) and (trial is None or e.trial == trial)]
    if len(found) != 1:
        shown = "no episode" if not found else f"{len(found)} episodes (give trial=)"
        raise AtlasKitValueError(f"task_id={task_id!r}, trial={trial!r} matches {shown}; give a task id and trial the "
                         "episodes hold (Episode.task_id, Episode.trial).")
    return found[0]
