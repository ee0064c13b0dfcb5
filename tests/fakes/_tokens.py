"""The fakes' stand-in for a model's tokenizer and KV cache: deterministic, and not any real model's.

A "token" is a word, one punctuation mark or a run of white space of the rendered prompt, so counts move with
the text the way a real tokenizer's do, but they are not a real model's counts. `PromptCache` is one slot
that remembers the last prompt and answer, as a server's KV cache does, and says how much of a new prompt it
already holds. Which server reports what from these numbers is in ollama.py and llamacpp.py.
"""
from __future__ import annotations

import json
import re
import threading
from typing import Any, Iterable

__all__ = ["PromptCache", "render", "tokenize"]

_TOKEN = re.compile(r"\w+|[^\w\s]|\s+")


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text)


def render(system: str, tools: Iterable[Any], turns: Iterable[tuple[str, str]]) -> str:
    """A chat-template-like prompt: a system turn (with the tools as JSON), then one block per turn.

    Like a real template it ends with the assistant's opening, and it renders the same history to the same
    text, so a conversation that grows by turns keeps its earlier text as a prefix (what a KV cache reuses).
    """
    parts = []
    tool_text = "".join(f"\n{json.dumps(tool, ensure_ascii=False, sort_keys=True)}" for tool in tools)
    if system or tool_text:
        parts.append(f"<|im_start|>system\n{system}{tool_text}<|im_end|>\n")
    parts.extend(f"<|im_start|>{role}\n{text}<|im_end|>\n" for role, text in turns)
    parts.append("<|im_start|>assistant\n")
    return "".join(parts)


class PromptCache:
    """One cache slot: the tokens of the last prompt and its answer. Thread-safe."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self._held: list[str] = []
        self._lock = threading.Lock()

    def reuse(self, prompt: list[str]) -> int:
        """How many leading tokens of `prompt` the slot already holds. At least one prompt token is always
        evaluated again, since the model needs the last one's output to start answering."""
        if not self.enabled or not prompt:
            return 0
        with self._lock:
            held = self._held
            n = 0
            for a, b in zip(held, prompt):
                if a != b:
                    break
                n += 1
        return min(n, len(prompt) - 1)

    def remember(self, tokens: list[str]) -> None:
        if self.enabled:
            with self._lock:
                self._held = list(tokens)
