"""Python tools as an audit target (`--python module:attr`): atlas_kit `Tool`s, `@contract_tool` functions, or the
SDK's own `@beta_tool` functions, each answered the way its runner answers the model.

A `Tool` runs through a fresh Dispatcher per call (its contract wording); a tool function's failure is rendered
by the SDK's tool runner (`repr(exc)` for `@beta_tool`, the contract body for `@contract_tool`). Chapters 08, 10.
"""
from __future__ import annotations

import importlib
import inspect
import json
import sys
import time
from pathlib import Path
from typing import Any, Iterable, Union

import anyio
import anyio.to_thread
from anthropic.lib.tools import BetaAsyncFunctionTool, BetaFunctionTool

from ...dispatch.dispatcher import Dispatcher
from ...dispatch.transient import RetryPolicy
from ...dispatch.tool import Tool
from ..shim import tool_error_content
from ..tool_runner import ContractAsyncFunctionTool, ContractFunctionTool, Conversation
from ...types import JSONObject, result_text
from .targets import ConnectFailure, Reply, ToolInfo

__all__ = ["PythonTarget", "load_tools"]

PyTool = Union[Tool, BetaFunctionTool[Any], BetaAsyncFunctionTool[Any]]  # the SDK types its tools by function


def load_tools(spec: str) -> list[PyTool]:
    """The tools `module:attr` names: a list or tuple of them, or one. The current folder is importable."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConnectFailure(f"--python {spec}: write it as module:attr, e.g. mytools:TOOLS (a list of tools).")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ConnectFailure(f"--python {spec}: cannot import {module_name} ({err.msg}); run from the folder that "
                             "holds it, or install it.") from None
    except Exception as err:  # noqa: BLE001 - the user's module raised while importing
        raise ConnectFailure(f"--python {spec}: importing {module_name} raised {type(err).__name__}; fix the module "
                             "so that it imports cleanly.") from None
    found = getattr(module, attr, None)
    if found is None:
        raise ConnectFailure(f"--python {spec}: {module_name} has no attribute {attr}.")
    tools = list(found) if isinstance(found, (list, tuple)) else [found]
    wrong = [type(t).__name__ for t in tools if not isinstance(t, (Tool, BetaFunctionTool, BetaAsyncFunctionTool))]
    if wrong or not tools:
        raise ConnectFailure(f"--python {spec}: holds {', '.join(wrong[:3]) or 'no tools'}; give a list of atlas_kit "
                             "Tools, @contract_tool or @beta_tool functions.")
    return tools


def _rendered(exc: BaseException) -> str:
    """What the SDK's tool runner sends the model for an exception a tool raised."""
    content = tool_error_content(exc)  # the SDK's own rendering; it exports no public name for it (bridges/shim.py)
    if isinstance(content, str):
        return content
    return result_text(list(content) if isinstance(content, Iterable) else content)


class PythonTarget:
    """The tools of `module:attr`, called in this process; a sync tool runs on a worker thread under the timeout."""

    def __init__(self, spec: str) -> None:
        self.label, self.connect_timeout = spec, 60.0
        self.tools = {_name(t): t for t in load_tools(spec)}

    async def __aenter__(self) -> PythonTarget:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def list_tools(self) -> list[ToolInfo]:
        infos = []
        for name, tool in self.tools.items():
            schema = dict(tool.input_schema)
            read_only = (not tool.side_effect) if isinstance(tool, Tool) else None
            infos.append(ToolInfo(name, tool.description or "", schema, read_only=read_only))
        return infos

    async def call(self, tool: str, arguments: JSONObject, *, timeout: float) -> Reply:
        target, start = self.tools[tool], time.monotonic()
        try:
            with anyio.fail_after(timeout):
                text, is_error = await self._answer(target, arguments)
        except TimeoutError:
            return Reply("timeout", "", None, time.monotonic() - start)
        return Reply("result", text, is_error, time.monotonic() - start)

    async def _answer(self, tool: PyTool, arguments: JSONObject) -> tuple[str, bool]:
        if isinstance(tool, Tool):  # a fresh Dispatcher per call: no loop breaker carried between cases
            dispatcher = Dispatcher([tool], retry=RetryPolicy(sleep=lambda _: None), break_loops=False)
            use = {"type": "tool_use", "id": "toolu_audit", "name": tool.name, "input": arguments}
            block = (await anyio.to_thread.run_sync(dispatcher.dispatch, [use], abandon_on_cancel=True)).results[0]
            return result_text(block["content"]), bool(block.get("is_error"))
        if isinstance(tool, (ContractFunctionTool, ContractAsyncFunctionTool)):
            tool = Conversation().bind(tool)[0]  # a conversation of its own per call, as a fresh run would have
        try:
            if isinstance(tool, BetaAsyncFunctionTool):
                value = await tool.call(arguments)
            else:
                value = await anyio.to_thread.run_sync(tool.call, arguments, abandon_on_cancel=True)
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:  # noqa: BLE001 - a tool's failure is exactly what is audited
            return _rendered(exc), True
        return (value if isinstance(value, str) else json.dumps(value, default=str)), False


def _name(tool: PyTool) -> str:
    return tool.name
