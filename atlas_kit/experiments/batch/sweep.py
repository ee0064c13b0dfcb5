"""A sweep through the Message Batches API, one round at a time (`run_experiment(..., via="batch")`).

Each round puts every unfinished episode's next request into a batch, polls it with backoff, joins the
results by custom_id (they come back in any order), runs the tools locally and builds the next round.
Errored and expired requests go again under a new attempt id, within a bound; the journal (batch_journal.py)
lets a killed sweep resume without resubmitting. Billed at the batch price. Chapter 11.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from typing import Callable, Generator, Iterator, Sequence

import anthropic

from ...agent import Bounds, Run, agent_steps
from .journal import (Answered, Bounced, Collected, Event, Failed, FailureKind, Journal, JournalState, Part, Pending,
    Started, Submitted, Submitting, journal_path)
from .parts import (RETRYABLE_ERRORS, BatchReport, CustomId, Endpoints, Poll, batch_client, batch_request, digest,
    download_results, exception_for)
from .transport import MAX_BATCH_BYTES, MAX_BATCH_REQUESTS
from ..episodes import Episode, episode_record, episode_session, harness_failure
from ..guard import Guard, StopCause
from ...models.standin.model import Profile
from ...models.pricing import BATCH_DISCOUNT
from ...types.api import MessagesRequest
from ...types.records import Record, Source
from ...contract.redaction import redact
from ...types.exceptions import AtlasKitValueError

CLOCK_SKEW = 300.0  # seconds: how far the API's created_at may run behind this machine's clock
_BYTES_MARGIN = 1_000_000  # room for the JSON around the requests


@dataclass
class _Live:
    episode: Episode
    index: int
    loop: Generator[MessagesRequest, object, Run]
    request: MessagesRequest
    step: int = 0


class BatchSweep:
    """One batch sweep: a client with `messages.batches`, a journal, and the sweep's guard and record sink."""

    def __init__(self, client: anthropic.Anthropic, *, journal: Journal, index: dict[str, int], source: Source, bounds: Bounds | None,
                 experiment: str, guard: Guard, keep: Callable[[Record], None], poll: Poll,
                 max_attempts: int = 3, status: Callable[[str], None] | None = None,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.time) -> None:
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise AtlasKitValueError(f"max_attempts must be a whole number of at least 1; got {max_attempts!r}.")
        self.client, self.journal, self.index, self.source = client, journal, index, source
        self.bounds, self.experiment, self.guard, self.keep, self.poll = bounds, experiment, guard, keep, poll
        self.max_attempts, self.status, self.sleep, self.clock = max_attempts, status or (lambda s: None), sleep, clock
        self.report = BatchReport()
        self.endpoints = Endpoints(poll.most, sleep, self.status, self._stop, str(journal.path or "memory"))
        self.state = JournalState()
        self.lives: dict[str, _Live] = {}
        self.admitted: set[str] = set()
        self.begun: set[str] = set()

    # --- the sweep ------------------------------------------------------------------------
    def run(self, todo: Sequence[Episode]) -> BatchReport:
        self.state = self.journal.replay()
        self.begun = {key for key, _ in self.state.attempts} | set(self.state.heard)  # under way before this run
        tag = self._start()
        for e in todo:
            self._begin(e)
        for part in list(self.state.pending.values()):  # paid for before a kill: collect, never resubmit
            self._check(part)
            self.report.resumed += part.batch_id is not None
        self._collect()
        while self.lives and self.report.stopped is None and self.guard.stopped is None:
            self._submit(tag)
            self._collect()
        self.journal.close()
        if not self.lives and not self.state.pending and self.report.stopped is None:
            self.journal.remove()
        return self.report

    def _start(self) -> str:
        started = self.state.started
        model = self.source.model
        if started is None:
            tag = hashlib.sha256(f"{self.experiment}|{model}".encode()).hexdigest()[:10]
            started = Started(event="started", tag=tag, experiment=self.experiment, model=model)
            self._write(started, sync=True)
        elif (started["experiment"], started["model"]) != (self.experiment, model):
            raise AtlasKitValueError(f"the batch journal {self.journal.path} belongs to experiment {started['experiment']!r} "
                             f"with {started['model']}; use another --out or --name, or delete the journal.")
        return started["tag"]

    def _begin(self, e: Episode) -> None:
        """Start an episode's agent loop and replay what the journal says it already heard."""
        try:
            loop = agent_steps(episode_session(e), model=e.condition.model, bounds=self.bounds, source=self.source)
            live = _Live(e, self.index[e.key], loop, next(loop))
        except Exception as exc:  # the harness's own failure: kept as its record, as in the messages path
            self._harness(e, exc)
            return
        self.lives[e.key] = live
        self._advance(live)

    def _advance(self, live: _Live) -> None:
        heard = self.state.heard.get(live.episode.key, [])
        while live.step < len(heard):
            h = heard[live.step]
            answer: object = h["body"] if h["event"] == "answered" else exception_for(h)
            live.step += 1
            try:
                live.request = live.loop.send(answer)
            except StopIteration as done:
                self._finish(live, done.value)
                return
            except Exception as exc:
                self.lives.pop(live.episode.key, None)
                self._harness(live.episode, exc)
                return

    def _finish(self, live: _Live, run: Run) -> None:
        e = self.lives.pop(live.episode.key).episode
        try:
            record = episode_record(e, run, experiment=self.experiment)
        except Exception as exc:
            self._harness(e, exc)
            return
        record["cost_usd"] = run.cost_usd * BATCH_DISCOUNT  # what the batch bills; the loop's bound used the full price
        self.guard.finish(record)
        self.keep(record)

    def _harness(self, e: Episode, exc: Exception) -> None:
        record = harness_failure(e, exc, source=self.source, experiment=self.experiment)
        self.guard.finish(record)
        self.keep(record)

    # --- submitting -----------------------------------------------------------------------
    def _submit(self, tag: str) -> None:
        waiting = {p["key"] for part in self.state.pending.values() for p in part.requests.values()}
        chunk: list[tuple[str, _Live]] = []
        size = 0
        self.report.rounds += 1
        for key, live in list(self.lives.items()):
            if key in waiting or not self._admit(key):
                continue
            attempt = self.state.attempts.get((key, live.step), 0)
            self.report.retried += attempt > 0
            cid = str(CustomId(tag, live.index, live.step, attempt))
            weight = len(json.dumps({"custom_id": cid, "params": live.request}))
            if chunk and (len(chunk) >= MAX_BATCH_REQUESTS or size + weight > MAX_BATCH_BYTES - _BYTES_MARGIN):
                self._create(chunk)
                chunk, size = [], 0
            chunk.append((cid, live))
            size += weight
        if chunk:
            self._create(chunk)

    def _admit(self, key: str) -> bool:
        if key in self.admitted:
            return True
        self.admitted.add(key)
        if self.guard.admit() or key in self.begun:
            return True  # one already under way goes on this round; a stopped guard ends the sweep after it
        self.lives.pop(key)
        return False

    def _create(self, chunk: list[tuple[str, _Live]]) -> None:
        if self.report.stopped is not None:
            return
        requests = {cid: Pending(key=live.episode.key, step=live.step, attempt=self.state.attempts.get(
            (live.episode.key, live.step), 0), digest=digest(live.request)) for cid, live in chunk}
        part = Submitting(event="submitting", part=f"p{self.state.parts}", at=self.clock(), requests=requests)
        self._write(part, sync=True)
        body = [batch_request(cid, live.request) for cid, live in chunk]
        made = self.endpoints.call("create", lambda: self.client.messages.batches.create(requests=body),
                          again=lambda: self._adopt(self.state.pending[part["part"]]))
        if made is not None and self.state.pending[part["part"]].batch_id is None:
            self._write(Submitted(event="submitted", part=part["part"], batch_id=made.id, adopted=False), sync=True)
        if self.state.pending[part["part"]].batch_id is not None:
            self.report.batches += 1
            self.report.requests += len(chunk)

    def _adopt(self, part: Part) -> bool:
        """After a kill (or a failed call) between create and its journal line: find the batch the API made, if any."""
        page = self.endpoints.call("list", lambda: self.client.messages.batches.list(limit=100))
        for b in page.data if page is not None else []:
            n = b.request_counts
            total = n.processing + n.succeeded + n.errored + n.canceled + n.expired
            if (b.id not in self.state.batch_ids and total == len(part.requests)
                    and b.created_at.timestamp() >= part.at - CLOCK_SKEW):
                self._write(Submitted(event="submitted", part=part.part, batch_id=b.id, adopted=True), sync=True)
                self.report.adopted += 1
                return True
        return False

    def _check(self, part: Part) -> None:
        for p in part.requests.values():
            live = self.lives.get(p["key"])
            if live is None or self.state.answered(p["key"], p["step"]):
                continue
            if live.step != p["step"] or digest(live.request) != p["digest"]:
                raise AtlasKitValueError(f"the batch journal {self.journal.path} does not match this sweep's requests (were "
                                 "the options or the code changed?); delete it to start the unfinished episodes again.")

    # --- collecting -----------------------------------------------------------------------
    def _collect(self) -> None:
        for part in list(self.state.pending.values()):
            if self.report.stopped is not None:
                return
            if part.batch_id is None and not self._adopt(part):
                self._write(Collected(event="collected", part=part.part), sync=True)  # never created: send again
                continue
            if self._wait(part):
                self._read(part)
        for live in list(self.lives.values()):
            self._advance(live)

    def _wait(self, part: Part) -> bool:
        waits: Iterator[float] = self.poll.waits()
        while True:
            batch = self.endpoints.call("retrieve", lambda: self.client.messages.batches.retrieve(str(part.batch_id)),
                               gone=lambda: self._forget(part))
            if batch is None:
                return False
            self.report.polls += 1
            if batch.processing_status == "ended":
                return True
            wait = next(waits)
            if self.clock() + wait - part.at > self.poll.deadline:
                self._stop("api_failures", f"batch {part.batch_id} has not ended {self.poll.deadline / 3600:.0f} h "
                                           "after it was sent; its state is saved: run the same command again to keep waiting.")
                return False
            counts = batch.request_counts
            self.status(f"round {self.report.rounds} · batch …{str(part.batch_id)[-6:]}: {counts.processing} of "
                        f"{len(part.requests)} processing · next check in {wait:.0f} s")
            self.sleep(wait)

    def _read(self, part: Part) -> None:
        items = self.endpoints.call("results", lambda: download_results(self.client, str(part.batch_id)),
                                    gone=lambda: self._forget(part))
        if items is None:
            return
        got = {i.custom_id: i for i in items if i.custom_id in part.requests}
        if part.adopted and len(got) != len(part.requests):  # a batch that only looked like ours: send ours again
            self._write(Collected(event="collected", part=part.part), sync=True)
            return
        for cid, p in part.requests.items():
            key, step = p["key"], p["step"]
            if self.state.answered(key, step):
                continue
            result = got[cid].result if cid in got else None
            kind: FailureKind = result.type if result is not None and result.type != "succeeded" else "missing"
            if result is not None and result.type == "succeeded":
                body = json.loads(json.dumps(result.message.model_dump(mode="python", exclude_none=True)))
                self._write(Answered(event="answered", key=key, step=step, body=body))
                continue
            error = getattr(getattr(result, "error", None), "error", None)
            error_type = str(getattr(error, "type", "") or kind)
            message = redact(str(getattr(error, "message", "") or f"the request came back {kind}"))[:300]
            again = kind in ("expired", "missing") or (kind == "errored" and error_type in RETRYABLE_ERRORS)
            if again and len(self.state.bounced.get((key, step), set()) | {cid}) < self.max_attempts:
                self._write(Bounced(event="bounced", key=key, step=step, custom_id=cid, kind=kind))
            else:
                self._write(Failed(event="failed", key=key, step=step, kind=kind, error_type=error_type, message=message))
        self._write(Collected(event="collected", part=part.part), sync=True)

    def _forget(self, part: Part) -> None:
        """The API no longer knows this batch (deleted, or an in-process server that is gone): send its requests again."""
        self.status(f"batch {part.batch_id} is no longer known to the API; its requests go again")
        self._write(Collected(event="collected", part=part.part), sync=True)

    def _stop(self, cause: StopCause, message: str) -> None:
        if self.report.stopped is None:
            self.report.stopped, self.report.message = cause, message
        if self.guard.stopped is None:
            self.guard.stopped, self.guard.message = cause, message

    def _write(self, event: Event, *, sync: bool = False) -> None:
        self.journal.write(event, sync=sync)
        self.state.apply(event)


def sweep_batch(mode: str, model: str, *, plan: Sequence[Episode], todo: Sequence[Episode],
                profiles: dict[str, Profile], source: Source, bounds: Bounds | None, experiment: str, guard: Guard,
                keep: Callable[[Record], None], out: str | os.PathLike[str] | None,
                status: Callable[[str], None] | None = None) -> BatchReport:
    """Run `todo` (episodes of `plan`) through the Message Batches API: the stand-in's server offline, else live."""
    path = journal_path(out)
    client, poll = batch_client(mode, model, plan=plan, profiles=profiles, journal=path)
    index = {e.key: i for i, e in enumerate(plan)}
    runner = BatchSweep(client, journal=Journal(path), index=index, source=source, bounds=bounds,
                        experiment=experiment, guard=guard, keep=keep, poll=poll, status=status)
    return runner.run(todo)
