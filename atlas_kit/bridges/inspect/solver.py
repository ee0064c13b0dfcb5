"""The Atlas agent as an inspect solver: ask the model, run its tool calls through atlas_kit's Dispatcher, repeat.

The tools are offered as inspect ToolInfo but run here, not by inspect's tool executor: inspect would answer
a call that breaks the schema in its own words, and the point is the style's words. The dispatcher's harness
retries and loop breaker act per assistant turn, as in atlas_kit/agent.py, which this mirrors. Chapter 11.
"""
from __future__ import annotations

from inspect_ai.model import ChatMessageSystem, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ...types.sets import StopReason
from .episode import AtlasEpisode, EpisodeSpec
from .messages import tool_info, tool_messages, tool_use_blocks
from .standin import episode_config, give_usage
from ...types.exceptions import AtlasKitValueError

# inspect's stop reasons that end a run without a finished answer: no tool call in such a reply is run.
_ENDS: dict[str, StopReason] = {"max_tokens": "truncated", "model_length": "context_exceeded",
                                "content_filter": "refused", "unknown": "unknown_stop"}


@solver
def atlas_agent(*, max_steps: int = 12) -> Solver:
    """Work the sample's Atlas ticket, with at most `max_steps` model calls (atlas_kit's Bounds.max_steps)."""
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
        raise AtlasKitValueError(f"atlas_agent: max_steps must be a whole number of model calls, 1 or more; got {max_steps!r}.")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        spec = EpisodeSpec.of(state.metadata)
        session = spec.session(epoch=state.epoch)
        episode = state.store_as(AtlasEpisode)
        model = get_model()
        give_usage(model)
        config = episode_config(model, seed=spec.seed + state.epoch - 1)
        tools = [tool_info(definition) for definition in session.tools()]
        state.messages.insert(0, ChatMessageSystem(content=session.system))
        while True:
            output = await model.generate(state.messages, tools=tools, config=config)
            episode.steps += 1
            state.output = output
            state.messages.append(output.message)
            calls = output.message.tool_calls or []
            if output.stop_reason in _ENDS or not calls:
                episode.stop_reason = _ENDS.get(output.stop_reason, "finished")
                return state
            out = session.dispatcher.dispatch(tool_use_blocks(output.message))
            state.messages.extend(tool_messages(calls, out.results))
            if out.loop_break is not None:
                episode.stop_reason = "loop_broken"
                return state
            if episode.steps >= max_steps:
                episode.stop_reason = "step_limit"
                return state

    return solve
