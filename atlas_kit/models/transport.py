"""An in-process Messages API behind the real SDK: a Python function answers `POST /v1/messages`.

Holds the httpx2 transport, a rough token estimate (the response builder, body.py, is re-exported) and `ScriptedAPI`,
which plays 429s, 529s, timeouts, resets and malformed bodies in order. No streaming and
no other endpoint. Taught in chapter 00 (offline, live, replay) and chapter 09 (retries).
"""
from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Union

import anthropic
import httpx2

from ..types.tokens import CHARS_PER_TOKEN, estimate_tokens, request_tokens  # shared; re-exported
from .body import message_body  # re-exported: it was born here
from ..types.api import APIErrorBody, MessageBody
from ..types.sets import JSONObject
from ..types.exceptions import AtlasKitTypeError, AtlasKitValueError

# Neither looks like a credential or a real host: `.invalid` is reserved (RFC 2606), so
# a request that escapes the in-process transport fails to resolve instead of reaching anyone.
PLACEHOLDER_KEY = "in-process-no-key"
BASE_URL = "http://atlas.invalid"

# The `error.type` the real API sends with each status; anything else >= 500 is api_error.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}

class APIFault(Exception):
    """Raised by a handler: the transport answers with `status` and an Anthropic error body."""

    def __init__(
        self, status: int, message: str, *, error_type: str | None = None, headers: Mapping[str, str] | None = None
    ) -> None:
        if not isinstance(status, int) or not 400 <= status <= 599:
            raise AtlasKitValueError(f"APIFault status must be an HTTP error status (400-599), got {status!r}; "
                             "try 429, 529 or 500.")
        self.status, self.message = status, message
        default = "api_error" if status >= 500 else "invalid_request_error"
        self.error_type = error_type or _ERROR_TYPES.get(status, default)
        self.headers = dict(headers or {})
        super().__init__(f"{status} {self.error_type}: {message}")

    def body(self) -> APIErrorBody:
        """The Anthropic error body the transport sends with this fault's status."""
        return {"type": "error", "error": {"type": self.error_type, "message": self.message}}


@dataclass(frozen=True)
class RawAnswer:
    """A response sent byte for byte, for bodies no well-behaved server would send."""

    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)  # content-type defaults to application/json


Handler = Callable[[JSONObject], Union[MessageBody, JSONObject, RawAnswer]]
"""`handler(request_body) -> response_body`; it may also return a `RawAnswer` or raise `APIFault`."""


class HandlerError(anthropic.AnthropicError):
    """The handler itself failed (a bug, or a script that ran out): not a network fault.

    It subclasses `AnthropicError` because the SDK passes its own errors through unwrapped and
    unretried; any other exception would come out as a retried "Connection error.".
    """


class ReplayMiss(HandlerError):
    """A replayed request the cassette holds no answer for (replay.py): its own type, so nothing has to read a
    message to tell it from a real API's 400. The message names the first difference from the nearest recording."""


Answer = Union[JSONObject, APIFault, RawAnswer, BaseException]
"""One scripted answer: a response body, a fault, raw bytes, or an exception to raise."""


class MessagesTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """Routes `POST /v1/messages` to `handler`; every other route gets a 404 error body."""

    def __init__(self, handler: Handler, *, latency: float = 0.0) -> None:
        if not callable(handler):
            raise AtlasKitTypeError("handler must be a function taking the request body dict; see ScriptedAPI for a ready one.")
        if latency < 0:
            raise AtlasKitValueError(f"latency is seconds per call and must be >= 0, got {latency!r}.")
        self.handler, self.latency = handler, latency

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        if self.latency:
            time.sleep(self.latency)
        return self._answer(request)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        if self.latency:
            await asyncio.sleep(self.latency)
        return self._answer(request)

    def _answer(self, request: httpx2.Request) -> httpx2.Response:
        if request.method != "POST" or request.url.path != "/v1/messages":
            return _fault(APIFault(404, f"in-process API: no route for {request.method} {request.url.path}; "
                                        "only POST /v1/messages is served."))
        try:
            body = json.loads(request.content)
        except ValueError:
            return _fault(APIFault(400, "in-process API: the request body is not valid JSON."))
        if not isinstance(body, dict):
            return _fault(APIFault(400, "in-process API: the request body must be a JSON object."))
        if body.get("stream"):
            return _fault(APIFault(400, "in-process API: streaming is not served; call messages.create without "
                                        "stream=True.", headers={"x-should-retry": "false"}))
        try:
            answer = self._call(body, request)
        except APIFault as fault:
            return _fault(fault)
        except (httpx2.TransportError, HandlerError):
            raise  # network trouble the handler simulates, or a HandlerError that says what went wrong
        except Exception as err:
            raise HandlerError(f"the in-process handler raised {type(err).__name__}: {err}") from err
        if isinstance(answer, RawAnswer):
            headers = httpx2.Headers(answer.headers)
            headers.setdefault("content-type", "application/json")
            return httpx2.Response(answer.status, headers=headers, content=answer.body)
        if isinstance(answer, dict):
            return httpx2.Response(200, json=answer)
        raise HandlerError(f"the in-process handler returned a {type(answer).__name__}; return a response body dict "
                           "(see message_body), a RawAnswer, or raise APIFault.")

    def _call(self, body: JSONObject, request: httpx2.Request) -> object:  # replay's subclass reads a header too
        return self.handler(body)  # object: whatever the handler returned is checked by _answer


def _fault(fault: APIFault) -> httpx2.Response:
    return httpx2.Response(fault.status, headers=fault.headers, json=fault.body())


@dataclass
class ScriptedAPI:
    """A handler that plays `answers` in order and keeps every request body it saw in `requests`.

    An answer is a response body (dict), an `APIFault`, a `RawAnswer`, or an exception to raise
    (`httpx2.ReadTimeout`, `httpx2.ConnectError`, `httpx2.RemoteProtocolError` ...).
    Retries consume answers too: a 429 followed by a success is two answers and two requests.
    """

    answers: list[Answer]
    requests: list[JSONObject] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.answers = list(self.answers)

    @property
    def remaining(self) -> int:
        return len(self.answers) - len(self.requests)

    def __call__(self, body: JSONObject) -> JSONObject | RawAnswer:
        self.requests.append(body)
        n = len(self.requests)
        if n > len(self.answers):
            raise HandlerError(
                f"ScriptedAPI: request {n} arrived but the script holds {len(self.answers)} answers; "
                "add an answer for it, or check whether the SDK retried more often than you expected."
            )
        answer = self.answers[n - 1]
        if isinstance(answer, BaseException):
            raise answer
        return answer


def in_process_client(handler: Handler, *, max_retries: int = 2, latency: float = 0.0) -> anthropic.Anthropic:
    """A genuine `anthropic.Anthropic` whose requests go to `handler`, never to the network."""
    http = anthropic.DefaultHttpxClient(transport=MessagesTransport(handler, latency=latency))
    # An explicit api_key stops the SDK reading ANTHROPIC_API_KEY, profiles and federation files;
    # open_telemetry=False stops the ANTHROPIC_OPEN_TELEMETRY* variables adding spans or headers.
    return anthropic.Anthropic(
        api_key=PLACEHOLDER_KEY, base_url=BASE_URL, http_client=http, max_retries=max_retries, open_telemetry=False
    )


def in_process_async_client(
    handler: Handler, *, max_retries: int = 2, latency: float = 0.0
) -> anthropic.AsyncAnthropic:
    """The `AsyncAnthropic` twin of `in_process_client`."""
    http = anthropic.DefaultAsyncHttpxClient(transport=MessagesTransport(handler, latency=latency))
    return anthropic.AsyncAnthropic(
        api_key=PLACEHOLDER_KEY, base_url=BASE_URL, http_client=http, max_retries=max_retries, open_telemetry=False
    )
