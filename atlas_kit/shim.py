"""The one place atlas_kit reaches into other packages' private modules, each for a name its package does not export
(PRIVATE_NAMES); tests/test_shim.py fails when one moves, and each use here falls back to what it did before.

- `PrerequisiteError` (inspect_ai._util.error): inspect's CLI prints one as its message alone, with no traceback, so a
  bad `-T` or `-M` value (bridges/inspect's ArgumentError) reads as one line. Without it: Exception (a traceback).
- `tool_error_content` (anthropic.lib.tools._tool_dispatch): what the SDK's tool runner sends the model for an exception
  a tool raised, which `atlas-kit audit --python` reads. Without it: repr(exc), what the runner has always sent.
- `DEPRECATED_MODELS` (anthropic._data): the models the installed SDK calls deprecated, with their end-of-life dates
  (models/providers/anthropic.py refuses them). Without it: none is known to be deprecated (the SDK still warns).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

PRIVATE_NAMES: dict[str, str] = {
    "PrerequisiteError": "inspect_ai._util.error",
    "tool_error_content": "anthropic.lib.tools._tool_dispatch",
    "DEPRECATED_MODELS": "anthropic._data",
}
"""Each private name taken, and the module it is taken from."""


def private(name: str) -> object | None:
    """A name of PRIVATE_NAMES from its module, or None when the module is not installed or no longer has it."""
    try:
        found: object = getattr(importlib.import_module(PRIVATE_NAMES[name]), name)
    except (ImportError, AttributeError):
        return None
    return found


def deprecated_models() -> dict[str, str]:
    """The models the installed SDK calls deprecated, each with its end-of-life date; {} when it no longer says."""
    found = private("DEPRECATED_MODELS")
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def tool_error_content(exc: BaseException) -> object:
    """The content (a str, or content blocks) the SDK's tool runner sends the model for `exc`, raised by a tool."""
    render = private("tool_error_content")
    return render(exc) if callable(render) else repr(exc)


if TYPE_CHECKING:
    from inspect_ai._util.error import PrerequisiteError as PrerequisiteError
else:
    def __getattr__(name: str) -> object:  # looked up on use, so the audit never imports inspect_ai
        if name == "PrerequisiteError":
            found = private(name)
            return found if isinstance(found, type) and issubclass(found, Exception) else Exception
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
