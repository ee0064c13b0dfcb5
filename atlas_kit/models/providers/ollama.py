"""Ollama as a provider: its Anthropic layer at /v1/messages, checked through its own /api routes first.

What the preflight reads (ollama/ollama's server/routes.go and anthropic/anthropic.go, as tests/fakes/QUIRKS.md
cites): /api/version answers when the server runs; /api/show says whether the model is pulled, whether it can
use tools (`capabilities`) and its Modelfile's `num_ctx`; /api/ps the window a loaded model runs with. Ollama cuts
a prompt longer than its window silently, so a window it does not state gets a note. Chapter 00.
"""
from __future__ import annotations

import ipaddress
import os
import re
from typing import ClassVar

from ..provider import Preflight, ProviderError
from .local import LocalServer, check_url, json_object

HOST_ENV = "OLLAMA_HOST"  # where Ollama's own command line finds the server; an explicit address comes first

TOOL_MODELS = "qwen3:4b or llama3.2:3b"  # pulled in the README; both use tools through Ollama


class Ollama(LocalServer):
    """A model served by Ollama (`ollama serve`; default http://localhost:11434)."""

    name: ClassVar = "Ollama"
    prefix: ClassVar = "ollama"
    default_url: ClassVar = "http://localhost:11434"
    context_setting: ClassVar = "OLLAMA_CONTEXT_LENGTH=16384 ollama serve, or PARAMETER num_ctx 16384 in a Modelfile"
    start_hint: ClassVar = "start it with `ollama serve`"

    def __init__(self, base_url: str | None = None, *, address_from: str | None = None) -> None:
        """`address_from`: the variable `base_url` came from (ATLAS_BASE_URL); without an address, OLLAMA_HOST."""
        from_env = None if base_url else ollama_host(os.environ.get(HOST_ENV, ""))
        if from_env:
            check_url(from_env, what=f"{HOST_ENV} ({os.environ.get(HOST_ENV, '').strip()!r}, read as Ollama reads it)")
        super().__init__(base_url or from_env, address_from=address_from if base_url else HOST_ENV if from_env else None)
        self.watch.learn_window = self.loaded_window  # Ollama states the window once the model is loaded

    def loaded_window(self, model: str) -> int | None:
        """The window Ollama loaded `model` with (/api/ps), or None when it is not loaded or does not say."""
        try:
            _, running = self.reach("/api/ps")
        except ProviderError:
            return None
        wanted = {model.lower(), f"{model.lower()}:latest"}  # Ollama's names: a missing tag is latest, any case
        for loaded in (json_object(running) or {}).get("models") or []:
            if isinstance(loaded, dict) and str(loaded.get("name")).lower() in wanted \
                    and isinstance(loaded.get("context_length"), int):
                return int(loaded["context_length"])
        return None

    def check(self, model: str, *, prompt_tokens: int) -> Preflight:
        status, version = self.reach("/api/version")
        if status != 200 or not isinstance(json_object(version), dict) or "version" not in version:  # type: ignore[operator]
            raise self.unreadable("/api/version", version)
        status, shown = self.reach("/api/show", method="POST", body={"model": model})
        if status == 404:
            raise ProviderError(f"{model} is not pulled on Ollama at {self.base_url}: run `ollama pull {model}`.")
        show = json_object(shown)
        if status != 200 or show is None:
            raise self.unreadable("/api/show", shown)
        capabilities = show.get("capabilities")
        if isinstance(capabilities, list) and "tools" not in capabilities:
            raise ProviderError(f"{model} cannot use tools on Ollama (its capabilities: {', '.join(map(str, capabilities))}):"
                                f" pick a model that can, such as {TOOL_MODELS}.")
        return self._window(model, show)

    def _window(self, model: str, show: dict[str, object]) -> Preflight:
        trained = _trained_length(show)
        set_in_file = re.search(r"(?m)^num_ctx\s+(\d+)", str(show.get("parameters") or ""))
        if set_in_file:
            return Preflight(int(set_in_file.group(1)), "num_ctx in its Modelfile")
        loaded = self.loaded_window(model)
        if loaded is not None:
            return Preflight(loaded, "the window Ollama loaded it with, /api/ps")
        note = (f"Ollama did not say the window it runs {model} with (no num_ctx in its Modelfile, and it is not "
                f"loaded); its default may be as small as 4,096 tokens, and Ollama cuts a longer prompt without a word. "
                f"To be sure, start it with {self.context_setting.split(', or ')[0]}.")
        if trained is not None:
            return Preflight(None, f"trained for {trained:,}", (note,))
        return Preflight(None, "", (note,))


def _trained_length(show: dict[str, object]) -> int | None:
    info = json_object(show.get("model_info"))
    if info is None:
        return None
    lengths = [v for k, v in info.items() if k.endswith(".context_length") and isinstance(v, int)]
    return lengths[0] if lengths else None


def ollama_host(value: str) -> str | None:
    """The address OLLAMA_HOST names, read as Ollama's own client reads it (envconfig's getOllamaHost): quotes and
    spaces trimmed; no scheme is http; a missing port is 11434 without a scheme, 80 with http:// and 443 with
    https://; a bare host, IP or [IPv6] keeps that port. None when the variable is empty."""
    value = value.strip().strip("\"'").strip()
    if not value:
        return None
    scheme, found, rest = value.partition("://")
    if not found:
        scheme, rest, port = "http", value, "11434"
    else:
        port = {"http": "80", "https": "443"}.get(scheme, "11434")
    rest = rest.rstrip("/")
    if rest.startswith("[") and "]" in rest:  # [IPv6] or [IPv6]:port
        host, _, after = rest[1:].partition("]")
        given = after[1:] if after.startswith(":") else ""
    elif rest.count(":") == 1:  # host:port
        host, _, given = rest.partition(":")
    else:  # a bare host, or an IPv6 address without brackets (no port can be told from it)
        host, given = rest, ""
    if given.isdigit() and int(given) <= 65535:
        port = given  # a port Ollama cannot read leaves its default, as Ollama's client does
    host = host or "127.0.0.1"
    try:
        shown = f"[{host}]" if ipaddress.ip_address(host).version == 6 else host
    except ValueError:
        shown = host
    return f"{scheme}://{shown}:{port}"
