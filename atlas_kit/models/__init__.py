"""Models: who answers a request, behind one typed interface, always through the real `anthropic` SDK.

Choosing a model (choose), what comes back and how it is checked (replies), bounded API retries (api_retry),
prices and the cost estimate (pricing), the in-process Messages API (transport), recording and replaying
(cassette, replay), and the offline stand-in (standin/). Chapters 00, 09 and 11.
"""
from __future__ import annotations

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .choose import (DEFAULT_MODEL, KEY_ENV, MODEL_ENV, Mode, ModelChoice, OFFLINE_MODEL, SIMULATED,
        choose_model, deprecation, known_models)
    from .replies import (APIFailure, APIStopReason, API_STOP_REASONS, FATAL, FailureReason, Reply, failure_from,
        read_reply)
    from .api_retry import APIRetry, BoundedRetry, Wait, announce_waits, bounded
    from .pricing import (BATCH_DISCOUNT, Estimate, Guess, HIGH, LOW, PRICES, PRICES_AS_OF, Price, cost_usd,
        estimate, price_for, price_note, set_price)
    from .transport import (APIFault, Answer, BASE_URL, Handler, HandlerError, MessagesTransport, PLACEHOLDER_KEY,
        RawAnswer, ScriptedAPI, estimate_tokens, in_process_async_client, in_process_client, message_body,
        request_tokens)
    from .cassette import (CASSETTE_FORMAT, Cassette, EPISODE_HEADER, IGNORED_FIELDS, RecordingTransport,
        fingerprint, recording_client)
    from .replay import REPLAY_PREFIX, is_replay_miss, replay_client

_WHERE = {
    "APIFailure": "replies",
    "APIFault": "transport",
    "APIRetry": "api_retry",
    "APIStopReason": "replies",
    "API_STOP_REASONS": "replies",
    "Answer": "transport",
    "BASE_URL": "transport",
    "BATCH_DISCOUNT": "pricing",
    "BoundedRetry": "api_retry",
    "CASSETTE_FORMAT": "cassette",
    "Cassette": "cassette",
    "DEFAULT_MODEL": "choose",
    "EPISODE_HEADER": "cassette",
    "Estimate": "pricing",
    "FATAL": "replies",
    "FailureReason": "replies",
    "Guess": "pricing",
    "HIGH": "pricing",
    "Handler": "transport",
    "HandlerError": "transport",
    "IGNORED_FIELDS": "cassette",
    "KEY_ENV": "choose",
    "LOW": "pricing",
    "MODEL_ENV": "choose",
    "MessagesTransport": "transport",
    "Mode": "choose",
    "ModelChoice": "choose",
    "OFFLINE_MODEL": "choose",
    "PLACEHOLDER_KEY": "transport",
    "PRICES": "pricing",
    "PRICES_AS_OF": "pricing",
    "Price": "pricing",
    "REPLAY_PREFIX": "replay",
    "RawAnswer": "transport",
    "RecordingTransport": "cassette",
    "Reply": "replies",
    "SIMULATED": "choose",
    "ScriptedAPI": "transport",
    "Wait": "api_retry",
    "announce_waits": "api_retry",
    "bounded": "api_retry",
    "choose_model": "choose",
    "cost_usd": "pricing",
    "deprecation": "choose",
    "estimate": "pricing",
    "estimate_tokens": "transport",
    "failure_from": "replies",
    "fingerprint": "cassette",
    "in_process_async_client": "transport",
    "in_process_client": "transport",
    "is_replay_miss": "replay",
    "known_models": "choose",
    "message_body": "transport",
    "price_for": "pricing",
    "price_note": "pricing",
    "read_reply": "replies",
    "recording_client": "cassette",
    "replay_client": "replay",
    "request_tokens": "transport",
    "set_price": "pricing",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "APIFailure", "APIFault", "APIRetry", "APIStopReason", "API_STOP_REASONS", "Answer", "BASE_URL", "BATCH_DISCOUNT",
    "BoundedRetry", "CASSETTE_FORMAT", "Cassette", "DEFAULT_MODEL", "EPISODE_HEADER", "Estimate", "FATAL",
    "FailureReason", "Guess", "HIGH", "Handler", "HandlerError", "IGNORED_FIELDS", "KEY_ENV", "LOW", "MODEL_ENV",
    "MessagesTransport", "Mode", "ModelChoice", "OFFLINE_MODEL", "PLACEHOLDER_KEY", "PRICES", "PRICES_AS_OF", "Price",
    "REPLAY_PREFIX", "RawAnswer", "RecordingTransport", "Reply", "SIMULATED", "ScriptedAPI", "Wait", "announce_waits",
    "bounded", "choose_model", "cost_usd", "deprecation", "estimate", "estimate_tokens", "failure_from",
    "fingerprint", "in_process_async_client", "in_process_client", "is_replay_miss", "known_models", "message_body",
    "price_for", "price_note", "read_reply", "recording_client", "replay_client", "request_tokens", "set_price",
]
