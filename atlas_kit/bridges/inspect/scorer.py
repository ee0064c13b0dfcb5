"""The Atlas grader as an inspect scorer: correctness, recovery and each failure mode, per sample and overall.

`recovered` is set only when a tool error reached the model (NaN otherwise, which inspect leaves out), so its
mean is atlas_kit's recovery rate, P(correct | hit_error); with --epochs, inspect first averages each ticket's
epochs (NaN ones skipped), so it is the mean of per-ticket rates. Wilson 95% intervals sit beside the means.
The grading itself is atlas_kit.atlas.grade, on the episode replayed from the log (episode.py). Chapter 11.
"""
from __future__ import annotations

import datetime as dt
import math

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState

from ...types.sets import StopReason
from ...atlas.grade import LABELS, grade
from ...atlas.grade import SILENT_WRONG
from ...stats import wilson
from ...models.standin.model import OFFLINE_MODEL
from .episode import AtlasEpisode, EpisodeSpec, replay
from .standin import PROVIDER

MODES: tuple[str, ...] = (*LABELS, SILENT_WRONG)


@metric
def wilson95() -> Metric:
    """The Wilson 95% interval of a 0/1 score's mean, as `low` and `high` (atlas_kit.stats.wilson).

    With several epochs inspect first averages each sample's epochs, so a ticket counts once: a wider interval.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        values = [s.score.as_float() for s in scores]
        low, high = wilson(sum(values), len(values))  # type: ignore[arg-type]  # a fractional count is well defined
        return {"low": low, "high": high}

    return compute


def source_of(model: str) -> str:
    """Where a sample's answers came from, as atlas_kit labels results: simulated, mock or live."""
    if model == f"{PROVIDER}/{OFFLINE_MODEL}":
        return "simulated (atlas_kit's offline stand-in, a rule-based program)"
    if model.startswith("mockllm/"):
        return "mock (inspect's mockllm: canned outputs, not a model)"
    return f"live ({model}, {dt.date.today().isoformat()})"


@scorer(metrics={"correct": [mean(), stderr(), wilson95()], "recovered": [mean(), wilson95()],
                 **{mode: [mean()] for mode in MODES}})
def atlas_grade() -> Scorer:
    """Grade each sample with atlas_kit's grader; the reasons are the explanation, the labels the failure modes."""

    async def score(state: TaskState, target: Target) -> Score:
        spec = EpisodeSpec.of(state.metadata)
        episode = state.store_as(AtlasEpisode)
        stop = episode.stop_reason or _stopped_by_inspect(state)
        run = replay(spec, state.messages, epoch=state.epoch, stop_reason=stop)
        result = grade(run)
        errors = run.trace.of_kind("error")
        value: dict[str, float] = {"correct": float(result.correct),
                                   "recovered": float(result.correct) if errors else math.nan,
                                   **{mode: float(mode in result.labels) for mode in MODES}}
        return Score(
            value=value,
            answer=run.final_text,
            explanation="; ".join(result.reasons) or "correct: the end state and the answer match the ticket's outcome",
            metadata={"labels": sorted(result.labels), "stop_reason": stop, "hit_error": bool(errors),
                      "error_codes": sorted({e["code"] for e in errors}),
                      "branches": sorted({e.get("branch") or "none" for e in errors}),
                      "tool_calls": len(run.trace.of_kind("call")), "steps": episode.steps,
                      "loop_detected": bool(run.trace.of_kind("loop_detected")), "source": source_of(str(state.model))},
        )

    return score


def _stopped_by_inspect(state: TaskState) -> StopReason:
    """The stop reason of a run one of inspect's limits ended: cost_limit for tokens or dollars, else step_limit."""
    over_tokens = state.token_limit is not None and state.token_usage >= state.token_limit
    over_cost = state.cost_limit is not None and state.cost_usage >= state.cost_limit
    return "cost_limit" if over_tokens or over_cost else "step_limit"
