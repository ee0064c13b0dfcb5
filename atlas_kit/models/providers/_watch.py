"""Watching a local server's token counts for a prompt it cut to fit its context window.

Ollama cuts a prompt longer than its window without a word (old messages first), then answers as if it had read
it all. Its usage is the only trace: far fewer input tokens than were sent, beyond what its prompt cache explains
(the cache holds the last prompt and answer, so only the part after what they share is evaluated again). This
is a heuristic on estimated counts (about 4 characters a token), and says so. Chapter 00 (local models).
"""
from __future__ import annotations

import json
import threading
import warnings
from dataclasses import dataclass, field
from typing import Callable

from ...types import JSONObject, canonical
from ..transport import estimate_tokens

__all__ = ["ContextWarning", "ContextWatch"]

_FLOOR = 200  # estimated tokens: below this a short new part says nothing either way


class ContextWarning(UserWarning):
    """A local server probably cut the prompt to fit its context window."""


@dataclass
class ContextWatch:
    """One per provider: warns once when a reply's input tokens say the server read less than it was sent."""

    server: str
    setting: str  # how to raise the window, e.g. "OLLAMA_CONTEXT_LENGTH=16384 ollama serve"
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
        reported = usage.get("input_tokens") if isinstance(usage, dict) else None
        with self._lock:
            # The system prompt and the tools (the first two pieces) may sit in the server's cache from any client's
            # request, and the cache is the server's, not this watch's: only the messages can count as new.
            shared = max(2, _shared(self._previous, pieces))
            answer = response.get("content")
            self._previous = pieces + [canonical({"role": "assistant", "content": answer})]
            if self.warned or not isinstance(reported, int) or isinstance(reported, bool):
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
            else:
                return None
            self.warned = True
        note = (f"{self.server} probably cut the prompt to fit its context window ({why}; estimated at about 4 "
                f"characters a token): the model answered without part of the conversation. Raise the window "
                f"({self.setting}) and run again.")
        warnings.warn(note, ContextWarning, stacklevel=2)
        return note


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
