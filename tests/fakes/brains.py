"""The "model" behind a fake server: a callable that reads the request as the server's model would see it
after conversion (an Anthropic-shaped body with the server's losses applied) and answers with content blocks,
why it stopped, and optional thinking. The servers' own response conversion happens in ollama.py and
llamacpp.py, not here. The default brain is atlas_kit's offline stand-in; the scripted ones are for tests.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Protocol

from atlas_kit.types import JSONObject

__all__ = ["Brain", "BrainReply", "EngineStop", "OfflineBrain", "Scripted", "empty_stop", "fixed", "thinking_first",
           "tool_call"]

EngineStop = Literal["eos", "stop_word", "length", "empty", "other"]
"""Why generation ended, in the engine's terms: the end-of-sequence token, a stop word, the token limit, or
nothing recorded ("empty": Ollama then sends no stop_reason at all) or a reason the server does not know
("other": Ollama maps it to stop_sequence, llama-server to max_tokens)."""

STOPS: tuple[EngineStop, ...] = ("eos", "stop_word", "length", "empty", "other")


@dataclass(frozen=True)
class BrainReply:
    """One answer. `blocks` holds text and tool_use blocks (a tool_use `input` may be a str: the model wrote
    its arguments as text); `stop_word` is the stop sequence that ended it, for stop="stop_word"."""

    blocks: tuple[JSONObject, ...]
    stop: EngineStop = "eos"
    thinking: str | None = None
    stop_word: str | None = None

    def __post_init__(self) -> None:
        if self.stop not in STOPS:
            raise ValueError(f"BrainReply.stop must be one of {', '.join(STOPS)}; got {self.stop!r}.")
        for i, block in enumerate(self.blocks):
            if not isinstance(block, dict) or block.get("type") not in ("text", "tool_use"):
                raise ValueError(f"BrainReply.blocks[{i}] must be a text or tool_use block dict; got {block!r}.")


class Brain(Protocol):
    def __call__(self, view: JSONObject) -> BrainReply: ...


class OfflineBrain:
    """atlas_kit's offline stand-in (`atlas_kit.models.standin.model.OfflineModel`) as the model behind a fake server.

    It reads `is_error` on tool results, so behind a server that drops the flag it sees only the text.
    """

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed
        self._model: Callable[[JSONObject], Any] | None = None

    def __call__(self, view: JSONObject) -> BrainReply:
        if self._model is None:
            from atlas_kit.models.standin.model import OfflineModel  # imported when first used: the stand-in is large

            self._model = OfflineModel(seed=self.seed)
        body = self._model(view)
        blocks = tuple(dict(b) for b in body["content"] if b.get("type") in ("text", "tool_use"))
        return BrainReply(blocks, "eos")


@dataclass
class Scripted:
    """Answers from a list, one per request, in order; `seen` keeps what each request showed the model."""

    replies: list[BrainReply]
    seen: list[JSONObject] = field(default_factory=list)

    def __call__(self, view: JSONObject) -> BrainReply:
        self.seen.append(view)
        if len(self.seen) > len(self.replies):
            raise IndexError(f"Scripted brain has {len(self.replies)} replies and got request {len(self.seen)}; "
                             "give it one reply per request the test makes.")
        return self.replies[len(self.seen) - 1]


def _script(replies: Iterable[BrainReply]) -> Scripted:
    return Scripted(list(replies))


def fixed(*texts: str, stop: EngineStop = "eos") -> Scripted:
    """One text answer per request."""
    return _script(BrainReply(({"type": "text", "text": t},), stop) for t in texts)


def thinking_first(thinking: str, text: str) -> Scripted:
    """One answer that thinks before it writes."""
    return _script([BrainReply(({"type": "text", "text": text},), "eos", thinking=thinking)])


def tool_call(name: str, arguments: JSONObject | str, *, text: str | None = None,
              then: str | None = None) -> Scripted:
    """A tool call (its arguments a dict, or text as the model wrote it), optionally after some text;
    with `then`, a final text answer to the request that follows."""
    blocks: list[JSONObject] = [{"type": "text", "text": text}] if text else []
    blocks.append({"type": "tool_use", "id": "", "name": name, "input": arguments})
    replies = [BrainReply(tuple(blocks), "eos")]
    if then is not None:
        replies.append(BrainReply(({"type": "text", "text": then},), "eos"))
    return _script(replies)


def empty_stop(text: str) -> Scripted:
    """An answer whose engine recorded no reason for stopping."""
    return _script([BrainReply(({"type": "text", "text": text},), "empty")])
