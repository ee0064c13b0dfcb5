"""A valid Messages API response body, built without the SDK: the stand-in, replay and the fakes answer with it.

Apart from transport.py so that what only builds answers (the stand-in's rules, and with them every chapter's
checks) does not import `anthropic`, about 1.4 s of a kernel's start; the client that carries the body does.
"""
from __future__ import annotations

import hashlib
from typing import Iterable, Mapping, cast

from ..types.tokens import block_texts, estimate_tokens, request_tokens
from ..types.sets import API_STOP_REASONS, JSONObject
from ..types.api import Block, MessageBody
from ..types.walk import canonical
from ..types.exceptions import AtlasKitValueError


def message_body(
    content_blocks: Iterable[Block | JSONObject],
    *,
    model: str,
    stop_reason: str,
    usage: Mapping[str, int] | None = None,
    id: str | None = None,
    request: JSONObject | None = None,
) -> MessageBody:
    """A valid Messages API response body (types.MessageBody).

    Without `usage`, output tokens are estimated from the content and input tokens from
    `request` (0 when no request is given). Without `id`, one is derived from the content,
    so the same answer always has the same id and stored notebook outputs stay stable.
    """
    if stop_reason not in API_STOP_REASONS:
        raise AtlasKitValueError(f"stop_reason must be one of {', '.join(sorted(API_STOP_REASONS))}; got {stop_reason!r}.")
    blocks = list(content_blocks)
    for i, block in enumerate(blocks):
        if not isinstance(block, dict) or "type" not in block:
            raise AtlasKitValueError(f"content_blocks[{i}] must be a dict with a 'type', "
                             "e.g. {'type': 'text', 'text': '...'}.")
    if usage is None:
        usage = {
            "input_tokens": request_tokens(request) if request is not None else 0,
            "output_tokens": estimate_tokens("".join(block_texts(blocks))),
        }
    if id is None:
        digest = hashlib.sha256(canonical({"model": model, "content": blocks}).encode()).hexdigest()
        id = f"msg_{digest[:24]}"
    return cast(MessageBody, {
        "id": id,
        "type": "message",
        "role": "assistant",
        "content": blocks,
        "model": model,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": dict(usage),
    })
