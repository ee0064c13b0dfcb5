"""The providers, one file each: Anthropic's API, local servers (Ollama, llama.cpp's llama-server, any other
Anthropic-compatible server), the offline stand-in, and a replayed cassette. The interface is models/provider.py.
"""
from __future__ import annotations

__all__: list[str] = []
