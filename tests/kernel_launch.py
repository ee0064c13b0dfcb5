"""The suite's kernelspec command: ask the warm parent (tests/kernel_zygote.py) for a kernel, and stand in for it.

jupyter_client starts this as it would `python -m ipykernel_launcher -f FILE`, in a new session. It sends
its arguments, folder, environment and standard streams to the parent named by $ATLAS_KERNEL_ZYGOTE, which
forks a kernel for them. Then it stands in for that kernel: a signal sent to it (interrupt, terminate)
is passed on, it exits as the kernel exited, and if it is killed the parent kills the kernel. With no
parent to ask, or when the parent refuses (see its docstring), it becomes a plain kernel. Standard library only, so it starts in milliseconds.
"""
import json
import os
import signal
import socket
import struct
import sys

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def cold() -> None:
    """No warm parent: replace this process with the kernel jupyter_client would have started."""
    os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *sys.argv[1:]])


def _forward(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass  # the kernel has just ended; its status is on the way


def main() -> None:
    path = os.environ.get("ATLAS_KERNEL_ZYGOTE", "")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        cold()
    body = json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    socket.send_fds(conn, [struct.pack("!I", len(body))], [0, 1, 2])
    conn.sendall(body)
    reader = conn.makefile("r")
    first = reader.readline().strip()
    if first == "cold":  # the parent's imports read a variable this kernel's environment sets otherwise
        cold()
    if not first.isdigit():
        sys.exit("kernel_launch: the warm parent refused the request")
    pid = int(first)
    for signum in FORWARDED:
        signal.signal(signum, lambda n, _frame: _forward(pid, n))
    how, _, number = reader.readline().strip().partition(" ")
    if not number.isdigit():
        sys.exit("kernel_launch: the warm parent went away before the kernel ended")
    if how == "signal":  # end the way the kernel ended, so jupyter_client reads the same status
        ended_by = int(number)
        signal.signal(ended_by, signal.SIG_DFL)
        os.kill(os.getpid(), ended_by)
    sys.exit(int(number) if how == "exit" else 1)


if __name__ == "__main__":
    main()
