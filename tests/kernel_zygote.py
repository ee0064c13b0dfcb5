"""A warm parent for the suite's notebook kernels: it imports once what every kernel imports, then forks.

About 64 of the suite's notebook runs start a kernel, and each spent about 1.5 s of CPU importing the
`anthropic` SDK and IPython before its first cell. This process imports them once; each kernel is a fork
of it, which then starts ipykernel as `python -m ipykernel_launcher -f FILE` would, in the launcher's
folder, with the launcher's environment and standard streams.

What a fork shares with its parent, and how that is kept honest:
- Only third-party modules are preloaded, never `atlas_kit` or `ipykernel.kernelapp`: each notebook
  imports the package fresh, so an import-time mistake in it shows in every run.
- A module can read the environment when it is imported. The parent records every variable its imports
  read; a kernel whose environment differs from the parent's in any of them, or in one the interpreter reads
  as it starts (PYTHON*, the locale, TZ), is refused and its launcher starts a cold kernel instead.
- Forks of one parent share its string-hash seed; it is still random for each test session.

Run as `python tests/kernel_zygote.py SOCKET`: it binds the Unix socket SOCKET at once, imports PRELOAD when the
first request comes, and serves forks until its stdin closes (the pytest process that started it has gone), then
kills the kernels it still has. One parent serves every pytest process of a run (conftest.py).
`tests/kernel_launch.py` is the kernelspec's command that asks for a fork; the root conftest.py starts this.
Nothing here is used by the package or the course: a learner's kernel is always a plain one.
"""
from __future__ import annotations

import gc
import json
import os
import select
import selectors
import signal
import socket
import struct
import sys
from dataclasses import dataclass

# ipykernel.debugger (debugpy, about 0.1 s) is imported by every kernel as it starts; jsonschema (about 1 s: a
# URI grammar its format checks build on import) and mcp by nine notebooks (chapters 03, 04, 08, 10 and 15 among them).
# numpy and matplotlib's figure and Agg modules (about 0.45 s) by the eight chapters that draw a chart. Of these only
# numpy starts a thread (OpenBLAS's pool, which re-forms in a fork as it does under multiprocessing). matplotlib reads
# MPLBACKEND on import, which ipykernel sets as it starts: see MPLBACKEND below. pyplot, matplotlib_inline and
# ipywidgets are left out: on import they hook into the running IPython shell, and a parent has none.
PRELOAD = ("anthropic", "httpx", "zmq", "tornado.ioloop", "jupyter_client.session", "IPython.core.interactiveshell",
           "ipykernel.ipkernel", "ipykernel.debugger", "jsonschema", "mcp.server", "mcp.client.stdio", "numpy",
           "matplotlib.figure", "matplotlib.backends.backend_agg")
# What ipykernel sets before a kernel's first cell when the variable is unset (kernelapp.init_kernel). The parent
# sets it the same way before its imports, so matplotlib reads in a fork what it reads in a cold kernel.
MPLBACKEND = "module://matplotlib_inline.backend_inline"
STARTUP_PREFIXES = ("PYTHON", "LC_")
STARTUP_NAMES = ("LANG", "LANGUAGE", "TZ")
MAX_REQUEST = 1 << 20  # a request is argv, cwd and the environment; a megabyte is far more than any of them


@dataclass
class Job:
    """What a forked child becomes: a kernel with these arguments, in this folder, with this environment."""
    argv: list[str]
    cwd: str
    env: dict[str, str]


@dataclass(frozen=True)
class Preloaded:
    """What importing PRELOAD did to the environment: the variables it read, and those it set (debugpy sets
    PYDEVD_USE_FRAME_EVAL), with the environment as it was before, which a kernel's is compared with."""
    read: frozenset[str]
    wrote: dict[str, str]
    before: dict[str, str]


def preload() -> Preloaded:
    """Import PRELOAD, watching what the imports read from the environment and what they set in it."""
    read: set[str] = set()
    before = dict(os.environ)
    environ_class = type(os.environ)
    original = environ_class.__getitem__

    def spy(self: os._Environ[str], key: str) -> str:
        read.add(os.fsdecode(key))  # os.environb shares the class: a bytes key names the same variable
        return original(self, key)

    environ_class.__getitem__ = spy  # type: ignore[method-assign]
    try:
        if "matplotlib" in {name.partition(".")[0] for name in PRELOAD} and not os.environ.get("MPLBACKEND"):
            os.environ["MPLBACKEND"] = MPLBACKEND  # read as ipykernel reads it: a kernel that sets its own differs
        for name in PRELOAD:
            __import__(name)
    finally:
        environ_class.__getitem__ = original  # type: ignore[method-assign]
    wrote = {k: v for k, v in os.environ.items() if before.get(k) != v}
    return Preloaded(frozenset(read), wrote, before)


def differs(done: Preloaded, env: dict[str, str]) -> bool:
    """Would a fresh interpreter with `env` have started, or imported PRELOAD, differently from this one?

    The interpreter itself reads the PYTHON* variables, the locale and TZ as it starts. The comparison is with the
    environment before the imports: what they set themselves, a cold kernel's imports set too (become_kernel).
    """
    base = done.before
    keys = done.read | {k for k in (*base, *env) if k.startswith(STARTUP_PREFIXES) or k in STARTUP_NAMES}
    return any(base.get(k) != env.get(k) for k in keys)


