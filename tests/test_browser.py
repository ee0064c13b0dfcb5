"""Chapter 02 in a real browser: JupyterLab on loopback, headless Debian Chromium, Playwright.

It runs every cell, then checks that a chart image and the playground widget render, that the
widget answers a click, and that no cell shows an error. Skipped where Chromium or Playwright
is missing (a newcomer's laptop); CI installs both and sets ATLAS_REQUIRE_BROWSER=1, which
turns the skip into a failure.
"""
from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = "02_four_branches.ipynb"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOT = ROOT / "results" / "browser" / "02_four_branches.png"
# Keep Chromium off the network: this machine has none, and it would try at every start.
OFFLINE_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
                 "--disable-domain-reliability", "--metrics-recording-only", "--no-pings"]


def _need(condition: bool, why: str) -> None:
    if not condition:
        if os.environ.get("ATLAS_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser test required but {why}")
        pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settings(folder: Path) -> Path:
    """Lab settings for a test: every cell in the DOM (no windowing), and no news prompt."""
    for name, body in {"notebook-extension/tracker": '{"windowingMode": "none"}',
                       "apputils-extension/notification": '{"fetchNews": "false"}'}.items():
        path = folder / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    return folder


@pytest.fixture()
def lab(tmp_path):
    """JupyterLab serving a copy of chapter 02 with its outputs cleared; stopped and cleaned up after."""
    nb = nbformat.read(ROOT / "chapters" / CHAPTER, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, tmp_path / CHAPTER)
    token = secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["JUPYTER_CONFIG_DIR"] = str(tmp_path / "config")
    env["JUPYTERLAB_SETTINGS_DIR"] = str(_settings(tmp_path / "settings"))
    server, base = _serve(tmp_path, token, env)
    try:
        yield base, token
    finally:
        _stop(server)


def _serve(root: Path, token: str, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """Start JupyterLab on a free loopback port; return it once it answers. The port is free when chosen, but another
    process can take it before the server binds it; with port_retries=0 the server then exits (rather than move to the
    next port, where nobody would look for it) and a new port is tried."""
    deadline = time.monotonic() + 60
    for _ in range(3):
        port = _free_port()
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
               "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.news_url=None",
               "--allow-root"]
        server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                                  start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        while server.poll() is None and time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                return server, base
            except OSError:
                time.sleep(0.5)
        _stop(server)
        if time.monotonic() >= deadline:
            break
    raise RuntimeError("JupyterLab did not start on loopback within 60 s (three ports tried)")


def _stop(server: subprocess.Popen) -> None:
    """End JupyterLab and its kernels (one process group), politely first."""
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        try:
            os.killpg(server.pid, sig)
        except ProcessLookupError:
            break
        try:
            server.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue


def test_chapter_02_runs_in_jupyterlab_and_the_playground_answers_a_click(lab):
    _need(Path(CHROMIUM).exists(), f"Debian's chromium is not installed ({CHROMIUM})")
    try:
        from playwright import sync_api
    except ImportError:
        _need(False, "Playwright for Python is not installed (pip install playwright)")
    base, token = lab
    started = time.perf_counter()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=OFFLINE_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/lab/tree/{CHAPTER}?token={token}")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
            # The kernel is connected once the status bar reports it idle; running before that is lost.
            page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=90_000)
            code_cells = page.locator(".jp-Notebook .jp-CodeCell").count()
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
            page.wait_for_function(
                """n => { const ps = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
                          return ps.length === n && ps.every(p => /\\[\\d+\\]/.test(p.textContent)); }""",
                arg=code_cells, timeout=60_000)
            image = page.locator(".jp-OutputArea-output img").first
            image.wait_for(state="visible", timeout=30_000)
            assert image.evaluate("img => img.naturalWidth") > 100
            button = page.locator(".jp-OutputArea-output .widget-button", has_text="Run").last
            button.wait_for(state="visible", timeout=30_000)
            result = page.locator(".jp-OutputArea-output .widget-html").last
            before = result.inner_text()
            button.click()
            deadline = time.monotonic() + 30
            while result.inner_text() == before and time.monotonic() < deadline:
                time.sleep(0.2)
            after = result.inner_text()
            assert after != before and "stop" in after.lower()
            errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']").count()
            assert errors == 0
            SHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOT), full_page=False)
        except Exception:
            SHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOT.with_name("02_four_branches.failed.png")))
            raise
        finally:
            browser.close()
    print(f"\nbrowser test: {time.perf_counter() - started:.1f} s; screenshot: {SHOT.relative_to(ROOT)}")
