"""Bounded waiting for live calls: retries of 429, 529, 5xx and network faults, with every wait capped and shown.

The SDK's own retries obey any retry-after, so one 429 asking for 120 s holds a run for minutes,
silently. Live and recording clients instead run with `max_retries=0` and this middleware (the SDK's
public `Middleware` hook): a retry-after above the cap is not waited for, the waits of one call have
a total, each wait longer than a few seconds is announced, and so is a call still unanswered after
`note_after` seconds (a hung API). Chapter 09 teaches the same rule for tools.
"""
from __future__ import annotations

import asyncio
import contextlib
import contextvars
import email.utils
import math
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterator, Mapping, TypedDict, Union

import anthropic
import httpx2

from .api_watch import Waiting, Watch
from ..types.exceptions import AtlasKitValueError

if TYPE_CHECKING:
    from anthropic import APIRequest, APIResponse, AsyncAPIResponse, AsyncCallNext, CallNext

GAVE_UP = "atlas_kit.gave_up"  # the response extension that holds the Wait that gave up (a typed value)


def _seconds(value: object, name: str, *, zero: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0 or (not zero and value == 0):
        least = "0 or more" if zero else "more than 0"
        raise AtlasKitValueError(f"APIRetry.{name} is seconds and must be a finite number of {least}; got {value!r}.")
    return float(value)


@dataclass(frozen=True)
class APIRetry:
    """How a live call is retried. Defaults: 2 retries, no retry-after over 30 s, at most 60 s of waiting per call.

    retry_after_cap: a retry-after longer than this is not waited for: the call fails at once as
    rate_limit or overloaded, which a sweep records and a rerun retries. total_wait: seconds of
    waiting over all retries of one call. timeout: seconds one attempt may go without hearing from the API.
    show_after: waits longer than this are announced (a note, or the progress bar of a sweep). note_after: an
    attempt still unanswered after this many seconds is announced, and again every note_after seconds.
    """

    max_retries: int = 2
    retry_after_cap: float = 30.0
    total_wait: float = 60.0
    timeout: float = 120.0
    base_delay: float = 0.5
    max_delay: float = 8.0
    show_after: float = 3.0
    note_after: float = 20.0

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise AtlasKitValueError(f"APIRetry.max_retries must be a whole number of 0 or more; got {self.max_retries!r}.")
        for name in ("retry_after_cap", "total_wait", "base_delay", "max_delay", "show_after"):
            _seconds(getattr(self, name), name)
        _seconds(self.timeout, "timeout", zero=False)
        _seconds(self.note_after, "note_after", zero=False)

    def delay(self, retry: int, retry_after: float | None, waited: float) -> tuple[float | None, str]:
        """Seconds to wait before retry number `retry` (1-based), or None to give up; and why."""
        if retry > self.max_retries:
            return None, f"{self.max_retries} retries used"
        if retry_after is not None and retry_after > self.retry_after_cap:
            return None, (f"the API asked to wait {_s(retry_after)} s, more than the {_s(self.retry_after_cap)} s "
                          "cap (APIRetry.retry_after_cap)")
        wait = retry_after if retry_after is not None else min(self.base_delay * 2 ** (retry - 1), self.max_delay)
        if waited + wait > self.total_wait:
            return None, f"waiting {_s(wait)} s more would pass the {_s(self.total_wait)} s total (APIRetry.total_wait)"
        return wait, ""


@dataclass(frozen=True)
class Wait:
    """One decision of the retry middleware: wait `seconds` before a retry, or give up (`seconds` None)."""

    seconds: float | None
    status: int | None  # None for a network fault
    retry: int
    why: str

    def line(self) -> str:
        what = f"HTTP {self.status}" if self.status else "a network fault"
        if self.seconds is None:
            return f"API call failed with {what}; not retrying: {self.why}."
        return f"API answered {what}; waiting {_s(self.seconds)} s before retry {self.retry}."


Notice = Union[Wait, Waiting]
"""What the retry layer announces: a wait it decided on, or a call that is still waiting."""


def gave_up(exc: BaseException) -> Wait | None:
    """The retry layer's decision to stop retrying the call that raised `exc`, if it made one."""
    response = getattr(exc, "response", None)
    found = getattr(response, "extensions", {}).get(GAVE_UP) if response is not None else None
    return found if isinstance(found, Wait) else None


def _s(seconds: float) -> str:
    return f"{seconds:.1f}" if seconds < 10 else f"{seconds:.0f}"


def _print_note(notice: Notice) -> None:
    print(f"note: {notice.line()}", file=sys.stderr)


_LISTENER: contextvars.ContextVar[Callable[[Notice], None]] = contextvars.ContextVar("atlas_api_wait",
                                                                                      default=_print_note)


@contextlib.contextmanager
def announce_waits(listener: Callable[[Notice], None]) -> Iterator[None]:
    """Send long waits, give-ups and calls still waiting to `listener` (a sweep's progress bar) instead of a note
    on stderr. Calls still waiting are announced from the watchdog thread in sync code (api_watch.py)."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """retry-after-ms, else retry-after in seconds or as an HTTP date; None when absent or unreadable."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            parsed = email.utils.parsedate_tz(value) if scale == 1.0 else None
            if parsed is None:
                continue
            seconds = email.utils.mktime_tz(parsed) - time.time()
        if math.isfinite(seconds):
            return max(0.0, seconds)
    return None


def _retryable(response: httpx2.Response) -> bool:
    verdict = response.headers.get("x-should-retry")
    if verdict in ("true", "false"):
        return bool(verdict == "true")
    return response.status_code in (408, 409, 429) or response.status_code >= 500


@dataclass
class BoundedRetry(anthropic.Middleware):
    """SDK middleware that retries one call under an `APIRetry`; give the client `max_retries=0`."""

    policy: APIRetry = field(default_factory=APIRetry)
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    async_sleep: Callable[[float], Awaitable[object]] = field(default=asyncio.sleep, repr=False)

    def _decide(self, retry: int, response: httpx2.Response | None, waited: float) -> float | None:
        status = response.status_code if response is not None else None
        after = _retry_after(response.headers) if response is not None else None
        seconds, why = self.policy.delay(retry, after, waited)
        wait = Wait(seconds, status, retry, why)
        if seconds is None and response is not None:  # the failure the SDK raises carries why it was not retried
            response.extensions[GAVE_UP] = wait
        if seconds is None or seconds > self.policy.show_after:
            if seconds is not None or retry > 1 or after is not None:  # a plain last failure needs no note
                _LISTENER.get()(wait)
        return seconds

    # The SDK's own middleware signature: a response of any endpoint, its parsed type unknown here (never parsed).
    def handle(self, request: APIRequest, call_next: CallNext) -> APIResponse[Any]:
        waited, retry = 0.0, 0
        while True:
            retry += 1
            try:
                with Watch(self.policy.note_after, self.policy.timeout, retry, _LISTENER.get()):
                    response = call_next(request)
            except (anthropic.APITimeoutError, anthropic.APIConnectionError):
                seconds = self._decide(retry, None, waited)
                if seconds is None:
                    raise
            else:
                if response.status_code < 400 or not _retryable(response.http_response):
                    return response
                seconds = self._decide(retry, response.http_response, waited)
                if seconds is None:
                    return response
                response.http_response.close()
            self.sleep(seconds)
            waited += seconds

    async def handle_async(self, request: APIRequest, call_next: AsyncCallNext) -> AsyncAPIResponse[Any]:
        waited, retry = 0.0, 0
        while True:
            retry += 1
            try:
                async with Watch(self.policy.note_after, self.policy.timeout, retry, _LISTENER.get()):
                    response = await call_next(request)
            except (anthropic.APITimeoutError, anthropic.APIConnectionError):
                seconds = self._decide(retry, None, waited)
                if seconds is None:
                    raise
            else:
                if response.status_code < 400 or not _retryable(response.http_response):
                    return response
                seconds = self._decide(retry, response.http_response, waited)
                if seconds is None:
                    return response
                await response.http_response.aclose()
            await self.async_sleep(seconds)
            waited += seconds


class _ClientOptions(TypedDict):
    max_retries: int
    timeout: float
    middleware: list[anthropic.Middleware]


def bounded(policy: APIRetry | None = None) -> _ClientOptions:
    """Client options that put a call's retries under `policy`: pass them to `anthropic.Anthropic(**...)`."""
    policy = policy or APIRetry()
    return {"max_retries": 0, "timeout": policy.timeout, "middleware": [BoundedRetry(policy)]}
