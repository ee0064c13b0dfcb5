"""Module paths from before the layer folders (`atlas_kit.errors`, `atlas_kit.checks`, ...) keep working.

Learners keep their own exercise notebooks and researchers their scripts; an import of an old path gets the
module from its new place (the same module object, so nothing is loaded twice) and a DeprecationWarning that
names the new path. A module whose names now live in two places answers from both.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Sequence

__all__ = ["MOVED", "install"]

# old path (under atlas_kit) -> where its names are now, first match wins. A folder moved whole maps its
# sub-modules too (atlas_kit.checks.ch01 -> atlas_kit.course.checks.ch01).
MOVED: dict[str, tuple[str, ...]] = {
    "layers": ("_layers",),
    "errors": ("contract.errors", "contract.values"), "vocab": ("contract.vocab",),
    "arguments": ("contract.arguments",), "schema_subset": ("contract.schema_subset",),
    "trace": ("dispatch.trace", "contract.redaction"),
    "tool_runner": ("bridges.tool_runner",),
    "transport": ("models.transport",), "replies": ("models.replies",), "retries": ("models.api_retry",),
    "pricing": ("models.pricing",), "cassette": ("models.cassette",), "replay": ("models.replay", "models.providers.replay"),
    "offline": ("models.standin.model",), "planner": ("models.standin.planner",),
    "reading": ("models.standin.reading",),
    "episodes": ("experiments.episodes",), "results": ("experiments.results",), "guard": ("experiments.guard",),
    "metrics": ("experiments.metrics",), "stats": ("experiments.stats",), "implicit": ("experiments.implicit",),
    "presets": ("experiments.presets",), "batch": ("experiments.batch.sweep",),
    "batch_journal": ("experiments.batch.journal",), "batch_parts": ("experiments.batch.parts",),
    "batch_transport": ("experiments.batch.transport",),
    "mcp_server": ("bridges.mcp.server",), "mcp_episode": ("bridges.mcp.episode",),
    "mcp_host": ("bridges.mcp.host",),
    "tables": ("face.tables",), "charts": ("face.charts",), "display": ("face.display",),
    "playground": ("face.playground",),
    "checks": ("course.checks",), "grading": ("course.grading",), "byo": ("course.byo",),
    "inspect_ai_bridge": ("bridges.inspect",),
}
_FOLDERS = {"checks", "grading", "byo", "inspect_ai_bridge"}


def _where(fullname: str) -> tuple[str, ...] | None:
    parts = fullname.split(".")
    if parts[0] != "atlas_kit" or len(parts) < 2:
        return None
    old, rest = parts[1], parts[2:]
    if old not in MOVED or (rest and old not in _FOLDERS):
        return None
    return tuple("atlas_kit." + ".".join([new, *rest]) for new in MOVED[old])


class _Alias(types.ModuleType):
    """An old path whose names now live in several modules: each look-up asks them in order."""

    def __init__(self, name: str, homes: Sequence[types.ModuleType]) -> None:
        super().__init__(name, homes[0].__doc__)
        self._homes = list(homes)
        self.__all__ = [n for home in homes for n in getattr(home, "__all__", ())]

    def __getattr__(self, attr: str) -> object:
        for home in self._homes:
            if hasattr(home, attr):
                return getattr(home, attr)
        raise AttributeError(f"module {self.__name__!r} (moved to {self._homes[0].__name__}) has no attribute {attr!r}.")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        return importlib.machinery.ModuleSpec(fullname, self) if _where(fullname) else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        homes = [importlib.import_module(name) for name in _where(spec.name) or ()]
        warnings.warn(f"{spec.name} moved to {homes[0].__name__}; import it from there (the old path will go).",
                      DeprecationWarning, stacklevel=2)
        return homes[0] if len(homes) == 1 else _Alias(spec.name, homes)

    def exec_module(self, module: types.ModuleType) -> None:
        pass  # the module was already executed at its new path


def install() -> None:
    """Put the finder first on sys.meta_path, once. It answers only the old paths, none of which exists as a file;
    it must come first, or the path finder would load `atlas_kit.checks.ch01` a second time under the old name."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
