"""Models: who answers a request, behind one typed interface, always through the real `anthropic` SDK.

Choosing a model (choose; the names of its environment variables alone in env), what comes back and how it is
checked (replies), bounded API retries (api_retry), prices and the cost estimate (pricing), a request's size before it
is sent (counting), the in-process Messages API (transport), recording and replaying (cassette, replay), and the
offline stand-in (standin/). Chapters 00, 09, 11.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
    from ..types.sets import DEFAULT_MODEL as DEFAULT_MODEL
    from .cassette import Cassette as Cassette, recording_client as recording_client
    from .choose import ModelChoice as ModelChoice, choose_model as choose_model
    from .provider import (Capabilities as Capabilities, Preflight as Preflight, Provider as Provider,
        ProviderError as ProviderError)
    from .providers.replay import replay_client as replay_client
    from .standin.model import OFFLINE_MODEL as OFFLINE_MODEL, offline_client as offline_client

__getattr__, __dir__, __all__ = exports(__name__, __file__)
