"""The suite's warm kernels (conftest.py, tests/kernel_zygote.py, tests/kernel_launch.py) behave as plain ones.

A kernel from the `atlas-test` kernelspec is a fork of the warm parent, yet it gets its launcher's folder and
environment, imports `atlas_kit` fresh, answers an interrupt, ends as its launcher reports, dies with its
launcher, and is started cold whenever the parent's imports read a variable its environment sets otherwise.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from jupyter_client.manager import KernelManager

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find a kernel's parent")
warm_only = pytest.mark.skipif(os.environ.get("ATLAS_COLD_KERNELS") == "1", reason="ATLAS_COLD_KERNELS=1: no warm parent")

PROBE = """
import json, os, sys
print(json.dumps({"pid": os.getpid(), "parent": open(f"/proc/{os.getppid()}/cmdline").read().split("\\0"),
                  "preloaded": "anthropic" in sys.modules, "ours": "atlas_kit" in sys.modules, "cwd": os.getcwd(),
                  "marker": os.environ.get("ATLAS_ZYGOTE_PROBE"), "sid": os.getsid(0) == os.getpid()}))
"""


def _start(kernel_name: str, cwd: Path, **env: str) -> tuple[KernelManager, object]:
    km = KernelManager(kernel_name=kernel_name)
    km.start_kernel(cwd=str(cwd), env={**os.environ, **env})
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def _outputs(kc, msg_id: str, timeout: float) -> list[dict]:
    """The iopub messages of request `msg_id`, up to the kernel going idle after it."""
    seen = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        seen.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return seen


def _run(kc, code: str, timeout: float = 30) -> tuple[str, dict]:
    """Run `code`; return what it printed and the execute reply's content."""
    import json

    msg_id = kc.execute(code)
    printed = [msg["content"]["text"] for msg in _outputs(kc, msg_id, timeout) if msg["msg_type"] == "stream"]
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"]["msg_id"] != msg_id:  # a late reply to one of wait_for_ready's kernel_info requests
        reply = kc.get_shell_msg(timeout=timeout)
    reply = reply["content"]
    text = "".join(printed)
    return (json.loads(text) if text.startswith("{") else text), reply


def _stop(km: KernelManager, kc) -> None:
    kc.stop_channels()
    if km.has_kernel:
        km.shutdown_kernel(now=True)


def _gone(pid: int, within: float = 10) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@warm_only
def test_a_kernel_is_a_fork_with_its_launchers_folder_and_environment(kernel_name, tmp_path):
    km, kc = _start(kernel_name, tmp_path, ATLAS_ZYGOTE_PROBE="seen")
    try:
        seen, reply = _run(kc, PROBE)
        assert reply["status"] == "ok"
        assert seen["pid"] != km.provisioner.pid  # not the launcher jupyter_client started: a fork
        assert any(part.endswith("kernel_zygote.py") for part in seen["parent"]), seen["parent"]
        assert seen["preloaded"] and not seen["ours"], "the SDK comes warm; atlas_kit is the notebook's own import"
        assert seen["cwd"] == str(tmp_path) and seen["marker"] == "seen" and seen["sid"]
    finally:
        _stop(km, kc)


@warm_only
def test_an_interrupt_reaches_the_forked_kernel(kernel_name, tmp_path):
    km, kc = _start(kernel_name, tmp_path)
    try:
        msg_id = kc.execute("import time; time.sleep(60)", stop_on_error=False)  # nothing after it is aborted
        time.sleep(0.5)
        started = time.monotonic()
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=20)
        while reply["parent_header"]["msg_id"] != msg_id:  # a late reply to one of wait_for_ready's kernel_info requests
            assert reply["msg_type"] == "kernel_info_reply", reply["msg_type"]
            reply = kc.get_shell_msg(timeout=20)
        assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
        assert time.monotonic() - started < 10
        _, after = _run(kc, "1 + 1")
        assert after["status"] == "ok", "the kernel goes on after an interrupt"
    finally:
        _stop(km, kc)


