"""inspect_ai's entry point into atlas_kit (pyproject's [project.entry-points.inspect_ai]): importing it
registers the `atlas_kit/atlas` task and the `atlas` model provider, the offline stand-in
(`--model atlas/atlas-offline-1`). inspect loads it on first use of either name. Chapter 11.
"""
from __future__ import annotations

from inspect_ai.model import ModelAPI, modelapi

from .standin import PROVIDER, StandIn
from .task import atlas


@modelapi(name=PROVIDER)
def atlas_provider() -> type[ModelAPI]:
    """The stand-in's ModelAPI class (registered through a function, so the class itself stays undecorated)."""
    return StandIn
