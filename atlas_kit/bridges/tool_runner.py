"""The contract inside the SDK's own tool runner: `@contract_tool` where you would write `@beta_tool`.

A failure reaches the model as the SDK's `ToolError` carrying a contract body; exception text goes to the
trace and the `atlas_kit.tool_runner` logger only (redacted, tracebacks included); a repeated (tool, args,
code) triple answers `stop`. It does not retry transient failures (the Dispatcher does). Taught in chapter 08.
"""
from __future__ import annotations

import copy
import inspect
import logging
import threading
import traceback
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Coroutine, Mapping, TypeVar, Union, cast, overload

import pydantic
from anthropic import beta_async_tool, beta_tool
from anthropic.lib.tools import BetaAsyncFunctionTool, BetaFunctionTool, BetaFunctionToolResultType
from anthropic.lib.tools import ToolError as SDKToolError

from ..contract.arguments import ArgumentProblem, check_arguments
from ._pydantic_arguments import ran_inside, refused_argument
from ..contract.redaction import redact
from ..dispatch.dispatcher import argument_error, crash_error
from ..dispatch.breaker import LoopBreak, LoopBreaker, args_key, canonical_args
from ..contract.errors import Branch, ErrorCode, Next, ToolError, ToolFailure, stop, tool_error
from ..contract.values import say
from ..contract.defaults import DEFAULT_NEXT
from ..dispatch.trace import Trace
from ..types.walk import result_text
from ..types.exceptions import AtlasKitTypeError

if TYPE_CHECKING:
    from typing import Iterable, Literal, TypedDict

    from anthropic.types.beta import BetaCacheControlEphemeralParam
    from anthropic.types.tool_param import InputSchema
    from pydantic import BaseModel
    from typing_extensions import Unpack

    class _ToolOptions(TypedDict, total=False):
        """The keyword options `beta_tool` and `beta_async_tool` take, as the SDK types them."""

        name: str | None
        description: str | None
        input_schema: InputSchema | type[BaseModel] | None
        defer_loading: bool | None
        cache_control: BetaCacheControlEphemeralParam | None
        allowed_callers: list[Literal["direct", "code_execution_20250825", "code_execution_20260120",
                                      "code_execution_20260521"]] | None
        eager_input_streaming: bool | None
        input_examples: Iterable[dict[str, object]] | None
        strict: bool | None

log = logging.getLogger("atlas_kit.tool_runner")
log.addHandler(logging.NullHandler())  # a library stays quiet until the application configures logging

# The breaker's answer is always limit_exceeded + stop: a repeat ceiling is a limit, and every code allows stop
# except invalid_argument. The code that repeated is kept in the trace and in `Conversation.loop_break`.
BREAKER_MESSAGE = ("This exact call has been made {count} times and fails the same way each time, "
                   "so it will not be run again in this conversation.")
# The runner hands nothing over, so the model is not told to say it did.
_BREAKER_NEXT = stop("Do not call it again with these arguments; tell the user it could not be done.")

# The SDK's runner never tells a tool its tool_use id; the body the model reads does not include one.
_NO_ID = "toolu_from_sdk_runner"

# What the SDK's beta_tool and beta_async_tool wrap (its own bounds, written with its public result type).
ToolFunction = Callable[..., BetaFunctionToolResultType]
AsyncToolFunction = Callable[..., Coroutine[object, object, BetaFunctionToolResultType]]


