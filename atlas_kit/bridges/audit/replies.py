"""Reading a reply beyond the rubric: whether a reply sent as a success reads as an error, and whose words it is (the
server's own, the MCP SDK's, or a validation library's passed on by the server's code).

Patterns on text, no calls. The SDK answers for a server before its code runs (argument validation, an unknown tool):
those findings are the SDK's, and the audit scores the author's part without them. Chapter 10.
"""
from __future__ import annotations

import json
import re
from typing import Literal

__all__ = ["ORIGINS", "Origin", "origin_of", "reads_as_error"]

Origin = Literal["server", "sdk", "library"]
ORIGINS: tuple[Origin, ...] = ("server", "sdk", "library")
"""server: the server's own code wrote it (inside the SDK's "Error executing tool X:" wrapper too); sdk: the MCP SDK
answered before the tool's code ran, in its own words or its validation library's; library: the server's code passed
on a validation library's report (pydantic, zod, jsonschema) as it was."""

# The SDKs' own answers: the TypeScript SDK's and the Python SDK's argument validation, FastMCP's pydantic model of
# the arguments (named after the tool: get_current_timeArguments), an unknown tool, a JSON-RPC "Invalid params".
_SDK = re.compile(r"^\s*(?:MCP error -?\d+:\s*)?(?:Input validation error\b|Invalid arguments for tool\b|"
                  r"Unknown tool\b|Tool [\w.-]+ not found\b|Tool not found\b|Invalid params\b|Method not found\b)|"
                  r"^\s*Error executing tool [\w.-]+: \d+ validation errors? for [\w.-]+Arguments\b")
_LIBRARY = re.compile(r"\b\d+ validation errors? for \w+|\bZodError\b|\"code\":\s*\"invalid_(?:type|union|enum_value|"
                      r"format|string)\"|\bFailed validating\b|\bis not valid under any of the given schemas\b")
# The first line of a text that reports a failure: "Error: ...", "Failed to ...", "ENOENT: ...", also after a
# label ("notes.txt: Error - ENOENT ..."), which is how a tool that loops over items reports one.
_ERROR_LINE = re.compile(r"(?i)^\W{0,3}(?:[\w .'/\\-]{1,80}:\s*)?(?:error\b|errors?:|exception\b|traceback\b|"
                         r"failed\b|failure\b|fatal\b|invalid\b|cannot\b|can't\b|could not\b|unable to\b|not found\b|"
                         r"no such\b|(?:access|permission) denied\b|forbidden\b|unauthori[sz]ed\b|mcp error\b|"
                         r"unknown (?:tool|argument|parameter)\b|(?-i:E[A-Z]{3,15}):)")


def reads_as_error(text: str) -> bool:
    """Whether a text sent as a success reports a failure: a JSON object with an `error` (or `isError: true`), or a
    first line that opens as an error does. A result whose data mention errors (a note titled "Error handling") is
    not one: only the opening is read."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            body = json.loads(stripped)
        except ValueError:
            body = None
        if isinstance(body, dict):
            return bool(body.get("error")) or body.get("isError") is True or body.get("status") == "error"
    first = next((line for line in stripped.splitlines() if line.strip()), "")
    return _ERROR_LINE.search(first[:400]) is not None


def origin_of(text: str) -> Origin:
    """Whose words a reply is (ORIGINS)."""
    if _SDK.search(text[:2000]):
        return "sdk"
    if _LIBRARY.search(text[:20_000]):
        return "library"
    return "server"
