"""`atlas-kit audit` on real MCP servers no one here wrote: mcp-server-time (PyPI), and the reference servers
@modelcontextprotocol/server-memory and server-filesystem (npm, through npx on Node 20). Issue 51's cases where these
servers show them: short echoes (pydantic's input_value, a sample value), the SDK's words told from the author's, an
error sent as a success, and the caller's own path, which is no leaked internal.

They run only where installed, with no network: mcp-server-time from MCP_SERVER_TIME (its path) or PATH; the npm
servers from npx's cache (`npx --offline`). Elsewhere each test is skipped with the command that installs it;
ATLAS_REQUIRE_REAL_SERVERS=1 (for CI, which installs them first) turns the skip into a failure."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from atlas_kit.cli import main


def _need(why: str) -> None:
    if os.environ.get("ATLAS_REQUIRE_REAL_SERVERS") == "1":
        pytest.fail(f"real MCP servers are required but {why}")
    pytest.skip(why)


def _time_server() -> str:
    found = os.environ.get("MCP_SERVER_TIME") or shutil.which("mcp-server-time")
    if not found or not Path(found).exists():
        _need("mcp-server-time is not installed: python3 -m venv /tmp/time && /tmp/time/bin/pip install "
                    "mcp-server-time, then set MCP_SERVER_TIME=/tmp/time/bin/mcp-server-time")
    return found


def _npm_server(package: str, *args: str) -> list[str]:
    command = ["npx", "--offline", "-y", package, *args]
    if shutil.which("npx") is None:
        _need("npx is not installed (Node 20 or newer brings it)")
    try:
        probe = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        _need(f"{package} did not start within 60 s from npx's cache")
    if "running on stdio" not in probe.stderr.lower():
        _need(f"{package} is not in npx's cache: run `npx -y {package}` once with network to cache it")
    return command


def audited(tmp_path, command):
    out = tmp_path / "audit.json"
    assert main(["audit", "--no-progress", "--json", str(out), "--", *command]) == 0
    return json.loads(out.read_text())


def fails(doc, rule):
    return [(t["name"], c["kind"], c["reply"]["text"]) for t in doc["tools"] for c in t["cases"]
            for v in c["verdicts"] if v["rule"] == rule and v["status"] == "fail"]


def judged(doc):
    return [c for t in doc["tools"] for c in t["cases"] if c["outcome"] == "judged"]


def verdict(case, rule):
    return next(v for v in case["verdicts"] if v["rule"] == rule)


def test_mcp_server_time(tmp_path):
    doc = audited(tmp_path, [_time_server()])
    assert {t["name"] for t in doc["tools"]} >= {"get_current_time", "convert_time"}
    assert doc["score"] is not None and doc["score"] < 60
    assert any("validation error" in text for *_, text in fails(doc, "internals"))  # pydantic's dump
    assert any(tool == "get_current_time" for tool, *_ in fails(doc, "echo"))  # the timezone comes back verbatim
    replies = judged(doc)
    assert replies and len(fails(doc, "retryable")) == len(replies)  # no answer says whether to call again
    numbers = [c for c in replies if c["kind"] == "wrong_type"]  # pydantic's input_value=12345: a 5-character echo
    assert numbers and all(verdict(c, "echo")["status"] == "fail" and "input_value" in c["reply"]["text"]
                           for c in numbers)
    sample = [c for c in replies if c["reply"]["text"].endswith("found with key example'")]  # the sample comes back
    assert sample and all(verdict(c, "echo")["status"] == "fail" for c in sample)
    origins = {c["origin"] for c in replies}
    assert origins == {"sdk", "server"} and doc["author_score"] is not None  # FastMCP's pydantic; the author's own
    assert all(c["origin"] == "sdk" for c in replies if "validation error for" in c["reply"]["text"])
    assert doc["network"].startswith(("blocked", "not blocked: no network namespace"))


def test_server_memory(tmp_path, monkeypatch):
    command = _npm_server("@modelcontextprotocol/server-memory")
    monkeypatch.setenv("MEMORY_FILE_PATH", str(tmp_path / "memory.jsonl"))  # the server runs with our environment
    doc = audited(tmp_path, command)
    assert doc["score"] is not None and doc["score"] < 70
    assert fails(doc, "internals") and all("MCP error -32602" in text for *_, text in fails(doc, "internals"))
    assert not (tmp_path / "memory.jsonl").exists()  # nothing was written: write tools got only invalid calls
    assert {c["origin"] for c in judged(doc)} == {"sdk"} and doc["author_score"] is None  # all the SDK's words


def test_server_filesystem(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    doc = audited(tmp_path, _npm_server("@modelcontextprotocol/server-filesystem", str(root)))
    assert doc["score"] is not None and doc["score"] < 70
    assert any("ZQX7CANARY" in text for *_, text in fails(doc, "echo"))  # a path argument comes back in the error
    assert list(root.iterdir()) == []  # write_file, edit_file, move_file: only calls that break their schema
    disguised = [c for c in judged(doc) if c["reply"]["is_error"] is False]  # read_multiple_files: "Error - ENOENT"
    assert disguised and all(verdict(c, "is_error")["status"] == "fail" and "Error - ENOENT" in c["reply"]["text"]
                             for c in disguised)
    own_paths = [c for c in judged(doc) if c["reply"]["text"].startswith("ENOENT: no such file or directory")]
    assert own_paths and all(verdict(c, "internals")["status"] == "pass" for c in own_paths)  # the caller's path
    assert {c["origin"] for c in judged(doc)} == {"sdk", "server"}
    assert doc["author_score"] is not None and doc["author_score"] != doc["score"]
