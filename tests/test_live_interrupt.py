"""Ctrl-C and SIGTERM during a live sweep, through a real local HTTP server: paid work is kept, never paid twice.

An interrupted sweep stops starting calls, waits a bounded time for the calls in flight, keeps every reply that
comes back (RESULTS.jsonl.pending), and writes what it paid for and kept no reply of into the results, so the
resume neither sends a kept call again nor hides a cut-off call's cost from the budget. Counted at the server.
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import anthropic
import pytest
from live_api import FAKE_KEY, LocalAPI

from atlas_kit.experiments import running
from atlas_kit.experiments.guard import SweepInterrupted, SweepRefused, spent_in
from atlas_kit.experiments.pending import pending_path, read_pending
from atlas_kit.experiments.sweep import sweep
from atlas_kit.models.cassette import episode_scope
from atlas_kit.models.resume import CallKeeper, Stopping
from atlas_kit.models.standin.model import OfflineModel
from atlas_kit.models.pricing import cost_usd
from atlas_kit.models.transport import MessagesTransport
from atlas_kit.types.tokens import request_tokens

MODEL = "claude-sonnet-5-5"
PER_CALL = 0.03  # 10,000 tokens in and 1,000 out at claude-sonnet-5-5's $2 / $10 per million
TICKETS = tuple(f"T{i:02d}" for i in range(1, 8))
SAME = ("key", "stop_reason", "correct", "steps", "tool_calls", "input_tokens", "output_tokens", "cost_usd")
CHILD = ("import signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
         "from atlas_kit.cli import main\nsys.exit(main(sys.argv[1:]))")


class Billed:
    """The stand-in behind the server, every call billed $0.03 and taking `pause` s; `busy` counts calls being
    answered (`first_busy` those that are an episode's first), and calls for which `hang(body)` is true (while
    `holding`) wait until `release` is set."""

    def __init__(self, pause: float = 0.15, hang=lambda body: False) -> None:
        self.stand_in, self.pause, self.hang, self.holding = OfflineModel(seed=0), pause, hang, False
        self.busy, self.lock, self.release, self.hung = 0, threading.Lock(), threading.Event(), threading.Event()
        self.first_busy, self.held = 0, []

    def __call__(self, body):
        first = len(body["messages"]) == 1  # an episode's first call: more calls follow its reply
        with self.lock:
            self.busy += 1
            self.first_busy += first
        try:
            if self.holding and self.hang(body):
                self.held.append(body)
                self.hung.set()
                self.release.wait(60)
            time.sleep(self.pause)
            reply = self.stand_in(body)
            reply["usage"] = {"input_tokens": 10_000, "output_tokens": 1_000}
            return reply
        finally:
            with self.lock:
                self.busy -= 1
                self.first_busy -= first


def _argv(out: Path) -> list[str]:
    return ["experiment", "--model", MODEL, "--styles", "raw,contract", "--faults", "on", "--trials", "1",
            "--tickets", ",".join(TICKETS), "--out", str(out), "--no-progress", "--no-charts", "--yes",
            "--concurrency", "4"]


def _env(api: LocalAPI) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ATLAS_MODEL"}
    env.update(ANTHROPIC_BASE_URL=api.url, ANTHROPIC_API_KEY=FAKE_KEY)
    return env


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _final(path: Path) -> dict[str, dict]:
    """Each episode's last line: the record a resume left."""
    return {r["key"]: {f: r[f] for f in SAME} for r in _lines(path)}


