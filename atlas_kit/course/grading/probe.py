"""The grader's own code inside a learner's kernel: a network guard before their first cell (take.py comes after).

These functions are never imported by the kernel: their source is sent as a cell after the
learner's code has run, so nothing the notebook defined or patched beforehand can stand in for them.
"""
from __future__ import annotations

import inspect
from typing import Callable


def cell(function: Callable[..., object], *args: object, answers: bool = False) -> str:
    """A cell that runs `function(*args)` (and the notebook's namespace, with `answers`) and leaves no name behind.

    The function is executed in a namespace of its own, so a learner's `list = [...]` or `def eval(...)`
    cannot change a name it uses; `import builtins` does not look names up in the notebook's namespace.
    """
    call = ", ".join([*(repr(a) for a in args), *(["_atlas_grader_builtins.globals()"] if answers else [])])
    return ("import builtins as _atlas_grader_builtins\n"
            "_atlas_grader_ns = {'__builtins__': _atlas_grader_builtins, '__name__': 'atlas_grader'}\n"
            f"_atlas_grader_builtins.exec({inspect.getsource(function)!r}, _atlas_grader_ns)\n"
            "try:\n"
            f"    _atlas_grader_ns[{function.__name__!r}]({call})\n"
            "finally:\n"
            "    del _atlas_grader_builtins, _atlas_grader_ns\n")


def guard_network(log_path: str) -> None:
    """Refuse, and log, every socket connection and name lookup that would leave the machine.

    An audit hook cannot be removed once added, so the learner's cells run under it; it does not see
    subprocesses or C code that opens its own sockets (the network namespace, where there is one, does).
    """
    import sys

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event in ("socket.connect", "socket.sendto"):
            address = args[-1]
            host, port = (address[0], address[1]) if isinstance(address, tuple) and len(address) >= 2 else (None, None)
        elif event == "socket.getaddrinfo":
            host, port = args[0], args[1]
        else:
            return
        if isinstance(host, bytes):
            host = host.decode("ascii", "replace")
        if host is None or str(host) in ("", "localhost", "::1") or str(host).startswith("127."):
            return
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(f"{host}:{port}\n")
        raise PermissionError(f"network access is blocked while this notebook is graded ({host}:{port})")

    sys.addaudithook(hook)