@dataclass(kw_only=True, eq=False)
class Conversation:
    """One conversation's loop breaker and trace. Bind tools to it with `bind`, one Conversation per run."""

    loop_threshold: int = 2
    trace: Trace = field(default_factory=Trace)
    logger: logging.Logger = field(default=log, repr=False)
    loop_break: LoopBreak | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._breaker = LoopBreaker(threshold=self.loop_threshold)
        self._tripped: dict[tuple[str, str], ErrorCode] = {}  # (tool, args_key) -> the code that repeated
        self._lock = threading.Lock()

    @property
    def breaker_fired(self) -> bool:
        """True once any (tool, args, code) triple repeated in this conversation."""
        return self.loop_break is not None

    def bind(self, *tools: ContractTool) -> list[ContractTool]:
        """Copies of `tools` that count failures in this conversation: `tools=conv.bind(get_invoice, ...)`."""
        bound: list[ContractTool] = []
        for tool in tools:
            if not isinstance(tool, (ContractFunctionTool, ContractAsyncFunctionTool)):
                raise AtlasKitTypeError(
                    f"bind() takes tools made with @contract_tool or @contract_async_tool, got {type(tool).__name__}; "
                    "pass other tools to tool_runner beside them: tools=[*conv.bind(a, b), other]."
                )
            twin = copy.copy(tool)
            twin.conversation = self
            bound.append(twin)
        return bound

    # --- used by the tools ------------------------------------------------------

    def _refusal(self, tool: str, args: object) -> str | None:
        """The breaker's answer when this (tool, args) already tripped it: the call is not run again."""
        with self._lock:
            code = self._tripped.get((tool, args_key(args)))
            if code is None:
                return None
            brk = self._breaker.count(tool, args, code)
        self.trace.add("refused", tool=tool, args_key=args_key(args), code=code.value, count=brk.count if brk else None)
        return _breaker_content(brk.count if brk else self.loop_threshold)

    def _failed(self, tool: str, args: object, err: ToolError, *, detail: str, crashed: bool = False) -> str:
        """Record one failure and return the content the model reads: the error's body, or the breaker's."""
        self.trace.add("error", tool=tool, code=err.code.value, branch=err.next.branch.value if err.next else None,
                       detail=detail, crashed=crashed)
        with self._lock:
            brk = self._breaker.count(tool, args, err.code)
            if brk is not None:
                self._tripped[(tool, brk.args_key)] = brk.error
                self.loop_break = self.loop_break or brk
        if brk is None:
            return result_text(err.block()["content"])
        self.trace.add("loop_detected", tool=tool, args_key=brk.args_key, code=brk.error, count=brk.count, acted=True)
        _log(self.logger, logging.WARNING, "loop breaker: %s failed with %s %d times on the same arguments", tool,
             brk.error, brk.count)
        return _breaker_content(brk.count)


def _log(logger: logging.Logger, level: int, text: str, *args: object, exc: BaseException | None = None) -> None:
    """Log one line, and `exc`'s traceback, through `redact`: a tool's exception text may hold a key or a password,
    and the handler or formatter an application sets cannot be trusted to hide them. The traceback is part of the
    message (the record carries no exc_info), so no formatter can print it unredacted."""
    if not logger.isEnabledFor(level):
        return
    line = text % args if args else text
    if exc is not None:
        line += "\n" + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip()
    logger.log(level, "%s", redact(line), stacklevel=2)


def _breaker_content(count: int) -> str:
    err = tool_error(_NO_ID, ErrorCode.LIMIT_EXCEEDED, say(BREAKER_MESSAGE, count=count), next=_BREAKER_NEXT)
    return result_text(err.block()["content"])


class ContractFunctionTool(BetaFunctionTool[ToolFunction]):
    """The SDK's `BetaFunctionTool`, failing with the contract. Made by `@contract_tool`."""

    conversation: Conversation

    def call(self, input: object) -> BetaFunctionToolResultType:
        _before(self, input)
        try:
            result = super().call(input)
        except SDKToolError:
            raise  # the author chose this content; it is sent as written
        except Exception as exc:
            raise _failure(self, input, exc) from None
        self.conversation.trace.add("result", tool=self.name)
        return result


class ContractAsyncFunctionTool(BetaAsyncFunctionTool[AsyncToolFunction]):
    """The SDK's `BetaAsyncFunctionTool`, failing with the contract. Made by `@contract_async_tool`."""

    conversation: Conversation

    async def call(self, input: object) -> BetaFunctionToolResultType:
        _before(self, input)
        try:
            result = await super().call(input)
        except SDKToolError:
            raise
        except Exception as exc:
            raise _failure(self, input, exc) from None
        self.conversation.trace.add("result", tool=self.name)
        return result


ContractTool = Union[ContractFunctionTool, ContractAsyncFunctionTool]

# Both flavours share these two steps. They are functions, not a mixin class, because `_adopt` swaps the class
# of the object beta_tool built, and Python allows that only for a direct subclass.


def _before(tool: ContractTool, input: object) -> None:
    """Trace the call; refuse it when the breaker already tripped on it or when the input is not an object."""
    tool.conversation.trace.add("call", tool=tool.name, args=canonical_args(input)[:2000])
    refusal = tool.conversation._refusal(tool.name, input)
    if refusal is not None:
        raise SDKToolError(refusal)
    if not isinstance(input, dict):
        problem = check_arguments(dict(tool.input_schema), input)
        assert problem is not None  # check_arguments refuses anything but a JSON object
        raise SDKToolError(_argument_failure(tool, input, problem))


