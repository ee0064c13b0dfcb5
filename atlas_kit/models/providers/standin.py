"""The offline stand-in as a provider: a rule-based program answering in process, behind the real SDK.

Nothing leaves the machine (its base URL is an `.invalid` address) and nothing is priced; its runs are labelled
simulated. `seed` and `profile` are the stand-in's (standin/model.py). Chapter 00.
"""
from __future__ import annotations

from typing import ClassVar

import httpx2

from ...types.records import Source
from ..api_retry import APIRetry
from ..provider import Capabilities, Provider
from ..standin.model import OFFLINE_MODEL, OfflineModel, Profile
from ..transport import BASE_URL, MessagesTransport


class StandIn(Provider):
    """The offline stand-in, seeded: the same seed and profile make the same decisions."""

    name: ClassVar = "the offline stand-in"
    capabilities: ClassVar = Capabilities(batches=True, count_tokens="none", prompt_caching=False, priced=False)
    default_retry: ClassVar = APIRetry(max_retries=0)  # nothing to retry: it never fails in transit

    def __init__(self, *, seed: int = 0, profile: Profile | None = None, latency: float = 0.0) -> None:
        self.seed, self.profile, self.latency = seed, profile, latency

    @property
    def base_url(self) -> str:
        return BASE_URL

    def source(self, model: str = OFFLINE_MODEL) -> Source:
        return Source("simulated", OFFLINE_MODEL)

    def spelling(self, model: str = OFFLINE_MODEL) -> str:
        return "offline"

    def _transport(self) -> MessagesTransport:
        return MessagesTransport(OfflineModel(seed=self.seed, profile=self.profile), latency=self.latency)

    def sync_transport(self) -> httpx2.BaseTransport:
        return self._transport()

    def async_transport(self) -> httpx2.AsyncBaseTransport:
        return self._transport()