@pytest.mark.parametrize("sig, said", [(signal.SIGINT, "Ctrl-C"), (signal.SIGTERM, "SIGTERM")])
def test_an_interrupted_and_resumed_sweep_pays_for_exactly_the_calls_a_clean_run_pays_for(tmp_path, monkeypatch,
                                                                                          capsys, sig, said):
    from atlas_kit.cli import main

    billed = Billed()
    with LocalAPI(billed) as api:
        _live(monkeypatch, api)
        assert main(_argv(tmp_path / "clean")) == 0
        paid_clean = len(api.messages)

        out = tmp_path / "cut" / "experiment.jsonl"  # the interrupted run is a process of its own: a real signal
        child = subprocess.Popen([sys.executable, "-c", CHILD, *_argv(tmp_path / "cut")], env=_env(api),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        deadline = time.monotonic() + 60
        while (not out.exists() or out.read_bytes().count(b"\n") < 3 or billed.first_busy < 1) \
                and time.monotonic() < deadline:
            assert child.poll() is None, child.communicate()
            time.sleep(0.002)
        child.send_signal(sig)  # finished episodes on disk, and an episode's first call in flight: it will be cut
        _, err = child.communicate(timeout=60)
        paid_cut = len(api.messages) - paid_clean

        assert child.returncode == 130 and "Traceback" not in err, err
        assert f"{said}: stopping. Waiting up to 30 s for the " in err and " call(s) in flight to come back" in err
        assert "interrupted after " in err and "run the same command again to resume" in err
        assert f"kept in {out}.pending, so the resume does not pay for them again" in err
        kept = read_pending(out)
        assert kept and all(calls for calls in kept.values())
        assert not set(kept) & {r["key"] for r in _lines(out)}  # unfinished episodes only
        # Every call paid for so far is in the results or kept, once: nothing is hidden from --budget.
        assert spent_in(out) == pytest.approx(paid_cut * PER_CALL)

        capsys.readouterr()
        assert main(_argv(tmp_path / "cut")) == 0
        paid_resume = len(api.messages) - paid_clean - paid_cut
    assert paid_cut + paid_resume == paid_clean  # counted at the server: not one call paid twice
    assert f"Cost: ${paid_resume * PER_CALL:,.4f} spent by this run" in capsys.readouterr().out  # kept ones were free
    assert _final(out) == _final(tmp_path / "clean" / "experiment.jsonl")
    assert len(_lines(out)) == 2 * len(TICKETS)  # one line an episode: nothing was cut off, so no spend line
    assert not pending_path(out).exists() and spent_in(out) == pytest.approx(paid_clean * PER_CALL)


def _hold_back(ticket_message: str):
    """True for the second call of the episode whose ticket says `ticket_message`: the call the server holds back."""
    def hang(body):
        return len(body["messages"]) == 3 and body["messages"][0]["content"] == ticket_message
    return hang


def _interrupt_when(event: threading.Event, *, again: float | None = None) -> threading.Thread:
    """A thread that sends this process SIGINT once `event` is set (and again after `again` seconds)."""
    def send() -> None:
        if event.wait(60):
            time.sleep(0.1)
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            if again is not None:
                time.sleep(again)
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


def _live(monkeypatch, api: LocalAPI) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    monkeypatch.delenv("ATLAS_MODEL", raising=False)


SWEEP = dict(name="cut", model=MODEL, styles=("contract",), faults=(True,), tickets=("T01", "T02", "T04", "T05"),
             trials=1, progress=False, concurrency=4)


def test_a_call_still_in_flight_when_the_wait_ends_is_cut_off_counted_in_the_results_and_sent_again(
        tmp_path, monkeypatch):
    from atlas_kit.atlas import ticket

    monkeypatch.setattr(running, "DRAIN_SECONDS", 0.5)
    held_back = ticket("T02").message
    billed = Billed(pause=0.05, hang=_hold_back(held_back))
    with LocalAPI(billed) as api:
        _live(monkeypatch, api)
        clean = sweep(**{**SWEEP, "name": "clean"}, out=tmp_path / "clean.jsonl")
        paid_clean = len(api.messages)
        out = tmp_path / "cut.jsonl"
        billed.holding = True
        _interrupt_when(billed.hung)
        started = time.monotonic()
        with pytest.raises(SweepInterrupted) as stopped:
            sweep(**SWEEP, out=out, max_cost_usd=10)
        waited = time.monotonic() - started
        billed.release.set()
        billed.holding = False
        paid_cut = len(api.messages) - paid_clean
        message = str(stopped.value)
        assert "1 call(s) cut off in flight, about $" in message
        assert "counted in the results against the budget" in message
        [line] = [r for r in _lines(out) if r["api_failure"] == "interrupted"]
        assert line["stop_reason"] == "api_failure" and line["ticket"] == "T02" and "cut off" in line["api_error"]
        [body] = billed.held  # estimated high: the request's size, and every output token it allowed
        assert line["cost_usd"] == pytest.approx(cost_usd(MODEL, request_tokens(body), body["max_tokens"]))
        assert line["output_tokens"] == body["max_tokens"] == 1024
        # What the server answered, and the cut call's estimate: the whole spend, in the file for --budget.
        assert spent_in(out) == pytest.approx((paid_cut - 1) * PER_CALL + line["cost_usd"])
        with pytest.raises(SweepRefused, match="The budget is already spent"):
            sweep(**SWEEP, out=out, max_cost_usd=10, budget_usd=spent_in(out) - 0.001)
        resumed = sweep(**SWEEP, out=out, max_cost_usd=10)
        paid_resume = len(api.messages) - paid_clean - paid_cut
    assert waited < 10  # the bound, not the hung call, decided how long the interrupt took
    assert paid_cut + paid_resume == paid_clean + 1  # only the call cut off in flight is sent again
    assert {r["key"]: {f: r[f] for f in SAME} for r in resumed.records} == \
        {r["key"]: {f: r[f] for f in SAME} for r in clean.records}
    assert not pending_path(out).exists()


def test_a_second_interrupt_stops_waiting_at_once(tmp_path, monkeypatch):
    billed = Billed(pause=0.02, hang=lambda body: len(body["messages"]) == 3)  # every second call hangs
    billed.holding = True
    with LocalAPI(billed) as api:
        _live(monkeypatch, api)
        _interrupt_when(billed.hung, again=0.3)
        started = time.monotonic()
        with pytest.raises(SweepInterrupted) as stopped:
            sweep(**SWEEP, out=tmp_path / "r.jsonl", max_cost_usd=10)
        took = time.monotonic() - started
        billed.release.set()
    assert took < running.DRAIN_SECONDS / 2  # not the 30 s wait: the second Ctrl-C cancelled the calls in flight
    assert "call(s) cut off in flight" in str(stopped.value)
    cut = [r for r in _lines(tmp_path / "r.jsonl") if r["api_failure"] == "interrupted"]
    assert cut and all(r["cost_usd"] > 0 for r in cut)


def test_a_notebook_interrupt_drains_the_same_way(tmp_path, monkeypatch):
    # In Jupyter the sweep runs on a worker thread (the kernel's loop is busy), and the interrupt arrives as a
    # KeyboardInterrupt in the main thread: run_sync passes it to the sweep, which stops as on Ctrl-C.
    billed = Billed(pause=0.1)
    with LocalAPI(billed) as api:
        _live(monkeypatch, api)
        clean = sweep(**{**SWEEP, "name": "clean"}, out=tmp_path / "clean.jsonl")
        paid_clean = len(api.messages)
        billed.pause = 0.5  # long beside the 0.1 s before the interrupt, so a busy machine cannot finish the sweep first
        flying = threading.Event()

        def watch() -> None:  # sets `flying` once two calls are being answered at the server
            while billed.busy < 2:
                time.sleep(0.005)
            flying.set()

        threading.Thread(target=watch, daemon=True).start()
        _interrupt_when(flying)
        loop = asyncio.new_event_loop()  # a kernel's loop: running, with Python's own SIGINT handler

        async def cell():
            return sweep(**SWEEP, out=tmp_path / "cut.jsonl", max_cost_usd=10)

        try:
            with pytest.raises(SweepInterrupted, match="so the resume does not pay for them again"):
                loop.run_until_complete(cell())
        finally:
            loop.close()
        billed.pause = 0.1
        resumed = sweep(**SWEEP, out=tmp_path / "cut.jsonl", max_cost_usd=10)
    assert len(api.messages) - paid_clean == paid_clean
    assert [r["key"] for r in resumed.records] == [r["key"] for r in clean.records]


# --- the keeper, on its own --------------------------------------------------------------------------------------


def _reply(text: str) -> dict:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": MODEL, "stop_reason": "end_turn",
            "stop_sequence": None, "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 100, "output_tokens": 10}}


def test_the_keeper_answers_kept_replies_again_keeps_new_ones_and_refuses_calls_once_stopping(request):
    asked: list[dict] = []

    def server(body):
        asked.append(body)
        return _reply(f"live {len(asked)}")

    def through(keeper: CallKeeper):
        http = anthropic.DefaultAsyncHttpxClient(transport=keeper.transport(MessagesTransport(server)))
        return anthropic.AsyncAnthropic(api_key="k", base_url="http://atlas.invalid", http_client=http, max_retries=0)

    keeper = CallKeeper(price=lambda tokens_in, tokens_out: tokens_in / 1000)
    scope = episode_scope("E")  # every call below is episode E's
    scope.__enter__()
    request.addfinalizer(lambda: scope.__exit__(None, None, None))
    tagged = through(keeper)
    ask = dict(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}])

    async def calls():
        first = await tagged.messages.create(**ask)
        return first, await tagged.messages.create(**{**ask, "messages": [{"role": "user", "content": "again"}]})

    first, second = asyncio.run(calls())
    assert [len(asked), first.content[0].text, second.content[0].text] == [2, "live 1", "live 2"]
    assert [c["cost_usd"] for c in keeper.kept["E"]] == [0.1, 0.1]

    resumed = CallKeeper(price=keeper.price, pending={"E": list(keeper.kept["E"])})
    tagged = through(resumed)
    again, _ = asyncio.run(calls())
    assert len(asked) == 2 and again.content[0].text == "live 1"  # answered from the kept reply, nothing sent
    assert resumed.replayed_usd == {"E": pytest.approx(0.2)}

    other = CallKeeper(price=keeper.price, pending={"E": list(keeper.kept["E"])})
    tagged = through(other)
    asyncio.run(tagged.messages.create(**{**ask, "messages": [{"role": "user", "content": "elsewhere"}]}))
    assert len(asked) == 3 and len(other.unused["E"]) == 2  # another path: the kept replies are set aside, counted

    other.stop()
    with pytest.raises(Stopping):
        asyncio.run(tagged.messages.create(**ask))
    assert len(asked) == 3  # refused before it was sent


