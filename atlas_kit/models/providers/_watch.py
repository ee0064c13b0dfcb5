"""Watching a local server's token counts for a prompt it cut to fit its context window.

Ollama cuts a prompt longer than its window without a word (old messages first), then answers as if it had read
it all. Its usage is the only trace: far fewer input tokens than were sent, beyond what its prompt cache explains
(the cache holds the last prompt and answer, so only the part after what they share is evaluated again), or a
count far below a system prompt and tools that no request from this process had put in its cache. This is a
heuristic on estimated counts (about 4 characters a token), and says so. Chapter 00 (local models).
"""
from __future__ import annotations

import hashlib
import json
import threading
import warnings
from dataclasses import dataclass, field
from typing import Callable

from ...types.sets import JSONObject
from ...types.walk import canonical
from ..replies import CACHE_FIELDS, prompt_tokens
from ...types.tokens import estimate_tokens

_FLOOR = 200  # estimated tokens: below this a short new part says nothing either way
_COLD = 4  # a request none of whose prefix can be cached here, reported at under a quarter of its size, was cut
# The system prompts and tool lists this process has sent to each server (by address): what its cache may hold.
_SENT: dict[str, set[str]] = {}
_SENT_LOCK = threading.Lock()


class ContextWarning(UserWarning):
    """A local server probably cut the prompt to fit its context window."""


@dataclass
class ContextWatch:
    """One per provider: warns once when a reply's input tokens say the server read less than it was sent."""

    server: str
    setting: str  # how to raise the window, e.g. "OLLAMA_CONTEXT_LENGTH=16384 ollama serve"
    address: str = ""  # the server's address: watches of one server share what its cache may hold
    window: int | None = None  # the window in tokens, when the preflight read it
    # Asked once, after the first reply (the model is loaded by then), when the preflight could not read it.
    learn_window: Callable[[str], int | None] | None = field(default=None, repr=False)
    warned: bool = False
    _asked: bool = field(default=False, repr=False)
    _previous: list[str] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def observe(self, request: JSONObject, response: JSONObject) -> str | None:
        """Check one call; return (and warn with) the note the first time a cut prompt shows, else None."""
        pieces = _pieces(request)
        usage = response.get("usage")
        reported = _reported(usage)
        with self._lock:
            # The system prompt and the tools (the first two pieces) may sit in the server's cache from any client's
            # request, and the cache is the server's, not this watch's: only the messages can count as new.
            shared = max(2, _shared(self._previous, pieces))
            cold = _first_time(self.address, pieces[:2])
            answer = response.get("content")
            self._previous = pieces + [canonical({"role": "assistant", "content": answer})]
            if self.warned or reported is None:
                return None
            if self.window is None and self.learn_window is not None and not self._asked:
                self._asked = True
                self.window = self.learn_window(str(request.get("model") or ""))
            sent = estimate_tokens("".join(pieces))
            new = estimate_tokens("".join(pieces[shared:]))
            if self.window is not None and sent > self.window:
                why = f"a request of about {sent:,} tokens is longer than its {self.window:,}-token context window"
            elif new >= _FLOOR and reported < new / 2:
                why = (f"it reported {reported:,} input tokens for a request of about {sent:,} whose new part alone "
                       f"is about {new:,}")
            elif cold and sent >= _FLOOR and reported * _COLD < sent:
                why = (f"it reported {reported:,} input tokens for a request of about {sent:,} whose system prompt "
                       "and tools no earlier request from here had put in its cache")
            else:
                return None
            self.warned = True
        note = (f"{self.server} probably cut the prompt to fit its context window ({why}; estimated at about 4 "
                f"characters a token): the model answered without part of the conversation. Raise the window "
                f"({self.setting}) and run again.")
        warnings.warn(note, ContextWarning, stacklevel=2)
        return note


def _first_time(address: str, prefix: list[str]) -> bool:
    """Whether this system prompt and these tools go to the server at `address` for the first time from here."""
    digest = hashlib.sha256("\n".join(prefix).encode()).hexdigest()
    with _SENT_LOCK:
        sent = _SENT.setdefault(address, set())
        first = digest not in sent
        sent.add(digest)
    return first


def _reported(usage: object) -> int | None:
    """The prompt's size as the server reported it (cached parts included), or None when usage says nothing."""
    if not isinstance(usage, dict):
        return None
    counts = [usage.get("input_tokens"), *(usage.get(name) or 0 for name in CACHE_FIELDS)]
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in counts):
        return None
    return prompt_tokens(usage)


def _pieces(body: JSONObject) -> list[str]:
    """The request as the pieces a prompt cache compares, in prompt order: system, tools, then each message."""
    system = body.get("system")
    return [json.dumps(system, sort_keys=True), canonical(body.get("tools") or []),
            *(canonical(m) for m in body.get("messages") or [])]


def _shared(before: list[str], now: list[str]) -> int:
    n = 0
    while n < min(len(before), len(now)) and before[n] == now[n]:
        n += 1
    return n
