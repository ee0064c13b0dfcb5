"""Issue 29, over the real stdio server: `--log` checked by writing before serving, a log write that fails later
costing no grade and showing the client no path, SIGTERM and SIGHUP logging the open episode, a client that vanishes
with replies pending, and the server's own failures answered with a neutral error (details on stderr only)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from atlas_kit.types.results import read_records
from mcp_raw import ROOT, RawServer, text_of

MEGABYTE = "x" * 1_000_000


@pytest.fixture(scope="module", autouse=True)
def needs_mcp() -> None:
    pytest.importorskip("mcp")


def _start(*args: str) -> subprocess.CompletedProcess[str]:
    """`atlas-kit mcp ARGS` with a client that keeps stdin open: a server that started serving would wait for it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with subprocess.Popen([sys.executable, "-m", "atlas_kit", "mcp", *args], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env) as proc:
        try:
            out, err = proc.communicate(timeout=60)  # an exit before serving needs no input; serving would wait
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _read_only(tmp: Path) -> Path:
    path = tmp / "kept.jsonl"
    path.write_text("")
    path.chmod(0o444)
    return path


@pytest.mark.parametrize("where", ["/proc/self/y", "/sys/kernel/atlas.jsonl", "/dev/full", "folder", "read-only"])
def test_a_log_that_cannot_be_written_is_one_line_and_exit_2_before_serving(where, tmp_path, capsys):
    """The command's own check, in this process: it returns before reading stdin, so no server is needed; the
    real server's exit on such a log is the next test's."""
    from atlas_kit.cli import main

    path = {"folder": lambda: tmp_path, "read-only": lambda: _read_only(tmp_path)}.get(where, lambda: Path(where))()
    if not path.parent.exists():
        pytest.skip(f"{path.parent} does not exist on this machine")
    code = main(["mcp", "--log", str(path)])
    done = capsys.readouterr()
    assert code == 2, done.err
    assert done.err.count("\n") == 1 and done.err.startswith("atlas-kit mcp: error: --log ")
    assert "serving" not in done.err and "Traceback" not in done.err and done.out == ""
    if where == "read-only":
        assert path.read_text() == ""


def test_the_real_server_given_a_log_it_cannot_write_exits_2_with_one_line_and_serves_nothing():
    done = _start("--log", "/dev/full")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("atlas-kit mcp: error: --log /dev/full")
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_checking_a_good_log_writes_nothing_to_it(tmp_path):
    log = tmp_path / "atlas.jsonl"
    with RawServer("--log", str(log)) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        server.call("finish", {"answer": "Done."})
        assert server.finish()[0] == 0
    before = log.read_bytes()
    with RawServer("--log", str(log)) as server:
        server.initialize()
        assert server.finish()[0] == 0
    assert log.read_bytes() == before and len(read_records(log)) == 1


def test_a_log_write_that_fails_later_keeps_the_grade_and_shows_the_client_no_path(tmp_path):
    log = tmp_path / "atlas.jsonl"
    with RawServer("--log", str(log)) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        log.unlink(missing_ok=True)
        log.mkdir()  # now every append fails (IsADirectoryError), whoever the server runs as
        done = server.call("finish", {"answer": "Done."})
        assert server.request("ping")["result"] == {}  # and the server goes on serving
        code, err = server.finish()
    said = json.dumps(done)
    assert "result" in done and text_of(done).startswith("Handed in. Ticket T04, contract style: not correct.")
    for leak in (str(tmp_path), "Errno", "directory", "atlas.jsonl"):
        assert leak not in said, leak
    assert code == 0 and "could not append episode" in err and "Traceback" not in err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_logs_the_open_episode_as_ended_by_it(signum, tmp_path):
    log = tmp_path / "atlas.jsonl"
    with RawServer("--log", str(log)) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        server.call("get_account", {"account_id": "ACC-4471"})
        server.signal(signum)
        code, err = server.finish(close_stdin=False)
    assert code == 0 and "Traceback" not in err
    [record] = read_records(log)
    assert record["stop_reason"] == "harness_error" and record["ticket"] == "T04" and len(record["calls"]) == 1
    assert f"stopped by {signum.name} before finish was called" in record["harness_error"]


def _flood(server: RawServer, n: int = 12) -> None:
    """Requests whose replies (a megabyte each, in the raw style) fill the pipe the client is not reading."""
    for k in range(n):
        server.send({"jsonrpc": "2.0", "id": 100 + k, "method": "tools/call",
                     "params": {"name": "get_account", "arguments": {"account_id": MEGABYTE}}})


def test_sigterm_with_large_replies_pending_exits_cleanly(tmp_path):
    log = tmp_path / "atlas.jsonl"
    with RawServer("--style", "raw", "--log", str(log)) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        _flood(server)
        time.sleep(1.0)  # let the server block on the full pipe (not a timed assertion: any wait gives the same end)
        server.signal(signal.SIGTERM)
        code, err = server.finish(close_stdin=False)
    assert code == 0 and "Traceback" not in err and "BrokenPipe" not in err
    assert read_records(log)[0]["harness_error"].count("SIGTERM") == 1


def test_a_client_that_vanishes_with_large_replies_pending_ends_the_server_cleanly(tmp_path):
    log = tmp_path / "atlas.jsonl"
    with RawServer("--style", "raw", "--log", str(log)) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        _flood(server)
        assert server.proc.stdout is not None
        server.proc.stdout.close()  # the client is gone: every further write is a broken pipe
        code, err = server.finish()
    assert code == 0 and "Traceback" not in err and "BrokenPipe" not in err, err
    [record] = read_records(log)
    assert record["ticket"] == "T04" and record["stop_reason"] == "harness_error"


_CRASHING = """
import sys
import atlas_kit.bridges.mcp.episode as episode
import atlas_kit.bridges.mcp.server as server

def boom(*args, **kwargs):
    raise PermissionError(13, "Permission denied", "/srv/secret/grader_state.json")

opened = server.AtlasMCP.open

def open_but_t05(self, ticket, **options):
    return boom() if ticket == "T05" else opened(self, ticket, **options)

episode.grade = boom  # finish fails inside the server
server.AtlasMCP.open = open_but_t05  # so does the prompt of T05
from atlas_kit.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("style", ["raw", "generic", "contract"])
def test_the_server_s_own_failures_get_a_neutral_error_and_the_details_go_to_stderr(style, tmp_path):
    with RawServer("--style", style, python_code=_CRASHING) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        finish = server.call("finish", {"answer": "Done."})
        prompt = server.request("prompts/get", {"name": "T05"})
        code, err = server.finish()
    for answer in (prompt, finish):
        assert "/srv/secret" not in json.dumps(answer) and "Errno" not in json.dumps(answer)
        assert answer.get("error", {}).get("code") != 0
    assert prompt["error"]["code"] == -32603 and prompt["error"]["message"].startswith("Internal error")
    assert finish["result"]["isError"] is True
    said = text_of(finish)
    if style == "contract":
        body = json.loads(said)
        assert body["error"] == "upstream_unavailable" and body["next"]["branch"] == "stop"
    else:
        assert said.endswith("Error executing tool finish")
        assert said.startswith("An error occurred, please try again.") == (style == "generic")
    assert code == 0 and "/srv/secret/grader_state.json" in err and "failed inside the server" in err
