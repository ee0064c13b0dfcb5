"""Cassettes: a live run's successful `/v1/messages` calls, recorded so that they can be replayed.

A cassette keeps request and response bodies, never headers (the key travels in them), with key-like strings
redacted; a sweep tags each call with its episode. Recording goes through a transport under a live client; a
recording never shrinks or replaces a cassette (record_path.py checks where it goes). Replaying is in replay.py.
Taught in chapters 00 and 11.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

import dataclasses
import datetime as _dt
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Literal, Union, cast, overload

import anthropic
import httpx2

from .api_retry import APIRetry, bounded
from ..contract.redaction import redact
from ..types.sets import JSONObject
from ..types.records import Source
from ..types.walk import canonical
from ..types.exceptions import AtlasKitValueError

CASSETTE_FORMAT = "atlas_kit.cassette/1"
# Fields that cannot change the answer. Every other field counts, so a field the SDK adds
# later can only make a replay refuse a request, never give it another request's answer.
IGNORED_FIELDS = frozenset({"metadata", "stream"})
EPISODE: ContextVar[str | None] = ContextVar("atlas_kit_episode", default=None)
"""The episode the calls made now belong to (a sweep sets it around each episode, `episode_scope`): recording keeps
it with each call, replay answers from it, and an interrupted sweep keeps its calls by it. It never leaves the process:
no header carries it to a server."""


@contextmanager
def episode_scope(key: str) -> Iterator[None]:
    """Calls made inside (this thread or task, and tasks it starts) belong to the episode `key`."""
    token = EPISODE.set(key)
    try:
        yield
    finally:
        EPISODE.reset(token)

_ENTRY_FIELDS = ("fingerprint", "request", "response")


def fingerprint(body: JSONObject) -> str:
    """sha256 of the canonical JSON (sorted keys, compact) of the fields that determine the answer.

    Those are all fields except `IGNORED_FIELDS`: model, system, messages, tools, tool_choice,
    max_tokens, temperature, top_p, top_k, stop_sequences, thinking and any newer one.
    Key-like strings are redacted first, so a recorded body and its stored copy agree.
    """
    return hashlib.sha256(canonical(answer_fields(body)).encode()).hexdigest()


def answer_fields(body: JSONObject) -> JSONObject:
    """The request's fields that can change the answer (all but IGNORED_FIELDS), redacted."""
    fields: JSONObject = redact({k: v for k, v in body.items() if k not in IGNORED_FIELDS})
    return fields


