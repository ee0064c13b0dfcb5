"""Any other server that speaks the Messages API at <base_url>/v1/messages (LM Studio, vLLM, a proxy ...).

Nothing is known about it but its address, so the preflight asks for one short reply, with a tool defined, and
checks that the answer is a message atlas_kit can read. It never gets a key. Chapter 00.
"""
from __future__ import annotations

import urllib.parse
from typing import ClassVar

from ..provider import Preflight, ProviderError
from ..replies import APIFailure, read_reply
from .local import LocalServer, json_object


class Compatible(LocalServer):
    """An Anthropic-compatible server named by its address (`choose_model(name, base_url=...)`)."""

    name: ClassVar = "an Anthropic-compatible server"
    context_setting: ClassVar = "the server's own context-size setting"
    start_hint: ClassVar = "start it, or check the address (base_url= or ATLAS_BASE_URL)"

    def __init__(self, base_url: str) -> None:
        super().__init__(base_url)

    @property
    def server_name(self) -> str:
        return urllib.parse.urlsplit(self.base_url).netloc

    def check(self, model: str, *, prompt_tokens: int) -> Preflight:
        status, reply = self.reach("/v1/messages", method="POST", body={
            "model": model, "max_tokens": 8, "messages": [{"role": "user", "content": "Say OK."}],
            "tools": [{"name": "probe", "description": "A tool the preflight defines so the server parses tools.",
                       "input_schema": {"type": "object", "properties": {}}}]})
        if status == 404:
            raise ProviderError(f"{self.server_name} answers no /v1/messages for {model}: check the model's name and "
                                "that the server speaks the Anthropic Messages API.")
        body = json_object(reply)
        if status != 200 or body is None:
            raise self.unreadable("/v1/messages", reply)
        checked = read_reply(body)
        if isinstance(checked, APIFailure):
            raise ProviderError(f"{self.server_name} answered /v1/messages with something atlas_kit cannot read as a "
                                f"message ({checked.message}); is it an Anthropic-compatible server?")
        return Preflight()
