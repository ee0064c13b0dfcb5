"""The closed sets that flow between the layers: modes, styles, stop reasons and fault kinds, with the default
live model and `JSONObject`. The codes themselves are errors.ErrorCode (chapter 03); the implicit fault kinds
are chapter 14's.
"""
from __future__ import annotations

import typing
from typing import Any, Literal, Union

JSONObject = dict[str, Any]
"""A JSON object as `json.loads` gives it: a tool's arguments, its schema, a result body."""

# The most episodes one sweep may plan. A sweep holds its plan and every record of its results file in memory
# (about 4 KB an episode: 400 MB at the bound), and 100,000 is also the most requests one Message Batch holds; a
# bigger design runs as several sweeps, each resumable on its own (experiments/episodes.py refuses it in one line).
MAX_EPISODES = 100_000

# The live model a key-holder gets when no model is named; its price is in pricing.py.
DEFAULT_MODEL = "claude-sonnet-5-5"

# --- closed sets ------------------------------------------------------------------------------------------

Mode = Literal["offline", "live", "replay"]
"""Who answers: the offline stand-in, a live model, or a recorded cassette (models.choose_model)."""

StyleName = Literal["raw", "generic", "plain", "contract"]
"""The wordings of a failure, one function each in dispatch/styles.py's registry (atlas/styles.py shows them)."""
STYLE_NAMES: tuple[StyleName, ...] = typing.get_args(StyleName)

APIStopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal",
                        "model_context_window_exceeded"]
"""Every `stop_reason` the Messages API defines."""
API_STOP_REASONS: tuple[APIStopReason, ...] = typing.get_args(APIStopReason)

StopReason = Literal["finished", "loop_broken", "step_limit", "cost_limit", "api_failure", "truncated", "refused",
                     "context_exceeded", "stop_sequence", "paused", "unknown_stop"]
"""Why one agent run ended (agent.py): each API stop reason and each bound has its outcome."""
STOP_REASONS: tuple[StopReason, ...] = typing.get_args(StopReason)

EpisodeStop = Union[StopReason, Literal["harness_error"]]
"""A record's stop reason: the run's, or `harness_error` when the harness itself could not finish it."""

RefusalKind = Literal["not_permitted", "not_found", "invalid_argument", "limit_exceeded"]
"""Faults that refuse the call: each is the value of the errors.ErrorCode it fails with."""
TransientKind = Literal["timeout", "rate_limit", "outage"]
"""Faults the dispatcher retries: they reach the model only when the retries run out."""
ImplicitKind = Literal["truncated", "stale", "empty_wrong"]
"""Faults that succeed with a wrong answer (atlas/silent.py)."""
FaultKind = Union[RefusalKind, TransientKind, Literal["empty"], ImplicitKind]
"""Every fault atlas/faults.py can inject."""
