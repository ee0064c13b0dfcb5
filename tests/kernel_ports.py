"""The suite's notebook kernels listen on ports below the kernel's ephemeral range, a block for each pytest process.

jupyter_client picks a kernel's five ports by binding port 0, noting the number and closing the socket; the
kernel binds them a moment later, and a port taken in between kills it ("Kernel died before replying to
kernel_info"). The suite makes thousands of local TCP connections (fake APIs, MCP servers, JupyterLab), and each
takes its local port from that same ephemeral range, so once in a while one lands on a kernel's port. Below the
range (net.ipv4.ip_local_port_range) nothing is handed out at random: ports there are taken only by a process that
names them. Each pytest process takes its own block, starting at a point set by its pid, so two sessions on one
machine rarely meet, and a port is tried by binding it, as the kernel will, before it is handed out.

Only the kernels of the pytest processes are affected (nbval's, papermill's, the tests' own); the package's
kernels, and those a learner starts, keep jupyter_client's defaults. Where the range cannot be read (not
Linux) nothing changes.
"""
from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
FLOOR = 10000  # below this sit the well-known and registered ports services are configured with
BLOCKS = 16  # the controlling process and up to 15 workers


def ephemeral_low(path: Path = RANGE_FILE) -> int | None:
    """The lowest port the kernel hands out at random, or None if it cannot be read."""
    try:
        low, _high = (int(part) for part in path.read_text().split())
    except (OSError, ValueError):
        return None
    return low


def block(worker: int, low: int) -> range | None:
    """The ports of pytest process `worker` (0 for the controller, n + 1 for xdist's gw<n>), or None if none fit."""
    size = (low - FLOOR) // BLOCKS
    if size < 64 or not 0 <= worker < BLOCKS:
        return None
    start = FLOOR + worker * size
    return range(start, start + size)


def worker_index(env: dict[str, str] | os._Environ[str] = os.environ) -> int:
    """0 for the controlling process, n + 1 for xdist's worker gw<n>."""
    name = env.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) + 1 if name.startswith("gw") and name[2:].isdigit() else 0


def free(ip: str, port: int) -> bool:
    """Can a listener bind `port` now? The kernel's sockets set SO_REUSEADDR, so this one does too."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((ip, port))
        except OSError as err:
            if err.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


class Ports:
    """Hands out the ports of one block in turn, skipping those in use here and those something else holds."""

    def __init__(self, ports: range, start: int) -> None:
        self.ports, self.next = ports, start % len(ports)
        self.used: set[int] = set()

    def find_available_port(self, ip: str) -> int:
        for _ in range(len(self.ports)):
            port = self.ports[self.next]
            self.next = (self.next + 1) % len(self.ports)
            if port not in self.used and free(ip, port):
                self.used.add(port)
                return port
        raise OSError(errno.EADDRINUSE, f"every port in {self.ports.start}-{self.ports.stop - 1} is in use")

    def return_port(self, port: int) -> None:
        self.used.discard(port)


def install() -> Ports | None:
    """Give this process's kernels ports from its block (see the module's docstring); None if it changed nothing."""
    low = ephemeral_low()
    ports = block(worker_index(), low) if low is not None else None
    if ports is None:
        return None
    from jupyter_client.provisioning.local_provisioner import LocalPortCache

    chosen = Ports(ports, os.getpid() * 7919)
    cache = LocalPortCache.instance()  # where jupyter_client's local provisioner asks for each port
    cache.find_available_port = chosen.find_available_port  # type: ignore[method-assign]
    cache.return_port = chosen.return_port  # type: ignore[method-assign]
    return chosen
