"""The error contract: five stable codes with a fixed `retryable`, `next` naming one of four branches, one builder.

What a failed tool call tells the model (errors), the only values it may quote (values), what it must never carry
(redaction, and the builder's internals check), arguments checked against a schema (arguments), and converters to
the article's vocabulary and MCP (vocab). The layer above types/. Chapters 02, 03, 05 and 08.
"""
from __future__ import annotations

__all__: list[str] = []
