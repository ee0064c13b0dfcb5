"""Atlas as an inspect_ai task: the tickets as samples, the Atlas agent as a solver, atlas_kit's grader as a
scorer, and the offline stand-in as a model provider. Needs the `inspect` extra (inspect_ai, Python 3.11+).

`inspect eval atlas_kit/atlas --model mockllm/model` runs it offline. Chapter 11: when to use it, when
`atlas-kit experiment`.
"""
from __future__ import annotations

try:
    import inspect_ai  # noqa: F401
except ImportError as missing:  # the core never imports this sub-package; say how to get what it needs
    raise ImportError("atlas_kit.inspect_ai_bridge needs inspect_ai: pip install 'atlas_kit[inspect]' "
                      "(Python 3.11 or newer).") from missing

from .episode import AtlasEpisode, EpisodeSpec, ReplayMismatch, atlas_dataset, replay, select_tickets
from .messages import anthropic_request, tool_info, tool_messages
from .scorer import MODES, atlas_grade, source_of, wilson95
from .solver import atlas_agent
from .standin import StandIn, give_usage
from .task import atlas

__all__ = ["MODES", "AtlasEpisode", "EpisodeSpec", "ReplayMismatch", "StandIn", "anthropic_request", "atlas",
           "atlas_agent", "atlas_dataset", "atlas_grade", "give_usage", "replay", "select_tickets", "source_of",
           "tool_info", "tool_messages", "wilson95"]
