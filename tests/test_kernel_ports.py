"""The suite's kernels take their ports from a block per pytest process, below the ephemeral range."""
from __future__ import annotations

import socket
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel
from jupyter_client.provisioning.local_provisioner import LocalPortCache

from tests import kernel_ports
from tests.kernel_ports import Ports, block, ephemeral_low, worker_index


def test_the_range_is_read_from_the_file(tmp_path: Path) -> None:
    good = tmp_path / "range"
    good.write_text("32768\t60999\n")
    assert ephemeral_low(good) == 32768
    bad = tmp_path / "bad"
    bad.write_text("not ports\n")
    assert ephemeral_low(bad) is None
    assert ephemeral_low(tmp_path / "missing") is None


def test_blocks_are_disjoint_and_below_the_range() -> None:
    blocks = [block(i, 32768) for i in range(kernel_ports.BLOCKS)]
    assert all(b is not None for b in blocks)
    seen: set[int] = set()
    for b in blocks:
        assert b is not None and b.start >= kernel_ports.FLOOR and b.stop <= 32768
        assert seen.isdisjoint(b)
        seen.update(b)
    assert block(kernel_ports.BLOCKS, 32768) is None  # more workers than blocks: left to jupyter_client
    assert block(0, kernel_ports.FLOOR + 100) is None  # a range that leaves no room below it


def test_worker_names_map_to_blocks() -> None:
    assert worker_index({}) == 0
    assert worker_index({"PYTEST_XDIST_WORKER": "gw0"}) == 1
    assert worker_index({"PYTEST_XDIST_WORKER": "gw11"}) == 12
    assert worker_index({"PYTEST_XDIST_WORKER": "elsewhere"}) == 0


def _held_port() -> tuple[socket.socket, int]:
    """A listener on a port inside the quiet region: something else holds it."""
    for port in range(kernel_ports.FLOOR + 5000, kernel_ports.FLOOR + 6000):
        sock = socket.socket()
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            sock.close()
            continue
        sock.listen()
        return sock, port
    pytest.skip("no free port to hold in the quiet region")


def test_a_port_held_elsewhere_or_handed_out_is_skipped_and_returned_ports_come_back() -> None:
    sock, held = _held_port()
    with sock:
        ports = Ports(range(held, held + 3), 0)
        first = ports.find_available_port("127.0.0.1")
        assert first == held + 1  # the held port is skipped
        second = ports.find_available_port("127.0.0.1")
        assert second == held + 2
        with pytest.raises(OSError, match="in use"):
            ports.find_available_port("127.0.0.1")  # one held, two handed out: none left, said so
        ports.return_port(first)
        assert ports.find_available_port("127.0.0.1") == first


def test_this_process_kernels_listen_in_its_block(kernel_name: str) -> None:
    low = ephemeral_low()
    if low is None:
        pytest.skip("no ephemeral range to stay below on this system")
    mine = block(worker_index(), low)
    assert mine is not None
    km, kc = start_new_kernel(kernel_name=kernel_name, startup_timeout=60)
    try:
        ports = [km.shell_port, km.iopub_port, km.stdin_port, km.hb_port, km.control_port]
        assert all(p in mine for p in ports), (ports, mine)
        assert len(set(ports)) == 5
        assert kc.execute_interactive("1 + 1", timeout=30)["content"]["status"] == "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert not set(ports) & getattr(LocalPortCache.instance().find_available_port, "__self__").used
