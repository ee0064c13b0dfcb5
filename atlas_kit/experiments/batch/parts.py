"""The small pieces of a batch sweep: custom ids, polling waits, bounded endpoint calls, failed results, clients.

A custom_id names the sweep, the episode, the answer it asks for and the attempt, within the API's
`^[a-zA-Z0-9_-]{1,64}$`. An errored, expired or canceled result becomes the exception the agent loop
records as an API failure, never as the model's, and a results download cut short or not JSON Lines is a
failed call to the endpoints, retried like any other. Offline, the stand-in answers the batches. Chapter 11.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator, Mapping, Sequence, TypeVar

import anthropic
import httpx2

from .journal import Failed
from .transport import CUSTOM_ID, BatchAPI, ResultType, in_process_batch_client
from ..episodes import Episode
from ..guard import StopCause
from ...models.choose import choose_model
from ...models.standin.model import OfflineModel, Profile
from ...models.replies import FATAL, failure_from
from ...models.transport import BASE_URL, APIFault
from ...types.sets import JSONObject
from ...types.api import MessageBody, MessagesRequest
from ...types.walk import canonical
from ...types.clients import wire
from ...types.exceptions import AtlasKitValueError

if TYPE_CHECKING:
    from anthropic.types.messages import MessageBatchIndividualResponse
    from anthropic.types.messages.batch_create_params import Request

T = TypeVar("T")
ENDPOINT_FAILURES = 6  # calls in a row to the batch endpoints that fail before the sweep stops (its state kept)

# Errors worth sending again under a new attempt: the API's own transient failures (the batches guide's advice).
RETRYABLE_ERRORS = frozenset({"api_error", "overloaded_error", "rate_limit_error", "timeout_error"})
_STATUS: dict[str, tuple[int, type[anthropic.APIStatusError]]] = {
    "invalid_request_error": (400, anthropic.BadRequestError),
    "authentication_error": (401, anthropic.AuthenticationError),
    "permission_error": (403, anthropic.PermissionDeniedError),
    "not_found_error": (404, anthropic.NotFoundError),
    "request_too_large": (413, anthropic.RequestTooLargeError),
    "rate_limit_error": (429, anthropic.RateLimitError),
    "api_error": (500, anthropic.InternalServerError),
    "timeout_error": (504, anthropic.InternalServerError),
    "overloaded_error": (529, anthropic.OverloadedError),
}


@dataclass(frozen=True)
class CustomId:
    """`{tag}-e{index}-s{step}-a{attempt}`: the sweep's tag, the episode's place in the plan, which answer, which try."""

    tag: str
    index: int
    step: int
    attempt: int

    def __str__(self) -> str:
        text = f"{self.tag}-e{self.index}-s{self.step}-a{self.attempt}"
        if "-" in self.tag or not CUSTOM_ID.match(text):
            raise AtlasKitValueError(f"custom_id {text!r} must match {CUSTOM_ID.pattern}; use a tag of letters and digits.")
        return text

    @classmethod
    def parse(cls, text: str) -> CustomId | None:
        """The CustomId `str()` wrote, or None for any other text."""
        parts = text.split("-")
        if len(parts) != 4 or [p[:1] for p in parts[1:]] != ["e", "s", "a"]:
            return None
        numbers = [p[1:] for p in parts[1:]]
        if not all(n.isdigit() for n in numbers):
            return None
        return cls(parts[0], int(numbers[0]), int(numbers[1]), int(numbers[2]))


@dataclass(frozen=True)
class Poll:
    """How a batch is polled: the first wait, the growth per poll, the longest wait, and the deadline from submission.

    The API ends every batch within 24 hours, so the default deadline (26 h) bounds the wait without cutting one short.
    """

    first: float = 15.0
    factor: float = 1.5
    most: float = 300.0
    deadline: float = 26 * 3600.0

    def __post_init__(self) -> None:
        if self.first < 0 or self.most < self.first or self.factor < 1 or self.deadline <= 0:
            raise AtlasKitValueError("Poll: need 0 <= first <= most, factor >= 1 and deadline > 0 (seconds).")

    def waits(self) -> Iterator[float]:
        wait = self.first
        while True:
            yield wait
            wait = min(self.most, wait * self.factor)


LIVE_POLL = Poll()
OFFLINE_POLL = Poll(first=0.0, most=0.0)  # the in-process server ends a batch after a number of polls, not seconds


def digest(params: Mapping[str, object]) -> str:
    """A short fingerprint of a request's params: a resumed sweep checks its requests against the journal's."""
    return hashlib.sha256(canonical(params).encode()).hexdigest()[:16]


class BatchExpired(anthropic.APITimeoutError):
    """A batch request that expired (or came back with no result): recorded as a timeout at the API."""

    def __init__(self, message: str, *, request: httpx2.Request) -> None:
        anthropic.APIConnectionError.__init__(self, message=message, request=request)


class BatchCanceled(anthropic.AnthropicError):
    """A batch request canceled before it ran (someone canceled the batch)."""


class BadResults(anthropic.AnthropicError, ValueError):
    """A batch's results that are not JSON Lines of results: the API's bad body (a ValueError: bad_body), retried."""


_RESULT_TYPES = frozenset({"succeeded", "errored", "canceled", "expired"})


def download_results(client: anthropic.Anthropic, batch_id: str) -> list[MessageBatchIndividualResponse]:
    """A batch's results, downloaded whole and checked line by line.

    A download cut short raises APIConnectionError (APITimeoutError when it stalled), and a body that is not
    JSON Lines of results raises BadResults: failures of the batch endpoints that `Endpoints.call` retries
    and reports as the API's, never a parser's message or a bad-input exit.
    """
    decoder = client.messages.batches.results(batch_id)
    request = decoder.http_response.request
    try:
        try:
            items = list(decoder)
        finally:
            decoder.close()  # a download that failed part way is not read further
    except httpx2.TimeoutException as exc:
        raise anthropic.APITimeoutError(request) from exc
    except httpx2.TransportError as exc:
        raise anthropic.APIConnectionError(message=f"the results download of batch {batch_id} was cut short "
                                                   f"({type(exc).__name__}: {exc})", request=request) from exc
    except ValueError as exc:  # json's error: a line cut in the middle, or a body that is not JSON at all
        raise BadResults(f"the results of batch {batch_id} are not JSON Lines ({exc}).") from exc
    for n, item in enumerate(items, start=1):
        result = getattr(item, "result", None)
        kind = getattr(result, "type", None)
        message = getattr(result, "message", None)
        if (not isinstance(getattr(item, "custom_id", None), str) or kind not in _RESULT_TYPES
                or (kind == "succeeded" and not callable(getattr(message, "model_dump", None)))):
            raise BadResults(f"line {n} of the results of batch {batch_id} is not a batch result (a custom_id and "
                             "a result of type succeeded, errored, canceled or expired).")
    return items


def batch_request(custom_id: str, request: MessagesRequest) -> Request:
    """One request of a batch as the SDK types it: the agent loop's request under its custom_id."""
    sent = wire(request)
    return {"custom_id": custom_id, "params": {"model": sent["model"], "max_tokens": sent["max_tokens"],
                                               "system": sent["system"], "tools": sent["tools"],
                                               "messages": sent["messages"]}}


