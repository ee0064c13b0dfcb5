"""Record a live run into a cassette, then replay it with no key and no network.

A cassette keeps request and response bodies of successful `/v1/messages` calls, never
headers, with key-like strings redacted. A replayed request that was not recorded is
refused, naming what differs. Taught in chapters 00 and 11, where live results become reproducible.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import anthropic
import httpx2

from .trace import redact
from .transport import APIFault, in_process_async_client, in_process_client

__all__ = [
    "IGNORED_FIELDS",
    "REPLAY_PREFIX",
    "Cassette",
    "RecordingTransport",
    "fingerprint",
    "is_replay_miss",
    "recording_client",
    "replay_client",
]

CASSETTE_FORMAT = "atlas_kit.cassette/1"
REPLAY_PREFIX = "replay:"
# Fields that cannot change the answer. Every other field counts, so a field the SDK adds
# later can only make a replay refuse a request, never give it another request's answer.
IGNORED_FIELDS = frozenset({"metadata", "stream"})


def fingerprint(body: dict[str, Any]) -> str:
    """sha256 of the canonical JSON (sorted keys, compact) of the fields that determine the answer.

    Those are all fields except `IGNORED_FIELDS`: model, system, messages, tools, tool_choice,
    max_tokens, temperature, top_p, top_k, stop_sequences, thinking and any newer one.
    Key-like strings are redacted first, so a recorded body and its stored copy agree.
    """
    return hashlib.sha256(_canonical(_answer_fields(body)).encode()).hexdigest()


def _answer_fields(body: dict[str, Any]) -> dict[str, Any]:
    return redact({k: v for k, v in body.items() if k not in IGNORED_FIELDS})


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass
class Cassette:
    """One recorded run: the model, the date, and its calls in the order they were made."""

    model: str
    recorded_on: str = field(default_factory=lambda: _dt.date.today().isoformat())
    entries: list[dict[str, Any]] = field(default_factory=list)

    def record(self, request: dict[str, Any], response: dict[str, Any]) -> None:
        """Append one call; both bodies are redacted before they are kept."""
        entry = {"fingerprint": fingerprint(request), "request": redact(request), "response": redact(response)}
        self.entries.append(entry)

    def lookup(self, body: dict[str, Any], *, nth: int = 0) -> dict[str, Any] | None:
        """The response recorded for the `nth` occurrence of this request, or None."""
        key = fingerprint(body)
        matches = [e["response"] for e in self.entries if e["fingerprint"] == key]
        return matches[nth] if nth < len(matches) else None

    def label(self) -> str:
        return f"replayed from {self.model} on {self.recorded_on}"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Pretty, deterministic JSON: sorted keys, entries in recording order."""
        data = {"format": CASSETTE_FORMAT, "model": self.model, "recorded_on": self.recorded_on,
                "entries": self.entries}
        text = json.dumps(redact(data), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        os.makedirs(os.path.dirname(os.fspath(path)) or ".", exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Cassette:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if not isinstance(data, dict) or data.get("format") != CASSETTE_FORMAT:
            raise ValueError(f"{os.fspath(path)} is not an atlas_kit cassette (expected format {CASSETTE_FORMAT!r}); "
                             "record one with recording_client() and Cassette.save().")
        return cls(model=data["model"], recorded_on=data["recorded_on"], entries=list(data["entries"]))


class RecordingTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """Forwards every request to `inner` and records successful `/v1/messages` calls into `cassette`.

    Only JSON bodies are kept, never headers (the API key travels in them); streamed calls
    are forwarded but not recorded.
    """

    def __init__(self, inner: httpx2.BaseTransport | httpx2.AsyncBaseTransport, cassette: Cassette) -> None:
        self.inner, self.cassette = inner, cassette

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        response = self.inner.handle_request(request)  # type: ignore[union-attr]
        if not _recordable(request, response):
            return response
        raw = b"".join(response.stream)  # type: ignore[union-attr]  # not iter_raw(): it refuses a pre-read body
        response.close()
        return self._record(request, response, raw)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        response = await self.inner.handle_async_request(request)  # type: ignore[union-attr]
        if not _recordable(request, response):
            return response
        raw = b"".join([chunk async for chunk in response.stream])  # type: ignore[union-attr]
        await response.aclose()
        return self._record(request, response, raw)

    def _record(self, request: httpx2.Request, response: httpx2.Response, raw: bytes) -> httpx2.Response:
        # The body is read here, so the client gets a fresh, unread copy of the response:
        # handing back the consumed one would leave it without `elapsed` and the like.
        def copy() -> httpx2.Response:
            return httpx2.Response(response.status_code, headers=response.headers, stream=httpx2.ByteStream(raw),
                                   extensions=response.extensions)

        try:
            sent, answer = json.loads(request.content), json.loads(copy().read())  # read() undoes gzip
        except (ValueError, httpx2.DecodingError):
            sent = answer = None  # a malformed body is the SDK's to report; there is nothing to replay
        if isinstance(sent, dict) and isinstance(answer, dict) and not sent.get("stream"):
            self.cassette.record(sent, answer)
        return copy()

    def close(self) -> None:
        if isinstance(self.inner, httpx2.BaseTransport):
            self.inner.close()

    async def aclose(self) -> None:
        if isinstance(self.inner, httpx2.AsyncBaseTransport):
            await self.inner.aclose()


def _recordable(request: httpx2.Request, response: httpx2.Response) -> bool:
    return (
        request.method == "POST"
        and request.url.path == "/v1/messages"
        and response.is_success
        and response.headers.get("content-type", "").split(";")[0].strip().endswith("json")
    )


@overload
def recording_client(cassette: Cassette, *, api_key: str | None = ..., inner: Any = ...,
                     async_: Literal[False] = ..., max_retries: int = ...) -> anthropic.Anthropic: ...
@overload
def recording_client(cassette: Cassette, *, api_key: str | None = ..., inner: Any = ...,
                     async_: Literal[True], max_retries: int = ...) -> anthropic.AsyncAnthropic: ...
def recording_client(
    cassette: Cassette,
    *,
    api_key: str | None = None,
    inner: httpx2.BaseTransport | httpx2.AsyncBaseTransport | None = None,
    async_: bool = False,
    max_retries: int = anthropic.DEFAULT_MAX_RETRIES,
) -> anthropic.Anthropic | anthropic.AsyncAnthropic:
    """A genuine client whose calls go to `inner` (default: the network) and are recorded.

    `api_key=None` lets the SDK find the key itself (ANTHROPIC_API_KEY, then profiles); the
    key stays in the SDK's headers and is never written. Tests pass `inner=MessagesTransport(...)`.
    """
    if async_:
        transport = RecordingTransport(inner or httpx2.AsyncHTTPTransport(), cassette)
        return anthropic.AsyncAnthropic(api_key=api_key, max_retries=max_retries,
                                        http_client=anthropic.DefaultAsyncHttpxClient(transport=transport))
    transport = RecordingTransport(inner or httpx2.HTTPTransport(), cassette)
    return anthropic.Anthropic(api_key=api_key, max_retries=max_retries,
                               http_client=anthropic.DefaultHttpxClient(transport=transport))


@overload
def replay_client(cassette_or_path: Cassette | str | os.PathLike[str], *,
                  async_: Literal[False] = ...) -> anthropic.Anthropic: ...
@overload
def replay_client(cassette_or_path: Cassette | str | os.PathLike[str], *,
                  async_: Literal[True]) -> anthropic.AsyncAnthropic: ...
def replay_client(
    cassette_or_path: Cassette | str | os.PathLike[str], *, async_: bool = False
) -> anthropic.Anthropic | anthropic.AsyncAnthropic:
    """A genuine client that answers from the cassette, with no key and no network.

    A request that was not recorded (or is asked more often than it was recorded) gets an
    HTTP 400 `invalid_request_error` whose message starts with "replay:" and names the first
    difference from the nearest recording, with `x-should-retry: false`. Through the SDK
    that is `anthropic.BadRequestError`; `is_replay_miss(err)` tells it from a real 400.
    """
    cassette = cassette_or_path if isinstance(cassette_or_path, Cassette) else Cassette.load(cassette_or_path)
    player = _Player(cassette)
    return in_process_async_client(player, max_retries=0) if async_ else in_process_client(player, max_retries=0)


def is_replay_miss(err: BaseException) -> bool:
    """True when `err` is the SDK error for a request the cassette does not hold."""
    return isinstance(err, anthropic.BadRequestError) and str(err.api_message or "").startswith(REPLAY_PREFIX)


@dataclass
class _Player:
    """The replay handler: the k-th identical request gets the k-th recorded answer."""

    cassette: Cassette
    asked: dict[str, int] = field(default_factory=dict)

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        key = fingerprint(body)
        nth = self.asked.get(key, 0)
        answer = self.cassette.lookup(body, nth=nth)
        if answer is None:
            raise APIFault(400, f"{REPLAY_PREFIX} request not in cassette: {_explain_miss(self.cassette, body, nth)}",
                           error_type="invalid_request_error", headers={"x-should-retry": "false"})
        self.asked[key] = nth + 1
        return answer


def _explain_miss(cassette: Cassette, body: dict[str, Any], nth: int) -> str:
    if nth:
        return (f"this exact request was recorded {nth} time(s) and is now asked for time {nth + 1}; "
                "the run repeated a call the recording made fewer times.")
    if not cassette.entries:
        return "the cassette holds no recordings."
    got = _answer_fields(body)
    index, nearest = max(enumerate(cassette.entries),
                         key=lambda ie: _closeness(_answer_fields(ie[1]["request"]), got, ie[0]))
    want = _answer_fields(nearest["request"])
    path, recorded, asked = _first_difference(want, got)
    text = f"{path} differs from the nearest recording (entry {index} of {len(cassette.entries)}): " \
           f"recorded {_short(recorded)}, got {_short(asked)}"
    if path.startswith("messages["):
        k = int(path[len("messages["):].split("]")[0])
        messages = got.get("messages") or want.get("messages") or []
        turn = sum(1 for m in messages[:k] if isinstance(m, dict) and m.get("role") == "assistant") + 1
        what = _describe(messages[k] if k < len(messages) else None)
        text += f"; the run diverged at turn {turn}, in message {k} ({what})"
    return text + "."


def _closeness(recorded: dict[str, Any], got: dict[str, Any], index: int) -> tuple[int, int, int, int]:
    # Longest shared message prefix first, then most equal other fields, then nearest length.
    a, b = recorded.get("messages") or [], got.get("messages") or []
    shared = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    same_fields = sum(recorded.get(k) == got.get(k) for k in set(recorded) | set(got) if k != "messages")
    return shared, same_fields, -abs(len(a) - len(b)), -index


_ABSENT = object()


def _first_difference(want: Any, got: Any, path: str = "") -> tuple[str, Any, Any]:
    """The path of the first difference, with both values; fields before messages, keys sorted."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got), key=lambda k: (k == "messages", k)):
            if want.get(key, _ABSENT) != got.get(key, _ABSENT):
                inner = f"{path}.{key}" if path else key
                return _first_difference(want.get(key, _ABSENT), got.get(key, _ABSENT), inner)
    if isinstance(want, list) and isinstance(got, list):
        for i in range(max(len(want), len(got))):
            w = want[i] if i < len(want) else _ABSENT
            g = got[i] if i < len(got) else _ABSENT
            if w != g:
                return _first_difference(w, g, f"{path}[{i}]")
    return path or "the request", want, got


def _describe(message: Any) -> str:
    if not isinstance(message, dict):
        return "absent"
    content = message.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text"}]
    kinds = [f"{b['type']} for {b.get('tool_use_id') or b.get('id')}" if b.get("type") in ("tool_result", "tool_use")
             else str(b.get("type")) for b in blocks if isinstance(b, dict)]
    return f"{message.get('role')}: {', '.join(kinds) or 'empty'}"


def _short(value: Any, limit: int = 80) -> str:
    if value is _ABSENT:
        return "(absent)"
    text = _canonical(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
