"""A tool: its name, description and input schema for the model, and the handler that does the work.

A handler learns about its call through `CallContext` (the attempt and the idempotency key that stays the
same across harness retries) and fails through `ToolFailure` (contract) or `Transient`. Chapters 03 and 09.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Callable

from ..contract.arguments import check_schema
from ..types.sets import JSONObject
from ..types.api import ToolDefinition
from ..types.exceptions import AtlasKitTypeError, AtlasKitValueError


@dataclass(frozen=True)
class CallContext:
    """What a handler learns about its call. The idempotency key is stable across harness retries."""

    tool_use_id: str
    attempt: int
    idempotency_key: str | None


Handler = Callable[[JSONObject, CallContext], object]
"""`handler(args, ctx)`: the tool's work. It returns the result (text, or anything JSON can write) or raises
ToolFailure (a contract error) or Transient (worth retrying)."""


@dataclass
class Tool:
    """A callable plus its Anthropic tool definition. `handler(args, ctx)` returns the result.

    side_effect: the tool changes something, so a call that failed on the way may still have been applied.
    hands_over: the tool passes the case to a person; when it fails, the harness's errors do not offer a person.
    """

    name: str
    description: str
    input_schema: JSONObject
    handler: Handler
    side_effect: bool = False
    hands_over: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", self.name):
            raise AtlasKitValueError(f"Tool name {self.name!r} must be 1 to 64 ASCII letters, digits and underscores "
                             "(or hyphens), as the API requires: ^[a-zA-Z0-9_-]{1,64}$.")
        if not isinstance(self.description, str) or len(self.description.strip()) < 20:
            raise AtlasKitValueError(f"Tool {self.name!r}: write a description of at least a sentence, as for a new hire.")
        check_schema(self.input_schema, tool=self.name)
        if not callable(self.handler):
            raise AtlasKitTypeError(f"Tool {self.name!r}: handler must be callable as handler(args, ctx).")
        if inspect.iscoroutinefunction(self.handler) or inspect.iscoroutinefunction(getattr(self.handler, "__call__", None)):
            raise AtlasKitTypeError(f"Tool {self.name!r}: the handler is async, and the dispatcher does not await: "
                                    "write a plain def (run async work inside it with asyncio.run), or use "
                                    "@contract_async_tool with the SDK's tool runner.")
        try:
            inspect.signature(self.handler).bind(None, None)
        except TypeError:
            raise AtlasKitTypeError(f"Tool {self.name!r}: the handler must take two arguments, handler(args, ctx): the "
                                    "arguments dict and the CallContext.") from None
        except ValueError:  # a builtin whose signature cannot be read: trusted as written
            pass

    def definition(self) -> ToolDefinition:
        """The tool as the model is told about it."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}
