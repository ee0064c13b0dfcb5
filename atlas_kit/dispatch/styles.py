"""Error styles: how a failure is worded for the model, and the registry that names them.

`raw` hands the model whatever the library said, `generic` is the usual framework wrapper around it, `plain` is
one plain-English sentence that diagnoses the failure and suggests nothing, and `contract` is the builder's block.
Every style's text is redacted on its way out: raw shows a careless tool's words, never a real credential.
A new style is one function `style(failure) -> tool_result` and one entry in STYLES (and its name in
types.StyleName). Atlas's side-by-side catalogue is atlas/styles.py. Chapters 01-02 and 11.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..contract.errors import ErrorCode, ToolError
from ..contract.redaction import redact
from ..types.sets import StyleName
from ..types.api import ToolResultBlock
from ..types.exceptions import AtlasKitValueError


@dataclass(frozen=True)
class Failure:
    """A failed call as the dispatcher knows it: the contract error, the raw text underneath, and the plain
    diagnosis (one sentence, no next step) when the tool gave one; `plain_style` falls back on the code's."""

    tool: str
    error: ToolError
    raw: str
    plain: str | None = None


Style = Callable[[Failure], ToolResultBlock]
"""How a failure is worded for the model: `style(failure)` returns its tool_result block (STYLES names them)."""


def contract_style(failure: Failure) -> ToolResultBlock:
    """The contract: code, message, retryable and next, as `errors.tool_error` builds them."""
    return failure.error.block()


GENERIC_PREFIX = "An error occurred, please try again."


def raw_style(failure: Failure) -> ToolResultBlock:
    """What the library handed back: tracebacks, SQL errors, HTML pages and all, with only its secrets redacted."""
    return _block(failure, failure.raw)


def generic_style(failure: Failure) -> ToolResultBlock:
    """The common wrapper: a fixed apology plus the exception's last line."""
    return _block(failure, f"{GENERIC_PREFIX} {_last_line(failure.raw)}")


# What `plain` says for a failure whose tool wrote no diagnosis of its own: true of every failure with that code.
PLAIN_BY_CODE: dict[ErrorCode, str] = {
    ErrorCode.INVALID_ARGUMENT: "The request was refused because a value in it is not valid.",
    ErrorCode.NOT_FOUND: "The record asked for does not exist.",
    ErrorCode.NOT_PERMITTED: "This session is not allowed to do that.",
    ErrorCode.LIMIT_EXCEEDED: "The request goes over a limit that applies to it.",
    ErrorCode.UPSTREAM_UNAVAILABLE: "The service behind this tool is not available, so the outcome is not known.",
}


def plain_style(failure: Failure) -> ToolResultBlock:
    """A plain-English diagnosis, one sentence: what went wrong, with no code, no retry and no next step (the
    control arm of arXiv 2606.05037). The tool's own `plain`, else the code's sentence in PLAIN_BY_CODE."""
    return _block(failure, failure.plain or PLAIN_BY_CODE[failure.error.code])


def plain_argument(argument: str | None, *, given: bool) -> str:
    """The plain diagnosis of arguments that fail the schema: the argument in words, never its value."""
    if argument is None:
        return "The arguments given are not in a form this tool accepts."
    words = argument.replace("_cents", " in cents").replace("_", " ")
    return f"No value was given for the {words}." if not given else \
        f"The value given for the {words} is not in a form this tool accepts."


def plain_unanswered(*, side_effect: bool) -> str:
    """The plain diagnosis of a service the harness gave up on (timeouts, rate limits, outages): for a change,
    that its outcome is unknown, since the change may have been made before the reply was lost."""
    return ("The service is not available right now, so it is not known whether the change was made." if side_effect
            else "The service is not available right now.")


def plain_crash(*, side_effect: bool | None) -> str:
    """The plain diagnosis of a tool that raised: unknown outcome unless the tool is known to change nothing."""
    return ("The tool failed unexpectedly and the request was not completed." if side_effect is False else
            "The tool failed unexpectedly, so it is not known whether the request was applied.")


STYLES: dict[StyleName, Style] = {"raw": raw_style, "generic": generic_style, "plain": plain_style,
                                  "contract": contract_style}


def style_named(name: StyleName | str | Style) -> Style:
    """The style function for a name in STYLES ('raw', 'generic', 'plain', 'contract'); a callable passes through."""
    if callable(name):
        return name
    for known, style in STYLES.items():
        if name == known:
            return style
    raise AtlasKitValueError(f"style {name!r} is not one of: {', '.join(STYLES)}; or pass a function style(failure) -> dict.")


def _block(failure: Failure, text: str) -> ToolResultBlock:
    # A key, a password or a token a tool raised is redacted here, in every style: the model is not the audience
    # for a credential, however careless the wording around it (contract.redaction says which shapes it finds).
    return {"type": "tool_result", "tool_use_id": failure.error.tool_use_id, "is_error": True, "content": redact(text)}


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else text
