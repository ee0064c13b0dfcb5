"""Sweeps through the Message Batches API: every unfinished episode's next request in one batch per round.

The round loop (sweep), the journal that lets a killed sweep resume (journal), custom ids, polling and the
batch client (parts), and the in-process Batches API the tests and the stand-in use (transport). Chapter 11.
"""
from __future__ import annotations

import typing as _typing

from ..._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .parts import (BadResults, BatchCanceled, BatchExpired, BatchReport, CustomId, ENDPOINT_FAILURES, Endpoints,
        LIVE_POLL, OFFLINE_POLL, Poll, RETRYABLE_ERRORS, batch_client, batch_request, digest, download_results,
        exception_for, standin_server)
    from .journal import (Answered, Bounced, Collected, Event, Failed, FailureKind, Journal, JournalState, Part,
        Pending, Started, Submitted, Submitting, journal_path)
    from .sweep import BatchSweep, sweep_batch
    from .transport import (BatchAPI, BatchHandler, BatchTransport, CUSTOM_ID, MAX_BATCH_BYTES, MAX_BATCH_REQUESTS,
        Outcome, ResultType, in_process_batch_client, random_outcomes)

_WHERE = {
    "Answered": "journal",
    "BadResults": "parts",
    "BatchAPI": "transport",
    "BatchCanceled": "parts",
    "BatchExpired": "parts",
    "BatchHandler": "transport",
    "BatchReport": "parts",
    "BatchSweep": "sweep",
    "BatchTransport": "transport",
    "Bounced": "journal",
    "CUSTOM_ID": "transport",
    "Collected": "journal",
    "CustomId": "parts",
    "ENDPOINT_FAILURES": "parts",
    "Endpoints": "parts",
    "Event": "journal",
    "Failed": "journal",
    "FailureKind": "journal",
    "Journal": "journal",
    "JournalState": "journal",
    "LIVE_POLL": "parts",
    "MAX_BATCH_BYTES": "transport",
    "MAX_BATCH_REQUESTS": "transport",
    "OFFLINE_POLL": "parts",
    "Outcome": "transport",
    "Part": "journal",
    "Pending": "journal",
    "Poll": "parts",
    "RETRYABLE_ERRORS": "parts",
    "ResultType": "transport",
    "Started": "journal",
    "Submitted": "journal",
    "Submitting": "journal",
    "batch_client": "parts",
    "batch_request": "parts",
    "digest": "parts",
    "download_results": "parts",
    "exception_for": "parts",
    "in_process_batch_client": "transport",
    "journal_path": "journal",
    "random_outcomes": "transport",
    "standin_server": "parts",
    "sweep_batch": "sweep",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "Answered", "BadResults", "BatchAPI", "BatchCanceled", "BatchExpired", "BatchHandler", "BatchReport",
    "BatchSweep", "BatchTransport", "Bounced", "CUSTOM_ID", "Collected", "CustomId", "ENDPOINT_FAILURES", "Endpoints",
    "Event", "Failed", "FailureKind", "Journal", "JournalState", "LIVE_POLL", "MAX_BATCH_BYTES", "MAX_BATCH_REQUESTS",
    "OFFLINE_POLL", "Outcome", "Part", "Pending", "Poll", "RETRYABLE_ERRORS", "ResultType", "Started", "Submitted",
    "Submitting", "batch_client", "batch_request", "digest", "download_results", "exception_for",
    "in_process_batch_client", "journal_path", "random_outcomes", "standin_server", "sweep_batch",
]
