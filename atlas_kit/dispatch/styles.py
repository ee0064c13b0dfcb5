"""Error styles: how a failure is worded for the model, and the registry that names them.

`raw` hands the model whatever the library said, `generic` is the usual framework wrapper around it, and
`contract` is the builder's block. A new style is one function `style(failure) -> tool_result` and one entry
in STYLES (and its name in types.StyleName). Atlas's side-by-side catalogue is atlas/styles.py. Chapters 01-02.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..contract.errors import ToolError
from ..types import StyleName, ToolResultBlock

__all__ = ["Failure", "Style", "contract_style"]


@dataclass(frozen=True)
class Failure:
    """A failed call as the dispatcher knows it: the contract error and the raw text underneath."""

    tool: str
    error: ToolError
    raw: str


Style = Callable[[Failure], ToolResultBlock]
"""How a failure is worded for the model: `style(failure)` returns its tool_result block (atlas/styles.py has three)."""


def contract_style(failure: Failure) -> ToolResultBlock:
    """The contract: code, message, retryable and next, as `errors.tool_error` builds them."""
    return failure.error.block()


GENERIC_PREFIX = "An error occurred, please try again."


def raw_style(failure: Failure) -> ToolResultBlock:
    """What the library handed back, untouched: tracebacks, SQL errors, HTML pages and all."""
    return _block(failure, failure.raw)


def generic_style(failure: Failure) -> ToolResultBlock:
    """The common wrapper: a fixed apology plus the exception's last line."""
    return _block(failure, f"{GENERIC_PREFIX} {_last_line(failure.raw)}")


STYLES: dict[StyleName, Style] = {"raw": raw_style, "generic": generic_style, "contract": contract_style}


def style_named(name: StyleName | str | Style) -> Style:
    """The style function for a name ('raw', 'generic', 'contract'); a callable passes through."""
    if callable(name):
        return name
    for known, style in STYLES.items():
        if name == known:
            return style
    raise ValueError(f"style {name!r} is not one of: {', '.join(STYLES)}; or pass a function style(failure) -> dict.")


def _block(failure: Failure, text: str) -> ToolResultBlock:
    return {"type": "tool_result", "tool_use_id": failure.error.tool_use_id, "is_error": True, "content": text}


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else text
