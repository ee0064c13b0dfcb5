"""Reading one tool error in its episode: the turns around it as rows (where, who, what), a call written as
tool(arguments), and how the episode ended. Rows only, texts whole: face/tables.Table shows them and shortens long
cells between words (clip=). Chapter "Errors in the wild" reads three real errors this way.
"""
from __future__ import annotations

import json

from ..types.records import TableRows
from .masking import shown
from .model import Episode, ModelText, ToolCall, ToolResult, Turn
from ..types.exceptions import AtlasKitValueError

EXCERPT_COLUMNS = ["at", "who", "what"]


def turn_text(turn: Turn) -> tuple[str, str]:
    """(who, what) for one turn: a call as tool({arguments as JSON}), a result or an error as its text; redacted
    (masking.shown), as every output of someone's data is."""
    if isinstance(turn, ToolCall):
        args = turn.arguments if isinstance(turn.arguments, str) else json.dumps(turn.arguments, ensure_ascii=False)
        return "model calls", shown(f"{turn.tool}({args})")
    if isinstance(turn, ToolResult):
        return ("tool error" if turn.is_error else "tool result"), shown(turn.text) or "(empty)"
    if isinstance(turn, ModelText):
        return "model writes", shown(turn.text)
    return "user", shown(turn.text)


def ended(episode: Episode) -> str:
    """How the episode ended, as its data says: 'correct (reward 1.0)', 'not correct (reward 0.0)' or unknown."""
    outcome = episode.outcome
    if outcome.correct is None:
        return "outcome unknown (the data does not say)"
    reward = f" (reward {outcome.reward:g})" if outcome.reward is not None else ""
    return f"{'correct' if outcome.correct else 'not correct'}{reward}"


def excerpt_rows(episode: Episode, position: int, *, before: int = 1, after: int = 3) -> TableRows:
    """The turns from `before` turns before the error at `turns[position]` to `after` turns after it. `at` counts
    from the error (0; the call it answered is usually -1); the caption names the episode, its model, its kind of
    evidence and how it ended."""
    turn = episode.turns[position] if 0 <= position < len(episode.turns) else None
    if not (isinstance(turn, ToolResult) and turn.is_error):
        raise AtlasKitValueError(f"position must index a tool error in episode {episode.id!r}; turns[{position}] is "
                         f"{type(turn).__name__ if turn is not None else 'out of range'}.")
    first = max(0, position - before)
    rows: list[list[object]] = []
    for k, t in enumerate(episode.turns[first: position + after + 1], start=first):
        who, what = turn_text(t)
        rows.append([f"{k - position:+d}" if k != position else "0", who, what])
    model = episode.model or "model not named in the data"
    caption = f"{episode.id}, {model}, {episode.evidence} transcript; the episode ended {ended(episode)}"
    return TableRows(list(EXCERPT_COLUMNS), rows, caption)
