"""tau-bench trajectory files (sierra-research/tau-bench `historical_trajectories/*.json`): a JSON list of episodes
with `task_id`, `trial`, `reward` and `traj`, an OpenAI-format chat with a simulated user. A tool message is an error
when it starts "Error:" (how tau-bench's environments return a failed action); reward 1.0 is correct, any other
reward is not. The records name no model, so the model is unknown, never guessed from the file's name; a file whose
bytes are a published file atlas_kit knows (shipped.PUBLISHED) takes the model its provenance gives.
"""
from __future__ import annotations

from pathlib import Path

from ..model import Episode, Format, Outcome, TranscriptError
from ..shipped import published
from .base import parse_any, read_bytes, reward_of, task_of
from .openai import chat_turns


def is_tau_error(text: str) -> bool:
    """tau-bench's own mark of a failed action: the tool message starts with 'Error:'."""
    return text.startswith("Error:")


class TauBenchReader:
    """Reads a tau-bench trajectory file. Each episode's id is task-<task_id>/trial-<trial>; its system text is
    the policy the agent was given. The file holds no model name: `model` is None, unless the file's bytes are a
    published file's (shipped.published), when it is the provenance's model and `metadata["model_from"]` says so."""

    format: Format = "tau-bench"

    def read(self, path: Path) -> list[Episode]:
        data, _ = parse_any(path)  # tau-bench writes one JSON list; one episode per line (JSONL) reads the same
        if not isinstance(data, list) or not data:
            raise TranscriptError(str(path), "", "is not a non-empty JSON list; expected tau-bench's list of "
                                  "episodes, each with task_id, trial, reward and traj.")
        known = published(read_bytes(path))
        model = known.model if known else None
        source = f"the provenance of {known.repository}'s {known.path} (the same bytes)" if known else None
        return [self._episode(path, i, item, model, source) for i, item in enumerate(data)]

    def _episode(self, path: Path, i: int, item: object, model: str | None, source: str | None) -> Episode:
        where = f"record {i}"
        if not isinstance(item, dict):
            raise TranscriptError(str(path), where, "is not an object; expected an episode with task_id, trial, "
                                  "reward and traj.")
        missing = [k for k in ("task_id", "trial", "reward", "traj") if k not in item]
        if missing:
            raise TranscriptError(str(path), where, f"has no {', '.join(missing)}; expected an episode with "
                                  "task_id, trial, reward and traj (a tau-bench trajectory).")
        trial, traj = item["trial"], item["traj"]
        if not isinstance(traj, list) or isinstance(trial, bool) or not isinstance(trial, int):
            raise TranscriptError(str(path), where, "expected trial a whole number and traj a list of chat messages.")
        reward = reward_of(item["reward"], path, where, "a finite number (tau-bench's reward)")
        turns, system = chat_turns(traj, path, where, is_error=is_tau_error)
        task = task_of(item["task_id"], path, where)
        return Episode(id=f"task-{task}/trial-{trial}", format=self.format, file=str(path), record=i,
                       turns=turns, outcome=Outcome(reward == 1.0, reward), evidence="real",
                       task_id=task, trial=trial, model=model, system=system,
                       metadata={"model_from": source})