def exception_for(failed: Failed) -> Exception:
    """The exception a failed step hands the agent loop, which records it as an api_failure with its reason."""
    request = httpx2.Request("POST", f"{BASE_URL}/v1/messages/batches")
    message = f"message batch: {failed['kind']}: {failed['message']}"
    if failed["kind"] == "errored":
        status, error = _STATUS.get(failed["error_type"], (500, anthropic.InternalServerError))
        body = {"type": "error", "error": {"type": failed["error_type"], "message": failed["message"]}}
        return error(message, response=httpx2.Response(status, request=request, json=body), body=body)
    if failed["kind"] == "canceled":
        return BatchCanceled(message)
    return BatchExpired(message, request=request)


def standin_server(plan: Sequence[Episode], profiles: dict[str, Profile], *, errored: float = 0.05,
                   expired: float = 0.05, delay_polls: int = 2, seed: int = 0) -> BatchAPI:
    """The offline stand-in behind the batch endpoints, answering each request as episode `index` of `plan`.

    The stand-in server's rule: a request's first attempt is errored or expired with these chances, and a
    retry always succeeds, so a batch sweep ends with exactly the synchronous sweep's episodes.
    """
    models: dict[tuple[str | None, int], OfflineModel] = {}

    def episode(custom_id: str) -> tuple[CustomId, Episode]:
        parsed = CustomId.parse(custom_id)
        if parsed is None or parsed.index >= len(plan):
            raise APIFault(400, f"custom_id {custom_id!r} names no episode of this sweep's plan.")
        return parsed, plan[parsed.index]

    def handler(custom_id: str, params: JSONObject) -> MessageBody:
        _, e = episode(custom_id)
        name = e.condition.profile
        if (name, e.seed) not in models:
            models[(name, e.seed)] = OfflineModel(seed=e.seed, profile=profiles.get(str(name)))
        return models[(name, e.seed)](params)

    def outcome(custom_id: str) -> ResultType:
        parsed, _ = episode(custom_id)
        if parsed.attempt > 0:
            return "succeeded"
        u = random.Random(f"{seed}:{custom_id}").random()
        return "errored" if u < errored else "expired" if u < errored + expired else "succeeded"

    return BatchAPI(handler, delay_polls=delay_polls, outcome=outcome, seed=seed)