@warm_only
def test_the_launcher_exits_as_the_kernel_did_and_a_killed_launcher_takes_its_kernel(kernel_name, tmp_path):
    km, kc = _start(kernel_name, tmp_path)
    kc.execute("import os; os._exit(7)")
    launcher = km.provisioner.process
    assert launcher.wait(timeout=20) == 7
    _stop(km, kc)

    km, kc = _start(kernel_name, tmp_path)
    try:
        seen, _ = _run(kc, PROBE)
        km.provisioner.process.kill()  # SIGKILL: the launcher cannot pass this on; the parent must notice
        assert _gone(seen["pid"]), "a kernel outlived its launcher"
    finally:
        _stop(km, kc)


def test_an_environment_the_preloaded_imports_read_otherwise_gets_a_cold_kernel(kernel_name, tmp_path):
    km, kc = _start(kernel_name, tmp_path, ANTHROPIC_LOG="debug")  # the SDK reads ANTHROPIC_LOG on import
    try:
        seen, reply = _run(kc, PROBE)
        assert reply["status"] == "ok"
        assert seen["pid"] == km.provisioner.pid and not seen["preloaded"], "a cold kernel is the launcher itself"
    finally:
        _stop(km, kc)


def test_a_variable_read_through_environb_is_recorded_by_name_and_compared(tmp_path, monkeypatch):
    import kernel_zygote  # debugpy, among the preloaded, reads os.environb: bytes keys once crashed the parent

    (tmp_path / "reads_environb.py").write_text("import os\nos.environb.get(b'ATLAS_ZYGOTE_PROBE')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(kernel_zygote, "PRELOAD", ("reads_environb",))
    monkeypatch.setenv("ATLAS_ZYGOTE_PROBE", "1")
    monkeypatch.delitem(sys.modules, "reads_environb", raising=False)
    done = kernel_zygote.preload()
    assert "ATLAS_ZYGOTE_PROBE" in done.read and all(isinstance(name, str) for name in done.read)
    assert kernel_zygote.differs(done, {**os.environ, "ATLAS_ZYGOTE_PROBE": "2"})
    assert not kernel_zygote.differs(done, dict(os.environ))


def test_what_the_preloaded_imports_set_is_no_difference_and_every_kernel_gets_it(tmp_path, monkeypatch):
    import kernel_zygote

    (tmp_path / "sets_a_variable.py").write_text("import os\nos.environ['ATLAS_ZYGOTE_SET'] = 'NO'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(kernel_zygote, "PRELOAD", ("sets_a_variable",))
    monkeypatch.setenv("ATLAS_ZYGOTE_SET", "")
    monkeypatch.delenv("ATLAS_ZYGOTE_SET")  # absent now, and absent again after the test, whatever the import set
    monkeypatch.delitem(sys.modules, "sets_a_variable", raising=False)
    launched = dict(os.environ)  # a launcher's environment: it never had the variable
    done = kernel_zygote.preload()
    assert done.wrote == {"ATLAS_ZYGOTE_SET": "NO"} and "ATLAS_ZYGOTE_SET" not in done.before
    assert not kernel_zygote.differs(done, launched)  # set by the import, not by the kernel's environment


@warm_only
def test_a_forked_kernel_draws_inline_as_a_cold_one_does(kernel_name, tmp_path):
    """matplotlib is preloaded in the parent: its backend must still be the one ipykernel sets, hooked into the shell."""
    km, kc = _start(kernel_name, tmp_path)
    try:
        seen, _ = _run(kc, "import json, sys, matplotlib\nprint(json.dumps({'backend': matplotlib.get_backend(), "
                           "'preloaded': 'matplotlib.figure' in sys.modules}))")
        assert seen == {"backend": "module://matplotlib_inline.backend_inline", "preloaded": True}, seen
        msg_id = kc.execute("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]);")
        kinds = [kind for msg in _outputs(kc, msg_id, 30) if msg["msg_type"] == "display_data"
                 for kind in msg["content"]["data"]]
        assert "image/png" in kinds, kinds  # the figure shown after the cell, by the inline backend's hook
    finally:
        _stop(km, kc)
