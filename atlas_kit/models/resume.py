"""The HTTP side of an interrupted sweep: every reply kept as it arrives, and kept replies answered again on resume.

`CallKeeper` sits under a live client. It keeps each `/v1/messages` reply of each episode (tagged by the
`cassette.EPISODE`) with what it cost, counts the calls sent and cut off before their reply came, refuses
new calls once the sweep is stopping, and, for a resumed episode, answers its first calls from the replies kept
last time, so a resume never pays for them twice. What to keep on disk is the sweep's (experiments/pending.py).
Chapter 11.
"""
from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Callable, TypedDict

import httpx2

from ..types.sets import JSONObject
from ..types.tokens import request_tokens
from .cassette import EPISODE, fingerprint


class KeptCall(TypedDict):
    """One paid reply: the request's fingerprint, the response body, its usage and what it cost."""

    fingerprint: str
    response: JSONObject
    input_tokens: int
    output_tokens: int
    cost_usd: float


class CutCall(TypedDict):
    """A call sent and cut off before its reply came: its tokens and cost, estimated high (the request's size,
    and every output token it was allowed), since the API may bill what it had started."""

    input_tokens: int
    output_tokens: int
    cost_usd: float


class Stopping(BaseException):
    """A call asked for after the sweep began to stop: never sent. A BaseException, so no retry and no agent loop
    takes it for an API failure; the sweep counts the episode as cut, to be resumed."""


Price = Callable[[int, int], float]
"""What a call's input and output tokens cost, in US dollars (the sweep's model and source decide)."""


@dataclass
class CallKeeper:
    """A sweep's record of its paid calls, per episode; `pending` holds the replies a resume answers from."""

    price: Price
    pending: dict[str, list[KeptCall]] = field(default_factory=dict)
    kept: dict[str, list[KeptCall]] = field(default_factory=dict)  # this run's replies, replayed ones first
    cut: dict[str, list[CutCall]] = field(default_factory=dict)
    replayed_usd: dict[str, float] = field(default_factory=dict)  # what the replies answered again had cost
    unused: dict[str, list[KeptCall]] = field(default_factory=dict)  # kept replies an episode did not ask for again
    in_flight: int = 0
    stopping: bool = False

    def stop(self) -> None:
        """From now on, no call is sent: a new one raises Stopping; replies kept from earlier runs still answer."""
        self.stopping = True

    def transport(self, inner: httpx2.AsyncBaseTransport) -> KeepingTransport:
        """`inner` (the network's transport) with every call going through this keeper."""
        return KeepingTransport(inner, self)

    def replay(self, episode: str, body: JSONObject) -> KeptCall | None:
        """The kept reply to this request of `episode`, when it is the next one kept; an episode that asks for
        something else has taken another path, and its other kept replies are set aside as unused."""
        queue = self.pending.get(episode)
        if not queue:
            return None
        if queue[0]["fingerprint"] != fingerprint(body):
            self.unused.setdefault(episode, []).extend(self.pending.pop(episode))
            return None
        call = queue.pop(0)
        if not queue:
            del self.pending[episode]
        self.kept.setdefault(episode, []).append(call)
        self.replayed_usd[episode] = self.replayed_usd.get(episode, 0.0) + call["cost_usd"]
        return call

    def forget(self, episode: str) -> None:
        """Drop a finished episode's replies: its record carries them now (what it replayed or left unused stays)."""
        self.kept.pop(episode, None)

    def keep(self, episode: str, body: JSONObject, answer: JSONObject) -> None:
        """Keep a paid reply, with its usage and cost (a body with no usable usage costs 0: the run refuses it).
        It is kept as it came, in memory; what writes it to disk redacts it (experiments/pending.py)."""
        usage = answer.get("usage")
        tokens = [usage.get(k) if isinstance(usage, dict) else 0 for k in ("input_tokens", "output_tokens")]
        used_in, used_out = (t if isinstance(t, int) and not isinstance(t, bool) and t >= 0 else 0 for t in tokens)
        self.kept.setdefault(episode, []).append(KeptCall(
            fingerprint=fingerprint(body), response=answer, input_tokens=used_in, output_tokens=used_out,
            cost_usd=self.price(used_in, used_out)))

    def cut_off(self, episode: str, body: JSONObject) -> None:
        """Count a call that was sent and never answered (the sweep cancelled it), at its highest cost."""
        size = request_tokens(body)
        most = body.get("max_tokens")
        most = most if isinstance(most, int) and not isinstance(most, bool) and most > 0 else 0
        self.cut.setdefault(episode, []).append(CutCall(input_tokens=size, output_tokens=most,
                                                        cost_usd=self.price(size, most)))


class KeepingTransport(httpx2.AsyncBaseTransport):
    """Forwards calls to `inner` through a CallKeeper: kept replies answer again, new ones are kept, stopped ones
    are refused, and one cancelled in flight is counted as cut off."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, keeper: CallKeeper) -> None:
        self.inner, self.keeper = inner, keeper

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        episode = EPISODE.get()
        if request.method != "POST" or request.url.path != "/v1/messages" or not episode:
            return await self.inner.handle_async_request(request)
        body = await _body(request)
        if body is None:
            return await self.inner.handle_async_request(request)
        again = self.keeper.replay(episode, body)
        if again is not None:
            return httpx2.Response(200, headers={"content-type": "application/json", "request-id": "kept-reply"},
                                   content=json.dumps(again["response"]).encode(), request=request)
        if self.keeper.stopping:
            raise Stopping(f"the sweep is stopping; episode {episode} sends no more calls")
        self.keeper.in_flight += 1
        try:
            response = await self.inner.handle_async_request(request)
            raw = b"".join([chunk async for chunk in response.stream])  # type: ignore[union-attr]
            await response.aclose()
        except asyncio.CancelledError:  # the sweep gave up waiting: sent, maybe billed, never answered
            self.keeper.cut_off(episode, body)
            raise
        finally:
            self.keeper.in_flight -= 1

        def copy() -> httpx2.Response:  # a fresh, unread response: the client reads it as it came
            return httpx2.Response(response.status_code, headers=response.headers, stream=httpx2.ByteStream(raw),
                                   extensions=response.extensions)

        if response.is_success:
            try:
                answer = _json(copy().read())  # read() undoes gzip
            except httpx2.DecodingError:
                answer = None
            if answer is not None and answer.get("type") == "message":
                self.keeper.keep(episode, body, answer)
        return copy()

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _body(request: httpx2.Request) -> JSONObject | None:
    found = _json(await request.aread())
    return found if found is not None and not found.get("stream") else None


def _json(raw: bytes) -> JSONObject | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