def _read_request(conn: socket.socket) -> tuple[Job, list[int]]:
    """One request: a 4-byte length, then JSON, with the launcher's stdin, stdout and stderr attached."""
    head, fds, _flags, _addr = socket.recv_fds(conn, 4, 3)
    if len(head) != 4 or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ValueError("a request needs a length and three file descriptors")
    (size,) = struct.unpack("!I", head)
    body = b""
    while len(body) < min(size, MAX_REQUEST):
        chunk = conn.recv(size - len(body))
        if not chunk:
            break
        body += chunk
    if size > MAX_REQUEST or len(body) != size:
        for fd in fds:
            os.close(fd)
        raise ValueError("a request's body is too large or cut short")
    data = json.loads(body)
    return Job(list(data["argv"]), str(data["cwd"]), {str(k): str(v) for k, v in data["env"].items()}), fds


def _status(waitstatus: int) -> str:
    """How a kernel ended, as the launcher repeats it: `exit N` or `signal N`."""
    if os.WIFSIGNALED(waitstatus):
        return f"signal {os.WTERMSIG(waitstatus)}"
    return f"exit {os.waitstatus_to_exitcode(waitstatus)}"


def serve(path: str) -> tuple[Job, list[int], dict[str, str]] | None:
    """Serve forks on `path`. Returns only in a forked child, with the job it must run; None when told to stop."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)  # bound before the imports: a launcher that comes early waits instead of going cold
    # The imports wait for the first request (or its launcher's end of file): a run with no notebook pays nothing.
    while True:
        ready, _, _ = select.select([listener, sys.stdin], [], [])
        if listener in ready:
            break
        if not os.read(sys.stdin.fileno(), 1 << 12):
            return None
    done = preload()
    gc.collect()
    gc.freeze()  # the preloaded objects stay out of every fork's collections, so their pages stay shared
    wake_r, wake_w = socket.socketpair()
    wake_w.setblocking(False)
    signal.set_wakeup_fd(wake_w.fileno())
    signal.signal(signal.SIGCHLD, lambda *_: None)  # only to wake the selector through the wakeup fd
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, "accept")
    sel.register(wake_r, selectors.EVENT_READ, "child")
    sel.register(sys.stdin, selectors.EVENT_READ, "parent")
    kids: dict[int, socket.socket] = {}  # kernel pid -> its launcher's connection
    zygote = os.getpid()
    try:
        while True:
            for key, _ in sel.select():
                if key.data == "parent":
                    if not os.read(sys.stdin.fileno(), 1 << 12):
                        return None
                elif key.data == "child":
                    wake_r.recv(1 << 12)
                    _reap(kids, sel)
                elif key.data == "accept":
                    conn, _ = listener.accept()
                    conn.settimeout(5)
                    try:
                        job, fds = _read_request(conn)
                    except (OSError, ValueError, KeyError, TypeError):
                        conn.close()
                        continue
                    if differs(done, job.env):
                        for fd in fds:
                            os.close(fd)
                        _say(conn, "cold")
                        conn.close()
                        continue
                    pid = os.fork()
                    if pid == 0:
                        signal.set_wakeup_fd(-1)
                        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                        for other in [listener, wake_r, wake_w, conn, *kids.values()]:
                            other.close()
                        sel.close()
                        return job, fds, done.wrote
                    for fd in fds:
                        os.close(fd)
                    conn.settimeout(None)
                    _say(conn, str(pid))
                    kids[pid] = conn
                    sel.register(conn, selectors.EVENT_READ, pid)
                elif isinstance(key.fileobj, socket.socket) and not key.fileobj.recv(64):
                    # a launcher sends nothing after its request: end of file means it is gone
                    sel.unregister(key.fileobj)
                    _kill(key.data)  # reaped like any other kernel; its status goes nowhere
    finally:
        if os.getpid() == zygote:  # a forked kernel leaves through here too, and must not kill its siblings
            for pid in list(kids):
                _kill(pid)


def _say(conn: socket.socket, line: str) -> None:
    try:
        conn.sendall(f"{line}\n".encode())
    except OSError:
        pass  # the launcher has gone; its kernel, if any, is killed when its connection reads as closed


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(kids: dict[int, socket.socket], sel: selectors.BaseSelector) -> None:
    """Collect every kernel that has ended and tell its launcher how."""
    while True:
        try:
            pid, waitstatus = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = kids.pop(pid, None)
        if conn is None:
            continue
        try:
            sel.unregister(conn)
        except (KeyError, ValueError):
            pass  # already unregistered when its launcher went away
        _say(conn, _status(waitstatus))
        conn.close()


def become_kernel(job: Job, fds: list[int], wrote: dict[str, str]) -> None:
    """In the forked child: take the launcher's streams, folder and environment, then run ipykernel."""
    import importlib.util

    os.setsid()  # as jupyter_client starts a kernel: a terminal's Ctrl-C is not the kernel's
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(job.cwd)
    os.environ.clear()
    os.environ.update(job.env)
    os.environ.update(wrote)  # what the preloaded imports set: a cold kernel's own imports would set it too
    launcher = importlib.util.find_spec("ipykernel_launcher")
    sys.argv = [launcher.origin if launcher and launcher.origin else "ipykernel_launcher", *job.argv]
    from ipykernel import kernelapp  # imported here, after the environment is the kernel's: it reads JPY_PARENT_PID

    kernelapp.launch_new_instance()


if __name__ == "__main__":
    del sys.path[0]  # this folder: a kernel must not see the tests' modules, as ipykernel_launcher removes its own
    forked = serve(sys.argv[1])
    if forked is not None:
        become_kernel(*forked)
