"""Which provider a model's spelling names: one entry per local server's prefix, and the rule for the rest.

`ollama:qwen3:4b` and `llamacpp:qwen3-4b` name a local server by its prefix (LOCAL); `offline` (or the stand-in's own
name) the stand-in; a bare name with a base URL another Anthropic-compatible server; any other bare name a Claude
model. A new kind of local server is one class (a LocalServer with its `prefix`) and one entry here. choose.py reads
spellings with `parse_model` and makes the provider. Chapter 00.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..types.exceptions import AtlasKitValueError
from ..types.sets import DEFAULT_MODEL
from .providers.llamacpp import LlamaCpp
from .providers.local import LocalServer
from .providers.ollama import Ollama
from .standin.model import OFFLINE_MODEL

LOCAL: dict[str, type[LocalServer]] = {server.prefix or "": server for server in (Ollama, LlamaCpp)}
"""The local servers, by the prefix a model on them is spelled with."""

OFFLINE_ALIASES = ("offline", OFFLINE_MODEL)


@dataclass(frozen=True)
class Spelling:
    """A model as written (`ollama:qwen3:4b`): whose it is ("anthropic", "standin", "compatible", or a key of LOCAL)
    and the model's own name there."""

    server: str
    model: str


def parse_model(text: str, *, base_url: str | None = None) -> Spelling:
    """Read a model's spelling; a name with `base_url` and no prefix is another Anthropic-compatible server's."""
    if not isinstance(text, str) or not text.strip():
        raise AtlasKitValueError(f"model must be a name such as {DEFAULT_MODEL!r}, 'ollama:qwen3:4b' or "
                                 f"{OFFLINE_MODEL!r}; got {text!r}.")
    text = text.strip()
    if text in OFFLINE_ALIASES:
        return Spelling("standin", OFFLINE_MODEL)
    prefix, sep, rest = text.partition(":")
    if text in LOCAL:
        raise AtlasKitValueError(f"{text!r} names no model: write {text}:<model>, such as {text}:qwen3:4b.")
    if sep and prefix not in LOCAL and not base_url and not text.startswith("claude"):
        # Claude's names have no colon; Ollama's do (qwen3:4b): a local model written without its server.
        spelled = ", one ".join(f"{server.name} serves is written {key}:{text}" for key, server in LOCAL.items())
        raise AtlasKitValueError(f"{text!r} is not a Claude model's name: a model {spelled}, and another server's "
                                 "needs its address (base_url=, or --base-url).")
    if sep and prefix in LOCAL:
        if not rest.strip():
            raise AtlasKitValueError(f"{text!r} names no model: write {prefix}:<model>, such as {prefix}:qwen3:4b.")
        return Spelling(prefix, rest.strip())
    return Spelling("compatible" if base_url else "anthropic", text)
