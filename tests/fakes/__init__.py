"""Fakes of the local servers atlas_kit can drive through the anthropic SDK: Ollama and llama.cpp's
llama-server, each a real HTTP server on 127.0.0.1 that plays that server's Anthropic layer, quirks and
failures included, in front of a pluggable "brain". What each plays, and where in the real code it comes
from, is in tests/fakes/QUIRKS.md. For tests only (issue 24); no model runs here.
"""
from __future__ import annotations

from ._server import Failure, FakeServer, Recorded, Reply
from .brains import Brain, BrainReply, EngineStop, OfflineBrain, Scripted, empty_stop, fixed, thinking_first, tool_call
from .llamacpp import LlamaCppFake, LlamaUsage
from .ollama import OllamaFake, OllamaModel, UsageMode

__all__ = [
    "Brain", "BrainReply", "EngineStop", "Failure", "FakeServer", "LlamaCppFake", "LlamaUsage", "OfflineBrain",
    "OllamaFake", "OllamaModel", "Recorded", "Reply", "Scripted", "UsageMode", "empty_stop", "fixed",
    "thinking_first", "tool_call",
]
