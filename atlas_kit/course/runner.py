"""The course's own plumbing: the setup line every chapter prints, its parameters, and running chapters.

Chapters call `setup()` in their first code cell (and `listed()` on a list parameter papermill may pass
as a JSON string); `atlas-kit course` calls `run_course()`. Kernels start quietly (`kernel_config`).
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator
from ..types.exceptions import AtlasKitValueError

if TYPE_CHECKING:  # imported on use: papermill loads this module for its engine, and must not pay for models
    from nbformat import NotebookNode
    from traitlets.config import Config

    from ..models.choose import ModelChoice

ROOT = Path(__file__).resolve().parents[2]  # the repository: atlas_kit/course/runner.py -> ../..


def setup(*, model: str | None = None, seed: int = 0, max_cost_usd: float | None = None, **sizes: object) -> ModelChoice:
    """Choose the model for a chapter and say, in the output, which one runs and with what parameters.

    max_cost_usd: refuse, for the rest of this kernel, any live sweep whose high estimate is above it
    (guard.set_max_cost_usd); None leaves the limit in force ($1 unless set).
    """
    from ..experiments.guard import set_max_cost_usd
    from ..models.choose import choose_model

    if max_cost_usd is not None:
        set_max_cost_usd(max_cost_usd)
        sizes = {"max_cost_usd": max_cost_usd, **sizes}
    choice = choose_model(model, seed=seed)
    print(choice.describe())
    print("Parameters: " + ", ".join(f"{k}={v!r}" for k, v in {"seed": seed, **sizes}.items()))
    if choice.mode == "live" and max_cost_usd is not None:
        print(f"Live sweeps are refused above ${max_cost_usd:,.2f} (max_cost_usd); replays and the stand-in cost $0.")
    return choice


def listed(value: object, *, name: str = "value") -> list[object]:
    """A list parameter as a list, whether it came as a list or as text (papermill's `-p` passes text).

    Accepts a list or tuple, a JSON list ('["raw", "contract"]') or comma-separated words ("raw,contract").
    """
    example = f'-p {name} \'["raw", "contract"]\' or -p {name} raw,contract'
    if isinstance(value, (list, tuple)):
        return list(value)
    if not isinstance(value, str) or not value.strip():
        raise AtlasKitValueError(f"{name} should be a list: pass it as {example}; got {value!r}.")
    text = value.strip()
    if text[0] in "[{":
        try:
            parsed = json.loads(text)
        except ValueError:
            raise AtlasKitValueError(f"{name}={value!r} is not valid JSON (it wants double quotes inside): "
                             f"pass it as {example}.") from None
        if not isinstance(parsed, list):
            raise AtlasKitValueError(f"{name} should be a list: pass it as {example}; got {value!r}.")
        return parsed
    return [part.strip() for part in text.split(",") if part.strip()]


def kernel_config() -> Config:
    """Kernel-manager settings that keep code and outputs off plain TCP, so ipykernel has nothing to warn about.

    CurveZMQ encryption when jupyter_client and pyzmq offer it (the kernelspec must declare it, as
    ipykernel's does); otherwise IPC sockets on POSIX; otherwise the defaults.
    """
    import zmq
    from jupyter_client.manager import KernelManager
    from traitlets.config import Config

    if "transport_encryption" in KernelManager.class_trait_names() and zmq.has("curve"):
        return Config({"KernelManager": {"transport_encryption": "auto"}})
    if os.name == "posix":
        return Config({"KernelManager": {"transport": "ipc"}})
    return Config()


class PapermillEngine:
    """papermill's own nbclient engine, started with `kernel_config()`: `papermill --engine atlas ...`.

    Registered under the name "atlas" in pyproject.toml's `papermill.engine` entry points.
    """

    @classmethod
    def execute_notebook(cls, nb: NotebookNode, kernel_name: str, **kwargs: object) -> NotebookNode:
        """Run `nb` as papermill's nbclient engine does, with this package's kernel settings."""
        from papermill.engines import NBClientEngine

        kwargs.setdefault("config", kernel_config())
        done: NotebookNode = NBClientEngine.execute_notebook(nb, kernel_name, **kwargs)  # papermill ships no types
        return done

    @classmethod
    def nb_kernel_name(cls, nb: NotebookNode, name: str | None = None) -> str:
        """The kernel papermill starts for `nb`, as its nbclient engine chooses it."""
        from papermill.engines import NBClientEngine

        return str(NBClientEngine.nb_kernel_name(nb, name))

    @classmethod
    def nb_language(cls, nb: NotebookNode, language: str | None = None) -> str:
        """The notebook's language, as papermill's nbclient engine reads it."""
        from papermill.engines import NBClientEngine

        return str(NBClientEngine.nb_language(nb, language))


def chapters(folder: Path | None = None) -> list[Path]:
    """The chapter notebooks, in reading order."""
    return sorted((folder or ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))


@contextmanager
def _no_key() -> Iterator[None]:
    """An offline run: no kernel started inside sees ANTHROPIC_API_KEY; the key is back afterwards."""
    key = os.environ.pop("ANTHROPIC_API_KEY", None)
    try:
        yield
    finally:
        if key is not None:
            os.environ["ANTHROPIC_API_KEY"] = key


def _execute(path: Path, timeout: int) -> tuple[NotebookNode, float]:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=timeout, kernel_name="python3", config=kernel_config(),
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb, time.perf_counter() - start


def execute_offline(path: Path, *, timeout: int = 300) -> tuple[NotebookNode, float]:
    """Run one notebook top to bottom from its own folder with no API key; (notebook, seconds)."""
    with _no_key():
        return _execute(path, timeout)


def course_jobs() -> int:
    """Chapters run at once by default: one per core, at most 4 (a kernel spends part of its time waiting)."""
    return max(1, min(4, os.cpu_count() or 1))


def run_course(out: Path, *, folder: Path | None = None, timeout: int = 300,
               jobs: int | None = None) -> list[tuple[str, float]]:
    """Execute every chapter offline into `out`, `jobs` at a time (the stored notebooks are left untouched).

    Each chapter has its own kernel, so chapters run side by side; they are reported and returned in
    reading order, with each one's own seconds.
    """
    import nbformat

    found = chapters(folder)
    if not found:
        raise FileNotFoundError(f"No chapter notebooks found in {folder or ROOT / 'chapters'}; run from a checkout of the repo.")
    out.mkdir(parents=True, exist_ok=True)
    timings = []
    with _no_key(), ThreadPoolExecutor(max_workers=jobs or course_jobs()) as pool:
        for path, (nb, seconds) in zip(found, pool.map(lambda p: _execute(p, timeout), found)):
            nbformat.write(nb, out / path.name)
            timings.append((path.name, seconds))
            print(f"ran {path.name} in {seconds:.1f} s")
    return timings


def lab_command(notebook: Path | None = None, *, cwd: Path | None = None) -> str:
    """The command that opens `notebook` in JupyterLab, rooted at its repository so links between folders work.

    It names the Jupyter this Python runs: plain `jupyter` when that is the one on PATH (Binder, an
    activated venv), else its path. `jupyter lab FILE` alone would root the server at FILE's folder.
    """
    here = (cwd or Path.cwd()).absolute()
    notebook = (notebook or ROOT / "chapters" / "00_start_here.ipynb").absolute()
    bin_dir = Path(sys.executable).parent  # not resolved: a venv's python is a symlink out of the venv
    jupyter = bin_dir / ("jupyter.exe" if os.name == "nt" else "jupyter")
    on_path = shutil.which("jupyter")
    if on_path and jupyter.exists() and os.path.samefile(on_path, jupyter):
        program = "jupyter"
    elif jupyter.exists():
        program = shlex.quote(_shown(jupyter, here))
    else:
        program = f"{shlex.quote(_shown(Path(sys.executable), here))} -m jupyter"
    root, target = (shlex.quote(_shown(p, here)) for p in (notebook.parent.parent, notebook))
    return f"{program} lab --ServerApp.root_dir={root} {target}"


def closing_line(out: Path, *, folder: Path | None = None) -> str:
    """The last line of `atlas-kit course`: where the copies are, and how to open the first chapter.

    Inside a Jupyter server's terminal (Binder, JupyterLab) Lab is already running: say where to click.
    """
    first = (chapters(folder) or [ROOT / "chapters" / "00_start_here.ipynb"])[0]
    root = os.environ.get("JUPYTER_SERVER_ROOT")
    if os.environ.get("JUPYTER_SERVER_URL") and root:
        how = f"open {_shown(first, Path(root).absolute())} in this JupyterLab's file browser"
    else:
        how = lab_command(first)
    return f"Executed copies are in {out}/; to work through the course: {how}"


def _shown(path: Path, here: Path) -> str:
    """A path as a person at `here` would type it: relative when inside `here`, else absolute."""
    absolute = path.absolute()
    try:
        shown = absolute.relative_to(here).as_posix()
    except ValueError:
        return str(absolute)
    return shown if shown != "." else "."
