"""The package's layers, lowest first: a module imports from its own layer or a lower one, never a higher one.

Each layer is a top-level folder of atlas_kit (or the one module agent.py); tests/test_package.py reads this to
check every import, and CONTRIBUTING.md and the style guide draw the same picture. A new top-level entry is
added to a layer in the same change.
"""
from __future__ import annotations

from .types.exceptions import AtlasKitKeyError

__all__ = ["LAYERS", "layer_of"]

# (name, the top-level entries in it). A folder counts as one entry: everything in models/ is the models layer.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("shared types", frozenset({"types", "_layers", "_lazy", "_moved"})),
    ("the contract", frozenset({"contract"})),
    ("dispatch", frozenset({"dispatch"})),
    ("atlas", frozenset({"atlas"})),
    ("models", frozenset({"models"})),
    ("the agent loop", frozenset({"agent"})),
    ("experiments", frozenset({"experiments"})),
    ("transcripts", frozenset({"transcripts"})),
    ("bridges", frozenset({"bridges"})),
    ("the face and the course", frozenset({"face", "course", "cli", "__main__", "__init__"})),
)


def layer_of(module: str) -> int:
    """The index in LAYERS of a top-level entry of atlas_kit (`"dispatch"`, `"agent"`)."""
    for i, (_, modules) in enumerate(LAYERS):
        if module in modules:
            return i
    raise AtlasKitKeyError(f"atlas_kit/{module} is in no layer: add it to one in atlas_kit/_layers.py.")
