"""Atlas as an inspect_ai task: the tickets as samples, the Atlas agent as a solver, atlas_kit's grader as a
scorer, and the offline stand-in as a model provider. Needs the `inspect` extra (inspect_ai, Python 3.11+).

`inspect eval atlas_kit/atlas --model mockllm/model` runs it offline. Chapter 11: when to use it, when
`atlas-kit experiment`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import exports

if TYPE_CHECKING:
    from .episode import (EpisodeSpec as EpisodeSpec, ReplayMismatch as ReplayMismatch, replay as replay,
        select_tickets as select_tickets)
    from .task import atlas as atlas

__getattr__, __dir__, __all__ = exports(__name__, __file__)
