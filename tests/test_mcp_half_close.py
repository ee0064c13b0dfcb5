"""Issue 52, over the real stdio server: a client that stops reading (its end of stdout closed, a reply pending) but
keeps stdin open ends the server within 5 s with the open episode logged; `--style plain` words every protocol error
in plain's sentences (no name it was sent, no retry hint); and a megabyte raw and generic echo to the model is never
kept whole in a log (the episode log, or the server's stderr)."""
from __future__ import annotations

import contextlib
import json
import subprocess
import time

import pytest

from atlas_kit.bridges.mcp.episode import CALL_LOG_CHARS
from atlas_kit.experiments.results import read_records
from mcp_raw import RawServer, text_of

MEGABYTE = "y" * 1_000_000
GONE = "the client stopped reading the server's replies before finish was called"


@pytest.fixture(scope="module", autouse=True)
def needs_mcp() -> None:
    pytest.importorskip("mcp")


@pytest.mark.parametrize("pending", ["one reply", "a megabyte reply per request"])
def test_a_client_that_stops_reading_ends_the_server_and_the_episode_is_logged(pending, tmp_path):
    log = tmp_path / "atlas.jsonl"
    with RawServer("--style", "raw", "--log", str(log)) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        server.call("get_account", {"account_id": "ACC-4471"})
        assert server.proc.stdout is not None
        if pending == "one reply":
            server.proc.stdout.close()  # gone before the reply to the call below is written
            server.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                         "params": {"name": "get_account", "arguments": {"account_id": "ACC-4471"}}})
        else:  # replies pile up in a pipe nobody reads; then the reader goes away
            for k in range(6):
                server.send({"jsonrpc": "2.0", "id": 100 + k, "method": "tools/call",
                             "params": {"name": "get_account", "arguments": {"account_id": MEGABYTE}}})
            time.sleep(0.5)
            server.proc.stdout.close()
        start = time.monotonic()
        with contextlib.suppress(subprocess.TimeoutExpired):  # stdin stays open: the server must see the pipe broken
            server.proc.wait(timeout=10)
        took = time.monotonic() - start
        code, err = server.finish(close_stdin=False, timeout=5)
    assert took < 5, f"the server was still up {took:.1f} s after the client stopped reading"
    assert code == 0 and "Traceback" not in err and "BrokenPipe" not in err, err[-2000:]
    [record] = read_records(log)
    assert record["ticket"] == "T04" and record["stop_reason"] == "harness_error"
    assert GONE in record["harness_error"] and len(record["calls"]) >= 1


def test_plain_answers_every_protocol_error_in_its_own_words(tmp_path):
    with RawServer("--style", "plain") as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        unknown = server.call("refund_everything_now", {})
        prompt = server.request("prompts/get", {"name": "T99-refund-me"})
        server.send({"jsonrpc": "2.0", "id": "shape", "method": "tools/call", "params": "get_account"})
        shape = server.receive()
        loose = server.call("get_account", "ACC-4471")
        assert server.finish()[0] == 0
    assert shape is not None and shape["id"] == "shape"
    answers = {"unknown tool": unknown, "unknown prompt": prompt, "not a request": shape, "not an object": loose}
    said = {what: a["error"]["message"] for what, a in answers.items()}
    assert said == {"unknown tool": "This server has no tool by that name.",
                    "unknown prompt": "This server has no prompt by that name.",
                    "not a request": "The request is not in a form this server can read.",
                    "not an object": "The arguments given are not in a form this tool accepts."}
    assert [a["error"]["code"] for a in answers.values()] == [-32602, -32602, -32600, -32602]
    for text in said.values():  # nothing it was sent, no apology, no retry hint, no next step
        for word in ("refund_everything", "T99", "ACC-4471", "again", "try", "error occurred", "call one of"):
            assert word not in text.lower(), (word, text)


_CRASH = """
import sys
import atlas_kit.bridges.mcp.episode as episode

def crash(self, name, arguments):
    raise ValueError(f"cannot handle {arguments!r}")

episode.McpEpisode.call = crash  # a handler that fails with the whole argument in its message
from atlas_kit.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_plain_s_answer_to_a_failure_of_the_server_s_own_has_no_retry_hint():
    with RawServer("--style", "plain", python_code=_CRASH) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        crashed = server.call("get_account", {"account_id": "ACC-4471"})
        code, err = server.finish()
    assert code == 0 and crashed["result"]["isError"] is True
    assert text_of(crashed) == "The tool failed unexpectedly and the request was not completed."
    assert "ValueError: cannot handle" in err  # the details stay on the server's side


@pytest.mark.parametrize("style", ["raw", "generic"])
def test_raw_and_generic_may_echo_a_megabyte_but_no_log_keeps_it(style, tmp_path):
    log = tmp_path / "atlas.jsonl"
    with RawServer("--style", style, "--log", str(log)) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        echoed = text_of(server.call("get_account", {"account_id": MEGABYTE}))
        server.call("finish", {"answer": "Done."})
        code, err = server.finish()
    assert code == 0 and MEGABYTE in echoed  # a careless server's words, as raw and generic mean to show
    [call] = read_records(log)[0]["calls"]
    assert call["clipped"] is True and len(call["arguments"]) < CALL_LOG_CHARS + 60
    assert len(call["result"]) < CALL_LOG_CHARS + 60 and MEGABYTE[:CALL_LOG_CHARS + 100] not in log.read_text()
    assert len(err) < 2_000, len(err)  # stderr holds the start-up line, not the argument


def test_the_server_s_log_of_its_own_failure_is_bounded():
    from atlas_kit.bridges.mcp.guard import LOG_CHARS

    with RawServer("--style", "raw", python_code=_CRASH) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        crashed = server.call("get_account", {"account_id": MEGABYTE})
        code, err = server.finish()
    assert code == 0 and crashed["result"]["isError"] is True and MEGABYTE not in json.dumps(crashed)
    assert "ValueError: cannot handle" in err and "characters in all]" in err
    assert len(err) < LOG_CHARS + 2_000, len(err)
