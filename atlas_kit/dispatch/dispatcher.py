"""The dispatcher: runs one assistant message's `tool_use` blocks and never raises for what a tool or a model does
(a tool's exit() and GeneratorExit included); only control flow meant to pass (KeyboardInterrupt, asyncio's
CancelledError, another BaseException that is not an error) leaves it as it came.

Exactly one `tool_result` per issued id, in order. Transient failures are retried
here, not by the model; a repeated (tool, args, error) triple is reported as a loop
break for the agent loop to act on. Taught in chapters 06 and 09.
"""
from __future__ import annotations

import copy
import inspect
import traceback
from dataclasses import dataclass, field
from typing import Iterable, Protocol, cast

from ..contract.arguments import ArgumentProblem, check_arguments
from ..contract.errors import Branch, ErrorCode, Next, ToolError, ToolFailure, retry_changed, stop, tool_error
from ..types.sets import JSONObject
from ..types.api import ToolDefinition, ToolResultBlock
from ..types.walk import content_blocks
from .breaker import LoopBreak, LoopBreaker, canonical_args
from .styles import Failure, Style, contract_style, plain_argument, plain_crash, plain_unanswered
from .tool import CallContext, Tool
from .result_text import result_text
from .trace import Trace
from .transient import RetryPolicy, Transient
from ..types.exceptions import AtlasKitTypeError, AtlasKitValueError


class Dispatches(Protocol):
    """What the agent loop needs of a dispatcher: the tools' definitions, one `dispatch` per assistant message that
    never raises, and the trace. `Dispatcher` is one; chapter 13's dispatcher of your own (course/byo) is another."""

    @property
    def trace(self) -> Trace: ...

    def definitions(self) -> list[ToolDefinition]: ...

    def dispatch(self, content: Iterable[object]) -> DispatchResult: ...


class ToolDispatcher(Dispatches, Protocol):
    """A dispatcher whose tools can be read and replaced by name: what an Atlas session holds (`Dispatcher`, or
    chapter 13's YourDispatcher in its place)."""

    tools: dict[str, Tool]


@dataclass
class DispatchResult:
    """One tool_result per issued id, in order; the failures among them; and a loop break, if one tripped."""

    results: list[ToolResultBlock]
    failures: list[Failure] = field(default_factory=list)
    loop_break: LoopBreak | None = None


def argument_error(use_id: str, problem: ArgumentProblem) -> ToolError:
    """The contract error for arguments that fail the schema: names the argument, never the value.

    When no one argument can be named (one the tool does not take, input that is not an object), `next` is
    retry_changed with no `argument` (naming a non-argument such as "input" would send the model after it) and its
    `say` tells what to send instead.
    """
    try:
        nxt = (retry_changed(problem.argument, "Fix that argument and call again.") if problem.argument
               else Next(Branch.RETRY_CHANGED, problem.say))
        return tool_error(use_id, ErrorCode.INVALID_ARGUMENT, problem.message, next=nxt)
    except AtlasKitValueError:  # a name the builder will not write (accountId, order-id, a long list): say less
        return tool_error(use_id, ErrorCode.INVALID_ARGUMENT, _ARGUMENTS_WRONG,
                          next=Next(Branch.RETRY_CHANGED, "Send the arguments the tool's input schema asks for."))


_ARGUMENTS_WRONG = "The arguments do not match the tool's input schema; check each against its description."


def crash_error(use_id: str, exc: BaseException, *, side_effect: bool | None = None,
                hands_over: bool = False, audience: str = "the user") -> ToolError:
    """The contract error for an unexpected exception: a neutral message, the traceback only in `detail`.

    `side_effect`: whether the tool changes anything. True or None (not known) words the outcome as unknown,
    since a change may have been made before the exception; only False says the request was not completed.
    `hands_over`: the tool passes the case to a person, so a person is not what can be offered.
    `audience`: who the agent answers, as `say` names them ("the user"; Atlas: "the customer").
    """
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    unsure = side_effect is not False
    message = ("The tool failed unexpectedly, so the request may or may not have been applied." if unsure else
               "The tool failed unexpectedly and the request was not completed.")
    say = _handed_over(unsure, audience) if hands_over else (
        f"tell {audience} you could not confirm whether it went through, and offer escalation." if unsure else
        f"tell {audience} it could not be done and offer escalation.")
    return tool_error(use_id, ErrorCode.UPSTREAM_UNAVAILABLE, message, next=stop(f"Do not call it again; {say}"),
                      detail=tb)


def _handed_over(unsure: bool, audience: str) -> str:
    """When the tool that failed is the one that passes the case to a person (Tool.hands_over), a person is not on
    offer: what to tell `audience` instead, when a change may have been made (unsure) and when it was not."""
    return (f"tell {audience} you could not confirm whether it reached a person, and ask them to write again later "
            "if they hear nothing." if unsure else
            f"tell {audience} it could not be passed to a person right now, and ask them to write again later.")