def _failure(tool: ContractTool, input: object, exc: Exception) -> SDKToolError:
    """The SDK's ToolError whose content is the contract body for `exc`."""
    conv = tool.conversation
    if isinstance(exc, ToolFailure):
        err = tool_error(_NO_ID, exc.code, exc.message, next=exc.next or DEFAULT_NEXT[exc.code], detail=exc.detail)
        _log(conv.logger, logging.INFO, "tool %s failed with %s", tool.name, err.code.value)
        detail = "\n".join(t for t in (exc.detail, exc.raw) if t) or exc.message
        return SDKToolError(conv._failed(tool.name, input, err, detail=detail))
    cause = exc.__cause__
    if isinstance(exc, ValueError) and isinstance(cause, pydantic.ValidationError) and not ran_inside(exc, tool.func):
        problem = check_arguments(dict(tool.input_schema), input) or refused_argument(cause, tool.input_schema)
        return SDKToolError(_argument_failure(tool, input, replace(problem, raw=str(cause))))
    err = crash_error(_NO_ID, exc)
    _log(conv.logger, logging.ERROR, "tool %s raised %s; the model was told only that it failed", tool.name,
         type(exc).__name__, exc=exc)
    return SDKToolError(conv._failed(tool.name, input, err, detail=err.detail or "", crashed=True))


def _argument_failure(tool: ContractTool, input: object, problem: ArgumentProblem) -> str:
    try:
        err = argument_error(_NO_ID, problem)
    except ValueError:  # an argument name or schema text the contract refuses: name no argument
        err = argument_error(_NO_ID, ArgumentProblem(
            None, "The arguments do not match the tool's input_schema; check each argument and call again."))
    _log(tool.conversation.logger, logging.INFO, "tool %s: invalid arguments (%s)", tool.name,
         problem.argument or "input")
    return tool.conversation._failed(tool.name, input, err, detail=problem.raw or problem.message)


@overload
def contract_tool(func: ToolFunction, *, conversation: Conversation | None = None,
                  **options: Unpack[_ToolOptions]) -> ContractFunctionTool: ...
@overload
def contract_tool(*, conversation: Conversation | None = None,
                  **options: Unpack[_ToolOptions]) -> Callable[[ToolFunction], ContractFunctionTool]: ...
def contract_tool(func: ToolFunction | None = None, *, conversation: Conversation | None = None,
                  **options: Unpack[_ToolOptions]
                  ) -> ContractFunctionTool | Callable[[ToolFunction], ContractFunctionTool]:
    """`@beta_tool` with the error contract. `options` are beta_tool's (name=, description=, input_schema=, ...).

    Without `conversation` the tool keeps a Conversation of its own; use `Conversation().bind(tool)` per run.
    """
    def make(fn: ToolFunction) -> ContractFunctionTool:
        if inspect.iscoroutinefunction(fn):
            raise AtlasKitTypeError(f"{fn.__name__} is async: decorate it with @contract_async_tool instead of @contract_tool.")
        return _adopt(beta_tool(fn, **options), ContractFunctionTool, conversation)

    return make(func) if func is not None else make


@overload
def contract_async_tool(func: AsyncToolFunction, *, conversation: Conversation | None = None,
                        **options: Unpack[_ToolOptions]) -> ContractAsyncFunctionTool: ...
@overload
def contract_async_tool(*, conversation: Conversation | None = None, **options: Unpack[_ToolOptions]
                        ) -> Callable[[AsyncToolFunction], ContractAsyncFunctionTool]: ...
def contract_async_tool(
    func: AsyncToolFunction | None = None, *, conversation: Conversation | None = None,
    **options: Unpack[_ToolOptions],
) -> ContractAsyncFunctionTool | Callable[[AsyncToolFunction], ContractAsyncFunctionTool]:
    """`@beta_async_tool` with the error contract; see `contract_tool`."""
    def make(fn: AsyncToolFunction) -> ContractAsyncFunctionTool:
        if not (inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(getattr(fn, "__wrapped__", None))):
            raise AtlasKitTypeError(f"{getattr(fn, '__name__', fn)!s} is not async: decorate it with @contract_tool instead.")
        return _adopt(beta_async_tool(fn, **options), ContractAsyncFunctionTool, conversation)

    return make(func) if func is not None else make


_Adopted = TypeVar("_Adopted", ContractFunctionTool, ContractAsyncFunctionTool)


def _adopt(tool: object, cls: type[_Adopted], conversation: Conversation | None) -> _Adopted:
    # beta_tool builds the tool (schema from the signature, @contextmanager tools and all); only how it fails
    # changes, so the object becomes the contract subclass in place: still the SDK's own tool type.
    if conversation is not None and not isinstance(conversation, Conversation):
        raise AtlasKitTypeError(f"conversation must be a Conversation, got {type(conversation).__name__}.")
    tool.__class__ = cls
    adopted = cast(_Adopted, tool)
    adopted.conversation = conversation or Conversation()
    return adopted