@dataclass
class Cassette:
    """One recorded run: the model, the date, and its calls in the order they were made."""

    model: str
    recorded_on: str = field(default_factory=lambda: _dt.date.today().isoformat())
    entries: list[JSONObject] = field(default_factory=list)  # fingerprint, request, response, episode (if any)
    server: str | None = None  # the local server a local model was recorded on (types.Source.server)

    def record(self, request: JSONObject, response: JSONObject, *, episode: str | None = None) -> None:
        """Append one call, tagged with its sweep episode if any; both bodies are redacted before they are kept."""
        entry: JSONObject = {"fingerprint": fingerprint(request), "request": redact(request),
                                 "response": redact(response)}
        if episode:
            entry["episode"] = episode
        self.entries.append(entry)

    def lookup(self, body: JSONObject, *, nth: int = 0, episode: str | None = None) -> JSONObject | None:
        """The response recorded for the `nth` occurrence of this request (within `episode`, if given), or None."""
        key = fingerprint(body)
        matches = [e["response"] for e in self.entries
                   if e["fingerprint"] == key and (episode is None or e.get("episode") == episode)]
        return matches[nth] if nth < len(matches) else None

    def episodes(self) -> set[str]:
        """The sweep episodes this cassette holds calls for (empty for a recording made outside a sweep)."""
        return {e["episode"] for e in self.entries if e.get("episode")}

    def require(self, keys: list[str], *, path: str | os.PathLike[str] = "the cassette") -> None:
        """Refuse a sweep replay that asks for an episode this cassette holds no calls for."""
        held, name = self.episodes(), os.fspath(path)
        if not held:
            raise AtlasKitValueError(f"{name} was not recorded by a sweep (its calls name no episode), so a sweep cannot tell "
                             "whose answers are whose; replay it with choose_model(cassette=...) and run_agent.")
        missing = [k for k in keys if k not in held]
        if missing:
            raise AtlasKitValueError(f"{name} holds no calls for {len(missing)} of the {len(keys)} episodes asked for (the "
                             f"first: {missing[0]}); replay with the options it was recorded with, or fewer trials.")

    def label(self) -> str:
        """What a replay of it is labelled (types.Source's label)."""
        return Source("replayed", self.model, self.recorded_on, server=self.server).label

    def save(self, path: str | os.PathLike[str]) -> None:
        """Pretty, deterministic JSON: sorted keys, entries in recording order. Written whole or not at all (a
        file beside it, then renamed), so a crash or a full disk never leaves a cassette cut short."""
        data: JSONObject = {"format": CASSETTE_FORMAT, "model": self.model, "recorded_on": self.recorded_on,
                                "entries": self.entries}
        if self.server is not None:
            data["server"] = self.server
        text = json.dumps(redact(data), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        folder = os.path.dirname(os.fspath(path)) or "."
        os.makedirs(folder, exist_ok=True)
        fd, part = tempfile.mkstemp(prefix=f".{os.path.basename(os.fspath(path))}.", suffix=".part", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(part, 0o644)
            os.replace(part, path)
        except BaseException:
            if os.path.exists(part):
                os.unlink(part)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Cassette:
        """Read a cassette; a file that is not one raises ValueError naming the file and the field."""
        name = os.fspath(path)
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, UnicodeDecodeError) as err:
            why = getattr(err, "strerror", None) or err
            raise AtlasKitValueError(f"{name}: cannot read the cassette ({type(err).__name__}: {why}).") from None
        except ValueError as err:
            raise AtlasKitValueError(f"{name} is not valid JSON ({err}); is it a cassette saved by atlas_kit?") from None
        if not isinstance(data, dict) or data.get("format") != CASSETTE_FORMAT:
            raise AtlasKitValueError(f"{name} is not an atlas_kit cassette (expected format {CASSETTE_FORMAT!r}); "
                             "record one with recording_client() and Cassette.save().")
        for key, kind in (("model", str), ("recorded_on", str), ("entries", list)):
            if not isinstance(data.get(key), kind):
                raise AtlasKitValueError(f"{name}: the field {key!r} is missing or not a {kind.__name__}; "
                                 "record the cassette again.")
        for i, entry in enumerate(data["entries"]):
            missing = [k for k in _ENTRY_FIELDS if not isinstance(entry, dict) or k not in entry]
            if missing or not isinstance(entry["request"], dict) or not isinstance(entry["response"], dict):
                field_name = missing[0] if missing else "request/response"
                raise AtlasKitValueError(f"{name}: entries[{i}] has no valid {field_name!r} field; record the cassette again.")
        server = data.get("server")
        if server is not None and not isinstance(server, str):
            raise AtlasKitValueError(f"{name}: the field 'server' is not a string; record the cassette again.")
        return cls(model=data["model"], recorded_on=data["recorded_on"], entries=list(data["entries"]), server=server)


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
        raw = b"".join(cast(Iterable[bytes], response.stream))  # not iter_raw(): it refuses a pre-read body
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
            self.cassette.record(sent, answer, episode=EPISODE.get())
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


_Inner = Union[httpx2.BaseTransport, httpx2.AsyncBaseTransport]
"""The transport a recording forwards to (the network's, or an in-process one)."""


@overload
def recording_client(cassette: Cassette, *, api_key: str | None = ..., inner: _Inner | None = ...,
                     async_: Literal[False] = ..., max_retries: int | None = ...,
                     retry: APIRetry | None = ...) -> anthropic.Anthropic: ...
@overload
def recording_client(cassette: Cassette, *, api_key: str | None = ..., inner: _Inner | None = ...,
                     async_: Literal[True], max_retries: int | None = ...,
                     retry: APIRetry | None = ...) -> anthropic.AsyncAnthropic: ...
@overload
def recording_client(cassette: Cassette, *, api_key: str | None = ..., inner: _Inner | None = ...,
                     async_: bool, max_retries: int | None = ...,
                     retry: APIRetry | None = ...) -> anthropic.Anthropic | anthropic.AsyncAnthropic: ...
def recording_client(
    cassette: Cassette,
    *,
    api_key: str | None = None,
    inner: httpx2.BaseTransport | httpx2.AsyncBaseTransport | None = None,
    async_: bool = False,
    max_retries: int | None = None,
    retry: APIRetry | None = None,
) -> anthropic.Anthropic | anthropic.AsyncAnthropic:
    """A genuine client whose calls go to `inner` (default: the network) and are recorded.

    `api_key=None` lets the SDK find the key itself (ANTHROPIC_API_KEY, then profiles); the
    key stays in the SDK's headers and is never written. Tests pass `inner=MessagesTransport(...)`.
    Retries run under `retry` (default `APIRetry()`; `max_retries=` changes only its count).
    """
    policy = retry or APIRetry()
    if max_retries is not None:
        policy = dataclasses.replace(policy, max_retries=max_retries)
    if async_:
        transport = RecordingTransport(inner or httpx2.AsyncHTTPTransport(), cassette)
        return anthropic.AsyncAnthropic(api_key=api_key, **bounded(policy),
                                        http_client=anthropic.DefaultAsyncHttpxClient(transport=transport))
    transport = RecordingTransport(inner or httpx2.HTTPTransport(), cassette)
    return anthropic.Anthropic(api_key=api_key, **bounded(policy),
                               http_client=anthropic.DefaultHttpxClient(transport=transport))
