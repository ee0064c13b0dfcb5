"""Models: who answers a request, behind one typed interface, always through the real `anthropic` SDK.

Choosing a model (choose), what comes back and how it is checked (replies), bounded API retries (api_retry),
prices and the cost estimate (pricing), the in-process Messages API (transport), recording and replaying
(cassette, replay), and the offline stand-in (standin/). Chapters 00, 09 and 11.
"""
from __future__ import annotations

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .choose import (BASE_URL_ENV, DEFAULT_MODEL, KEY_ENV, MODEL_ENV, Mode, ModelChoice, OFFLINE_ALIASES,
        OFFLINE_MODEL, SIMULATED, Spelling, choose_model, deprecation, known_models, parse_model)
    from .provider import Capabilities, Credentials, NO_KEY, Preflight, Provider, ProviderError, ProviderKind
    from .providers.anthropic import ANTHROPIC_URL, AnthropicAPI
    from .providers.local import LocalServer, NoKeyTransport, check_url, probe
    from .providers.ollama import Ollama
    from .providers.llamacpp import LlamaCpp
    from .providers.compatible import Compatible
    from .providers.standin import StandIn
    from .providers.replay import Replay, replay_client
    from .providers._watch import ContextWarning, ContextWatch
    from .replies import (APIFailure, APIStopReason, API_STOP_REASONS, FATAL, FailureReason, Reply, failure_from,
        read_reply)
    from .api_retry import APIRetry, BoundedRetry, GAVE_UP, Wait, announce_waits, bounded, gave_up
    from .pricing import (BATCH_DISCOUNT, Estimate, Guess, HIGH, LOW, PRICES, PRICES_AS_OF, Price, cost_usd,
        estimate, price_for, price_note, run_cost_usd, run_price_note, set_price)
    from .transport import (APIFault, Answer, BASE_URL, Handler, HandlerError, MessagesTransport, PLACEHOLDER_KEY,
        RawAnswer, ReplayMiss, ScriptedAPI, estimate_tokens, in_process_async_client, in_process_client,
        message_body, request_tokens)
    from .cassette import (CASSETTE_FORMAT, Cassette, CassetteEntry, EPISODE_HEADER, IGNORED_FIELDS,
        RecordingTransport, fingerprint, recording_client)
    from .replay import is_replay_miss, replay_transport

_WHERE = {
    "ANTHROPIC_URL": "providers.anthropic",
    "APIFailure": "replies",
    "APIFault": "transport",
    "APIRetry": "api_retry",
    "APIStopReason": "replies",
    "API_STOP_REASONS": "replies",
    "Answer": "transport",
    "AnthropicAPI": "providers.anthropic",
    "BASE_URL": "transport",
    "BASE_URL_ENV": "choose",
    "BATCH_DISCOUNT": "pricing",
    "BoundedRetry": "api_retry",
    "CASSETTE_FORMAT": "cassette",
    "Capabilities": "provider",
    "Cassette": "cassette",
    "CassetteEntry": "cassette",
    "Compatible": "providers.compatible",
    "ContextWarning": "providers._watch",
    "ContextWatch": "providers._watch",
    "Credentials": "provider",
    "DEFAULT_MODEL": "choose",
    "EPISODE_HEADER": "cassette",
    "Estimate": "pricing",
    "FATAL": "replies",
    "FailureReason": "replies",
    "GAVE_UP": "api_retry",
    "Guess": "pricing",
    "HIGH": "pricing",
    "Handler": "transport",
    "HandlerError": "transport",
    "IGNORED_FIELDS": "cassette",
    "KEY_ENV": "choose",
    "LOW": "pricing",
    "LlamaCpp": "providers.llamacpp",
    "LocalServer": "providers.local",
    "MODEL_ENV": "choose",
    "MessagesTransport": "transport",
    "Mode": "choose",
    "ModelChoice": "choose",
    "NO_KEY": "provider",
    "NoKeyTransport": "providers.local",
    "OFFLINE_ALIASES": "choose",
    "OFFLINE_MODEL": "choose",
    "Ollama": "providers.ollama",
    "PLACEHOLDER_KEY": "transport",
    "PRICES": "pricing",
    "PRICES_AS_OF": "pricing",
    "Preflight": "provider",
    "Price": "pricing",
    "Provider": "provider",
    "ProviderError": "provider",
    "ProviderKind": "provider",
    "RawAnswer": "transport",
    "RecordingTransport": "cassette",
    "Replay": "providers.replay",
    "ReplayMiss": "transport",
    "Reply": "replies",
    "SIMULATED": "choose",
    "ScriptedAPI": "transport",
    "Spelling": "choose",
    "StandIn": "providers.standin",
    "Wait": "api_retry",
    "announce_waits": "api_retry",
    "bounded": "api_retry",
    "check_url": "providers.local",
    "choose_model": "choose",
    "cost_usd": "pricing",
    "deprecation": "choose",
    "estimate": "pricing",
    "estimate_tokens": "transport",
    "failure_from": "replies",
    "fingerprint": "cassette",
    "gave_up": "api_retry",
    "in_process_async_client": "transport",
    "in_process_client": "transport",
    "is_replay_miss": "replay",
    "known_models": "choose",
    "message_body": "transport",
    "parse_model": "choose",
    "price_for": "pricing",
    "price_note": "pricing",
    "probe": "providers.local",
    "read_reply": "replies",
    "recording_client": "cassette",
    "replay_client": "providers.replay",
    "replay_transport": "replay",
    "request_tokens": "transport",
    "run_cost_usd": "pricing",
    "run_price_note": "pricing",
    "set_price": "pricing",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "ANTHROPIC_URL", "APIFailure", "APIFault", "APIRetry", "APIStopReason", "API_STOP_REASONS", "Answer",
    "AnthropicAPI", "BASE_URL", "BASE_URL_ENV", "BATCH_DISCOUNT", "BoundedRetry", "CASSETTE_FORMAT", "Capabilities",
    "Cassette", "CassetteEntry", "Compatible", "ContextWarning", "ContextWatch", "Credentials", "DEFAULT_MODEL",
    "EPISODE_HEADER", "Estimate", "FATAL", "FailureReason", "GAVE_UP", "Guess", "HIGH",
    "Handler", "HandlerError", "IGNORED_FIELDS", "KEY_ENV", "LOW", "LlamaCpp", "LocalServer", "MODEL_ENV",
    "MessagesTransport", "Mode", "ModelChoice", "NO_KEY", "NoKeyTransport", "OFFLINE_ALIASES", "OFFLINE_MODEL",
    "Ollama", "PLACEHOLDER_KEY", "PRICES", "PRICES_AS_OF", "Preflight", "Price", "Provider", "ProviderError",
    "ProviderKind", "RawAnswer", "RecordingTransport", "Replay", "ReplayMiss", "Reply", "SIMULATED", "ScriptedAPI",
    "Spelling", "StandIn", "Wait", "announce_waits", "bounded", "check_url", "choose_model", "cost_usd", "deprecation",
    "estimate", "estimate_tokens", "failure_from", "fingerprint", "gave_up", "in_process_async_client",
    "in_process_client", "is_replay_miss", "known_models", "message_body", "parse_model", "price_for", "price_note",
    "probe", "read_reply", "recording_client", "replay_client", "replay_transport", "request_tokens", "run_cost_usd",
    "run_price_note", "set_price",
]
