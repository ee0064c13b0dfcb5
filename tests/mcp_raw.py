"""A raw JSON-RPC client for `atlas-kit mcp` over real stdio: one line per message, no SDK in between, so a test can
send what no SDK client would (a megabyte argument, params that are not an object) and read exactly what came back.

Every read waits at most `timeout` seconds, so a server that freezes or never answers fails the test instead of
hanging the suite. The server runs from this checkout (PYTHONPATH) with the interpreter running the tests.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


class RawServer:
    """`python -m atlas_kit mcp ARGS...` as a subprocess; `python_code` runs instead of the module (to inject a fault)."""

    def __init__(self, *args: str, python_code: str | None = None, timeout: float = 60.0) -> None:
        command = [sys.executable, "-c", python_code, "mcp", *args] if python_code else \
            [sys.executable, "-m", "atlas_kit", "mcp", *args]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=ROOT, env=env)
        self.timeout, self.next_id, self._buffer = timeout, 0, b""

    # --- the wire ---------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def send_line(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self, *, timeout: float | None = None) -> dict[str, Any] | None:
        """The next message, or None when none came within the timeout (or the server closed stdout)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        """Send one request and return its answer (failing when none comes in time)."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, **({} if params is None else {"params": params})})
        answer = self.receive()
        assert answer is not None, f"no answer to {method} within {self.timeout} s"
        assert answer.get("id") == self.next_id, answer
        return answer

    def initialize(self, name: str = "raw-test") -> dict[str, Any]:
        answer = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                             "clientInfo": {"name": name, "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    # --- the process ------------------------------------------------------------------------
    def rss_mb(self) -> float:
        """The server process's resident memory, from /proc/<pid>/status."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS line in /proc/<pid>/status")

    def signal(self, signum: signal.Signals) -> None:
        self.proc.send_signal(signum)

    def finish(self, *, close_stdin: bool = True, timeout: float = 60.0) -> tuple[int, str]:
        """Close stdin (the client hanging up), wait for the exit; returns (exit code, stderr)."""
        if close_stdin and self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            code = self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read().decode(errors="replace")

    def __enter__(self) -> RawServer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                try:
                    stream.close()
                except BrokenPipeError:
                    pass


def text_of(answer: dict[str, Any]) -> str:
    """A tools/call result's text content, joined."""
    return "".join(b.get("text", "") for b in answer["result"]["content"])
