"""Replay a recorded run with no key and no network: a cassette answers in the API's place.

A replayed request that was not recorded is refused, naming what differs; in a sweep, each episode
is answered only from its own recorded calls, so a missing trial is a clear miss and never another
condition's answer. Recording is in cassette.py (its names are re-exported here). Chapters 00 and 11.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
import httpx2

from .cassette import (CASSETTE_FORMAT, EPISODE, IGNORED_FIELDS, Cassette, RecordingTransport, answer_fields,
    fingerprint, recording_client)
from .transport import MessagesTransport, ReplayMiss
from ..types.sets import JSONObject
from ..types.walk import canonical, content_blocks

def replay_transport(cassette: Cassette) -> MessagesTransport:
    """The in-process API answering from `cassette` (a fresh count of repeated requests)."""
    return _ReplayTransport(_Player(cassette))


def is_replay_miss(err: BaseException) -> bool:
    """True when `err` is the error for a request the cassette does not hold (`isinstance(err, ReplayMiss)`)."""
    return isinstance(err, ReplayMiss)


@dataclass
class _Player:
    """The replay handler: the k-th identical request (of one episode, when tagged) gets the k-th recorded answer."""

    cassette: Cassette
    asked: dict[tuple[str | None, str], int] = field(default_factory=dict)

    def __call__(self, body: JSONObject, episode: str | None = None) -> JSONObject:
        if episode and episode not in self.cassette.episodes():
            raise _miss(f"the cassette holds no calls for episode {episode!r}; it was recorded with fewer trials "
                        "or other conditions. Replay with the options it was recorded with.")
        key = (episode, fingerprint(body))
        nth = self.asked.get(key, 0)
        answer = self.cassette.lookup(body, nth=nth, episode=episode)
        if answer is None:
            own = [e for e in self.cassette.entries if e.get("episode") == episode] if episode else self.cassette.entries
            raise _miss(_explain_miss(Cassette(self.cassette.model, entries=own), body, nth))
        self.asked[key] = nth + 1
        return answer


def _miss(why: str) -> ReplayMiss:
    return ReplayMiss(f"request not in cassette: {why}")


class _ReplayTransport(MessagesTransport):
    """The in-process API, answering from a `_Player` that also reads the request's episode header."""

    def __init__(self, player: _Player) -> None:
        super().__init__(player)
        self.player = player

    def _call(self, body: JSONObject, request: httpx2.Request) -> JSONObject:
        return self.player(body, EPISODE.get())


def _explain_miss(cassette: Cassette, body: JSONObject, nth: int) -> str:
    if nth:
        return (f"this exact request was recorded {nth} time(s) and is now asked for time {nth + 1}; "
                "the run repeated a call the recording made fewer times.")
    if not cassette.entries:
        return "the cassette holds no recordings."
    got = answer_fields(body)
    index, nearest = max(enumerate(cassette.entries),
                         key=lambda ie: _closeness(answer_fields(ie[1]["request"]), got, ie[0]))
    want = answer_fields(nearest["request"])
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


def _closeness(recorded: JSONObject, got: JSONObject, index: int) -> tuple[int, int, int, int]:
    # Longest shared message prefix first, then most equal other fields, then nearest length.
    a, b = recorded.get("messages") or [], got.get("messages") or []
    shared = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    same_fields = sum(recorded.get(k) == got.get(k) for k in set(recorded) | set(got) if k != "messages")
    return shared, same_fields, -abs(len(a) - len(b)), -index


_ABSENT = object()


def _first_difference(want: object, got: object, path: str = "") -> tuple[str, object, object]:
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


def _describe(message: object) -> str:
    if not isinstance(message, dict):
        return "absent"
    kinds = [f"tool_result for {b['tool_use_id']}" if b["type"] == "tool_result" else
             f"tool_use for {b['id']}" if b["type"] == "tool_use" else "text"
             for b in content_blocks(message.get("content"))]
    return f"{message.get('role')}: {', '.join(kinds) or 'empty'}"


def _short(value: object, limit: int = 80) -> str:
    if value is _ABSENT:
        return "(absent)"
    text = canonical(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
