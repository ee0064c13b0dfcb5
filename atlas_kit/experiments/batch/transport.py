"""An in-process Message Batches API behind the real SDK: create, retrieve, list, cancel and results.

A batch ends after a set number of polls; its results come back shuffled, and a policy may mark a
request errored, expired or canceled instead of answering it. The API's own limits are enforced
(custom_id pattern, 100,000 requests, 256 MB). Used offline by `--via batch` (chapter 11) and by tests.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import re
import threading
from dataclasses import dataclass, field
from typing import Callable, Literal, Mapping, NoReturn, TypedDict

import anthropic
import httpx2

from ...models.transport import BASE_URL, PLACEHOLDER_KEY, APIFault, Handler, MessagesTransport
from ...types.sets import JSONObject
from ...types.api import MessageBody
from ...types.exceptions import AtlasKitTypeError, AtlasKitValueError

ResultType = Literal["succeeded", "errored", "canceled", "expired"]
BatchHandler = Callable[[str, JSONObject], MessageBody]
"""`handler(custom_id, params) -> message body`; raising APIFault makes that request `errored`."""
Outcome = Callable[[str], ResultType]
"""`outcome(custom_id)`: what the server does with a request; "succeeded" runs the handler."""

CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # the API's pattern for custom_id
MAX_BATCH_REQUESTS = 100_000
MAX_BATCH_BYTES = 256 * 1024 * 1024
_PREFIX = "/v1/messages/batches"
_COUNTS = ("processing", "succeeded", "errored", "canceled", "expired")


class _View(TypedDict):
    """A message batch as the API describes it (what the SDK's `MessageBatch` reads)."""

    id: str
    type: Literal["message_batch"]
    processing_status: Literal["in_progress", "canceling", "ended"]
    request_counts: dict[str, int]
    created_at: str
    expires_at: str
    ended_at: str | None
    archived_at: None
    cancel_initiated_at: None
    results_url: str | None


class _Page(TypedDict):
    """One page of `GET /v1/messages/batches`, newest first."""

    data: list[_View]
    has_more: bool
    first_id: str | None
    last_id: str | None


class _ResultFields(TypedDict):
    type: ResultType


class _Result(_ResultFields, total=False):
    """What became of one request: its message when it succeeded, the error body when it errored."""

    message: MessageBody
    error: Mapping[str, object]


class _Line(TypedDict):
    """One line of a batch's results (JSONL)."""

    custom_id: str
    result: _Result


def random_outcomes(*, errored: float = 0.0, expired: float = 0.0, seed: int = 0) -> Outcome:
    """An outcome policy: each custom_id is errored or expired with these chances, decided by a hash (repeatable)."""
    for name, p in (("errored", errored), ("expired", expired)):
        if not 0.0 <= p <= 1.0:
            raise AtlasKitValueError(f"{name} is a probability and must be between 0 and 1; got {p!r}.")
    if errored + expired > 1.0:
        raise AtlasKitValueError(f"errored + expired must be at most 1; got {errored + expired!r}.")

    def outcome(custom_id: str) -> ResultType:
        u = random.Random(f"{seed}:{custom_id}").random()
        return "errored" if u < errored else "expired" if u < errored + expired else "succeeded"

    return outcome


@dataclass
class _Batch:
    id: str
    created_at: dt.datetime
    requests: list[tuple[str, JSONObject]]
    polls_left: int
    canceling: bool = False
    ended_at: dt.datetime | None = None
    results: list[_Line] = field(default_factory=list)


class BatchAPI:
    """The batch endpoints' state and answers; `BatchTransport` puts them behind HTTP.

    delay_polls: retrieves that report `in_progress` before a batch ends. shuffle: return results in a
    seeded random order, as the real API may. outcome: per-request policy (default: all succeed).
    `created`, `requests_seen` and `retrieves` count what clients asked for.
    """

    def __init__(self, handler: BatchHandler, *, delay_polls: int = 2, shuffle: bool = True, seed: int = 0,
                 outcome: Outcome | None = None, base_url: str = BASE_URL,
                 clock: Callable[[], dt.datetime] | None = None) -> None:
        if not callable(handler):
            raise AtlasKitTypeError("handler must be a function (custom_id, params) -> message body.")
        if isinstance(delay_polls, bool) or not isinstance(delay_polls, int) or delay_polls < 0:
            raise AtlasKitValueError(f"delay_polls must be a whole number of 0 or more; got {delay_polls!r}.")
        self.handler, self.delay_polls, self.shuffle, self.seed = handler, delay_polls, shuffle, seed
        self.outcome: Outcome = outcome or (lambda custom_id: "succeeded")
        self.base_url = base_url.rstrip("/")
        self.clock = clock or (lambda: dt.datetime.now(dt.timezone.utc))
        self.batches: dict[str, _Batch] = {}
        self.created = 0
        self.requests_seen = 0
        self.retrieves = 0
        self._lock = threading.Lock()

    # --- the endpoints -------------------------------------------------------------------
    def create(self, body: Mapping[str, object], *, size: int = 0) -> _View:
        requests = body.get("requests")
        if not isinstance(requests, list) or not requests:
            raise APIFault(400, "requests: give a non-empty list of {custom_id, params} objects.")
        if len(requests) > MAX_BATCH_REQUESTS:
            raise APIFault(400, f"requests: at most {MAX_BATCH_REQUESTS:,} requests a batch; got {len(requests):,}.")
        if size > MAX_BATCH_BYTES:
            raise APIFault(413, f"the batch is {size:,} bytes; the limit is {MAX_BATCH_BYTES:,}.")
        seen: set[str] = set()
        kept: list[tuple[str, JSONObject]] = []
        for i, r in enumerate(requests):
            cid = r.get("custom_id") if isinstance(r, dict) else None
            params = r.get("params") if isinstance(r, dict) else None
            if not isinstance(cid, str) or not CUSTOM_ID.match(cid):
                raise APIFault(400, f"requests.{i}.custom_id: must match {CUSTOM_ID.pattern}; got {cid!r}.")
            if cid in seen:
                raise APIFault(400, f"requests.{i}.custom_id: {cid!r} is used twice in this batch.")
            if not isinstance(params, dict) or params.get("stream"):
                raise APIFault(400, f"requests.{i}.params: must be a Messages request object without stream.")
            seen.add(cid)
            kept.append((cid, params))
        with self._lock:
            self.created += 1
            self.requests_seen += len(kept)
            digest = hashlib.sha256(f"{self.seed}:{self.created}:{kept[0][0]}".encode()).hexdigest()[:24]
            batch = _Batch(f"msgbatch_{digest}", self.clock(), kept, self.delay_polls)
            self.batches[batch.id] = batch
            return self._view(batch)

    def retrieve(self, batch_id: str) -> _View:
        with self._lock:
            batch = self._find(batch_id)
            self.retrieves += 1
            if batch.ended_at is None:
                if batch.polls_left <= 0 or batch.canceling:
                    self._end(batch)
                else:
                    batch.polls_left -= 1
            return self._view(batch)

    def cancel(self, batch_id: str) -> _View:
        with self._lock:
            batch = self._find(batch_id)
            if batch.ended_at is None:
                batch.canceling = True
            return self._view(batch)

    def list(self, *, limit: int = 20) -> _Page:
        with self._lock:
            views = [self._view(b) for b in reversed(self.batches.values())][:max(1, min(limit, 1000))]
        return {"data": views, "has_more": len(self.batches) > len(views),
                "first_id": views[0]["id"] if views else None, "last_id": views[-1]["id"] if views else None}

    def results(self, batch_id: str) -> bytes:
        with self._lock:
            batch = self._find(batch_id)
            if batch.ended_at is None:
                raise APIFault(400, f"batch {batch_id} is still in progress; its results exist once it has ended.")
            return b"".join(json.dumps(line).encode() + b"\n" for line in batch.results)

    # --- inside --------------------------------------------------------------------------
    def _find(self, batch_id: str) -> _Batch:
        if batch_id not in self.batches:
            raise APIFault(404, f"no message batch {batch_id!r}.", error_type="not_found_error")
        return self.batches[batch_id]

    def _end(self, batch: _Batch) -> None:
        lines: list[_Line] = []
        for cid, params in batch.requests:
            kind: ResultType = "canceled" if batch.canceling else self.outcome(cid)
            result: _Result = {"type": kind}
            if kind == "succeeded":
                try:
                    result["message"] = self.handler(cid, params)
                except APIFault as fault:
                    result = {"type": "errored", "error": fault.body()}
            elif kind == "errored":
                result["error"] = APIFault(500, "in-process batch: injected internal error.").body()
            lines.append({"custom_id": cid, "result": result})
        if self.shuffle:
            random.Random(f"{self.seed}:{batch.id}").shuffle(lines)
        batch.results, batch.ended_at = lines, self.clock()

    def _view(self, batch: _Batch) -> _View:
        counts = dict.fromkeys(_COUNTS, 0)
        if batch.ended_at is None:
            counts["processing"] = len(batch.requests)
        else:
            for line in batch.results:
                counts[line["result"]["type"]] += 1
        ended = batch.ended_at is not None
        return {"id": batch.id, "type": "message_batch",
                "processing_status": "ended" if ended else "canceling" if batch.canceling else "in_progress",
                "request_counts": counts, "created_at": batch.created_at.isoformat(),
                "expires_at": (batch.created_at + dt.timedelta(hours=24)).isoformat(),
                "ended_at": batch.ended_at.isoformat() if batch.ended_at else None,
                "archived_at": None, "cancel_initiated_at": None,
                "results_url": f"{self.base_url}{_PREFIX}/{batch.id}/results" if ended else None}


class BatchTransport(MessagesTransport):
    """Routes the batch endpoints to a BatchAPI, and `POST /v1/messages` to `messages` (when given)."""

    def __init__(self, api: BatchAPI, *, messages: Handler | None = None) -> None:
        super().__init__(messages or _no_messages)
        self.api = api

    def _answer(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        if not path.startswith(_PREFIX):
            return super()._answer(request)
        parts = path[len(_PREFIX):].strip("/").split("/") if path != _PREFIX else []
        try:
            if not parts and request.method == "POST":
                body = json.loads(request.content or b"{}")
                return httpx2.Response(200, json=self.api.create(body if isinstance(body, dict) else {},
                                                                 size=len(request.content)))
            if not parts and request.method == "GET":
                limit = int(request.url.params.get("limit") or 20)
                return httpx2.Response(200, json=self.api.list(limit=limit))
            if len(parts) == 1 and request.method == "GET":
                return httpx2.Response(200, json=self.api.retrieve(parts[0]))
            if len(parts) == 2 and parts[1] == "results" and request.method == "GET":
                return httpx2.Response(200, headers={"content-type": "application/x-jsonl"},
                                       content=self.api.results(parts[0]))
            if len(parts) == 2 and parts[1] == "cancel" and request.method == "POST":
                return httpx2.Response(200, json=self.api.cancel(parts[0]))
        except APIFault as fault:
            return httpx2.Response(fault.status, headers=fault.headers, json=fault.body())
        except ValueError:
            bad = APIFault(400, "in-process batch API: the request body is not valid JSON.")
            return httpx2.Response(400, json=bad.body())
        missing = APIFault(404, f"in-process batch API: no route for {request.method} {path}.")
        return httpx2.Response(404, json=missing.body())


def _no_messages(body: object) -> NoReturn:
    raise APIFault(404, "this in-process API serves the batch endpoints only; send requests in a batch.")


def in_process_batch_client(api: BatchAPI, *, messages: Handler | None = None,
                            max_retries: int = 0) -> anthropic.Anthropic:
    """A genuine `anthropic.Anthropic` whose `messages.batches` calls are answered by `api`, never the network."""
    http = anthropic.DefaultHttpxClient(transport=BatchTransport(api, messages=messages))
    return anthropic.Anthropic(api_key=PLACEHOLDER_KEY, base_url=api.base_url, http_client=http,
                               max_retries=max_retries, open_telemetry=False)
