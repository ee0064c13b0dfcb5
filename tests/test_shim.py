"""atlas_kit/shim.py is the one place the package imports another package's private names: each must still be
where the shim looks for it (this test fails when a new release moves one), and nothing else may reach into one."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import atlas_kit
from atlas_kit import shim

PKG = Path(atlas_kit.__file__).parent
_PRIVATE = re.compile(r"^\s*(?:from|import)\s+(?!\.|atlas_kit\.)([\w.]*\._\w*)", re.MULTILINE)  # ours are ours


@pytest.mark.parametrize("name", sorted(shim.PRIVATE_NAMES))
def test_each_private_name_is_still_where_the_shim_looks(name: str) -> None:
    module = shim.PRIVATE_NAMES[name]
    pytest.importorskip(module.split(".")[0])  # inspect_ai is an extra (Python 3.11+)
    found = shim.private(name)
    assert found is not None, f"{module}.{name} moved: find its new home and update atlas_kit/shim.py"
    assert found is getattr(importlib.import_module(module), name)


def test_the_shim_falls_back_when_a_name_is_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(shim.PRIVATE_NAMES, "tool_error_content", "anthropic.no_such_module")
    assert shim.tool_error_content(RuntimeError("boom")) == "RuntimeError('boom')"  # what the runner always sent
    monkeypatch.setitem(shim.PRIVATE_NAMES, "PrerequisiteError", "inspect_ai.no_such_module")
    assert shim.PrerequisiteError is Exception


def test_the_runner_s_rendering_comes_through_the_shim() -> None:
    rendered = shim.tool_error_content(ValueError("no order matches"))
    assert rendered == "ValueError('no order matches')"


# Private imports the other helpers' modules still hold (issue 28): each should move into shim.py.
_NOT_YET = {"bridges/mcp/stdio.py"}


def test_no_module_but_the_shim_imports_another_package_s_private_module() -> None:
    found = [f"{path.relative_to(PKG)}: {m.group(1)}" for path in PKG.rglob("*.py")
             if path.relative_to(PKG).as_posix() not in _NOT_YET | {"shim.py"}
             for m in _PRIVATE.finditer(path.read_text())]
    assert not found, found
