"""The batch path: the in-process Message Batches API, custom ids, the journal, and a sweep `via="batch"`.

A batch sweep must give exactly the synchronous sweep's episodes with shuffled, delayed, errored and
expired results; and a sweep killed anywhere (an injected interruption at each point, or a real SIGKILL of a
child process talking to a local HTTP server) must resume without paying for any finished turn twice.
"""
from __future__ import annotations

import collections
import json
import math
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anthropic
import pytest
from hypothesis import given
from hypothesis import strategies as st
from live_api import FAKE_KEY, LocalAPI

import atlas_kit.experiments.batch.parts as parts
from atlas_kit.experiments.batch.sweep import BatchSweep
from atlas_kit.experiments.batch.journal import journal_path
from atlas_kit.experiments.batch.journal import Journal
from atlas_kit.experiments.batch.parts import CustomId, Poll, exception_for, standin_server
from atlas_kit.experiments.batch.transport import (CUSTOM_ID, MAX_BATCH_BYTES, MAX_BATCH_REQUESTS, BatchAPI, BatchTransport,
                                       in_process_batch_client, random_outcomes)
from atlas_kit.experiments.episodes import plan, profile_named
from atlas_kit.experiments.sweep import run_experiment, sweep
from atlas_kit.experiments.guard import Guard, SweepInterrupted
from atlas_kit.experiments.metrics import usable
from atlas_kit.models.standin.model import OFFLINE_MODEL
from atlas_kit.models.replies import failure_from, read_reply
from atlas_kit.types.results import API_FAILURE, read_records
from atlas_kit.types import Source
from atlas_kit.models.transport import APIFault
from atlas_kit.models.body import message_body

SMALL = dict(name="b", styles=("raw", "contract"), faults=(True, False), tickets=("T01", "T04", "T09", "T19", "T22"),
             progress=False)


@pytest.fixture(autouse=True)
def fresh_servers():
    parts._SERVERS.clear()
    yield
    parts._SERVERS.clear()


class Watch:
    """Wraps a stand-in server: counts each (episode, step) it answered, and remembers each batch's order."""

    def __init__(self, api: BatchAPI) -> None:
        self.api, self.answered = api, collections.Counter()
        inner = api.handler

        def handler(custom_id: str, params: dict[str, Any]) -> dict[str, Any]:
            c = CustomId.parse(custom_id)
            self.answered[(c.index, c.step)] += 1
            return inner(custom_id, params)

        api.handler = handler

    def kinds(self) -> collections.Counter:
        return collections.Counter(line["result"]["type"] for b in self.api.batches.values() for line in b.results)

    def shuffled(self) -> bool:
        return any([line["custom_id"] for line in b.results] != [cid for cid, _ in b.requests]
                   for b in self.api.batches.values())


def use_server(monkeypatch, **options: Any) -> list[Watch]:
    """Make every offline batch sweep use a stand-in server with these options; returns the servers made."""
    made: list[Watch] = []
    real = parts.standin_server

    def factory(plan_, profiles):
        watch = Watch(real(plan_, profiles, **options))
        made.append(watch)
        return watch.api

    monkeypatch.setattr(parts, "standin_server", factory)
    return made


def _same_episodes(batch: list[dict], sync: list[dict]) -> None:
    assert [r["key"] for r in batch] == [r["key"] for r in sync]
    for b, s in zip(batch, sync):
        assert b["cost_usd"] == pytest.approx(s["cost_usd"] / 2, rel=1e-12)  # the batch price
        assert {k: v for k, v in b.items() if k != "cost_usd"} == {k: v for k, v in s.items() if k != "cost_usd"}


# --- custom ids ----------------------------------------------------------------------------------