class Dispatcher:
    """Runs tool calls for one conversation. Keep one per run: the loop breaker counts across turns."""

    def __init__(
        self,
        tools: Iterable[Tool],
        *,
        retry: RetryPolicy | None = None,
        trace: Trace | None = None,
        style: Style = contract_style,
        loop_threshold: int = 2,
        break_loops: bool = True,
        run_id: str = "run",
        audience: str = "the user",
    ) -> None:
        given: object = tools
        if isinstance(given, (str, bytes)) or not hasattr(given, "__iter__"):
            raise AtlasKitTypeError(f"Dispatcher takes a list of Tool objects; got {type(tools).__name__}.")
        if not callable(style):
            raise AtlasKitTypeError(f"style must be a style function such as contract_style; got {style!r} (for a "
                                    f"style by name, use atlas.style_named({style!r})).")
        if not isinstance(audience, str) or not audience.strip():
            raise AtlasKitTypeError(f"audience names who the agent answers, such as 'the user'; got {audience!r}.")
        if isinstance(loop_threshold, bool) or not isinstance(loop_threshold, int):
            raise AtlasKitTypeError(f"loop_threshold must be a whole number of 2 or more; got {loop_threshold!r}.")
        self.tools: dict[str, Tool] = {}
        for tool in tools:
            if not isinstance(tool, Tool):
                raise AtlasKitTypeError(f"tools must hold Tool objects; got {type(tool).__name__}. Wrap the callable in Tool(...).")
            if tool.name in self.tools:
                raise AtlasKitValueError(f"Two tools are named {tool.name!r}; tool names must be unique.")
            self.tools[tool.name] = tool
        if loop_threshold < 2:
            raise AtlasKitValueError("loop_threshold must be at least 2: one failure is not yet a repetition.")
        self.retry = retry or RetryPolicy()
        self.trace = trace if trace is not None else Trace()
        self.style, self.loop_threshold, self.break_loops, self.run_id = style, loop_threshold, break_loops, run_id
        self.audience = audience.strip()
        self._breaker = LoopBreaker(threshold=loop_threshold)

    def definitions(self) -> list[ToolDefinition]:
        """Every tool's definition, for the request's `tools`."""
        return [t.definition() for t in self.tools.values()]

    def dispatch(self, content: Iterable[object]) -> DispatchResult:
        """Answer every `tool_use` block in `content` (dicts or SDK objects); never raises (see the module)."""
        out = DispatchResult(results=[])
        answered: set[str] = set()
        try:
            blocks = list(content_blocks(content))
        except _CRASHES as exc:  # content that cannot be read (an SDK-like block whose dump raises): no id to answer
            self.trace.add("unanswerable_block", tool_use_id=f"<unreadable content: {type(exc).__name__}>")
            return out
        for block in blocks:
            if block["type"] != "tool_use":
                continue
            use_id = block.get("id")
            if not isinstance(use_id, str) or not use_id or use_id in answered:
                self.trace.add("unanswerable_block", tool_use_id=repr(use_id)[:80])
                continue
            answered.add(use_id)
            name, args = block.get("name"), block.get("input")
            try:
                result, failure = self._call(use_id, name, args)
            except _CRASHES as exc:  # a bug in the dispatcher itself still yields one result
                tool = self.tools.get(name) if isinstance(name, str) else None
                failure = self._internal(use_id, str(name), exc, side_effect=tool.side_effect if tool else None,
                                         hands_over=tool.hands_over if tool else False)
                result = contract_style(failure)
            out.results.append(result)
            if failure is not None:
                out.failures.append(failure)
                brk = self._count(failure, args)
                if brk is not None and out.loop_break is None:
                    out.loop_break = brk
        return out

    def _call(self, use_id: str, name: object, args: object) -> tuple[ToolResultBlock, Failure | None]:
        tool = self.tools.get(name) if isinstance(name, str) else None
        self.trace.add("call", tool_use_id=use_id, tool=name if tool else "<unknown>", args=canonical_args(args)[:2000])
        if tool is None:
            return self._fail("<unknown>", self._unknown(use_id), raw=f"KeyError: no tool named {name!r}",
                              plain="No tool has that name.")
        problem = check_arguments(tool.input_schema, args)
        if problem is not None:
            given = isinstance(args, dict) and problem.argument in args
            return self._fail(tool.name, argument_error(use_id, problem), raw=problem.raw,
                              plain=plain_argument(problem.argument, given=given))
        return self._run(tool, use_id, cast(JSONObject, args))  # the schema check passed: args is an object

    def _unknown(self, use_id: str) -> ToolError:
        """A call to a tool that does not exist: the tools listed when the builder can write them all (a long list,
        or a name it will not write, is left to the request's own tools)."""
        nxt = retry_changed("name", "Call one of the listed tools instead.")
        try:
            return tool_error(use_id, ErrorCode.INVALID_ARGUMENT, "No tool has that name; the tools available are: "
                              f"{', '.join(sorted(self.tools))}.", next=nxt)
        except AtlasKitValueError:
            return tool_error(use_id, ErrorCode.INVALID_ARGUMENT, "No tool has that name; call one of the tools this "
                              "request lists.", next=nxt)

    def _run(self, tool: Tool, use_id: str, args: JSONObject) -> tuple[ToolResultBlock, Failure | None]:
        key = f"{self.run_id}:{use_id}" if tool.side_effect else None
        attempt = 0
        while True:
            attempt += 1
            try:  # each attempt gets its own copy: a handler that changes its arguments changes no retry, no history
                value = tool.handler(_copied(args), CallContext(use_id, attempt, key))
                if inspect.isawaitable(value):
                    _close(value)
                    raise AtlasKitTypeError(f"the handler of {tool.name} returned an awaitable; a Tool's handler is "
                                            "a plain function (the dispatcher does not await)")
            except ToolFailure as exc:
                err = tool_error(use_id, exc.code, exc.message, next=exc.next, detail=exc.detail)
                return self._fail(tool.name, err, raw=exc.raw or exc.message, plain=exc.plain)
            except (Transient, TimeoutError) as exc:
                raw = exc.raw if isinstance(exc, Transient) else f"TimeoutError: {exc}" if str(exc) else "TimeoutError"
                after = exc.retry_after if isinstance(exc, Transient) else None
                wait = self.retry.delay(attempt, after) if attempt < self.retry.attempts else None
                self.trace.add("transient", tool_use_id=use_id, tool=tool.name, attempt=attempt, raw=raw, wait=wait)
                if wait is None:
                    return self._gave_up(tool, use_id, attempt, raw)
                self.retry.sleep(wait)
                continue
            except _CRASHES as exc:
                failure = self._internal(use_id, tool.name, exc, side_effect=tool.side_effect,
                                         hands_over=tool.hands_over)
                return self.style(failure), failure
            self.trace.add("result", tool_use_id=use_id, tool=tool.name, attempt=attempt)
            return {"type": "tool_result", "tool_use_id": use_id, "content": result_text(value)}, None

    def _gave_up(self, tool: Tool, use_id: str, attempts: int, raw: str) -> tuple[ToolResultBlock, Failure]:
        # A lost reply may follow a change that was made: for a side effect, the outcome is unknown, never "not done".
        if tool.side_effect:
            message = (f"The {tool.name} service is not responding right now. The request may or may not have been "
                       "applied; do not repeat it.")
        else:
            message = f"The {tool.name} service is not responding right now."
        handed, who = _handed_over(tool.side_effect, self.audience), self.audience
        say = (handed[:1].upper() + handed[1:] if tool.hands_over else
               f"Tell {who} you could not confirm whether it went through, and offer to escalate to a person."
               if tool.side_effect else f"Tell {who} it could not be done now, and offer to escalate to a person.")
        err = tool_error(use_id, ErrorCode.UPSTREAM_UNAVAILABLE, message, next=stop(say),
                         detail=f"gave up after {attempts} attempt(s): {raw}")
        return self._fail(tool.name, err, raw=raw, plain=plain_unanswered(side_effect=tool.side_effect))

    def _internal(self, use_id: str, name: str, exc: BaseException, *, side_effect: bool | None,
                  hands_over: bool = False) -> Failure:
        err = crash_error(use_id, exc, side_effect=side_effect, hands_over=hands_over, audience=self.audience)
        tb = err.detail or ""
        self.trace.add("error", tool_use_id=use_id, tool=name, code=err.code.value, branch=Branch.STOP.value,
                       detail=tb, crashed=True)
        return Failure(name, err, tb, plain_crash(side_effect=side_effect))

    def _fail(self, name: str, err: ToolError, *, raw: str,
              plain: str | None = None) -> tuple[ToolResultBlock, Failure]:
        self.trace.add("error", tool_use_id=err.tool_use_id, tool=name, code=err.code.value,
                       branch=err.next.branch.value if err.next else None, detail=err.detail or raw)
        failure = Failure(name, err, raw, plain)
        return self.style(failure), failure

    def _count(self, failure: Failure, args: object) -> LoopBreak | None:
        brk = self._breaker.count(failure.tool, args, failure.error.code)
        if brk is None:
            return None
        self.trace.add("loop_detected", tool=brk.tool, args_key=brk.args_key, code=brk.error, count=brk.count,
                       acted=self.break_loops)
        return brk if self.break_loops else None


# What a tool (or a bug of ours) raising is a crash of: any error, and exit() or a stray GeneratorExit. Other
# BaseExceptions are control flow meant to pass (KeyboardInterrupt, asyncio's CancelledError, a caller's timeout),
# so they leave the dispatcher as they came.
_CRASHES: tuple[type[BaseException], ...] = (Exception, SystemExit, GeneratorExit)


_FLAT = (str, int, float, bool, type(None))


def _copied(args: JSONObject) -> JSONObject:
    if all(type(v) in _FLAT for v in args.values()):  # the usual call: a dict copy is a whole copy
        return dict(args)
    try:
        return copy.deepcopy(args)
    except Exception:  # noqa: BLE001 - arguments that cannot be copied are passed as they are
        return args


def _close(value: object) -> None:
    close = getattr(value, "close", None)
    if callable(close):
        close()  # a coroutine never awaited is closed, not left to warn
