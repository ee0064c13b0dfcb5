"""The SDK's own loggers while a sweep runs: every record they make is redacted before any handler sees it.

At DEBUG the anthropic SDK logs each request's options (the whole conversation) and httpx and httpcore log what
they send; a key, a password or a token in a tool's words or a model's reply would be printed as it is. While
atlas_kit runs a sweep, `sdk_logs_redacted` puts contract.redaction.redact on those records. Chapter 11.
"""
from __future__ import annotations

import contextlib
import logging
import threading
import traceback
from typing import Callable, Iterator

from ..contract.redaction import redact

__all__ = ["SDK_LOGGERS", "sdk_logs_redacted"]

SDK_LOGGERS = ("anthropic", "httpx", "httpx2", "httpcore", "httpcore2")
"""The loggers (and their children) whose records are redacted during a sweep: the SDK's and its HTTP stack's."""

_LOCK = threading.Lock()
_STATE: dict[str, int] = {"sweeps": 0}


class _Redacting:
    """A log record factory that redacts the records of SDK_LOGGERS and passes the rest through.

    A factory, not a Filter on each logger: a logger's filter sees only the records made on that very logger, and
    the SDK logs on children (anthropic._base_client) that may be made after the sweep starts.
    """

    def __init__(self, inner: Callable[..., logging.LogRecord]) -> None:
        self.inner = inner

    def __call__(self, *args: object, **kwargs: object) -> logging.LogRecord:
        record = self.inner(*args, **kwargs)
        if _STATE["sweeps"] and record.name.split(".", 1)[0] in SDK_LOGGERS:
            _redact_record(record)
        return record


def _redact_record(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - arguments that do not fit the format: the record's own text, as logging would
        message = f"{record.msg} {record.args}"
    record.msg, record.args = redact(message), None
    if record.exc_info:  # a traceback's text is formatted now, redacted, and kept in place of the exception
        record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
        record.exc_info = None
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


@contextlib.contextmanager
def sdk_logs_redacted() -> Iterator[None]:
    """While the block runs (a sweep), the SDK's log records carry no key, password or token; nested and
    concurrent sweeps share one factory, which passes everything through once the last one has ended."""
    with _LOCK:
        if not isinstance(logging.getLogRecordFactory(), _Redacting):
            logging.setLogRecordFactory(_Redacting(logging.getLogRecordFactory()))
        _STATE["sweeps"] += 1
    try:
        yield
    finally:
        with _LOCK:
            _STATE["sweeps"] -= 1
            factory = logging.getLogRecordFactory()
            if not _STATE["sweeps"] and isinstance(factory, _Redacting):
                logging.setLogRecordFactory(factory.inner)