@given(st.text("abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=12),
       st.integers(0, 10**6), st.integers(0, 10**4), st.integers(0, 99))
def test_a_custom_id_matches_the_api_pattern_and_reads_back(tag, index, step, attempt):
    cid = CustomId(tag, index, step, attempt)
    text = str(cid)
    assert CUSTOM_ID.match(text) and len(text) <= 64
    assert CustomId.parse(text) == cid


def test_a_custom_id_that_would_break_the_pattern_is_refused_and_other_text_is_not_parsed():
    with pytest.raises(ValueError, match="custom_id"):
        str(CustomId("x" * 60, 1, 2, 3))
    with pytest.raises(ValueError, match="custom_id"):
        str(CustomId("has-dash", 1, 2, 3))
    assert CustomId.parse("request-1") is None and CustomId.parse("t-e1-s2-ax") is None


# --- the in-process batch API --------------------------------------------------------------------

def _echo(custom_id: str, params: dict) -> dict:
    return message_body([{"type": "text", "text": custom_id}], model=params["model"], stop_reason="end_turn",
                        request=params)


def _requests(n: int, prefix: str = "r") -> list[dict]:
    return [{"custom_id": f"{prefix}{i}", "params": {"model": "m", "max_tokens": 8,
                                                     "messages": [{"role": "user", "content": "hi"}]}}
            for i in range(n)]


def test_the_batch_api_delays_shuffles_and_counts_through_the_real_sdk():
    api = BatchAPI(_echo, delay_polls=3, seed=4, outcome=random_outcomes(errored=0.25, expired=0.25, seed=1))
    client = in_process_batch_client(api)
    batch = client.messages.batches.create(requests=_requests(40))
    states = [client.messages.batches.retrieve(batch.id) for _ in range(4)]
    assert [s.processing_status for s in states] == ["in_progress"] * 3 + ["ended"]
    assert states[0].request_counts.processing == 40 and states[0].results_url is None
    ended = states[-1].request_counts
    assert ended.processing == 0 and ended.errored > 0 and ended.expired > 0 and ended.succeeded > 0
    assert ended.succeeded + ended.errored + ended.expired == 40
    lines = list(client.messages.batches.results(batch.id))
    assert sorted(x.custom_id for x in lines) == sorted(f"r{i}" for i in range(40))
    assert [x.custom_id for x in lines] != [f"r{i}" for i in range(40)]  # any order, joined by custom_id
    for x in lines:
        if x.result.type == "succeeded":
            assert x.result.message.content[0].text == x.custom_id
    assert client.messages.batches.list(limit=5).data[0].id == batch.id


def test_the_batch_api_enforces_the_api_limits():
    api = BatchAPI(_echo)
    client = in_process_batch_client(api)
    with pytest.raises(anthropic.BadRequestError, match="must match"):
        client.messages.batches.create(requests=[{"custom_id": "no spaces", "params": {"model": "m"}}])
    with pytest.raises(anthropic.BadRequestError, match="used twice"):
        client.messages.batches.create(requests=_requests(1) + _requests(1))
    with pytest.raises(APIFault, match="at most 100,000"):
        api.create({"requests": [{"custom_id": "a", "params": {}}] * (MAX_BATCH_REQUESTS + 1)})
    with pytest.raises(APIFault, match="bytes") as too_big:
        api.create({"requests": _requests(1)}, size=MAX_BATCH_BYTES + 1)
    assert too_big.value.status == 413
    batch = client.messages.batches.create(requests=_requests(2))
    with pytest.raises(APIFault, match="still in progress"):
        api.results(batch.id)
    with pytest.raises(anthropic.NotFoundError):
        client.messages.batches.retrieve("msgbatch_nope")


def test_failed_results_become_api_failures_with_their_reason_never_the_models():
    cases = {("errored", "overloaded_error"): "overloaded", ("errored", "invalid_request_error"): "bad_request",
             ("errored", "authentication_error"): "authentication", ("expired", "expired"): "timeout",
             ("missing", "missing"): "timeout", ("canceled", "canceled"): "other"}
    for (kind, error_type), reason in cases.items():
        exc = exception_for({"event": "failed", "key": "k", "step": 0, "kind": kind, "error_type": error_type,
                             "message": "went wrong"})
        failure = read_reply(exc)
        assert failure_from(exc).reason == reason == failure.reason, (kind, error_type)
        assert kind in failure.message


# --- a batch sweep against the synchronous one --------------------------------------------------

@pytest.mark.parametrize("first_seed, server", [
    (0, dict(errored=0.2, expired=0.1, delay_polls=2, seed=0)),
    (5, dict(errored=0.1, expired=0.25, delay_polls=0, seed=3)),
    (11, dict(errored=0.3, expired=0.3, delay_polls=4, seed=9)),
])
def test_a_batch_sweep_gives_exactly_the_sync_sweeps_episodes(monkeypatch, first_seed, server):
    made = use_server(monkeypatch, **server)
    sync = run_experiment(**SMALL, trials=3, first_seed=first_seed)
    result = sweep(**SMALL, trials=3, first_seed=first_seed, via="batch")
    _same_episodes(result.records, sync)
    assert {r["seed"] for r in sync} == {first_seed, first_seed + 1, first_seed + 2}
    (watch,) = made
    kinds = watch.kinds()
    assert kinds["errored"] > 0 and kinds["expired"] > 0 and watch.shuffled()
    assert watch.api.retrieves > watch.api.created or server["delay_polls"] == 0
    assert all(n == 1 for n in watch.answered.values())  # each turn was answered once
    report = result.batch
    assert report.retried == kinds["errored"] + kinds["expired"] and report.requests == watch.api.requests_seen
    assert report.rounds >= max(r["steps"] for r in sync)


def test_a_batch_sweep_writes_its_journal_beside_the_results_and_removes_it_when_done(tmp_path, monkeypatch):
    use_server(monkeypatch, errored=0.2, expired=0.2)
    out = tmp_path / "r.jsonl"
    records = run_experiment(**SMALL, trials=1, out=out, via="batch")
    assert len(read_records(out)) == len(records) == 20
    assert not Path(journal_path(out)).exists()
    assert journal_path(out) == str(out) + ".batch"


def test_requests_that_keep_failing_end_as_api_failures_and_a_rerun_finishes_them(tmp_path, monkeypatch):
    out = tmp_path / "r.jsonl"
    make = parts.standin_server

    def broken(plan_, profiles):  # every request of T04 fails, whatever the attempt
        api = make(plan_, profiles, errored=0.0, expired=0.0)
        ok = api.outcome
        api.outcome = lambda cid: "expired" if plan_[CustomId.parse(cid).index].ticket == "T04" else ok(cid)
        return api

    monkeypatch.setattr(parts, "standin_server", broken)
    first = run_experiment(**SMALL, trials=1, out=out, via="batch")
    failed = [r for r in first if r["stop_reason"] == API_FAILURE]
    assert {r["ticket"] for r in failed} == {"T04"} and len(failed) == 4
    assert all(r["api_failure"] == "timeout" and "expired" in r["api_error"] for r in failed)
    assert all(r not in usable(first) for r in failed)  # not counted against the model
    monkeypatch.setattr(parts, "standin_server", make)
    parts._SERVERS.clear()
    second = run_experiment(**SMALL, trials=1, out=out, via="batch")
    _same_episodes(second, run_experiment(**SMALL, trials=1))


def test_an_error_not_worth_retrying_fails_its_episode_at_once(monkeypatch):
    make = parts.standin_server

    def refusing(plan_, profiles):
        api = make(plan_, profiles, errored=0.0, expired=0.0)
        inner = api.handler

        def handler(cid, params):
            if plan_[CustomId.parse(cid).index].ticket == "T19":
                raise APIFault(400, "prompt is too long")
            return inner(cid, params)

        api.handler = handler
        return api

    monkeypatch.setattr(parts, "standin_server", refusing)
    result = sweep(**SMALL, trials=1, via="batch")
    failed = [r for r in result.records if r["stop_reason"] == API_FAILURE]
    assert {r["ticket"] for r in failed} == {"T19"}
    assert all(r["api_failure"] == "bad_request" and "prompt is too long" in r["api_error"] for r in failed)
    assert result.batch.retried == 0


def test_via_batch_is_refused_for_a_cassette_and_a_bad_via_is_named(tmp_path):
    with pytest.raises(ValueError, match="via must be"):
        sweep(**SMALL, trials=1, via="post")
    with pytest.raises(ValueError, match="via='batch'"):
        sweep(**SMALL, trials=1, via="batch", record=tmp_path / "c.json")


# --- resuming after an interruption at each point -------------------------------------------------

POINTS = [("journal", "submitting", 2), ("server", "create-before", 2), ("server", "create-after", 1),
          ("server", "create-after", 3), ("server", "retrieve", 2), ("server", "results-after", 2),
          ("journal", "answered", 5), ("journal", "bounced", 1), ("journal", "collected", 2),
          ("journal", "submitted", 2), ("results", "append", 3)]


@pytest.mark.parametrize("where, what, nth", POINTS)
def test_a_batch_sweep_interrupted_at_any_point_resumes_without_resubmitting(tmp_path, monkeypatch, where, what, nth):
    made = use_server(monkeypatch, errored=0.15, expired=0.15, delay_polls=1)
    reference = run_experiment(**SMALL, trials=2)
    out = tmp_path / "r.jsonl"
    seen = collections.Counter()

    def trip(name: str) -> None:
        seen[name] += 1
        if seen[name] == nth:
            raise KeyboardInterrupt

    if where == "journal":
        real_write = Journal.write

        def write(self, event, *, sync=False):
            if event["event"] == what:
                trip(what)
            return real_write(self, event, sync=sync)

        monkeypatch.setattr(Journal, "write", write)
    elif where == "results":
        import atlas_kit.experiments.results as results

        real_append = results.ResultsWriter.append

        def append(self, record):
            real_append(self, record)
            trip(what)

        monkeypatch.setattr(results.ResultsWriter, "append", append)
    else:
        method, _, when = what.partition("-")
        real = getattr(BatchAPI, method)

        def wrapped(self, *args, **kwargs):
            if when != "after":
                trip(what)
            value = real(self, *args, **kwargs)
            if when == "after":
                trip(what)  # the server did it; the client never heard
            return value

        monkeypatch.setattr(BatchAPI, method, wrapped)
    with pytest.raises(SweepInterrupted):
        sweep(**SMALL, trials=2, out=out, via="batch")
    assert Path(journal_path(out)).exists()
    seen.clear()
    nth = 10**9  # no more interruptions
    resumed = sweep(**SMALL, trials=2, out=out, via="batch")
    (watch,) = made  # the same server: an interrupted kernel's batches live on in this process
    _same_episodes(resumed.records, reference)
    assert sorted(read_records(out), key=lambda r: r["key"]) == sorted(resumed.records, key=lambda r: r["key"])
    assert all(n == 1 for n in watch.answered.values()), "a finished turn was paid for twice"
    if what in ("create-after", "submitted"):
        assert resumed.batch.adopted == 1
    if what in ("retrieve", "results-after", "collected", "answered", "bounced"):
        assert resumed.batch.resumed >= 1
    assert not Path(journal_path(out)).exists()


def test_a_journal_from_another_sweep_or_changed_options_is_refused(tmp_path, monkeypatch):
    use_server(monkeypatch, errored=0.0, expired=0.0, delay_polls=5)
    out = tmp_path / "r.jsonl"
    real = BatchAPI.retrieve
    monkeypatch.setattr(BatchAPI, "retrieve", lambda self, i: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(SweepInterrupted):
        sweep(**SMALL, trials=1, out=out, via="batch")
    monkeypatch.setattr(BatchAPI, "retrieve", real)
    with pytest.raises(ValueError, match="belongs to experiment 'b'"):
        sweep(**{**SMALL, "name": "other"}, trials=1, out=out, via="batch")
    lines = Path(journal_path(out)).read_text().splitlines()
    event = json.loads(lines[1])
    event["requests"] = {k: {**v, "digest": "0" * 16} for k, v in event["requests"].items()}
    Path(journal_path(out)).write_text("\n".join([lines[0], json.dumps(event), *lines[2:]]) + "\n")
    with pytest.raises(ValueError, match="does not match this sweep's requests"):
        sweep(**SMALL, trials=1, out=out, via="batch")


def test_endpoint_failures_stop_the_sweep_with_its_state_kept_and_a_rerun_resumes(tmp_path, monkeypatch):
    use_server(monkeypatch, errored=0.0, expired=0.0)
    out = tmp_path / "r.jsonl"
    real = BatchAPI.retrieve
    monkeypatch.setattr(BatchAPI, "retrieve", lambda self, i: (_ for _ in ()).throw(APIFault(529, "overloaded")))
    result = sweep(**SMALL, trials=1, out=out, via="batch")
    assert result.stopped == "api_failures" and "run the same command again" in result.message
    assert result.records == [] and Path(journal_path(out)).exists()
    monkeypatch.setattr(BatchAPI, "retrieve", lambda self, i: (_ for _ in ()).throw(APIFault(401, "bad key")))
    assert sweep(**SMALL, trials=1, out=out, via="batch").stopped == "authentication"
    monkeypatch.setattr(BatchAPI, "retrieve", real)
    _same_episodes(sweep(**SMALL, trials=1, out=out, via="batch").records, run_experiment(**SMALL, trials=1))


def test_a_batch_the_api_no_longer_knows_is_sent_again(tmp_path, monkeypatch):
    use_server(monkeypatch, errored=0.0, expired=0.0, delay_polls=3)
    out = tmp_path / "r.jsonl"
    real = BatchAPI.retrieve
    monkeypatch.setattr(BatchAPI, "retrieve", lambda self, i: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(SweepInterrupted):
        sweep(**SMALL, trials=1, out=out, via="batch")
    monkeypatch.setattr(BatchAPI, "retrieve", real)
    parts._SERVERS.clear()  # a new process: the in-process server that held the batch is gone
    _same_episodes(sweep(**SMALL, trials=1, out=out, via="batch").records, run_experiment(**SMALL, trials=1))


def test_the_poll_backs_off_up_to_its_longest_wait_and_its_deadline_stops_the_sweep(tmp_path):
    assert [w for _, w in zip(range(6), Poll(first=10, factor=2, most=50).waits())] == [10, 20, 40, 50, 50, 50]
    with pytest.raises(ValueError, match="Poll"):
        Poll(first=5, most=1)
    src = Source("simulated", OFFLINE_MODEL)
    episodes = plan(styles=("contract",), faults=(True,), break_loops=(True,), profiles=(None,), tickets=("T01",),
                    trials=1, model=OFFLINE_MODEL)
    api = standin_server(episodes, {"default": profile_named(None)}, delay_polls=10**6)
    now = [1000.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    guard = Guard(src)
    runner = BatchSweep(in_process_batch_client(api), journal=Journal(tmp_path / "j"), index={episodes[0].key: 0},
                        source=src, bounds=None, experiment="x", guard=guard, keep=lambda r: None,
                        poll=Poll(first=60, factor=2, most=600, deadline=3600), sleep=sleep, clock=lambda: now[0])
    report = runner.run(episodes)
    assert report.stopped == "api_failures" and "has not ended" in report.message and guard.stopped == "api_failures"
    assert slept[:4] == [60, 120, 240, 480] and max(slept) == 600 and sum(slept) <= 3600
    assert (tmp_path / "j").exists()


# --- a real kill: a child process talking to a local HTTP server ----------------------------------

LIVE_MODEL = "claude-sonnet-5-5"
KILL_SWEEP = dict(name="k", styles=("raw", "contract"), faults=(True,), tickets=("T01", "T04", "T09", "T19"),
                  trials=2, progress=False)
CHILD = """
import math, sys
from atlas_kit.experiments.sweep import sweep
r = sweep(**{sweep}, model={model!r}, out=sys.argv[1], via="batch", max_cost_usd=math.inf, confirm=lambda e: True)
print("DONE", r.batch.resumed, r.batch.adopted, len(r.records))
"""


class Blocking:
    """Makes the server hang, after doing its work, on the n-th call of one endpoint, until released."""

    def __init__(self, api: BatchAPI, method: str, nth: int) -> None:
        self.reached, self.release, self.calls = threading.Event(), threading.Event(), 0
        real = getattr(api, method)

        def blocked(*args: Any, **kwargs: Any) -> Any:
            value = real(*args, **kwargs)
            self.calls += 1
            if self.calls == nth:
                self.reached.set()
                self.release.wait(30)
            return value

        setattr(api, method, blocked)


def _child(out: Path, url: str) -> subprocess.Popen:
    env = {**os.environ, "ANTHROPIC_API_KEY": FAKE_KEY, "ANTHROPIC_BASE_URL": url}
    env.pop("ATLAS_MODEL", None)
    code = CHILD.format(sweep=repr(KILL_SWEEP), model=LIVE_MODEL)
    return subprocess.Popen([sys.executable, "-c", code, str(out)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _resume(out: Path, url: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """CHILD's sweep, run in this process with the environment _child gives it; the killed run needs a process,
    the resume does not. Returns the Sweep whose batch.resumed, batch.adopted and records CHILD prints."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.delenv("ATLAS_MODEL", raising=False)
    return sweep(**KILL_SWEEP, model=LIVE_MODEL, out=str(out), via="batch", max_cost_usd=math.inf,
                 confirm=lambda e: True)


# One real SIGKILL, where losing track costs most: while a batch is being created, before its id is back. The other
# points (retrieve, results download, appending) are killed in process above, by the injected interruption.
def test_a_batch_sweep_killed_with_sigkill_resumes_without_resubmitting(tmp_path, monkeypatch):
    method, nth = "create", 2
    episodes = plan(styles=KILL_SWEEP["styles"], faults=(True,), break_loops=(True,), profiles=(None,),
                    tickets=KILL_SWEEP["tickets"], trials=2, model=LIVE_MODEL)
    watch = Watch(standin_server(episodes, {}, errored=0.2, expired=0.1, delay_polls=0))  # live polls wait 15 s
    out = tmp_path / "k.jsonl"
    with LocalAPI(lambda body: None) as server:
        server.transport = BatchTransport(watch.api)
        watch.api.base_url = server.url
        block = Blocking(watch.api, method, nth)
        child = _child(out, server.url)
        try:
            assert block.reached.wait(60), child.communicate(timeout=5)
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=10)
        finally:
            block.release.set()
            if child.poll() is None:
                child.kill()
        assert child.returncode == -signal.SIGKILL
        assert Path(journal_path(out)).exists()
        again = _resume(out, server.url, monkeypatch)
    resumed, adopted, n = again.batch.resumed, again.batch.adopted, len(again.records)
    assert n == 16
    assert (adopted, resumed >= 1) == (1, False)  # the batch the killed run created is found and adopted
    assert all(k == 1 for k in watch.answered.values()), "a finished turn was paid for twice"
    reference = run_experiment(**{**KILL_SWEEP, "name": "k"})
    live = read_records(out)
    assert len(live) == 16 and all(r["source_kind"] == "live" and r["model"] == LIVE_MODEL for r in live)
    mine = {(r["style"], r["ticket"], r["trial"]): r for r in live}
    for s in reference:
        r = mine[(s["style"], s["ticket"], s["trial"])]
        same = ("stop_reason", "correct", "labels", "error_codes", "branches", "steps", "tool_calls", "input_tokens",
                "output_tokens")
        assert {f: r[f] for f in same} == {f: s[f] for f in same}
        assert r["cost_usd"] == pytest.approx(s["cost_usd"] / 2)
    assert not math.isnan(sum(r["cost_usd"] for r in live))


# --- a results download cut short or not JSON: the API's failure, retried, never bad input --------------------

BAD_RESULTS = {"cut mid-line": lambda body: body[:len(body) // 2], "not JSON": lambda body: b"<html>502 Bad Gateway</html>",
               "not results": lambda body: b'{"custom_id": 7}\n', "dropped": None}


def _flaky_results(api: BatchAPI, server: LocalAPI, fault: str, bad: int) -> list[str]:
    """The first `bad` downloads of results come back broken in the way `fault` names; returns the paths asked."""
    asked: list[str] = []
    real = api.results

    def results(batch_id: str) -> bytes:
        body = real(batch_id)
        asked.append(batch_id)
        return BAD_RESULTS[fault](body) if fault != "dropped" and len(asked) <= bad else body

    api.results = results
    if fault == "dropped":  # the connection closes half way through the body, short of its content-length
        server.cut = lambda path: 40 if path.endswith("/results") and len(asked) <= bad else None
    return asked


@pytest.mark.parametrize("fault", list(BAD_RESULTS))
def test_a_results_download_cut_short_or_not_json_is_downloaded_again_never_paid_again(tmp_path, monkeypatch, fault):
    episodes = plan(styles=KILL_SWEEP["styles"], faults=(True,), break_loops=(True,), profiles=(None,),
                    tickets=KILL_SWEEP["tickets"], trials=2, model=LIVE_MODEL)
    watch = Watch(standin_server(episodes, {}, errored=0.0, expired=0.0, delay_polls=0))
    monkeypatch.setattr(parts, "LIVE_POLL", Poll(first=0.0, most=0.0))  # the endpoints' retries wait 0 s here
    with LocalAPI(lambda body: None) as server:
        server.transport = BatchTransport(watch.api)
        watch.api.base_url = server.url
        asked = _flaky_results(watch.api, server, fault, bad=parts.ENDPOINT_FAILURES - 1)  # within the bound
        result = _resume(tmp_path / "k.jsonl", server.url, monkeypatch)
    assert result.stopped is None and len(result.records) == 16
    assert len(asked) > parts.ENDPOINT_FAILURES - 1 and asked[0] == asked[parts.ENDPOINT_FAILURES - 1]  # same batch
    assert all(k == 1 for k in watch.answered.values()), "a finished turn was paid for twice"
    assert all(r["stop_reason"] != API_FAILURE for r in result.records)


def test_a_results_download_that_stays_broken_exits_1_as_the_apis_failure_and_a_rerun_resumes(tmp_path, monkeypatch,
                                                                                              capsys):
    from atlas_kit.cli import main

    episodes = plan(styles=("raw", "contract"), faults=(True,), break_loops=(True,), profiles=(None,),
                    tickets=("T01", "T04"), trials=1, model=LIVE_MODEL)
    watch = Watch(standin_server(episodes, {}, errored=0.0, expired=0.0, delay_polls=0))
    monkeypatch.setattr(parts, "LIVE_POLL", Poll(first=0.0, most=0.0))
    argv = ["experiment", "--model", LIVE_MODEL, "--via", "batch", "--styles", "raw,contract", "--faults", "on",
            "--tickets", "T01,T04", "--trials", "1", "--out", str(tmp_path), "--no-progress", "--no-charts", "--yes"]
    with LocalAPI(lambda body: None) as server:
        server.transport = BatchTransport(watch.api)
        watch.api.base_url = server.url
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.delenv("ATLAS_MODEL", raising=False)
        real = watch.api.results
        asked = _flaky_results(watch.api, server, "cut mid-line", bad=10**6)
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert len(asked) == parts.ENDPOINT_FAILURES  # retried within the bound, then stopped
        assert "the Message Batches API failed (results): bad_body (BadResults)" in err and "not JSON Lines" in err
        assert "run the same command again to resume" in err and "Traceback" not in err and err.count("\n") == 1
        assert Path(journal_path(tmp_path / "experiment.jsonl")).exists()
        watch.api.results = real  # the API is well again
        assert main(argv) == 0
    assert len(read_records(tmp_path / "experiment.jsonl")) == 4
    assert all(k == 1 for k in watch.answered.values()), "a finished turn was paid for twice"
