"""Time a megabyte argument through `atlas-kit mcp` over stdio in each style, and watch the server's memory.

Per episode: open T04, call get_account with a 1 MB account_id (raw and generic echo it back), hand in a 1 MB answer
(refused: past maxLength), then hand in a short one (graded). Prints each style's slowest call and slowest graded
finish, and the server's resident memory (VmRSS) after each episode; issue 29 asks for answers within 2 s and flat
memory over 10 episodes. Usage: python benchmarks/mcp_long_argument.py [--episodes 10] [--megabytes 1]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


class _Server:
    def __init__(self, style: str, log: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "atlas_kit", "mcp", "--style", style, "--log", str(log)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.n = 0

    def ask(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.n += 1
        start = time.perf_counter()
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}).encode() + b"\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        return answer, time.perf_counter() - start

    def rss_mb(self) -> float:
        line = next(x for x in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines() if x.startswith("VmRSS:"))
        return int(line.split()[1]) / 1024

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def run(style: str, *, episodes: int, size: int, log: Path) -> tuple[float, float, list[float]]:
    big = ("centsx" * (size // 6 + 1))[:size]
    server = _Server(style, log)
    server.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "benchmark", "version": "1"}})
    slowest_call = slowest_grade = 0.0
    rss = []
    for _ in range(episodes):
        server.ask("prompts/get", {"name": "T04"})
        _, called = server.ask("tools/call", {"name": "get_account", "arguments": {"account_id": big}})
        server.ask("tools/call", {"name": "finish", "arguments": {"answer": big}})
        _, graded = server.ask("tools/call", {"name": "finish", "arguments": {"answer": "Done. " + big[:3000]}})
        slowest_call, slowest_grade = max(slowest_call, called), max(slowest_grade, graded)
        rss.append(server.rss_mb())
    server.close()
    return slowest_call, slowest_grade, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--megabytes", type=float, default=1.0)
    args = parser.parse_args()
    size = int(args.megabytes * 1_000_000)
    print(f"{args.episodes} episodes per style, a {size:,}-character argument in each (a live stdio server per style)")
    with tempfile.TemporaryDirectory() as tmp:
        for style in ("raw", "generic", "contract"):
            log = Path(tmp) / f"{style}.jsonl"
            call, grade, rss = run(style, episodes=args.episodes, size=size, log=log)
            print(f"{style:<8} slowest call {call:.2f} s, slowest graded finish {grade:.2f} s; "
                  f"RSS {rss[0]:.0f} -> {rss[-1]:.0f} MB (max {max(rss):.0f}); log {log.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    main()
