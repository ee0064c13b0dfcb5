"""The package's layers, lowest first: a module imports from its own layer or a lower one, never a higher one.

The one definition: tests/test_package.py reads it to check every import, and CONTRIBUTING.md points here.
A new module is added to a layer in the same change. The style guide draws the same picture.
"""
from __future__ import annotations

__all__ = ["LAYERS", "layer_of"]

# (name, the top-level modules and sub-packages in it). Sub-packages count as one module: atlas/ is a layer.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("shared types", frozenset({"types", "layers", "tokens"})),
    ("the contract", frozenset({"trace", "internals", "errors", "arguments", "schema_subset", "vocab", "rubric"})),
    ("dispatch", frozenset({"dispatch", "tool_runner"})),
    ("atlas", frozenset({"atlas"})),
    ("models and the agent loop", frozenset({"transport", "replies", "retries", "cassette", "replay", "reading",
                                             "planner", "offline", "models", "pricing", "agent"})),
    ("experiments", frozenset({"results", "episodes", "guard", "experiments", "metrics", "stats", "implicit",
                               "batch", "batch_journal", "batch_parts", "batch_transport", "mcp_episode",
                               "mcp_server", "mcp_host", "byo", "inspect_ai_bridge", "audit"})),
    ("the face: tables, charts, widgets, display", frozenset({"tables", "display", "charts", "playground", "presets",
                                                             "checks", "course", "grading", "cli", "__main__",
                                                             "__init__"})),
)


def layer_of(module: str) -> int:
    """The index in LAYERS of a top-level module or sub-package of atlas_kit (`"dispatch"`, `"atlas"`)."""
    for i, (_, modules) in enumerate(LAYERS):
        if module in modules:
            return i
    raise KeyError(f"atlas_kit/{module} is in no layer: add it to one in atlas_kit/layers.py.")