@dataclass
class BatchReport:
    """What the batch path did: rounds, batches created, requests sent (retries included), polls, and any stop."""

    rounds: int = 0
    batches: int = 0
    requests: int = 0
    retried: int = 0
    polls: int = 0
    resumed: int = 0  # batches submitted before a kill and collected after it, not resubmitted
    adopted: int = 0
    stopped: StopCause | None = None
    message: str = ""


@dataclass
class Endpoints:
    """Calls to the batch endpoints, bounded: a fatal error, or ENDPOINT_FAILURES failures in a row, stop the sweep."""

    most: float
    sleep: Callable[[float], None]
    status: Callable[[str], None]
    stop: Callable[[StopCause, str], None]
    where: str  # where the sweep's state is kept, for the stop message

    def call(self, what: str, fn: Callable[[], T], *, again: Callable[[], bool] | None = None,
             gone: Callable[[], None] | None = None) -> T | None:
        """`fn()`, or None once stopped. `again` runs before a retry (True: no retry needed); `gone` handles a 404."""
        waits = Poll(first=min(2.0, self.most), factor=2.0, most=self.most).waits()
        for tries in range(1, ENDPOINT_FAILURES + 1):
            try:
                return fn()
            except anthropic.AnthropicError as exc:
                failure = failure_from(exc)
            if failure.reason == "not_found" and gone is not None:
                gone()
                return None
            if failure.reason in FATAL or tries == ENDPOINT_FAILURES:
                cause: StopCause = failure.reason if failure.reason in FATAL else "api_failures"  # type: ignore[assignment]
                self.stop(cause, f"the Message Batches API failed ({what}): {failure.line()} The sweep's state is in "
                                 f"{self.where}; run the same command again to resume.")
                return None
            wait = next(waits)
            self.status(f"batch {what} failed ({failure.reason}); trying again in {wait:.0f} s")
            self.sleep(wait)
            if again is not None and again():
                return None
        return None


_SERVERS: dict[str, BatchAPI] = {}  # offline: the stand-in's server outlives an interrupted sweep in this process


def batch_client(mode: str, model: str, *, plan: Sequence[Episode], profiles: dict[str, Profile],
                 journal: str | None) -> tuple[anthropic.Anthropic, Poll]:
    """A sync client with `messages.batches`, and how to poll it: the stand-in's in-process server offline, else live.

    Offline, the server for a journal is kept for this process, so an interrupted sweep rerun here resumes its
    batches; a new process starts a new server, and the batches the journal names are sent again (at no cost).
    """
    if mode != "offline":
        return choose_model(model).client, LIVE_POLL
    if journal is None:
        return in_process_batch_client(standin_server(plan, profiles)), OFFLINE_POLL
    key = hashlib.sha256("\n".join([journal, *(e.key for e in plan)]).encode()).hexdigest()
    if key not in _SERVERS:
        while len(_SERVERS) >= 4:
            _SERVERS.pop(next(iter(_SERVERS)))
        _SERVERS[key] = standin_server(plan, profiles)
    return in_process_batch_client(_SERVERS[key]), OFFLINE_POLL
