"""Transient failures: what a handler raises for a failure worth retrying unchanged, and how the harness retries it.

The harness retries, not the model: `RetryPolicy` bounds the attempts and the waits (a retry-after longer than
its cap is not waited for). API calls have their own, `models.api_retry`. Taught in chapter 09.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable
from ..types.exceptions import AtlasKitTypeError, AtlasKitValueError


class Transient(Exception):
    """Raised by a handler for a failure worth retrying unchanged (timeout, 429, outage)."""

    def __init__(self, raw: str, *, retry_after: float | None = None, kind: str = "unavailable"):
        super().__init__(raw)
        self.raw, self.retry_after, self.kind = raw, retry_after, kind


@dataclass
class RetryPolicy:
    """Harness retries for transient failures: bounded attempts, exponential backoff, injectable sleep."""

    attempts: int = 3
    base_delay: float = 0.25
    max_delay: float = 4.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.attempts, bool) or not isinstance(self.attempts, int) or self.attempts < 1:
            raise AtlasKitValueError(f"RetryPolicy.attempts must be a whole number of at least 1 (1 means no retry); "
                             f"got {self.attempts!r}.")
        if not callable(self.sleep):
            raise AtlasKitTypeError(f"RetryPolicy.sleep must be callable with the seconds to wait, such as time.sleep; "
                                    f"got {self.sleep!r}.")
        for name in ("base_delay", "max_delay"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise AtlasKitValueError(f"RetryPolicy.{name} is seconds and must be a finite number of 0 or more; got {value!r}.")

    def delay(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds to wait before the next attempt, or None when waiting is not worth it."""
        after: object = retry_after  # a tool's own value: anything may arrive here
        if isinstance(after, (int, float)) and not isinstance(after, bool) and after >= 0:  # (nan is not >= 0)
            return float(after) if after <= self.max_delay else None  # an infinite wait is not worth it either
        # a retry_after that is no number of seconds (-1, "5", nan) is ignored: the backoff decides
        return min(self.base_delay * 2.0 ** (attempt - 1), self.max_delay)
