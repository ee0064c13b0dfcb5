"""inspect_ai eval logs (.eval or .json), read with inspect's own public API (`inspect_ai.log.read_eval_log`),
so they need the `inspect` extra. A tool message's error is inspect's `error` field (basis "flag"), and its text
is the error's message, which inspect's providers send to the model. One episode per sample and epoch.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from ..model import Episode, Format, ModelText, Outcome, ToolCall, ToolResult, TranscriptError, Turn, UserText
from .base import CallBook, evidence_of

if TYPE_CHECKING:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessage
    from inspect_ai.scorer import Value

NEEDS = "reading an inspect log needs inspect_ai: pip install 'atlas_kit[inspect]' (Python 3.11 or newer)."


def outcome_of_value(value: Value) -> Outcome:
    """A score's value as an outcome: true/false and inspect's "C"/"I" are correct/incorrect; a number is a reward,
    correct only when exactly 1 and incorrect only when exactly 0; a mapping is read through its `correct` entry
    (atlas_kit's scorer has one); anything else ("P", "N", a list, a mapping without `correct`) is unknown."""
    if isinstance(value, bool):
        return Outcome(value, float(value))
    if isinstance(value, str):
        return Outcome({"C": True, "I": False}.get(value))
    if isinstance(value, (int, float)):
        return Outcome(True if value == 1 else False if value == 0 else None, float(value))
    if isinstance(value, Mapping) and value.get("correct") is not None:
        inner = value["correct"]
        return outcome_of_value(inner) if inner is not None else Outcome()
    return Outcome()


class InspectReader:
    """Reads an inspect_ai eval log. The outcome is the score named `score` (default: the sample's first score,
    in the log's order); `metadata` names the scorer used. A sample without scores has an unknown outcome."""

    format: Format = "inspect"

    def __init__(self, *, score: str | None = None) -> None:
        self.score = score

    def read(self, path: Path) -> list[Episode]:
        try:
            from inspect_ai.log import read_eval_log
        except ImportError:
            raise TranscriptError(str(path), "", NEEDS) from None
        if not path.exists():
            raise TranscriptError(str(path), "", "no such file; give the path of an inspect log (.eval or .json).")
        try:
            log = read_eval_log(str(path), resolve_attachments=True)
        except Exception as err:  # inspect's reader raises many kinds (zip, JSON, pydantic): each is one bad file
            first = (str(err).strip().splitlines() or [type(err).__name__])[0]
            raise TranscriptError(str(path), "", f"inspect_ai cannot read it as an eval log ({first}); expected a "
                                  ".eval or .json log that inspect wrote.") from None
        model = log.eval.model
        return [self._episode(path, i, s, model) for i, s in enumerate(log.samples or [])]

    def _episode(self, path: Path, i: int, sample: EvalSample, model: str) -> Episode:
        where = f"sample {sample.id!r} epoch {sample.epoch}"
        turns, system = sample_turns(sample.messages, path, where)
        scores = sample.scores or {}
        name = self.score if self.score is not None else next(iter(scores), None)
        if name is not None and name not in scores:
            raise TranscriptError(str(path), where, f"has no score {name!r}; its scores are "
                                  f"{', '.join(scores) or 'none'}.")
        outcome = outcome_of_value(scores[name].value) if name is not None else Outcome()
        return Episode(id=f"{sample.id}/epoch-{sample.epoch}", format=self.format, file=str(path), record=i,
                       turns=turns, outcome=outcome, evidence=evidence_of(model), task_id=str(sample.id),
                       trial=sample.epoch, model=model, system=system, metadata={"score": name})


def sample_turns(messages: list[ChatMessage], path: Path, where: str) -> tuple[tuple[Turn, ...], str]:
    """The turns of one sample's messages, and its system text."""
    turns: list[Turn] = []
    system: list[str] = []
    book = CallBook(path)
    for i, m in enumerate(messages):
        if m.role == "system":
            system.append(m.text)
        elif m.role == "user":
            turns.append(UserText(m.text, i))
        elif m.role == "assistant":
            turns += [ModelText(m.text, i)] if m.text.strip() else []
            for call in m.tool_calls or []:
                book.made(call.id)
                turns.append(ToolCall(call.id, call.function, dict(call.arguments), i))
        else:
            if not m.tool_call_id:
                raise TranscriptError(str(path), f"{where}, message {i}", "a tool message has no tool_call_id; "
                                      "expected the id of the call it answers.")
            book.answered(m.tool_call_id, f"{where}, message {i}")
            text = m.error.message if m.error is not None else m.text
            turns.append(ToolResult(m.tool_call_id, m.error is not None, "flag", text, i))
    return tuple(turns), "\n\n".join(system)
