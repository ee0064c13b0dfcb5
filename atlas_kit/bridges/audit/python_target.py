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
import threading
import time
from concurrent.futures import Future, TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar, Union

import anyio
from anthropic.lib.tools import BetaAsyncFunctionTool, BetaFunctionTool

from ...dispatch.dispatcher import Dispatcher
from ...dispatch.transient import RetryPolicy
from ...dispatch.tool import Tool
from ...shim import tool_error_content
from ..tool_runner import ContractAsyncFunctionTool, ContractFunctionTool, Conversation
from ...types.sets import JSONObject
from ...types.walk import result_text
from .targets import ConnectFailure, Reply, ToolInfo

_T = TypeVar("_T")
PyTool = Union[Tool, BetaFunctionTool[Any], BetaAsyncFunctionTool[Any]]  # the SDK types its tools by function


def _in_daemon(work: Callable[..., _T], *args: object) -> Future[_T]:
    """`work(*args)` on a daemon thread: a tool (or an import) that never returns cannot keep the process from
    exiting once the audit is done, as a pool's worker thread would (Python joins those at exit)."""
    future: Future[_T] = Future()

    def run() -> None:
        try:
            future.set_result(work(*args))
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too: the caller judges them
            future.set_exception(exc)

    threading.Thread(target=run, name="atlas-kit-audit", daemon=True).start()
    return future


async def _finished(future: Future[_T]) -> _T:
    while not future.done():  # the audit's own timeout (anyio.fail_after) cancels this wait, not the thread
        await anyio.sleep(0.005)
    return future.result()


def load_tools(spec: str, *, timeout: float = 60.0) -> list[PyTool]:
    """The tools `module:attr` names: a list or tuple of them, or one. The current folder is importable. An import
    that takes longer than `timeout` seconds, or that exits, is one line."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConnectFailure(f"--python {spec}: write it as module:attr, e.g. mytools:TOOLS (a list of tools).")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = _in_daemon(importlib.import_module, module_name).result(timeout=timeout)
    except FutureTimeout:
        raise ConnectFailure(f"--python {spec}: importing {module_name} did not finish within {timeout:g} s; does "
                             "it wait for something at import? (raise --connect-timeout if it is only slow)") from None
    except ImportError as err:
        raise ConnectFailure(f"--python {spec}: cannot import {module_name} ({err.msg}); run from the folder that "
                             "holds it, or install it.") from None
    except BaseException as err:  # noqa: BLE001 - the user's module raised (or exited) while importing
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
    content = tool_error_content(exc)  # the SDK's own rendering; it exports no public name for it (atlas_kit/shim.py)
    if isinstance(content, str):
        return content
    return result_text(list(content) if isinstance(content, Iterable) else content)


class PythonTarget:
    """The tools of `module:attr`, called in this process; a sync tool runs on a worker thread under the timeout."""

    def __init__(self, spec: str, *, connect_timeout: float = 60.0) -> None:
        self.label, self.connect_timeout, self.notes = spec, connect_timeout, list[str]()
        self.network = "not blocked: Python tools run in this process"
        self.tools = {_name(t): t for t in load_tools(spec, timeout=connect_timeout)}

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
        except (SystemExit, KeyboardInterrupt) as exc:  # in an agent, this ends the process that runs the tool
            return Reply("invalid", f"the tool raised {type(exc).__name__}, which ends the process that calls it",
                         None, time.monotonic() - start)
        return Reply("result", text, is_error, time.monotonic() - start)

    async def _answer(self, tool: PyTool, arguments: JSONObject) -> tuple[str, bool]:
        if isinstance(tool, Tool):  # a fresh Dispatcher per call: no loop breaker carried between cases
            dispatcher = Dispatcher([tool], retry=RetryPolicy(sleep=lambda _: None), break_loops=False)
            use = {"type": "tool_use", "id": "toolu_audit", "name": tool.name, "input": arguments}
            block = (await _finished(_in_daemon(dispatcher.dispatch, [use]))).results[0]
            return result_text(block["content"]), bool(block.get("is_error"))
        if isinstance(tool, (ContractFunctionTool, ContractAsyncFunctionTool)):
            tool = Conversation().bind(tool)[0]  # a conversation of its own per call, as a fresh run would have
        try:
            if isinstance(tool, BetaAsyncFunctionTool):
                value = await tool.call(arguments)
            else:
                value = await _finished(_in_daemon(tool.call, arguments))
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:  # noqa: BLE001 - a tool's failure is exactly what is audited
            return _rendered(exc), True
        return (value if isinstance(value, str) else json.dumps(value, default=str)), False


def _name(tool: PyTool) -> str:
    return tool.name
