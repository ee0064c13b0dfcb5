"""llama.cpp's llama-server as a provider: its Anthropic layer at /v1/messages, checked through /health, /props
and its exact /v1/messages/count_tokens first.

What the preflight reads (llama.cpp tools/server, as tests/fakes/QUIRKS.md cites): /health answers 503 while the
model loads; /props gives the slot's context (`default_generation_settings.n_ctx`), the build, and whether the chat
template can carry tools (`chat_template_caps.supports_tools`: a model file with no template of its own gets a plain
one that drops every tool without a word); count_tokens with one tool says whether the server parses tools at all
(without `--jinja` it answers 500 "tools param requires --jinja flag"). A prompt over the window is refused, not
cut. Chapter 00.
"""
from __future__ import annotations

from typing import ClassVar

from ..provider import Capabilities, Preflight, ProviderError
from .local import LocalServer, json_object

_PROBE_TOOL = {"name": "probe", "description": "A tool the preflight names so the server parses tools.",
               "input_schema": {"type": "object", "properties": {}}}


class LlamaCpp(LocalServer):
    """A model served by llama-server (`llama-server -m MODEL.gguf --jinja -c 16384`; default http://localhost:8080)."""

    name: ClassVar = "llama.cpp"
    prefix: ClassVar = "llamacpp"
    default_url: ClassVar = "http://localhost:8080"
    context_setting: ClassVar = "restart llama-server with -c 16384"
    start_hint: ClassVar = "start it with `llama-server -m MODEL.gguf --jinja -c 16384`"
    capabilities: ClassVar = Capabilities(batches=False, count_tokens="exact", prompt_caching=False, priced=False)

    def check(self, model: str, *, prompt_tokens: int) -> Preflight:
        status, health = self.reach("/health")
        if status == 503:
            raise ProviderError(f"llama-server at {self.base_url} is still loading its model: wait for it, then run "
                                "again.")
        if status == 401:
            raise self._keyed()
        if status != 200 or json_object(health) is None:
            raise self.unreadable("/health", health)
        status, props = self.reach("/props")
        if status == 401:  # llama-server leaves /health open to all, even with --api-key; /props it guards
            raise self._keyed()
        settings = json_object((json_object(props) or {}).get("default_generation_settings"))
        window = settings.get("n_ctx") if settings is not None else None
        if status != 200 or not isinstance(window, int):
            raise self.unreadable("/props", props)
        caps = json_object((json_object(props) or {}).get("chat_template_caps"))
        if caps is not None and caps.get("supports_tools") is False:  # an older build does not say: count_tokens asks
            raise ProviderError(
                f"llama-server at {self.base_url} runs a chat template that cannot carry tools (/props: "
                "chat_template_caps.supports_tools is false), so every tool would be dropped without a word: restart "
                "it with --chat-template-file and a template that supports tools (llama.cpp ships some in "
                "models/templates/, such as Qwen-Qwen2.5-7B-Instruct.jinja), or serve a model whose own template does.")
        build = str((json_object(props) or {}).get("build_info") or "")
        status, counted = self.reach("/v1/messages/count_tokens", method="POST", body={
            "model": model, "messages": [{"role": "user", "content": "."}], "tools": [_PROBE_TOOL]})
        problem = str(json_object((json_object(counted) or {}).get("error")) or counted)
        if status != 200 and "jinja" in problem:
            raise ProviderError(f"llama-server at {self.base_url} cannot use tools: restart it with --jinja (it was "
                                "started with --no-jinja, or is an old build).")
        if status != 200:
            raise self.unreadable("/v1/messages/count_tokens", counted)
        return Preflight(window, "default_generation_settings.n_ctx in /props", server_build=build)

    def _keyed(self) -> ProviderError:
        return ProviderError(f"llama-server at {self.base_url} was started with --api-key; atlas_kit sends no key to "
                             "a local server: restart it without --api-key.")