def test_kept_replies_a_resumed_episode_no_longer_asks_for_stay_counted_against_the_budget(tmp_path, monkeypatch):
    from atlas_kit.experiments.pending import write_pending

    with LocalAPI(Billed(pause=0.0)) as api:
        _live(monkeypatch, api)
        one = {**SWEEP, "tickets": ("T01",)}
        key = sweep(**one, out=tmp_path / "clean.jsonl").records[0]["key"]
        out = tmp_path / "r.jsonl"
        stale = {"fingerprint": "a request this episode no longer makes", "response": _reply("old"),
                 "input_tokens": 10_000, "output_tokens": 1_000, "cost_usd": PER_CALL}
        write_pending(out, {key: [stale]})  # kept by an interrupted run whose episode then took another path
        assert spent_in(out) == pytest.approx(PER_CALL)
        paid = len(api.messages)
        result = sweep(**one, out=out, max_cost_usd=10)
        paid = len(api.messages) - paid
    [record] = result.records
    lines = _lines(out)
    assert [r["api_failure"] for r in lines] == [None, "interrupted"]  # the record, then the spend it did not use
    assert "a resumed episode took another path" in lines[1]["api_error"] and lines[1]["cost_usd"] == PER_CALL
    assert record["stop_reason"] == "finished" and record["cost_usd"] == pytest.approx(paid * PER_CALL)
    assert spent_in(out) == pytest.approx((paid + 1) * PER_CALL) and not pending_path(out).exists()
    assert result.guard.spent_usd == pytest.approx(paid * PER_CALL)  # nothing was answered from the kept reply
