"""Models: who answers a request, behind one typed interface, always through the real `anthropic` SDK.

Choosing a model (choose; the names of its environment variables alone in env), what comes back and how it is
checked (replies), bounded API retries (api_retry), prices and the cost estimate (pricing), a request's size before it
is sent (counting), the in-process Messages API (transport), recording and replaying (cassette, replay), and the
offline stand-in (standin/). Chapters 00, 09, 11.
"""
from __future__ import annotations

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .choose import (BASE_URL_ENV, DEFAULT_MODEL, KEY_ENV, MODEL_ENV, Mode, ModelChoice, OFFLINE_ALIASES,
        OFFLINE_MODEL, SIMULATED, Spelling, choose_model, deprecation, known_models, parse_model)
    from .provider import Capabilities, Credentials, NO_KEY, Preflight, Provider, ProviderError, ProviderKind
    from .counting import (CountedRequest, RequestSizes, TokenCounter, anthropic_counter, estimate_request,
        estimate_requests, size_requests)
    from .api_watch import Waiting, Watch
    from .providers.anthropic import ANTHROPIC_URL, AnthropicAPI
    from .providers.local import LocalServer, NoKeyTransport, check_url, probe
    from .providers.ollama import Ollama
    from .providers.llamacpp import LlamaCpp
    from .providers.compatible import Compatible
    from .providers.standin import StandIn
    from .providers.replay import Replay, replay_client
    from .providers._watch import ContextWarning, ContextWatch
    from .replies import (APIFailure, APIStopReason, API_STOP_REASONS, FATAL, FailureReason, MAX_CALL_TOKENS, Reply,
        failure_from, read_reply)
    from .api_retry import APIRetry, BoundedRetry, GAVE_UP, Notice, Wait, announce_waits, bounded, gave_up
    from .pricing import (BATCH_DISCOUNT, Estimate, Guess, HIGH, LOW, PRICES, PRICES_AS_OF, Price,
        TOOL_PROMPT_TOKENS, cost_usd, estimate, price_for, price_note, run_cost_usd, run_price_note, set_price,
        tool_prompt_tokens)
    from .transport import (APIFault, Answer, BASE_URL, Handler, HandlerError, MessagesTransport, PLACEHOLDER_KEY,
        RawAnswer, ReplayMiss, ScriptedAPI, estimate_tokens, in_process_async_client, in_process_client,
        request_tokens)
    from .body import message_body
    from .cassette import (CASSETTE_FORMAT, Cassette, EPISODE_HEADER, IGNORED_FIELDS, RecordingTransport,
        fingerprint, recording_client)
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
    "Compatible": "providers.compatible",
    "ContextWarning": "providers._watch",
    "ContextWatch": "providers._watch",
    "CountedRequest": "counting",
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
    "MAX_CALL_TOKENS": "replies",
    "MODEL_ENV": "choose",
    "MessagesTransport": "transport",
    "Mode": "choose",
    "ModelChoice": "choose",
    "NO_KEY": "provider",
    "NoKeyTransport": "providers.local",
    "Notice": "api_retry",
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
    "RequestSizes": "counting",
    "SIMULATED": "choose",
    "ScriptedAPI": "transport",
    "Spelling": "choose",
    "StandIn": "providers.standin",
    "TOOL_PROMPT_TOKENS": "pricing",
    "TokenCounter": "counting",
    "Wait": "api_retry",
    "Waiting": "api_watch",
    "Watch": "api_watch",
    "announce_waits": "api_retry",
    "anthropic_counter": "counting",
    "bounded": "api_retry",
    "check_url": "providers.local",
    "choose_model": "choose",
    "cost_usd": "pricing",
    "deprecation": "choose",
    "estimate": "pricing",
    "estimate_request": "counting",
    "estimate_requests": "counting",
    "estimate_tokens": "transport",
    "failure_from": "replies",
    "fingerprint": "cassette",
    "gave_up": "api_retry",
    "in_process_async_client": "transport",
    "in_process_client": "transport",
    "is_replay_miss": "replay",
    "known_models": "choose",
    "message_body": "body",
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
    "size_requests": "counting",
    "tool_prompt_tokens": "pricing",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "ANTHROPIC_URL", "APIFailure", "APIFault", "APIRetry", "APIStopReason", "API_STOP_REASONS", "Answer",
    "AnthropicAPI", "BASE_URL", "BASE_URL_ENV", "BATCH_DISCOUNT", "BoundedRetry", "CASSETTE_FORMAT", "Capabilities",
    "Cassette", "Compatible", "ContextWarning", "ContextWatch", "CountedRequest", "Credentials", "DEFAULT_MODEL",
    "EPISODE_HEADER", "Estimate", "FATAL", "FailureReason", "GAVE_UP", "Guess", "HIGH", "Handler", "HandlerError",
    "IGNORED_FIELDS", "KEY_ENV", "LOW", "LlamaCpp", "LocalServer", "MAX_CALL_TOKENS", "MODEL_ENV",
    "MessagesTransport", "Mode", "ModelChoice", "NO_KEY", "NoKeyTransport", "Notice", "OFFLINE_ALIASES",
    "OFFLINE_MODEL", "Ollama", "PLACEHOLDER_KEY", "PRICES", "PRICES_AS_OF", "Preflight", "Price", "Provider",
    "ProviderError", "ProviderKind", "RawAnswer", "RecordingTransport", "Replay", "ReplayMiss", "Reply",
    "RequestSizes", "SIMULATED", "ScriptedAPI", "Spelling", "StandIn", "TOOL_PROMPT_TOKENS", "TokenCounter", "Wait",
    "Waiting", "Watch", "announce_waits", "anthropic_counter", "bounded", "check_url", "choose_model", "cost_usd",
    "deprecation", "estimate", "estimate_request", "estimate_requests", "estimate_tokens", "failure_from",
    "fingerprint", "gave_up", "in_process_async_client", "in_process_client", "is_replay_miss", "known_models",
    "message_body", "parse_model", "price_for", "price_note", "probe", "read_reply", "recording_client",
    "replay_client", "replay_transport", "request_tokens", "run_cost_usd", "run_price_note", "set_price",
    "size_requests", "tool_prompt_tokens",
]
