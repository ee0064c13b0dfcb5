"""`atlas-kit mcp` as a client launches it: a subprocess spoken to over stdio, plus the command's own errors."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from atlas_kit.atlas import ticket
from atlas_kit.cli import main
from atlas_kit.experiments.metrics import recovery
from atlas_kit.types.results import read_records


@pytest.fixture(scope="module", autouse=True)
def mcp_names() -> None:
    """Import the MCP SDK when a test here first runs, not at collection: every xdist worker collects this file.
    Without the mcp extra each test here is skipped."""
    global types, Client, StdioServerParameters, stdio_client
    pytest.importorskip("mcp")
    import mcp_types as types
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

REFUND = {"invoice_id": "INV-20411", "amount_cents": 65000, "reason": "Training course cancelled by Atlas."}
ESCALATE = {"account_id": "ACC-4471", "queue": "billing_refunds",
            "reason": "Full refund of $650.00 on INV-20411: the training course was cancelled by Atlas."}


def test_a_stdio_session_lists_calls_and_grades_an_episode_into_the_log(tmp_path):
    log = tmp_path / "mcp" / "atlas.jsonl"
    params = StdioServerParameters(command=sys.executable, args=["-m", "atlas_kit", "mcp", "--style", "contract",
                                                                 "--log", str(log)])

    # The server's stderr goes to a file named here: stdio_client's default is the sys.stderr of the moment the SDK
    # was imported, which in this suite may be an earlier test's capture, since closed.
    errlog = (tmp_path / "server.stderr").open("w")

    async def session() -> dict:
        with anyio.fail_after(120):  # a bounded wait: a hung server fails the test instead of the suite
            async with Client(stdio_client(params, errlog=errlog), mode="legacy", read_timeout_seconds=60,
                              client_info=types.Implementation(name="stdio-test", version="1")) as c:
                tools = [t.name for t in (await c.list_tools()).tools]
                prompts = [p.name for p in (await c.list_prompts()).prompts]
                await c.get_prompt("T04")
                failing = await c.call_tool("issue_refund", REFUND)
                succeeding = await c.call_tool("escalate_to_human", ESCALATE)
                done = await c.call_tool("finish", {"answer": ticket("T04").script.final, "model": "claude-test"})
                return {"tools": tools, "prompts": prompts, "failing": failing, "succeeding": succeeding, "done": done}

    with errlog:
        out = anyio.run(session)
    assert len(out["tools"]) == 8 and out["tools"][-1] == "finish" and len(out["prompts"]) == 27
    assert out["failing"].is_error is True
    assert json.loads(out["failing"].content[0].text) == out["failing"].structured_content
    assert out["failing"].structured_content["error"] == "limit_exceeded"
    assert not out["succeeding"].is_error and json.loads(out["succeeding"].content[0].text)["queue"] == "billing_refunds"
    assert "contract style: correct" in out["done"].content[0].text
    [record] = read_records(log)
    assert record["correct"] is True and record["client"] == "stdio-test 1" and record["source"].startswith("live (claude-test")
    assert recovery([record]).successes == 1


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "atlas_kit", "mcp", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)


def test_a_log_that_is_not_a_results_file_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "notes.jsonl"
    bad.write_text('{"hello": 1}\n')
    assert main(["mcp", "--log", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "not an episode record" in err and "Traceback" not in err


def test_print_config_gives_absolute_paths_for_each_client(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["mcp", "--print-config", "claude-code", "--style", "raw", "--log", "my.jsonl"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("claude mcp add --scope user atlas -- /") and "--style raw" in line
    assert f"--log {tmp_path / 'my.jsonl'}" in line
    main(["mcp", "--print-config", "claude-desktop"])
    server = json.loads(capsys.readouterr().out)["mcpServers"]["atlas"]
    assert Path(server["command"]).is_absolute() and server["args"][server["args"].index("--log") + 1].startswith("/")
    main(["mcp", "--print-config", "inspector"])
    assert capsys.readouterr().out.startswith("npx @modelcontextprotocol/inspector /")


def test_stdin_closed_at_once_ends_the_server_cleanly(tmp_path):
    done = _cli("--ticket", "T01", "--log", str(tmp_path / "a.jsonl"))
    assert done.returncode == 0 and "Traceback" not in done.stderr
    [record] = read_records(tmp_path / "a.jsonl")  # the ticket opened at start, never handed in, is still logged
    assert record["ticket"] == "T01" and record["stop_reason"] == "harness_error"


def test_without_the_mcp_extra_the_command_says_what_to_install(monkeypatch, capsys):
    for name in ("mcp", "mcp_types"):
        monkeypatch.setitem(sys.modules, name, None)  # `import mcp` now raises ImportError, as without the extra
    for name in ("atlas_kit.bridges.mcp.server", "atlas_kit.bridges.mcp.host"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert main(["mcp"]) == 2
    err = capsys.readouterr().err
    assert "pip install -e '.[mcp]'" in err and err.count("\n") == 1
