"""The loop breaker: a (tool, arguments, error code) triple that failed twice is a loop, whatever the wording.

Arguments are compared canonically (key order and spacing never make two calls differ) and named by a
short digest, so the trace and the breaker never echo them. Taught in chapter 06.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ..contract.errors import ErrorCode
from ..types.walk import canonical
from ..types.exceptions import AtlasKitValueError


@dataclass(frozen=True)
class LoopBreak:
    """A (tool, arguments, code) triple that failed `count` times: `error` is its code."""

    tool: str
    args_key: str
    error: ErrorCode
    count: int


def canonical_args(args: object) -> str:
    """Arguments as a stable string: key order and spacing never make two calls differ (types.canonical). Input no
    canonical JSON can write (keys of mixed types, nesting past the recursion limit) is named by its type and a
    digest of its repr, so counting a call never raises."""
    try:
        return canonical(args)
    except (TypeError, ValueError, RecursionError):
        try:
            shown = repr(args)
        except (RecursionError, ValueError, TypeError):
            shown = object.__repr__(args)
        return f"<{type(args).__name__} {hashlib.sha256(shown.encode('utf-8', 'replace')).hexdigest()[:16]}>"


def args_key(args: object) -> str:
    """A short digest of the canonical arguments: the trace and the breaker name a call without echoing it."""
    return hashlib.sha256(canonical_args(args).encode()).hexdigest()[:16]


@dataclass
class LoopBreaker:
    """Counts failed (tool, args, code) triples for one conversation; the `threshold`-th repeat trips it.

    The message is left out on purpose: a tool that words the same failure differently is still looping.
    """

    threshold: int = 2
    seen: dict[tuple[str, str, ErrorCode], int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.threshold, int) or self.threshold < 2:
            raise AtlasKitValueError("loop_threshold must be at least 2: one failure is not yet a repetition.")

    def count(self, tool: str, args: object, code: ErrorCode) -> LoopBreak | None:
        """Record one failure; return the LoopBreak when this triple has now failed `threshold` times or more."""
        key = args_key(args)
        triple = (tool, key, code)
        self.seen[triple] = n = self.seen.get(triple, 0) + 1
        return LoopBreak(tool, key, code, n) if n >= self.threshold else None
