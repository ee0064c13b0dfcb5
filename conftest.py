"""Suite-wide: every notebook the tests run gets a kernel forked from a warm parent (tests/kernel_zygote.py).

A kernel's start-up was mostly importing the `anthropic` SDK and ipykernel, about 1.5 s of CPU each time,
and the suite starts about 64 of them. The controlling process writes a kernelspec, `atlas-test`, whose command
(tests/kernel_launch.py) asks the warm parent for a fork, and starts that one parent for itself and every xdist
worker (they inherit its environment); the parent imports only when the first kernel is asked for, so a run
with no notebook pays nothing for it. nbval (see addopts in pyproject.toml) and the papermill tests use this
kernelspec. With ATLAS_COLD_KERNELS=1 every kernel starts from scratch instead, as a learner's does. The grader (its kernels
run in a network namespace of their own), the browser test and the README's papermill command start their
own kernels and are always cold. The kernels of each pytest process take their ports from a block of its own,
below the range the system hands out at random (tests/kernel_ports.py).

Bytecode: where PYTHONDONTWRITEBYTECODE is set (this project's machines set it), every interpreter the suite
starts (three workers, about a hundred kernels and subprocesses) compiled the package's sources again, and each
worker re-rewrote the asserts of every test module: about 7 s of CPU per worker before its first test. The suite
lets Python write its bytecode as it does by default, beside the sources in `__pycache__` (ignored by git). In a
fresh clone the controlling process makes that bytecode once, before the workers start (tests/bytecode_warmup.py).
"""
from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest


def _cache_bytecode() -> None:
    """Let this process and every one it starts write bytecode, as Python does by default."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


_cache_bytecode()  # at import, before the test modules are collected and before any worker or kernel starts
KERNEL = "atlas-test"
TESTS = Path(__file__).resolve().parent / "tests"
_folder: list[Path] = []
_zygote: list[subprocess.Popen[bytes]] = []


# Scheduling only: with `--dist loadfile` each file runs whole on one worker, and xdist hands files out in order.
# Its default order (most tests first) left the few-test, long files (a class graded in a fixture, the chapters
# under papermill) to the end, one worker busy while the others idled. These start first, longest first (the class
# graded in a fixture, mostly waiting on its timeouts, a little later, where the others keep both cores busy); the
# rest keep their order. A file missing here, or one listed that is gone, changes no result.
SLOW_FIRST = ("tests/test_notebooks_later.py", "tests/test_notebooks.py", "tests/test_llama_server_real.py",
              "tests/test_grading_tamper.py",
              "tests/test_exercises.py", "tests/test_live_cli.py", "tests/test_browser.py", "tests/test_grading.py",
              "tests/test_inspect_task.py", "tests/test_judge_solutions.py", "tests/test_batch.py",
              "tests/test_mcp_hostile.py", "tests/test_audit_hostile.py", "tests/test_mcp_lifecycle.py",
              "tests/test_live_sweep.py", "tests/test_mcp_long_input.py", "tests/test_rendering.py",
              "tests/test_local_models.py", "tests/test_grading_answers.py")


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # xdist's own reordering (most tests first) would undo ours
        config.option.loadscopereorder = False
    from tests.kernel_ports import install

    install()  # this process's kernels listen where no connection takes its port at random (tests/kernel_ports.py)
    if hasattr(config, "workerinput"):  # a worker: the kernelspec and the warm parent are the controller's
        return
    from tests.bytecode_warmup import warm

    warm(config)  # before any worker starts
    folder = Path(tempfile.mkdtemp(prefix="atlas-kernels-"))
    spec = folder / "kernels" / KERNEL
    spec.mkdir(parents=True)
    from ipykernel.kernelspec import get_kernel_dict

    plain = get_kernel_dict()  # ipykernel's own spec for this interpreter; only the command changes
    assert plain["argv"][1:3] == ["-m", "ipykernel_launcher"], plain["argv"]
    argv = [sys.executable, "-S", str(TESTS / "kernel_launch.py"), *plain["argv"][3:]]
    spec.joinpath("kernel.json").write_text(json.dumps({**plain, "argv": argv}))
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(folder), os.environ.get("JUPYTER_PATH", "")) if p)
    _folder.append(folder)
    _start_warm_parent(folder / "zygote.sock")


def _start_warm_parent(socket_path: Path) -> None:
    """Start the one warm parent before any worker (they inherit ATLAS_KERNEL_ZYGOTE); not with ATLAS_COLD_KERNELS=1."""
    if os.environ.get("ATLAS_COLD_KERNELS") == "1":
        return
    zygote = subprocess.Popen([sys.executable, str(TESTS / "kernel_zygote.py"), str(socket_path)],
                              stdin=subprocess.PIPE, start_new_session=True)
    _zygote.append(zygote)
    deadline = time.monotonic() + 30
    while not socket_path.exists():  # bound at once, its imports wait for the first kernel: the interpreter's start
        if zygote.poll() is not None or time.monotonic() > deadline:
            return  # no warm parent: the launcher finds no socket and starts a cold kernel
        time.sleep(0.01)
    os.environ["ATLAS_KERNEL_ZYGOTE"] = str(socket_path)  # a launcher that comes before the imports end waits


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: the rest keep their order


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (every test item, the imported test modules) lives until the session ends: frozen out
    of the garbage collector's sight, each later collection walks only what the tests make (about 8% less CPU in a
    test process here; its kernels and subprocesses keep Python's defaults). Cycles the tests make are collected."""
    gc.collect()
    gc.freeze()


def pytest_unconfigure(config: pytest.Config) -> None:
    for zygote in _zygote:
        assert zygote.stdin is not None
        zygote.stdin.close()  # its signal to kill the kernels it still has and leave
        try:
            zygote.wait(timeout=10)
        except subprocess.TimeoutExpired:
            zygote.kill()
            zygote.wait()
    _zygote.clear()
    for folder in _folder:
        shutil.rmtree(folder, ignore_errors=True)
    _folder.clear()


@pytest.fixture(scope="session")
def kernel_name() -> str:
    """The kernelspec for a test's own notebook runs (papermill, nbclient); see this module's docstring."""
    return KERNEL
