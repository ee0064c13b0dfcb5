"""The real llama.cpp `llama-server` with a real model (Gemma 3 270M), as a test component.

scripts/local_server.py builds the server and assembles the model into a cache outside the repository (CI does it
before the suite); `serve(...)` starts it on a free loopback port with the flags a test asks for, waits on /health
and stops it. A test that needs it calls `need_server()` first: it skips with one line when the build is absent,
and fails instead under ATLAS_REQUIRE_LLAMA_SERVER=1 (CI sets it, as it does ATLAS_REQUIRE_REAL_SERVERS).
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import httpx2
import pytest

ROOT = Path(__file__).resolve().parent.parent
REQUIRE = "ATLAS_REQUIRE_LLAMA_SERVER"
TOOL_TEMPLATE = "Qwen-Qwen2.5-7B-Instruct.jinja"  # a template llama.cpp ships that can carry tools
MODEL_ALIAS = "gemma-3-270m"


def _builder():
    spec = importlib.util.spec_from_file_location("local_server", ROOT / "scripts" / "local_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_BUILD = _builder()
SERVER: Path = _BUILD.server_dir() / "bin" / "llama-server"
TEMPLATES: Path = _BUILD.server_dir() / "templates"
MODEL: Path = _BUILD.model_path()
BUILD = f"b{_BUILD.LLAMA_VERSION.split('.')[0]}"


def need_server() -> None:
    """Skip (or, under ATLAS_REQUIRE_LLAMA_SERVER=1, fail) when the server or the model has not been built."""
    if SERVER.is_file() and MODEL.is_file():
        return
    why = f"the real llama-server is not built ({SERVER} or {MODEL} missing): run python3 scripts/local_server.py"
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(why)
    pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(*, template: str | None = TOOL_TEMPLATE, context: int = 4096, extra: tuple[str, ...] = ()) -> Iterator[str]:
    """Run llama-server (with `--jinja`, this chat template from llama.cpp's own, or the model's fallback when
    None, and a `context`-token slot) and yield its base URL; it is stopped on the way out. One thread: beside the
    suite's other workers on two cores, two threads read a prompt at 69 tokens a second where one read 158."""
    need_server()
    for attempt in range(3):  # a port taken between choosing it and the server's bind: choose again
        port = _free_port()
        command = [str(SERVER), "-m", str(MODEL), "--host", "127.0.0.1", "--port", str(port), "--jinja",
                   "-c", str(context), "-np", "1", "-t", "1", "--alias", MODEL_ALIAS, "--no-webui", "--no-warmup", *extra]
        if template is not None:
            command += ["--chat-template-file", str(TEMPLATES / template)]
        log = open(os.devnull, "wb")
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            if _wait_healthy(process, url):
                yield url
                return
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.close()
    pytest.fail(f"llama-server did not become healthy on three ports: {' '.join(command)}")


def _wait_healthy(process: subprocess.Popen[bytes], url: str, *, within: float = 60.0) -> bool:
    """True once /health answers 200; False when the process ended first (a taken port)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        with contextlib.suppress(httpx2.HTTPError):
            if httpx2.get(f"{url}/health", timeout=2.0).status_code == 200:
                return True
        time.sleep(0.1)
    pytest.fail(f"llama-server at {url} did not answer /health within {within:.0f} s")
