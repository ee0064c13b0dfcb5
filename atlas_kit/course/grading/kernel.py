"""A confined Jupyter kernel for one learner's notebook: no key, no network, a limit on every cell.

The kernel's environment has every key-like variable removed and the proxies and ANTHROPIC_BASE_URL
pointed at a closed loopback port. Where bubblewrap works it runs in a sandbox (sandbox.py: its own folder the only
writable place, the grader's folders hidden, no network, its own PID namespace); else, on Linux, in a network
namespace of its own (unshare), where it can still read and write what the grader can. A cell past its limit is
interrupted; one that ignores that is killed.
"""
from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from queue import Empty
from time import monotonic
from typing import Any, Iterator, Literal

from ...types.exceptions import AtlasKitError
from ...models.env import KEY_ENV, MODEL_ENV
from ...models.standin.model import OFFLINE_MODEL
from .records import Isolation
from .sandbox import Sandbox, bwrap_works

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|^ANTHROPIC_", re.IGNORECASE)
_PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@dataclass(frozen=True)
class Confinement:
    """How every kernel of a grading run starts: its environment and its command prefix."""

    env: dict[str, str]
    prefix: tuple[str, ...]  # without a sandbox
    isolation: Isolation
    secrets: tuple[str, ...]  # the values removed from the environment, to redact should one surface anyway
    sandbox: Sandbox | None = None

    def command(self, folder: Path) -> tuple[str, ...]:
        """The prefix of the kernel's command when it runs in `folder`."""
        return self.sandbox.prefix(folder) if self.sandbox is not None else self.prefix


@contextmanager
def confinement(base: dict[str, str] | None = None, *, namespace: bool = True, sandbox: bool = True,
                hide: tuple[Path, ...] = ()) -> Iterator[Confinement]:
    """A confinement for the length of a run; a bound, never-listening socket keeps its dead port closed.

    `sandbox`: use bubblewrap where it works, hiding `hide` (the submissions, the output folder) too."""
    base = dict(os.environ if base is None else base)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as dead:
        dead.bind(("127.0.0.1", 0))  # bound but not listening: connections are refused, and no one else can take it
        nowhere = f"http://127.0.0.1:{dead.getsockname()[1]}"
        secrets = tuple(sorted({v for k, v in base.items() if _SECRET_NAME.search(k) and len(v) >= 8}))
        env = {k: v for k, v in base.items() if not _SECRET_NAME.search(k) and k not in ("NO_PROXY", "no_proxy")}
        env.update({name: nowhere for name in _PROXIES})
        env.update({"ANTHROPIC_BASE_URL": nowhere, MODEL_ENV: OFFLINE_MODEL, "MPLBACKEND": "Agg"})
        env.pop(KEY_ENV, None)  # already gone by its name; said here too because it is the one that matters most
        if sandbox and bwrap_works():
            yield Confinement(env, (), "sandbox", secrets, Sandbox.hiding(*hide))
            return
        prefix = _netns_prefix() if namespace else ()
        yield Confinement(env, prefix, "network namespace" if prefix else "environment only", secrets)


@lru_cache(maxsize=1)
def _netns_prefix() -> tuple[str, ...]:
    """A command prefix that runs a program with no network (Linux user namespaces), or () where none works."""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return ()
    for prefix in (("unshare", "--map-current-user", "--net", "--"), ("unshare", "--map-root-user", "--net", "--")):
        try:
            done = subprocess.run([*prefix, sys.executable, "-c", "pass"], capture_output=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    return ()


@dataclass(frozen=True)
class CellOutcome:
    kind: Literal["ok", "error", "interrupted", "killed", "died"]
    ename: str = ""
    evalue: str = ""


class KernelStartError(AtlasKitError, RuntimeError):
    """The kernel did not start: the grader's problem, not the learner's."""


class Kernel:
    """`async with Kernel(folder, confinement) as k: await k.run(code, limit=5)`; the kernel is killed on exit."""

    def __init__(self, folder: Path, confined: Confinement, *, grace: float = 3.0, startup: float = 90.0) -> None:
        self.folder, self.confined, self.grace, self.startup = folder, confined, grace, startup
        self.km: Any = None
        self.kc: Any = None
        self._drain: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Kernel:
        from jupyter_client.manager import AsyncKernelManager

        prefix = self.confined.command(self.folder)

        class Confined(AsyncKernelManager):
            def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
                return [*prefix, *super().format_kernel_cmd(extra_arguments)]

        # ipc: unix sockets in the folder, which reach a kernel in a network namespace where TCP cannot.
        self.km = Confined(kernel_name="python3", transport="ipc", connection_file=str(self.folder / "kernel.json"))
        if self.confined.sandbox is not None:  # a signal to bwrap would not reach the kernel in its own session
            self.km.kernel_spec.interrupt_mode = "message"
        try:
            await self.km.start_kernel(env=dict(self.confined.env), cwd=str(self.folder), stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, extra_arguments=["--HistoryManager.hist_file=:memory:"])
            self.kc = self.km.client()
            self.kc.start_channels()
            await self.kc.wait_for_ready(timeout=self.startup)
        except Exception as err:
            await self.__aexit__(None, None, None)
            raise KernelStartError(f"the kernel did not start ({type(err).__name__}: {err})") from err
        self._drain = asyncio.ensure_future(self._discard_output())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._drain is not None:
            self._drain.cancel()
        if self.kc is not None:
            self.kc.stop_channels()
        if self.km is not None:
            await self.kill()  # also removes its connection file and sockets

    async def _discard_output(self) -> None:
        # Outputs are not kept (they may echo anything); reading them keeps a chatty cell from filling the queue.
        while True:
            await self.kc.get_iopub_msg()

    async def run(self, code: str, *, limit: float) -> CellOutcome:
        """Execute `code`; past `limit` seconds interrupt it, and kill the kernel if it does not stop."""
        if limit <= 0:
            await self.kill()
            return CellOutcome("killed")
        msg_id = self.kc.execute(code, store_history=False, allow_stdin=False, stop_on_error=False)
        end = monotonic() + limit
        while True:
            reply = await self._reply(msg_id, min(0.5, max(0.01, end - monotonic())))
            if reply is not None:
                return reply
            if not await self.km.is_alive():
                return CellOutcome("died")
            if monotonic() >= end:
                break
        await self.km.interrupt_kernel()
        reply = await self._reply(msg_id, self.grace)
        if reply is not None and reply.kind == "error" and reply.ename == "KeyboardInterrupt":
            return CellOutcome("interrupted")
        if reply is not None:
            return reply  # it finished on its own just as the limit passed
        await self.kill()
        return CellOutcome("killed")

    async def _reply(self, msg_id: str, wait: float) -> CellOutcome | None:
        end = monotonic() + wait
        while True:
            try:
                msg = await self.kc.get_shell_msg(timeout=max(0.01, end - monotonic()))
            except Empty:
                return None
            if msg["parent_header"].get("msg_id") == msg_id:
                content = msg["content"]
                if content.get("status") == "ok":
                    return CellOutcome("ok")
                return CellOutcome("error", str(content.get("ename", "")), str(content.get("evalue", "")))
            if monotonic() >= end:
                return None

    async def kill(self) -> None:
        if self.km is not None and self.km.has_kernel:
            await self.km.shutdown_kernel(now=True)
